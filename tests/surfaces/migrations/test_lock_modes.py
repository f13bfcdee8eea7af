"""What each LOCK TABLE mode blocks, measured on the suite's PostgreSQL (issue 35 class 3):
old code's reads, writes and row locks tried from a second session while a migration holds the
lock. A mode that blocks any of them sets locksTable for the table (the lock is held to commit)
and is a blocking-table-lock; one that blocks none does not."""

from __future__ import annotations

import psycopg
import pytest

from release_safety.surfaces.migrations.engines.postgres.facts import Lock
from release_safety.surfaces.migrations.lint import analyse_text, findings_of, schema_of
from release_safety.surfaces.migrations.reading import Reading

OLD_CODE = {
    "read": "SELECT * FROM accounts WHERE id = 1",
    "row lock": "SELECT * FROM accounts WHERE id = 1 FOR UPDATE",
    "write": "UPDATE accounts SET name = 'b' WHERE id = 1",
    "insert": "INSERT INTO accounts VALUES (2, 'c')",
}

HISTORY = schema_of("CREATE TABLE accounts (id int PRIMARY KEY, name text);", Reading())


def blocked(dsn: str, mode: Lock) -> set[str]:
    """What old code's statements wait for while a transaction holds `mode` on the table."""
    with psycopg.connect(dsn, autocommit=True) as setup:
        setup.execute("DROP TABLE IF EXISTS accounts")
        setup.execute("CREATE TABLE accounts (id int PRIMARY KEY, name text)")
        setup.execute("INSERT INTO accounts VALUES (1, 'a')")
    out: set[str] = set()
    with psycopg.connect(dsn) as migration, psycopg.connect(dsn) as old:
        migration.execute(f"LOCK TABLE accounts IN {mode.label} MODE")
        old.execute("SET lock_timeout = '100ms'")
        old.commit()
        for what, sql in OLD_CODE.items():
            try:
                old.execute(sql)
            except psycopg.errors.LockNotAvailable:
                out.add(what)
            old.rollback()
        migration.rollback()
    return out


@pytest.mark.parametrize("mode", list(Lock), ids=[mode.label for mode in Lock])
def test_a_lock_mode_that_blocks_old_code_sets_locks_table(pg_dsn: str, mode: Lock) -> None:
    waits = blocked(pg_dsn, mode)
    assert ("read" in waits) == (mode is Lock.ACCESS_EXCLUSIVE)
    assert bool(waits) == mode.blocks_traffic, waits
    sql = f"LOCK TABLE accounts IN {mode.label} MODE;"
    analysis = analyse_text(sql, "m.sql", "sql", Reading(), history=HISTORY)
    assert analysis.locks is mode.blocks_traffic
    fired = [(f.rule, f.line) for f in findings_of(analysis, "m.sql")]
    assert (("blocking-table-lock", 1) in fired) is mode.blocks_traffic
