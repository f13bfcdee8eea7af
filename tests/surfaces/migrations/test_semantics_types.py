"""Release-level: a type change knex's `.alter()` writes on a column already of that type is
no rewrite, and char(n) -> varchar(m >= n) keeps old code's values."""

from __future__ import annotations

from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.analyse import analyse

INIT = (
    "CREATE TABLE users (id char(36) PRIMARY KEY, age integer NOT NULL DEFAULT 0, code char(8));\n"
)


def _release(sql: str) -> tuple[set[str], set[str]]:
    old = MemorySnapshot({"migrations/001_init.sql": INIT})
    new = MemorySnapshot({"migrations/001_init.sql": INIT, "migrations/002_change.sql": sql})
    report = analyse(old, new, Settings())
    return {f.rule for f in report.breaking()}, {f.rule for f in report.unknown()}


def test_using_the_bare_column_cast_to_its_own_type_is_no_rewrite() -> None:
    sql = 'alter table "users" alter column "age" type integer using ("age"::integer);\n'
    assert _release(sql) == (set(), set())


def test_using_an_expression_still_rewrites() -> None:
    sql = 'alter table "users" alter column "age" type integer using ("age"::integer + 1);\n'
    breaking, _ = _release(sql)
    assert "blocking-table-lock" in breaking


def test_char_to_a_varchar_as_long_keeps_old_values() -> None:
    breaking, unknown = _release("ALTER TABLE users ALTER COLUMN code TYPE varchar(8);\n")
    assert "change-column-type" not in breaking
    assert unknown == set()


def test_char_to_a_shorter_varchar_breaks_old_values() -> None:
    breaking, _ = _release("ALTER TABLE users ALTER COLUMN code TYPE varchar(4);\n")
    assert "change-column-type" in breaking
