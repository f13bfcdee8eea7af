"""check-pr shows what a pull request accepts or changes besides its breaks (acknowledgements,
accepted narrowings, overrides added or removed, settings changes), in every output, on real
branches."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

SETTINGS = """\
[rest]
absent = "the worker has no HTTP API at all, only a queue"
[mcp]
absent = "the service exposes no MCP server to agents"
[config]
absent = "configuration lives in the database, edited in the UI"
[deployment]
absent = "operators run the worker from their own manifests; none ship"
"""
INIT = "CREATE TABLE users (id int, legacy_id int);\n"
DROP_REASON = "legacy_id has been unread since 0.9; every supported release ignores it"
ACKNOWLEDGED_DROP = (
    f"-- release-safety: acknowledge(drop-column): {DROP_REASON}\n"
    "ALTER TABLE users DROP COLUMN legacy_id;\n"
)
EXECUTE_REASON = "the function only drops the scratch tables the importer made"
ACKNOWLEDGED_EXECUTE = (
    f"-- release-safety: acknowledge(migration-statement-unknown): {EXECUTE_REASON}\n"
    "DO $$ BEGIN EXECUTE 'DROP TABLE ' || quote_ident(current_setting('app.t')); END $$;\n"
)
OVERRIDES = {"versions": {"1.0.0": {"requiredStop": True, "note": "the 1.0 schema backfill"}}}
OVERRIDES_FILE = "release-safety.overrides.json"


@pytest.fixture
def repo(make_repo: Callable[[str], RepoBuilder]) -> RepoBuilder:
    builder = make_repo("service")
    builder.release("1.0.0", {"db/migrations/001_init.sql": INIT, ".release-safety.toml": SETTINGS})
    return builder


def check(
    repo: RepoBuilder, files: dict[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> tuple[int, Any, str, str]:
    """Commit `files` on a branch off main; the gate's exit code, JSON, text and comment."""
    repo.git("checkout", "-q", "-b", "feature")
    for path, text in files.items():
        repo.write(path, text)
    head = repo.commit("feature")
    args = ["check-pr", "--repo", str(repo.path), "--base", "main", "--head", head]
    comment = tmp_path / "comment.md"
    capsys.readouterr()
    code = run([*args, "--json", "--comment", str(comment)])
    data = json.loads(capsys.readouterr().out)
    assert run([*args, "--format", "text", "--color", "never"]) == code
    return code, data, capsys.readouterr().out, comment.read_text(encoding="utf-8")


def test_an_acknowledgement_the_pull_request_adds_is_listed_everywhere(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    files = {
        "db/migrations/002_drop.sql": ACKNOWLEDGED_DROP,
        "db/migrations/003_scratch.sql": ACKNOWLEDGED_EXECUTE,
    }
    code, data, text, comment = check(repo, files, capsys, tmp_path)
    assert (code, data["passed"]) == (0, True)
    assert [(f["rule"], f["file"], f["line"], f["acknowledged"]) for f in data["acknowledged"]] == [
        (
            "drop-column",
            "db/migrations/002_drop.sql",
            2,
            f"db/migrations/002_drop.sql:1: {DROP_REASON}",
        ),
        (
            "migration-statement-unknown",
            "db/migrations/003_scratch.sql",
            2,
            f"db/migrations/003_scratch.sql:1: {EXECUTE_REASON}",
        ),
    ]
    assert (
        "db/migrations/002_drop.sql:2: acknowledged: DROP COLUMN users.legacy_id (acknowledged at"
        f" db/migrations/002_drop.sql:1: {DROP_REASON}) [drop-column]\n"
    ) in text
    assert "db/migrations/003_scratch.sql:2: acknowledged: runs SQL built at run time" in text
    assert "### Acknowledged in this pull request" in comment
    assert "| `drop-column` | `db/migrations/002_drop.sql:2` |" in comment
    assert f"| {EXECUTE_REASON} |" in comment


def test_a_narrowing_accepted_in_the_settings_is_listed_and_passes(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    reason = "the reporting replica runs PostgreSQL 10 until the 2027 migration of the cluster"
    accepted = f'postgres_version = 10\n{SETTINGS}[[accept]]\nkey = "postgres_version"\n'
    accepted += f'reason = "{reason}"\n'
    code, data, text, comment = check(repo, {".release-safety.toml": accepted}, capsys, tmp_path)
    assert (code, data["passed"], data["uncovered"]) == (0, True, [])
    [narrowed] = data["acknowledged"]
    assert (narrowed["rule"], narrowed["severity"]) == ("settings-narrowed", "advisory")
    assert narrowed["acknowledged"] == f".release-safety.toml:10: {reason}"
    assert (
        ".release-safety.toml:1: acknowledged: key 'postgres_version': 15 -> 10 (accepted at"
        f" .release-safety.toml:10: {reason}) [settings-narrowed]\n"
    ) in text
    assert "note: key 'postgres_version'" not in text  # listed once
    assert "| `settings-narrowed` | `.release-safety.toml:1` |" in comment


def test_overrides_the_pull_request_adds_or_removes_are_listed(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    overrides = {
        "versions": {**OVERRIDES["versions"], "1.0.1": {"minPreviousVersion": "0.9.0"}},
    }
    files = {OVERRIDES_FILE: json.dumps(overrides, indent=2) + "\n"}
    code, data, text, comment = check(repo, files, capsys, tmp_path)
    assert code == 0
    assert [f["message"] for f in data["overrides"]["added"]] == [
        "required stop 1.0.0: the 1.0 schema backfill",
        "upgrade floor 0.9.0 (set at 1.0.1)",
    ]
    assert data["overrides"]["removed"] == []
    assert (
        f"{OVERRIDES_FILE}:3: override: required stop 1.0.0: the 1.0 schema backfill"
        " [upgrade-required-stop] (added)\n"
    ) in text
    assert "### Upgrade overrides in this pull request" in comment
    assert f"- added: `{OVERRIDES_FILE}:3` required stop 1.0.0" in comment


def test_an_override_already_on_main_is_not_listed_and_its_removal_fails(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo.write(OVERRIDES_FILE, json.dumps(OVERRIDES, indent=2) + "\n")
    repo.commit("overrides")
    code, data, _, _ = check(repo, {"README.md": "# service\n"}, capsys, tmp_path)
    assert (code, data["overrides"]) == (0, {"added": [], "removed": []})
    repo.git("checkout", "-q", "main")
    repo.git("branch", "-q", "-D", "feature")
    repo.delete(OVERRIDES_FILE)
    code, data, _, comment = check(repo, {}, capsys, tmp_path)
    assert (code, data["passed"]) == (1, False)
    [removed] = data["overrides"]["removed"]
    assert removed["rule"] == "upgrade-override-removed"
    assert removed["message"] == (
        f"required stop 1.0.0 no longer applies to pr: {OVERRIDES_FILE} was deleted"
    )
    assert f"- ⛔ removed: `{OVERRIDES_FILE}:3` required stop 1.0.0" in comment


def test_a_settings_change_that_only_adds_is_listed_in_the_comment(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wider = 'index_url = "https://example.com/release-safety-index.json"\n' + SETTINGS
    code, data, _, comment = check(repo, {".release-safety.toml": wider}, capsys, tmp_path)
    assert code == 0
    assert [f["rule"] for f in data["settings"]] == ["settings-changed"]
    assert "### Settings changed in this pull request" in comment
    assert "- ℹ️ `.release-safety.toml:1` `settings-changed`: key 'index_url': None -> " in comment
