"""check-pr and settings edits: the head's settings never hide a break, and a narrowing must
be declared, on real branches."""

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
"""
INIT = "CREATE TABLE users (id int, legacy_id int);\n"
DROP = "ALTER TABLE users DROP COLUMN legacy_id;\n"


@pytest.fixture
def repo(make_repo: Callable[[str], RepoBuilder]) -> RepoBuilder:
    builder = make_repo("service")
    builder.release("1.0.0", {"db/migrations/001_init.sql": INIT, ".release-safety.toml": SETTINGS})
    return builder


def check(
    repo: RepoBuilder, files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, Any]:
    """Commit `files` on a branch off main and run the gate on it."""
    repo.git("checkout", "-q", "-b", "feature")
    for path, text in files.items():
        repo.write(path, text)
    head = repo.commit("feature")
    capsys.readouterr()
    args = ["check-pr", "--repo", str(repo.path), "--base", "main", "--head", head, "--json"]
    code = run(args)
    return code, json.loads(capsys.readouterr().out)


def test_pointing_migrations_at_an_empty_folder_does_not_hide_a_drop(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    hiding = SETTINGS + '[[migrations.sources]]\npath = "docs"\n'
    code, result = check(
        repo,
        {
            ".release-safety.toml": hiding,
            "docs/001_readme.sql": "SELECT 1;\n",
            "db/migrations/002_drop.sql": DROP,
        },
        capsys,
    )
    assert (code, result["passed"]) == (1, False)
    uncovered = {(f["rule"], f["file"]) for f in result["uncovered"]}
    assert ("drop-column", "db/migrations/002_drop.sql") in uncovered
    assert ("settings-narrowed", ".release-safety.toml") in uncovered
    assert [f["rule"] for f in result["settings"]] == ["settings-narrowed"]
    assert result["rollingUpdateSafe"] is False


def test_a_narrowing_that_hides_nothing_still_fails_until_declared(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    narrower = "postgres_version = 10\n" + SETTINGS
    code, result = check(repo, {".release-safety.toml": narrower}, capsys)
    assert (code, result["passed"]) == (1, False)
    assert [f["rule"] for f in result["uncovered"]] == ["settings-narrowed"]
    assert result["headline"].startswith("⛔ This pull request narrows what release-safety checks")


def test_a_declared_narrowing_passes_and_the_release_says_why(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    declared = (
        "# release-safety: breaking the servers run PostgreSQL 10 again after the rollback,\n"
        "#   so constant defaults rewrite tables; operators must use Recreate for this one\n"
        "postgres_version = 10\n" + SETTINGS
    )
    code, result = check(repo, {".release-safety.toml": declared}, capsys)
    assert (code, result["passed"]) == (0, True)
    [covered] = result["covered"]
    assert covered["finding"]["rule"] == "settings-narrowed"
    assert covered["declaration"]["file"] == ".release-safety.toml"


def test_a_widening_passes_and_is_reported(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    wider = SETTINGS.replace(
        '[mcp]\nabsent = "the service exposes no MCP server to agents"\n',
        '[mcp]\nsnapshots = ["mcp-tools.json"]\n',
    )
    tools = json.dumps({"schemaVersion": "1", "tools": []})
    code, result = check(repo, {".release-safety.toml": wider, "mcp-tools.json": tools}, capsys)
    assert (code, result["passed"]) == (0, True)
    assert {(f["rule"], f["severity"]) for f in result["settings"]} == {
        ("settings-changed", "advisory")
    }


def test_text_output_lists_the_settings_changes(
    repo: RepoBuilder, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wider = 'index_url = "https://example.com/release-safety-index.json"\n' + SETTINGS
    repo.git("checkout", "-q", "-b", "feature")
    repo.write(".release-safety.toml", wider)
    head = repo.commit("index url")
    capsys.readouterr()
    assert run(["check-pr", "--repo", str(repo.path), "--base", "main", "--head", head]) == 0
    out = capsys.readouterr().out
    assert ".release-safety.toml:1: note: key 'index_url': None -> " in out
