"""Findings inside a DO block carry the line of the statement that raises them (release-level),
and an acknowledgement above the block still covers them; an edited shipped migration is cited
at the statement edited."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.git.repository import GitSnapshot
from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.analyse import analyse
from release_safety.surfaces.migrations.find.edits import edited_line

Files = dict[str, str | None]

INIT = "CREATE TABLE users (id int PRIMARY KEY, email text, legacy text);\n"
DO = (
    "SET lock_timeout = '1s';\n"
    "DO $$\n"
    "BEGIN\n"
    "  IF current_setting('app.mode') = 'up' THEN\n"
    "    ALTER TABLE users DROP COLUMN legacy;\n"
    "  END IF;\n"
    "  EXECUTE 'ALTER TABLE users RENAME COLUMN email TO mail';\n"
    "END\n"
    "$$;\n"
)


def _findings(sql: str) -> list[tuple[str, str, int | None]]:
    old = {"migrations/001_init.sql": INIT}
    new = {**old, "migrations/002_do.sql": sql}
    report = analyse(MemorySnapshot(old), MemorySnapshot(new), Settings())
    return [(f.rule, f.severity, f.line) for f in report.findings]


def test_a_do_blocks_findings_are_on_their_statements_lines() -> None:
    assert sorted(_findings(DO)) == [
        ("drop-column", "breaking", 5),
        ("rename-column", "breaking", 7),
    ]


def test_an_acknowledgement_above_the_block_covers_its_statements() -> None:
    acknowledged = DO.replace(
        "DO $$\n",
        "-- release-safety: acknowledge(drop-column): no release since 2.0 reads legacy\nDO $$\n",
    )
    found = _findings(acknowledged)
    assert ("drop-column", "advisory", 6) in found
    assert ("rename-column", "breaking", 8) in found
    assert not [f for f in found if f[0] == "acknowledgement-unused"]


def test_an_edited_shipped_migration_is_cited_at_the_statement_edited(
    release_pair: Callable[[Files, Files], tuple[GitSnapshot, GitSnapshot]],
) -> None:
    shipped = (
        "-- users and their emails\n"
        "CREATE TABLE users (id int PRIMARY KEY);\n"
        "CREATE TABLE emails (\n"
        "  id int PRIMARY KEY,\n"
        "  address text\n"
        ");\n"
    )
    edited = shipped.replace("  address text\n", "  address varchar(200)\n")
    old, new = release_pair(
        {"migrations/001_init.sql": shipped}, {"migrations/001_init.sql": edited}
    )
    report = analyse(old, new, Settings())
    assert [(f.rule, f.line) for f in report.unknown()] == [("shipped-migration-edited", 3)]
    assert edited_line(shipped, shipped.replace("\n", "\r\n"), sql=True) == 1
    assert edited_line("a\nb\n", "a\nc\n", sql=False) == 2
