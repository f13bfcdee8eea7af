"""`release-safety lint-migrations` end to end, through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from release_safety.cli import run


def test_breaking_file_exits_1_with_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "001_drop.sql"
    path.write_text("SET lock_timeout = '1s';\nALTER TABLE users DROP COLUMN age;\n")
    assert run(["lint-migrations", "--json", str(path)]) == 1
    data = json.loads(capsys.readouterr().out)
    (report,) = data["files"]
    assert report["tables"] == ["users"]
    assert report["heaviness"] == {"locksTable": False, "rewritesTable": False, "scansTable": False}
    assert [(f["rule"], f["line"]) for f in report["findings"]] == [("drop-column", 2)]


def test_safe_file_exits_0_and_version_matters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "002_add.sql"
    path.write_text(
        "SET lock_timeout = '1s';\nALTER TABLE users ADD COLUMN enabled boolean DEFAULT true;\n"
    )
    assert run(["lint-migrations", str(path)]) == 0
    assert "rewritesTable=false" in capsys.readouterr().out
    # before PostgreSQL 11 a constant default rewrites the table under ACCESS EXCLUSIVE
    assert run(["lint-migrations", "--postgres-version", "10", str(path)]) == 1
    out = capsys.readouterr().out
    assert "rewritesTable=true" in out and "breaking blocking-table-lock" in out


def test_missing_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["lint-migrations", "--json", str(tmp_path / "nope.sql")]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["exitCode"] == 2


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT " + "(" * 5000 + "1" + ")" * 5000 + ";\n",
        "UPDATE users SET age = " + "(" * 5000 + "1" + ")" * 5000 + ";\n",
    ],
)
def test_deep_nesting_is_an_unknown_statement_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], statement: str
) -> None:
    path = tmp_path / "003_deep.sql"
    path.write_text(statement)
    assert run(["lint-migrations", "--json", str(path)]) == 1
    (report,) = json.loads(capsys.readouterr().out)["files"]
    assert [(f["rule"], f["severity"]) for f in report["findings"]] == [
        ("migration-statement-unknown", "unknown")
    ]
    assert "nested more than" in report["findings"][0]["message"]
