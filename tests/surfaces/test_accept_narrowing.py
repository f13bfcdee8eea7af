"""A narrowing accepted in the settings file with a reason (`[[accept]]`): adopting the tool
or leaving files out costs no release, on real repositories and the real commands."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

MakeRepo = Callable[[str], RepoBuilder]

SPEC = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n"
MCP = json.dumps({"schemaVersion": "1", "tools": []}) + "\n"
COMPOSE = "services:\n  app:\n    image: example/svc:1\n"
MAIL = "services:\n  mail:\n    image: example/mailcatcher:1\n"
REASON = "ops/mail is a mail catcher contributors start; operators deploy compose.yaml only"
ADOPTED = (
    '[config]\nabsent = "configuration lives in the database, edited in the UI"\n'
    '[deployment]\nsources = ["compose.yaml"]\n'
)


def accept(key: str, reason: str) -> str:
    return f'\n[[accept]]\nkey = "{key}"\nreason = "{reason}"\n'


@pytest.fixture
def repo(make_repo: MakeRepo) -> RepoBuilder:
    """A service at 1.0.0 whose default discovery finds two compose files."""
    builder = make_repo("adopt")
    builder.release(
        "1.0.0",
        {
            "openapi.yaml": SPEC,
            "mcp-tools.json": MCP,
            "db/migrations/001.sql": "CREATE TABLE users (id int);\n",
            "compose.yaml": COMPOSE,
            "ops/mail/compose.yaml": MAIL,
        },
    )
    return builder


def generate(repo: RepoBuilder, tmp_path: Path, to: str) -> tuple[int, Any, Any, str]:
    """`generate`'s exit code, artifact, evidence and notes."""
    out, evidence, notes = (tmp_path / f"{to}.{n}" for n in ("json", "evidence.json", "md"))
    args = ["generate", "--repo", str(repo.path), "--to", to, "--out", str(out)]
    code = run([*args, "--evidence", str(evidence), "--notes", str(notes)])
    read = json.loads(out.read_text()), json.loads(evidence.read_text()), notes.read_text()
    return code, *read


def settings_findings(evidence: Any) -> list[tuple[str, str, str | None]]:
    return [
        (f["rule"], f["severity"], f["acknowledged"])
        for f in evidence["findings"]
        if f["surface"] == "settings" and f["rule"] != "settings-changed"
    ]


def test_adopting_with_a_narrowing_accepted_with_a_reason_is_decisive(
    repo: RepoBuilder, tmp_path: Path
) -> None:
    settings = ADOPTED + accept("deployment.sources", REASON)
    repo.release("1.1.0", {".release-safety.toml": settings})
    code, artifact, evidence, notes = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] is True
    [narrowed] = [f for f in evidence["findings"] if f["rule"] == "settings-narrowed"]
    assert narrowed == {
        "rule": "settings-narrowed",
        "severity": "advisory",
        "surface": "settings",
        "file": ".release-safety.toml",
        "line": 4,
        "message": "key 'deployment.sources': discovery found 1.0.0:ops/mail/compose.yaml, "
        "1.1.0:ops/mail/compose.yaml, the new settings do not (accepted at "
        f".release-safety.toml:6: {REASON})",
        "hint": None,
        "acknowledged": f".release-safety.toml:6: {REASON}",
    }
    assert "### Acknowledged by the maintainers" in notes
    assert "| `settings-narrowed` | `.release-safety.toml:4` |" in notes
    assert f"| {REASON} |" in notes


def test_a_hollow_reason_accepts_nothing_and_the_hint_says_why(
    repo: RepoBuilder, tmp_path: Path
) -> None:
    repo.release("1.1.0", {".release-safety.toml": ADOPTED + accept("deployment.sources", "TODO")})
    code, artifact, evidence, _ = generate(repo, tmp_path, "1.1.0")
    assert code == 0
    assert artifact["compatibility"]["rollingUpdateSafe"] == "unknown"
    [narrowed] = [f for f in evidence["because"] if f["rule"] == "settings-narrowed"]
    assert narrowed["severity"] == "unknown" and narrowed["acknowledged"] is None
    assert narrowed["hint"] == (
        "The entry for 'deployment.sources' at .release-safety.toml:6 accepts nothing: its "
        "reason is hollow (shorter than 24 characters); say what the change leaves out and why "
        "no operator relies on it."
    )


