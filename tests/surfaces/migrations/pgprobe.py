"""Measure a migration on a real PostgreSQL: locks, rewrites, scans and tables it touched.

Each migration runs on a fresh copy of the fixture schema. In a transaction, locks come from
pg_locks of the migration's own backend before commit, rewrites from pg_class.relfilenode and
scans from the backend's pg_stat_xact_user_tables counters, statement by statement. A statement
that cannot run in a transaction is observed while it waits behind a SHARE UPDATE EXCLUSIVE
holder, its scans from the flushed cumulative statistics.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import psycopg
import pytest

from release_safety.surfaces.migrations.engines.postgres.facts import Lock
from release_safety.surfaces.migrations.sql.sqlfile import split_sql

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
_RELATIONS = """
SELECT c.oid::int, c.relname, c.relkind::text, c.relfilenode::int,
       coalesce(pg_partition_root(c.oid), c.oid)::int
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = %s AND c.relkind IN ('r', 'p', 'm', 'v', 'f')
"""
_STATS = """
SELECT relid::int, seq_scan, seq_tup_read, coalesce(idx_tup_fetch, 0), n_tup_upd + n_tup_del
FROM {view} WHERE relid = ANY(%s)
"""
_NEW_RELATIONS = """
SELECT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE l.pid = %s AND l.locktype = 'relation' AND c.relkind IN ('r', 'p', 'm', 'v', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND NOT (c.oid = ANY(%s))
"""
_LOCKS = """
SELECT relation::int, mode, granted FROM pg_locks
WHERE pid = %s AND locktype = 'relation' AND relation IS NOT NULL
"""


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


def _outside_transaction(sql: str) -> bool:
    upper = sql.upper()
    concurrently = "CONCURRENTLY" in upper and not upper.startswith("REFRESH")
    return concurrently or upper.startswith("VACUUM")


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
        elif open_block and _outside_transaction(statement):
            return True
    return False


class Probe:
    """Runs migrations on fresh copies of the fixture schema and measures them."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.conn = psycopg.connect(dsn)
        self.blocker = psycopg.connect(dsn)
        self.reader = psycopg.connect(dsn, autocommit=True)
        self.counter = 0
        self.statements = 0
        self.major = self.conn.info.server_version // 10000

    def close(self) -> None:
        for conn in (self.conn, self.blocker, self.reader):
            conn.close()

    def run(self, sql: str, setup: str = "", each: bool = False) -> Measured:
        """Run one migration on a fresh schema (the fixture, then `setup`: earlier releases'
        migrations, not measured); return what PostgreSQL did. `each`: every statement in a
        transaction of its own, as a tool runs a file it is told not to wrap in one."""
        self.counter += 1
        schema = f"case{self.counter}"
        conn = self.conn
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"SET search_path = {schema}")
        conn.execute(FIXTURE_SQL)
        conn.commit()
        if setup:
            conn.execute(setup)
            conn.commit()
        try:
            return self.measure(schema, sql, each)
        finally:
            conn.rollback()
            conn.autocommit = True
            conn.execute("RESET ALL")
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
            for extra in ("archive", "legacy", "legacy_old", "reporting", "reports"):
                conn.execute(f"DROP SCHEMA IF EXISTS {extra} CASCADE")
            conn.execute("SET search_path = public")
            conn.autocommit = False

    def measure(self, schema: str, sql: str, each: bool = False) -> Measured:
        """Run one migration on `schema` as it is now (the search path set to it) and return
        what PostgreSQL did (`each`: see `run`); the caller commits or rolls back what it left
        open."""
        conn = self.conn
        relations = conn.execute(_RELATIONS, [schema]).fetchall()
        rows = {
            oid: self._count(schema, name) for oid, name, kind, _, _ in relations if kind in "rm"
        }
        conn.commit()
        try:
            statements = [s.sql or "" for s in split_sql(sql)]
        except ValueError:  # PostgreSQL says what is wrong with it
            statements = [sql]
        self.statements += len(statements)
        if _inside_a_block(statements):  # one transaction, as the script asks: it fails
            return self._run_transaction(statements, relations, rows, sql)
        if each or any(_outside_transaction(s) for s in statements):
            return self._run_each(schema, statements, relations, rows, sql)
        return self._run_transaction(statements, relations, rows, sql)

    def _count(self, schema: str, name: str) -> int:
        row = self.conn.execute(f'SELECT count(*) FROM {schema}."{name}"').fetchone()
        return int(row[0]) if row else 0

    def _roots(self, relations: list[tuple[int, str, str, int, int]], sql: str) -> dict[int, str]:
        """Each pre-existing relation's reported name: its partition root unless named."""
        names = {oid: name for oid, name, _, _, _ in relations}
        words = {w.strip("(),;").lower() for w in sql.split()}
        return {oid: name if name in words else names[root] for oid, name, _, _, root in relations}

    def _work(
        self,
        before: dict[int, tuple[int, ...]],
        after: dict[int, tuple[int, ...]],
        rows: dict[int, int],
        rewritten: set[int],
    ) -> set[int]:
        work: set[int] = set(rewritten)
        for oid, (seq, seq_read, idx_fetch, changed) in after.items():
            b_seq, b_read, b_fetch, b_changed = before.get(oid, (0, 0, 0, 0))
            n = rows.get(oid, 0)
            full = [seq_read - b_read, idx_fetch - b_fetch, changed - b_changed]
            if (n and any(d >= n for d in full)) or (not n and seq > b_seq):
                work.add(oid)
        return work

    def _stats(
        self, conn: psycopg.Connection, view: str, oids: list[int]
    ) -> dict[int, tuple[int, ...]]:
        rows = conn.execute(_STATS.format(view=view), [oids]).fetchall()
        return {r[0]: tuple(int(v or 0) for v in r[1:]) for r in rows}

    def _filenodes(self, conn: psycopg.Connection, oids: list[int]) -> dict[int, tuple[int, int]]:
        rows = conn.execute(
            "SELECT oid::int, relfilenode::int, pg_relation_size(oid) FROM pg_class "
            "WHERE oid = ANY(%s)",
            [oids],
        ).fetchall()
        return {r[0]: (int(r[1]), int(r[2])) for r in rows}

    def _run_transaction(
        self,
        statements: list[str],
        relations: list[tuple[int, str, str, int, int]],
        rows: dict[int, int],
        sql: str,
    ) -> Measured:
        conn = self.conn
        roots = self._roots(relations, sql)
        oids = list(roots)
        pid = conn.info.backend_pid
        measured = Measured()
        for statement in statements:
            head = statement.split(None, 1)[0].upper() if statement.strip() else ""
            if head in ("COMMIT", "END"):
                conn.commit()
                continue
            if head in ("BEGIN", "START"):
                continue
            before = self._stats(conn, "pg_stat_xact_user_tables", oids)
            nodes = self._filenodes(conn, oids)
            conn.execute(statement)
            after = self._stats(conn, "pg_stat_xact_user_tables", oids)
            nodes_after = self._filenodes(conn, oids)
            rewritten = {
                oid
                for oid, (node, size) in nodes_after.items()
                if node and node != nodes[oid][0] and size > 0
            }
            locks = conn.execute(_LOCKS, [pid]).fetchall()
            new = conn.execute(_NEW_RELATIONS, [pid, oids]).fetchall()
            self._fold(
                measured, roots, locks, new, self._work(before, after, rows, rewritten), rewritten
            )
            if head == "LOCK" or "PG_SLEEP" in statement.upper():  # held on purpose, or waited on
                measured.locks |= any(
                    oid in roots and Lock.from_pg(mode).blocks_traffic for oid, mode, _ in locks
                )
        return measured

    def _fold(
        self,
        measured: Measured,
        roots: dict[int, str],
        locks: list[tuple[int, str, bool]],
        new: list[tuple[str]],
        work: set[int],
        rewritten: set[int],
    ) -> None:
        strong = {
            roots[oid]
            for oid, mode, _ in locks
            if oid in roots and Lock.from_pg(mode).blocks_traffic
        }
        measured.blocking_lock |= bool(strong)
        measured.tables |= {roots[oid] for oid, _, _ in locks if oid in roots}
        measured.tables |= {name for (name,) in new}
        worked = {roots[oid] for oid in work}
        measured.rewrites |= bool(rewritten)
        measured.scans |= bool(worked)
        measured.locks |= bool(worked & strong)

    def _run_each(
        self,
        schema: str,
        statements: list[str],
        relations: list[tuple[int, str, str, int, int]],
        rows: dict[int, int],
        sql: str,
    ) -> Measured:
        measured = Measured()
        for statement in statements:
            if _outside_transaction(statement):
                self._run_outside(schema, statement, relations, rows, sql, measured)
            else:
                part = self._run_transaction([statement], relations, rows, sql)
                self.conn.commit()
                measured.locks |= part.locks
                measured.rewrites |= part.rewrites
                measured.scans |= part.scans
                measured.tables |= part.tables
                measured.blocking_lock |= part.blocking_lock
        return measured

    def _run_outside(
        self,
        schema: str,
        statement: str,
        relations: list[tuple[int, str, str, int, int]],
        rows: dict[int, int],
        sql: str,
        measured: Measured,
    ) -> None:
        """A statement that cannot run in a transaction: its locks are seen while it waits
        behind a SHARE UPDATE EXCLUSIVE holder (every such statement asks for that lock or a
        stronger one, and must wait), its scans in
        the flushed cumulative statistics."""
        roots = self._roots(relations, sql)
        oids = list(roots)
        tables = [name for _, name, kind, _, _ in relations if kind in "rp"]
        runner = psycopg.connect(self.dsn, autocommit=True)
        try:
            runner.execute(f"SET search_path = {schema}")
            runner.execute("SELECT pg_stat_force_next_flush()")
            self.reader.execute("SELECT pg_stat_clear_snapshot()")
            before = self._stats(self.reader, "pg_stat_user_tables", oids)
            nodes = self._filenodes(self.reader, oids)
            self.blocker.execute(f"SET search_path = {schema}")
            self.blocker.execute(f"LOCK TABLE {', '.join(tables)} IN SHARE UPDATE EXCLUSIVE MODE")
            errors: list[BaseException] = []

            def work() -> None:
                try:
                    runner.execute(statement)
                    runner.execute("SELECT pg_stat_force_next_flush()")
                except BaseException as exc:  # reported by the caller
                    errors.append(exc)

            thread = threading.Thread(target=work)
            thread.start()
            pid = runner.info.backend_pid
            locks: list[tuple[int, str, bool]] = []
            deadline = time.monotonic() + 20
            while thread.is_alive() and time.monotonic() < deadline:
                held = self.reader.execute(
                    "SELECT relation::int, mode, granted FROM pg_locks WHERE pid = %s", [pid]
                ).fetchall()
                if any(not granted for _, _, granted in held):
                    locks = [(r, m, g) for r, m, g in held if r is not None]
                    break
                time.sleep(0.01)
            self.blocker.rollback()
            thread.join()
            if errors:
                raise errors[0]
            if not locks:
                pytest.fail(f"could not observe the locks of {statement!r}")
            time.sleep(0.05)
            self.reader.execute("SELECT pg_stat_clear_snapshot()")
            after = self._stats(self.reader, "pg_stat_user_tables", oids)
            nodes_after = self._filenodes(self.reader, oids)
        finally:
            runner.close()
        rewritten = {
            oid
            for oid, (node, size) in nodes_after.items()
            if node and node != nodes[oid][0] and size > 0
        }
        work_done = self._work(before, after, rows, rewritten)
        self._fold(measured, roots, locks, [], work_done, rewritten)
