"""The observer on a real server: locks and their modes on pre-existing tables, rewrites,
scans, a second session's read and write, lock hold times; firing and quiet pairs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from release_safety.verify.database import Target
from release_safety.verify.observe import Observer, StatementRun

SCHEMA = """
CREATE TABLE users (id int PRIMARY KEY, email text, age int);
INSERT INTO users SELECT i, 'u' || i, i % 90 FROM generate_series(1, 2000) i;
"""


@pytest.fixture
def observer(database: Target) -> Iterator[Observer]:
    conn = database.connect()
    for statement in SCHEMA.strip().split(";\n"):
        conn.run(statement.strip().rstrip(";"))
    conn.close()
    watching = Observer(database)
    watching.snapshot()
    try:
        yield watching
    finally:
        watching.close()


def _one(observer: Observer, sql: str) -> StatementRun:
    (run,) = observer.run_transaction([(1, sql)])
    assert run.error is None
    return run


def test_a_type_change_rewrites_under_an_access_exclusive_lock(observer: Observer) -> None:
    effect = _one(observer, "ALTER TABLE users ALTER COLUMN age TYPE bigint").tables["users"]
    assert (effect.lock, effect.rewrites, effect.scans, effect.locks) == (
        "ACCESS EXCLUSIVE",
        True,
        True,
        True,
    )
    assert (effect.read_blocked, effect.write_blocked) == (True, True)
    assert effect.held_ms > 0


def test_a_nullable_column_is_locked_but_neither_rewritten_nor_scanned(
    observer: Observer,
) -> None:
    effect = _one(observer, "ALTER TABLE users ADD COLUMN note text").tables["users"]
    assert effect.lock == "ACCESS EXCLUSIVE"
    assert (effect.rewrites, effect.scans, effect.locks) == (False, False, False)
    assert (effect.read_blocked, effect.write_blocked) == (True, True)


def test_a_share_lock_blocks_writes_and_lets_reads_through(observer: Observer) -> None:
    effect = _one(observer, "CREATE INDEX users_age ON users (age)").tables["users"]
    assert effect.lock == "SHARE"
    assert (effect.read_blocked, effect.write_blocked) == (False, True)
    assert effect.scans and effect.locks and not effect.rewrites


def test_a_concurrent_index_runs_outside_a_transaction_and_blocks_nobody(
    observer: Observer,
) -> None:
    run = observer.run_outside(1, "CREATE INDEX CONCURRENTLY users_email ON users (email)")
    assert run.error is None and run.outside_transaction
    effect = run.tables["users"]
    assert effect.lock == "SHARE UPDATE EXCLUSIVE"
    assert (effect.read_blocked, effect.write_blocked) == (False, False)
    assert effect.scans and not effect.locks and effect.held_ms == 0


def test_a_lock_is_held_to_the_commit_of_its_transaction(observer: Observer) -> None:
    first, second = observer.run_transaction(
        [(1, "ALTER TABLE users ADD COLUMN note text"), (2, "SELECT pg_sleep(0.05)")]
    )
    assert first.tables["users"].held_ms >= second.end_ms - first.start_ms
    assert second.tables["users"].lock == "ACCESS EXCLUSIVE"  # still held


def test_a_table_created_by_the_release_is_not_reported(observer: Observer) -> None:
    run = _one(observer, "CREATE TABLE fresh (id int)")
    assert run.tables == {} and run.new_tables == {"fresh"}


def test_an_error_stops_the_transaction_and_rolls_it_back(observer: Observer) -> None:
    runs = observer.run_transaction(
        [(1, "ALTER TABLE users ADD COLUMN note text"), (2, "ALTER TABLE missing ADD x int")]
    )
    assert runs[-1].error is not None and "missing" in runs[-1].error
    after = observer.conn.run(
        "SELECT count(*) FROM pg_attribute WHERE attrelid = 'users'::regclass AND attname = 'note'"
    )
    assert after[0][0] == 0


def test_an_index_build_that_could_run_in_parallel_is_still_seen_scanning(
    observer: Observer,
) -> None:
    # A parallel build's workers read the heap and count the reads in their own statistics:
    # the observer runs the migration without workers, so the scan is the backend's.
    observer.conn.run("CREATE TABLE big (id int, v text) WITH (parallel_workers = 2)")
    observer.conn.run("INSERT INTO big SELECT i, md5(i::text) FROM generate_series(1, 200000) i")
    observer.snapshot()
    effect = _one(observer, "CREATE INDEX big_v ON big (v)").tables["big"]
    assert effect.scans and effect.locks and effect.lock == "SHARE"
