"""Every migration rule fires on its firing examples and stays quiet on its quiet ones, and
every example runs on the suite's PostgreSQL, whose flags and tables the analysis must equal.

Each example runs on a fresh copy of the fixture schema (`pgprobe.FIXTURE_SQL`); the analysis
sees the same schema, replayed from the same SQL, as the previous release's. Locks come from
pg_locks of the migration's backend before commit, rewrites from pg_class.relfilenode, scans
from the backend's own pg_stat_xact_user_tables counters.
"""

from __future__ import annotations

import pytest
from enginefixtures import on_engine
from pgprobe import FIXTURE_SQL, Probe, ProbeError

from release_safety.surfaces.migrations.engines.postgres.heaviness import FileAnalysis
from release_safety.surfaces.migrations.lint import analyse_text, findings_of, schema_of
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.rules.catalogue import CATALOGUE, SAFE_EXAMPLES, Example
from release_safety.surfaces.migrations.schema.model import Schema
from release_safety.surfaces.migrations.sql.sqlfile import split_sql

RULE_CASES: list[tuple[str, str, Example]] = [
    (f"{entry.id}-{'fires' if example.fires else 'quiet'}-{n}", entry.id, example)
    for entry in CATALOGUE
    for n, example in enumerate(entry.examples)
]
SAFE_CASES = [(f"safe-{n}", example) for n, example in enumerate(SAFE_EXAMPLES)]
_HISTORY: dict[int, Schema] = {}


def history(version: int) -> Schema:
    """The fixture schema as the analysis replays it (once per PostgreSQL version)."""
    if version not in _HISTORY:
        _HISTORY[version] = schema_of(FIXTURE_SQL, Reading(postgres_version=version))
    return _HISTORY[version]


def static(example: Example, version: int) -> FileAnalysis:
    if example.engine != "postgres":
        return on_engine(example.sql, example.engine)
    reading = Reading(postgres_version=version)
    return analyse_text(example.sql, "example.sql", "sql", reading, history=history(version))


def check_on_postgres(example: Example, analysis: FileAnalysis, probe: Probe) -> None:
    """PostgreSQL runs the example and shows the flags and tables the analysis reports (an
    `unknown` example: the analysis does not claim a flag false that PostgreSQL shows)."""
    if example.heavy == "error":
        with pytest.raises(ProbeError):
            probe.run(example.sql)
        return
    measured = probe.run(example.sql)
    shown = measured.letters()
    if example.heavy == "unknown":
        assert "unknown" in (analysis.locks, analysis.rewrites, analysis.scans)
        for letter, flag in zip(
            "lrs", (analysis.locks, analysis.rewrites, analysis.scans), strict=True
        ):
            assert flag is not False or letter not in shown, (letter, shown)
        return
    assert shown == example.heavy, f"PostgreSQL did {shown!r}, the catalogue says {example.heavy!r}"
    assert analysis.letters() == shown, f"static {analysis.letters()!r} vs PostgreSQL {shown!r}"
    assert "unknown" not in (analysis.locks, analysis.rewrites, analysis.scans)
    assert sorted(measured.tables - set(example.unseen)) == list(example.tables)
    assert analysis.tables == list(example.tables)
    warned = any(i.rule == "lock-timeout-missing" for i in analysis.issues)
    if measured.blocking_lock and not shown and "lock_timeout" not in example.sql:
        assert warned, "a traffic-blocking lock without lock_timeout must be reported"


@pytest.mark.parametrize(
    ("name", "rule", "example"), RULE_CASES, ids=[name for name, _, _ in RULE_CASES]
)
def test_rule_fires_or_stays_quiet_and_postgres_agrees(
    name: str, rule: str, example: Example, probe: Probe
) -> None:
    analysis = static(example, probe.major)
    fired = {f.rule for f in findings_of(analysis, "example.sql")}
    assert (rule in fired) == example.fires, sorted(fired)
    if example.pg:
        check_on_postgres(example, analysis, probe)


@pytest.mark.parametrize(("name", "example"), SAFE_CASES, ids=[name for name, _ in SAFE_CASES])
def test_safe_shapes_postgres_agrees(name: str, example: Example, probe: Probe) -> None:
    analysis = static(example, probe.major)
    assert not [f for f in findings_of(analysis, "x.sql") if f.severity != "advisory"]
    check_on_postgres(example, analysis, probe)


def test_every_rule_has_a_firing_and_a_quiet_example_on_postgres() -> None:
    """The pairs cover every SQL rule; the release-level rules are tested on repositories
    (tests/surfaces/migrations/test_migrations_surface.py)."""
    sql_rules = {
        entry.id
        for entry in CATALOGUE
        if not entry.release and any(e.engine == "postgres" for e in entry.examples)
    }
    fires = {rule for _, rule, e in RULE_CASES if e.fires and e.pg}
    quiet = {rule for _, rule, e in RULE_CASES if not e.fires and e.pg}
    assert sql_rules - fires == set()
    assert sql_rules - quiet == set()
    assert {entry.id for entry in CATALOGUE if entry.release} == {
        "shipped-migration-edited",
        "shipped-migration-deleted",
        "migration-not-read",
    }


def test_every_engine_rule_has_a_firing_and_a_quiet_example_on_its_engine() -> None:
    """Rules of another engine's judge are shown firing and quiet on that engine."""
    engine_rules = {
        entry.id: {e.engine for e in entry.examples}
        for entry in CATALOGUE
        if any(e.engine != "postgres" for e in entry.examples)
    }
    assert {
        "mysql-blocks-writes",
        "mysql-table-rebuild",
        "engine-heaviness-unknown",
    } <= set(engine_rules)
    for rule in engine_rules:
        cases = [e for _, r, e in RULE_CASES if r == rule]
        assert {e.fires for e in cases} == {True, False}, rule


def test_enough_statements_are_verified() -> None:
    cases = [e for _, _, e in RULE_CASES if e.pg] + [e for _, e in SAFE_CASES]
    statements = sum(len(split_sql(example.sql)) for example in cases if example.heavy != "error")
    assert statements >= 250, statements
