"""A `--` comment ends at `\r` as well as `\n` (issue 35 class 3): PostgreSQL runs what follows
a carriage return, so the lint reads it too; checked on the suite's PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from release_safety.cli.main import run
from release_safety.surfaces.migrations.sql.sqlfile import _statements, split_sql

HIDDEN = "-- a comment\rALTER TABLE users DROP COLUMN email;\n"
QUIET = "-- a comment\r\n-- ALTER TABLE users DROP COLUMN email;\nSELECT 1;\n"


def test_postgresql_runs_what_follows_a_carriage_return(pg_dsn: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS cr_users")
        conn.execute("CREATE TABLE cr_users (id int, email text)")
        conn.execute(HIDDEN.replace("users", "cr_users"))
        columns = conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'cr_users'"
        ).fetchall()
        conn.execute("DROP TABLE cr_users")
    assert columns == [("id",)]


@pytest.mark.parametrize("split", [split_sql, _statements], ids=["splitter", "file"])
def test_a_line_comment_ends_at_a_carriage_return(split: Callable[[str], list[Any]]) -> None:
    assert [s.sql for s in split(HIDDEN)] == ["ALTER TABLE users DROP COLUMN email"]
    assert [s.sql for s in split(QUIET)] == ["SELECT 1"]


def test_a_drop_after_a_carriage_return_is_breaking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "0001_users.sql").write_text("CREATE TABLE users (id int, email text);\n")
    (tmp_path / "0002_hidden.sql").write_bytes(HIDDEN.encode())
    files = [str(tmp_path / "0001_users.sql"), str(tmp_path / "0002_hidden.sql")]
    assert run(["lint-migrations", "--json", *files]) == 1
    report = json.loads(capsys.readouterr().out)["files"][1]
    assert report["tables"] == ["users"]
    assert "drop-column" in {f["rule"] for f in report["findings"]}
