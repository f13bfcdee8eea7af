"""A replay reads no `CREATE ... AS` query (a view's, a materialized view's, a table's): it
keeps no facts of the statement, and the schema it leaves does not depend on the tables the
query reads. Linted, the same statement's query is read, and unknown when it cannot be."""

from __future__ import annotations

import pytest

from release_safety.surfaces.migrations.lint import analyse_text, schema_of
from release_safety.surfaces.migrations.reading import Reading

TABLE = "CREATE TABLE accounts (id int PRIMARY KEY, name text);\n"
# a query sqlglot cannot read (a WINDOW clause without its window)
UNREAD = "SELECT id FROM accounts WINDOW"
CREATES = [
    ("CREATE VIEW recent AS", "view"),
    ("CREATE MATERIALIZED VIEW recent AS", "matview"),
    ("CREATE TABLE recent AS", "table"),
    ("CREATE TEMPORARY TABLE recent AS", "table"),
]


@pytest.mark.parametrize(("create", "kind"), CREATES)
def test_replayed_query_unread_keeps_its_tables_known(create: str, kind: str) -> None:
    schema = schema_of(f"{TABLE}{create} {UNREAD};", Reading())
    accounts = schema.table("accounts")
    assert accounts is not None and accounts.complete
    created = schema.table("recent")
    assert created is not None and created.kind == kind and not created.complete


@pytest.mark.parametrize("create", [create for create, _ in CREATES])
def test_linted_query_unread_is_unknown(create: str) -> None:
    history = schema_of(TABLE, Reading())
    analysis = analyse_text(f"{create} {UNREAD};", "m.sql", "sql", Reading(), history=history)
    assert analysis.locks == "unknown"
    assert {issue.rule for issue in analysis.issues} == {"migration-statement-unknown"}
