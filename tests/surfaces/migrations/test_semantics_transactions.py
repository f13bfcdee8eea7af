"""Release-level: old code's compatibility is judged on the state each transaction commits
(knex's `.alter()` drops a default and NOT NULL in one transaction), locks per statement; a
NOT NULL dropped is an advisory naming the readers' risk."""

from __future__ import annotations

from release_safety.contract.reports import MigrationsReport
from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.analyse import analyse

INIT_KNEX = (
    "import { Knex } from 'knex';\n"
    "export async function up(knex: Knex): Promise<void> {\n"
    "  await knex.schema.createTable('users', (t) => {\n"
    "    t.increments('id');\n"
    "    t.integer('score').notNullable().defaultTo(0);\n"
    "    t.string('code', 36).notNullable();\n"
    "  });\n"
    "}\n"
)
INIT_SQL = (
    "CREATE TABLE users (id int PRIMARY KEY, score int NOT NULL DEFAULT 0, code text NOT NULL);\n"
)


def _knex(body: str) -> MigrationsReport:
    old = {"src/database/migrations/20240101120000_init.ts": INIT_KNEX}
    change = (
        "import { Knex } from 'knex';\n"
        "export async function up(knex: Knex): Promise<void> {\n"
        "  await knex.schema.alterTable('users', (t) => {\n"
        f"    {body}\n"
        "  });\n"
        "}\n"
    )
    new = {**old, "src/database/migrations/20240201120000_change.ts": change}
    return analyse(MemorySnapshot(old), MemorySnapshot(new), Settings())


def _sql(sql: str) -> MigrationsReport:
    old = {"migrations/001_init.sql": INIT_SQL}
    new = {**old, "migrations/002_change.sql": sql}
    return analyse(MemorySnapshot(old), MemorySnapshot(new), Settings())


def _rules(report: MigrationsReport) -> tuple[set[str], set[str], set[str]]:
    return (
        {f.rule for f in report.breaking()},
        {f.rule for f in report.unknown()},
        {f.rule for f in report.advisories()},
    )


def test_knex_alter_to_nullable_lets_old_inserts_store_null() -> None:
    breaking, unknown, advisory = _rules(_knex("t.integer('score').nullable().alter();"))
    assert breaking == set()
    assert unknown == set()
    assert {"drop-default", "drop-not-null"} <= advisory


def test_knex_alter_keeping_not_null_and_default_breaks_nothing_old_code_writes() -> None:
    breaking, unknown, advisory = _rules(
        _knex("t.integer('score').notNullable().defaultTo(1).alter();")
    )
    # locks stay per statement: SET NOT NULL after DROP NOT NULL reads every row
    assert breaking == {"blocking-table-lock"}
    assert unknown == set()
    assert not {"drop-default", "drop-not-null", "set-not-null"} & advisory


def test_knex_alter_keeping_not_null_without_default_breaks_old_inserts() -> None:
    breaking, _, _ = _rules(_knex("t.integer('score').notNullable().alter();"))
    assert "drop-default-not-null-column" in breaking
    assert "set-not-null" not in breaking


def test_default_dropped_in_its_own_transaction_breaks_old_inserts() -> None:
    breaking, _, _ = _rules(
        _sql(
            "ALTER TABLE users ALTER COLUMN score DROP DEFAULT;\nCOMMIT;\n"
            "ALTER TABLE users ALTER COLUMN score DROP NOT NULL;\n"
        )
    )
    assert "drop-default-not-null-column" in breaking


def test_drop_not_null_names_the_readers_risk() -> None:
    report = _sql("ALTER TABLE users ALTER COLUMN code DROP NOT NULL;\n")
    (finding,) = [f for f in report.findings if f.rule == "drop-not-null"]
    assert finding.severity == "advisory"
    assert "users.code" in finding.message
    assert finding.line == 1
