"""A statement PostgreSQL refuses at its first word is a syntax error with its line and column
(issue 34), worded as PostgreSQL words it; checked on the suite's PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from release_safety.cli.main import run

TEXT = "CREATE TABLE a (id int);\n  SELECT 1; SELEC oops;\n"


def test_postgresql_refuses_the_statement_at_that_word(pg_dsn: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn, pytest.raises(psycopg.Error) as caught:
        conn.execute("SELEC oops")
    assert 'syntax error at or near "SELEC"' in str(caught.value)


def test_a_syntax_error_names_its_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "0001_typo.sql"
    path.write_text(TEXT)
    assert run(["lint-migrations", "--json", str(path)]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["files"][0]["findings"]
    assert finding["rule"] == "migration-statement-unknown" and finding["line"] == 2
    assert finding["message"].startswith('syntax error at or near "SELEC" (line 2, column 13)')
    assert "line 2, column 13" in finding["hint"]


@pytest.mark.parametrize("text", ["SHOW search_path;\n", "VALUES (1);\n", "(SELECT 1);\n"])
def test_statements_postgresql_reads_are_no_syntax_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    path = tmp_path / "0001_fine.sql"
    path.write_text(text)
    run(["lint-migrations", "--json", str(path)])
    findings = json.loads(capsys.readouterr().out)["files"][0]["findings"]
    assert not any("syntax error" in f["message"] for f in findings)