def test_without_an_entry_the_hint_is_the_entry_to_write(repo: RepoBuilder, tmp_path: Path) -> None:
    repo.release("1.1.0", {".release-safety.toml": ADOPTED})
    _, artifact, evidence, _ = generate(repo, tmp_path, "1.1.0")
    assert artifact["compatibility"]["rollingUpdateSafe"] == "unknown"
    [narrowed] = [f for f in evidence["because"] if f["rule"] == "settings-narrowed"]
    assert narrowed["hint"] == (
        "If reading less is intended, accept it in .release-safety.toml: [[accept]] "
        'key = "deployment.sources", reason = "<what this leaves out and why no operator '
        'relies on it>"; else keep the entries `deployment.sources` read before beside the new '
        "ones for one more release."
    )


def test_an_entry_accepts_only_in_the_release_that_adds_it(
    repo: RepoBuilder, tmp_path: Path
) -> None:
    settings = ADOPTED + accept("deployment.sources", REASON)
    repo.release("1.1.0", {".release-safety.toml": settings})
    # carried into 1.2.0, which narrows nothing: it accepts nothing, and says so
    repo.release("1.2.0", {"README.md": "# service\n"})
    code, artifact, evidence, _ = generate(repo, tmp_path, "1.2.0")
    assert (code, artifact["compatibility"]["rollingUpdateSafe"]) == (0, True)
    [unused] = [f for f in evidence["findings"] if f["rule"] == "settings-acceptance-unused"]
    assert (unused["severity"], unused["line"]) == ("advisory", 6)
    assert unused["message"] == (
        "the [[accept]] entry for key 'deployment.sources' was written for an earlier release "
        "(it is in the previous settings): it accepts nothing"
    )
    # a later narrowing of the same key is not accepted by the old entry
    narrower = settings.replace('["compose.yaml"]', '[{path = "compose.yaml", kind = "compose"}]')
    repo.release("1.3.0", {".release-safety.toml": narrower})
    _, artifact, evidence, _ = generate(repo, tmp_path, "1.3.0")
    assert artifact["compatibility"]["rollingUpdateSafe"] == "unknown"
    [narrowed] = [f for f in evidence["because"] if f["rule"] == "settings-narrowed"]
    assert narrowed["message"] == "key 'deployment.sources': no longer reads compose.yaml"
    assert narrowed["hint"] == (
        "The entry for 'deployment.sources' at .release-safety.toml:6 is the previous "
        "release's: it accepted that release's narrowing. If this one is intended too, give "
        "the entry a reason that says what this change leaves out."
    )


def test_an_entry_for_a_key_the_release_does_not_narrow_is_an_advisory(
    repo: RepoBuilder, tmp_path: Path
) -> None:
    settings = ADOPTED + accept("deployment.sources", REASON) + accept("rules.off", REASON)
    repo.release("1.1.0", {".release-safety.toml": settings})
    _, artifact, evidence, _ = generate(repo, tmp_path, "1.1.0")
    assert artifact["compatibility"]["rollingUpdateSafe"] is True
    assert settings_findings(evidence) == [
        ("settings-narrowed", "advisory", f".release-safety.toml:6: {REASON}"),
        ("settings-acceptance-unused", "advisory", None),
    ]


def test_an_entry_naming_no_settings_key_is_bad_input(
    repo: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.release("1.1.0", {".release-safety.toml": ADOPTED + accept("deployment", REASON)})
    out = tmp_path / "out.json"
    code = run(["generate", "--repo", str(repo.path), "--to", "1.1.0", "--out", str(out)])
    assert (code, out.exists()) == (2, False)
    err = capsys.readouterr().err.strip()
    assert err == (
        "release-safety: .release-safety.toml at 1.1.0, line 6: key 'accept.0.key': "
        "Value error, 'deployment' names no settings key; name the key the change narrows, "
        "dotted (`deployment.exclude`, `migrations.sources`, `tag_pattern`)"
    )
