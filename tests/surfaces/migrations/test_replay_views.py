"""A replay reads a plain view's query only as far as the schema needs: the view, not its
tables (the query runs when the view is read); a materialized view's query runs at once."""

from __future__ import annotations

from release_safety.surfaces.migrations.lint import schema_of
from release_safety.surfaces.migrations.reading import Reading

TABLE = "CREATE TABLE accounts (id int PRIMARY KEY, name text);\n"
# a query sqlglot cannot read (a WINDOW clause without its window)
UNREAD = "SELECT id FROM accounts WINDOW"


def test_plain_view_replayed_without_its_query_keeps_its_tables_known() -> None:
    schema = schema_of(f"{TABLE}CREATE VIEW recent AS {UNREAD};", Reading())
    accounts = schema.table("accounts")
    assert accounts is not None and accounts.complete
    view = schema.table("recent")
    assert view is not None and view.kind == "view" and not view.complete


def test_materialized_view_query_unread_on_replay_makes_its_tables_unknown() -> None:
    schema = schema_of(f"{TABLE}CREATE MATERIALIZED VIEW recent AS {UNREAD};", Reading())
    assert schema.table("accounts") is None
    assert schema.doubt("recent") is not None
