"""Every catalogue example runs on a real PostgreSQL; the static analysis must agree with it.

Locks come from pg_locks of the migration's backend before commit, rewrites from
pg_class.relfilenode, scans from the backend's own pg_stat_xact_user_tables counters.
"""

from __future__ import annotations

import psycopg
import pytest
from pgprobe import Probe

from release_safety.settings import Settings
from release_safety.surfaces.migrations.analyse import analyse_text
from release_safety.surfaces.migrations.rules import CATALOGUE, Example
from release_safety.surfaces.migrations.rules.catalogue import SAFE_EXAMPLES
from release_safety.surfaces.migrations.sqlfile import split_sql

CASES: list[tuple[str, Example]] = [
    (f"{entry.id}-{n}", example)
    for entry in CATALOGUE
    for n, example in enumerate(entry.examples)
    if example.pg
] + [(f"safe-{n}", example) for n, example in enumerate(SAFE_EXAMPLES)]


def _flags(locks: object, rewrites: object, scans: object) -> str:
    values = (locks, rewrites, scans)
    return "".join(letter for letter, on in zip("lrs", values, strict=True) if on is True)


def test_enough_statements_are_verified() -> None:
    statements = sum(len(split_sql(example.sql)) for _, example in CASES)
    assert statements >= 150, statements


@pytest.mark.parametrize(("name", "example"), CASES, ids=[name for name, _ in CASES])
def test_postgres_agrees(name: str, example: Example, probe: Probe) -> None:
    settings = Settings(postgres_version=probe.major)
    static = analyse_text(example.sql, f"{name}.sql", "sql", settings)
    if example.heavy == "error":
        with pytest.raises(psycopg.Error):
            probe.run(example.sql)
        assert any(i.rule in (name.rsplit("-", 1)[0],) for i in static.issues), static.issues
        return
    measured = probe.run(example.sql)
    flags_static = _flags(static.locks, static.rewrites, static.scans)
    flags_pg = _flags(measured.locks, measured.rewrites, measured.scans)
    assert flags_pg == example.heavy, (
        f"PostgreSQL did {flags_pg!r}, catalogue says {example.heavy!r}"
    )
    assert flags_static == flags_pg, f"static {flags_static!r} vs PostgreSQL {flags_pg!r}"
    assert "unknown" not in (static.locks, static.rewrites, static.scans)
    assert sorted(measured.tables - set(example.unseen)) == list(example.tables)
    assert static.tables == list(example.tables)
    queue_warned = any(i.rule == "lock-timeout-missing" for i in static.issues)
    sets_timeout = "lock_timeout" in example.sql
    if measured.blocking_lock and not flags_pg and not sets_timeout:
        assert queue_warned, "a traffic-blocking lock without lock_timeout must be reported"
