"""A trigger that refuses old code's writes (issue 35 class 3), run on the suite's PostgreSQL:
the previous release's schema is created, the migration run, then the previous release's
insert tried. The analysis calls the migration breaking exactly when PostgreSQL refuses it."""

from __future__ import annotations

import psycopg
import pytest

from release_safety.surfaces.migrations.lint import analyse_text, findings_of, schema_of
from release_safety.surfaces.migrations.reading import Reading

PREVIOUS = """
CREATE TABLE accounts (id int PRIMARY KEY, email text);
CREATE FUNCTION accounts_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RETURN NEW;
END $$;
CREATE TRIGGER accounts_guard BEFORE INSERT ON accounts
  FOR EACH ROW EXECUTE FUNCTION accounts_guard();
"""
OLD_INSERT = "INSERT INTO accounts (id) VALUES (1)"
REPLACED = """CREATE OR REPLACE FUNCTION accounts_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.email IS NULL THEN
    RAISE 'email required';
  END IF;
  RETURN NEW;
END $$;"""
NEW_TRIGGER = """CREATE FUNCTION accounts_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RETURN NULL;
END $$;
CREATE TRIGGER accounts_frozen BEFORE INSERT ON accounts
  FOR EACH ROW EXECUTE FUNCTION accounts_frozen();"""
NOTICE_ONLY = """CREATE OR REPLACE FUNCTION accounts_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'inserted %', NEW.id;
  RETURN NEW;
END $$;"""


def old_insert_kept(dsn: str, migration: str) -> bool:
    """Whether the previous release's insert stores its row after the migration."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS accounts CASCADE")
        conn.execute("DROP FUNCTION IF EXISTS accounts_guard, accounts_frozen CASCADE")
        conn.execute(PREVIOUS)
        conn.execute(migration)
        try:
            conn.execute(OLD_INSERT)
        except psycopg.errors.RaiseException:
            return False
        row = conn.execute("SELECT count(*) FROM accounts").fetchone()
        return row is not None and row[0] == 1


@pytest.mark.parametrize(
    ("migration", "refused"),
    [(REPLACED, True), (NEW_TRIGGER, True), (NOTICE_ONLY, False)],
    ids=["function-replaced-raises", "new-trigger-skips-row", "notice-only"],
)
def test_a_trigger_refusing_old_writes_is_breaking(
    pg_dsn: str, migration: str, refused: bool
) -> None:
    assert old_insert_kept(pg_dsn, migration) is not refused
    history = schema_of(PREVIOUS, Reading())
    analysis = analyse_text(migration, "m.sql", "sql", Reading(), history=history)
    fired = {(f.rule, f.severity) for f in findings_of(analysis, "m.sql")}
    assert (("trigger-refuses-writes", "breaking") in fired) is refused
