"""`verify-migrations` and `generate --verify` from the command line: each format, the exit
codes, the evidence with its schema, the notes with the hold times."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from verifying import release_repo, url

from release_safety.cli.main import run
from release_safety.contract.schemas import validate_document
from release_safety.verify.database import Target
from sarif_ingest import github_accepts

FILES = {
    "migrations/0002_age.up.sql": "ALTER TABLE users ALTER COLUMN age TYPE bigint;\n",
    "migrations/0003_note.up.sql": "ALTER TABLE users ADD COLUMN note text;\n",
}


@pytest.fixture
def repo(tmp_path: Path, admin: Target, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RELEASE_SAFETY_DATABASE_URL", url(admin))
    path = release_repo(tmp_path, FILES)
    monkeypatch.chdir(path)
    return path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(["verify-migrations", "--to", "v1.1.0", "--rows", "300", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_a_static_and_an_observed_block_per_table(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "--format", "json")
    assert code == 0
    data = json.loads(out)
    first, second = data["files"]
    (users,) = first["tables"]
    assert users["static"] == {"locksTable": True, "rewritesTable": True, "scansTable": True}
    observed = users["observed"]
    assert observed["rewritesTable"] is True and observed["lock"] == "ACCESS EXCLUSIVE"
    assert observed["lockHeldMs"] > 0 and observed["readBlocked"] is True
    assert second["observed"] == {"locksTable": False, "rewritesTable": False, "scansTable": False}
    assert data["agree"] is True and data["server"] == "scratch"
    assert data["postgresMajor"] >= 13 and data["seeded"] == {"users": 300}


def test_text_shows_each_table_beside_its_static_flags(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys)
    assert code == 0
    assert "migrations/0002_age.up.sql: static lrs, observed lrs" in out
    assert "users  lrs     lrs       ACCESS EXCLUSIVE" in out
    assert out.rstrip().endswith("static and observed agree")


def test_markdown_has_a_mermaid_timeline(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--format", "markdown")
    assert code == 0
    timeline = out[out.index("```mermaid") :]
    assert "gantt" in timeline and "section 0002_age.up.sql" in timeline
    assert "users ACCESS EXCLUSIVE :crit," in timeline


def test_sarif_carries_the_findings(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {**FILES, "migrations/0004_ext.up.sql": "CREATE EXTENSION no_such_thing;\n"}
    monkeypatch.chdir(release_repo(repo.parent / "with-extension", files))
    code, out, _ = _run(capsys, "--format", "sarif")
    assert code == 0
    log = json.loads(out)
    github_accepts(log)
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "unverified" and result["level"] == "warning"
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert ([r["id"] for r in rules], result["ruleIndex"]) == (["unverified"], 0)
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "migrations/0004_ext.up.sql"


def test_a_bad_url_is_one_line_and_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RELEASE_SAFETY_DATABASE_URL", "mysql://root@localhost/x")
    code, out, err = _run(capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--database-url" in err


def test_an_unreachable_server_is_exit_3(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RELEASE_SAFETY_DATABASE_URL", "postgresql://postgres@127.0.0.1:1/x")
    code, _, err = _run(capsys)
    assert code == 3 and "cannot connect to 127.0.0.1:1/x" in err


def test_generate_verify_records_the_observations(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(
        [
            "generate", "--to", "v1.1.0", "--verify", "--rows", "300",
            "--out", "out.json", "--evidence", "evidence.json", "--notes", "notes.md",
        ]
    )  # fmt: skip
    capsys.readouterr()
    assert code == 0
    evidence = json.loads((repo / "evidence.json").read_text())
    validate_document(evidence, "evidence")
    assert evidence["verification"]["files"][0]["tables"][0]["observed"]["rewritesTable"]
    notes = (repo / "notes.md").read_text()
    assert "### Migrations run on PostgreSQL" in notes
    assert "users held ACCESS EXCLUSIVE" in notes


def test_generate_without_verify_writes_no_verification(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["generate", "--to", "v1.1.0", "--out", "-", "--evidence", "e.json"]) == 0
    capsys.readouterr()
    assert "verification" not in json.loads((repo / "e.json").read_text())


def test_a_release_without_migrations_runs_nothing(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RELEASE_SAFETY_DATABASE_URL", "postgresql://postgres@127.0.0.1:1/x")
    monkeypatch.chdir(release_repo(repo.parent / "none", {"README.md": "no migration\n"}))
    code, out, _ = _run(capsys)
    assert code == 0  # the unreachable server was never asked
    assert "1.1.0 (from 1.0.0): the release adds no migration, nothing was run" in out
