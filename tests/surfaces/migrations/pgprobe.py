"""Measure a migration on a real PostgreSQL: locks, rewrites, scans and tables it touched.

Each migration runs on a fresh copy of the fixture schema and is observed by the product's own
observer (`release_safety.verify.observe`, the code `verify-migrations` runs): locks from
pg_locks of the migration's backend, rewrites from pg_class.relfilenode, scans from the
statistics counters, statement by statement.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import psycopg

from release_safety.surfaces.migrations.engines.postgres.facts import Lock
from release_safety.surfaces.migrations.sql.sqlfile import split_sql
from release_safety.verify.database import Target
from release_safety.verify.observe import Observer, StatementRun, outside_transaction

FIXTURE_SQL = """
CREATE SCHEMA IF NOT EXISTS legacy;
CREATE TYPE mood AS ENUM ('happy', 'sad');
CREATE TYPE priority AS ENUM ('low', 'high');
CREATE SEQUENCE invoice_numbers;
CREATE FUNCTION full_name(first text, last text) RETURNS text LANGUAGE sql
  AS 'SELECT first || '' '' || last';
CREATE TABLE users (
  id bigint PRIMARY KEY, email text, name varchar(50), age int, status text, mood mood,
  region text, created_at timestamptz NOT NULL DEFAULT now());
INSERT INTO users SELECT i, 'u' || i || '@example.com', 'n' || i, i % 90,
  CASE WHEN i % 3 = 0 THEN NULL ELSE 'active' END, 'happy',
  CASE WHEN i % 2 = 0 THEN 'eu' ELSE 'us' END,
  now() FROM generate_series(1, 1000) i;
CREATE TABLE orders (
  id bigint PRIMARY KEY, user_id bigint NOT NULL, amount numeric(10,2), note text);
INSERT INTO orders SELECT i, i % 1000 + 1, i % 500, CASE WHEN i % 2 = 0 THEN 'n' END
  FROM generate_series(1, 2000) i;
CREATE INDEX orders_user_id_idx ON orders (user_id);
CREATE TABLE events (id bigint, kind text, at date) PARTITION BY RANGE (at);
CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE events_2025 PARTITION OF events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
INSERT INTO events SELECT i, 'k', date '2024-01-01' + (i % 700) FROM generate_series(1, 1000) i;
CREATE TABLE staging (id bigint, kind text, at date);
INSERT INTO staging SELECT i, 'k', date '2026-03-01' FROM generate_series(1, 500) i;
CREATE VIEW active_users AS SELECT id, email FROM users WHERE region = 'eu';
CREATE MATERIALIZED VIEW user_counts AS SELECT region, count(*) AS n FROM users GROUP BY region;
CREATE UNIQUE INDEX user_counts_region ON user_counts (region);
CREATE DOMAIN email_address AS text CHECK (VALUE LIKE '%@%');
CREATE DOMAIN label AS text;
CREATE TABLE contacts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, email email_address, tag label,
  phone text, seen timestamp NOT NULL DEFAULT now(), code varchar(20) NOT NULL,
  score int NOT NULL DEFAULT 0, note text DEFAULT 'none');
INSERT INTO contacts (email, tag, phone, seen, code)
  SELECT 'c' || i || '@example.com', 't', NULL, now(), 'k' || i FROM generate_series(1, 500) i;
ALTER TABLE contacts ADD CONSTRAINT contacts_tag_nn CHECK (tag IS NOT NULL);
CREATE INDEX contacts_seen_idx ON contacts (seen);
CREATE UNIQUE INDEX contacts_code_idx ON contacts (code);
CREATE TABLE logs (id bigint, at date) PARTITION BY RANGE (at);
CREATE TABLE logs_2024 PARTITION OF logs FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE logs_rest PARTITION OF logs DEFAULT;
INSERT INTO logs SELECT i, date '2024-01-01' + (i % 900) FROM generate_series(1, 600) i;
CREATE TABLE members (
  id char(36) PRIMARY KEY, plan text NOT NULL DEFAULT 'free', kind text, nick text DEFAULT 'x',
  CONSTRAINT members_kind_check CHECK (kind IN ('a', 'b', 'c')));
INSERT INTO members SELECT lpad(i::text, 36, '0'), 'free', CASE WHEN i % 2 = 0 THEN 'a' END
  FROM generate_series(1, 300) i;
"""


class ProbeError(Exception):
    """PostgreSQL refused the migration; the message is its error."""


@dataclass
class Measured:
    """What PostgreSQL did: the three flags and the tables, partitions folded into roots."""

    locks: bool = False
    rewrites: bool = False
    scans: bool = False
    tables: set[str] = field(default_factory=set)
    blocking_lock: bool = False

    def letters(self) -> str:
        """The flags that are true, as `l`, `r`, `s`."""
        values = (self.locks, self.rewrites, self.scans)
        return "".join(k for k, v in zip("lrs", values, strict=True) if v)

    def add(self, run: StatementRun) -> None:
        for table, effect in run.tables.items():
            self.tables.add(table)
            self.locks |= effect.locks
            self.rewrites |= effect.rewrites
            self.scans |= effect.scans
            self.blocking_lock |= (
                bool(effect.lock) and Lock[str(effect.lock).replace(" ", "_")].blocks_traffic
            )
        self.tables |= run.new_tables


def _inside_a_block(statements: list[str]) -> bool:
    """Whether a statement that cannot run in a transaction comes after an explicit BEGIN
    before its COMMIT: run as written, PostgreSQL refuses it."""
    open_block = False
    for statement in statements:
        first = statement.split(None, 1)[0].upper() if statement.strip() else ""
        if first in ("BEGIN", "START"):
            open_block = True
        elif first in ("COMMIT", "END", "ROLLBACK", "ABORT"):
            open_block = False
        elif open_block and outside_transaction(statement):
            return True
    return False


def _target(dsn: str) -> Target:
    words = dict(part.split("=", 1) for part in dsn.split())
    return Target(words["host"], int(words["port"]), words["user"], None, words["dbname"])


class Probe:
    """Runs migrations on fresh copies of the fixture schema and measures them."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.observer = Observer(_target(dsn), second_session=False)
        self.counter = 0
        self.statements = 0
        self.major = self.conn.info.server_version // 10000

    def close(self) -> None:
        self.conn.close()
        self.observer.close()

    def run(self, sql: str, setup: str = "", each: bool = False) -> Measured:
        """Run one migration on a fresh schema (the fixture, then `setup`: earlier releases'
        migrations, not measured); return what PostgreSQL did. `each`: every statement in a
        transaction of its own, as a tool runs a file it is told not to wrap in one.
        ProbeError when PostgreSQL refuses it."""
        self.counter += 1
        schema = f"case{self.counter}"
        conn = self.conn
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"SET search_path = {schema}")
        with conn.transaction():
            conn.execute(FIXTURE_SQL)
        if setup:
            with conn.transaction():
                conn.execute(setup)
        try:
            return self.measure(schema, sql, each)
        finally:
            self.observer.conn.run("RESET ALL")
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
            for extra in ("archive", "legacy", "legacy_old", "reporting", "reports"):
                conn.execute(f"DROP SCHEMA IF EXISTS {extra} CASCADE")
            conn.execute("SET search_path = public")

    def measure(self, schema: str, sql: str, each: bool = False) -> Measured:
        """Run one migration on `schema` as it is now and return what PostgreSQL did (`each`:
        see `run`)."""
        observer = self.observer
        observer.conn.run(f"SET search_path = {schema}")
        observer.snapshot()
        try:
            statements = [(s.line, s.sql or "") for s in split_sql(sql)]
        except ValueError:  # PostgreSQL says what is wrong with it
            statements = [(1, sql)]
        self.statements += len(statements)
        texts = [text for _, text in statements]
        runs: list[StatementRun] = []
        if _inside_a_block(texts) or not (each or any(outside_transaction(text) for text in texts)):
            runs = observer.run_transaction(statements)
        else:
            for line, text in statements:
                if outside_transaction(text):
                    runs.append(observer.run_outside(line, text))
                else:
                    runs.extend(observer.run_transaction([(line, text)]))
                if runs and runs[-1].error:
                    break
        measured = Measured()
        for run in runs:
            if run.error:
                raise ProbeError(run.error)
            measured.add(run)
        return measured
