"""The previous release's schema, built by running its migrations as their tools do: each file
in one transaction, or statement by statement when it cannot be (a CONCURRENTLY, a file its
markers keep out of one). A file that fails is rolled back and named; the ones after it still
run (the schema they build is then what verification stands on, and the report says so)."""

from __future__ import annotations

from collections.abc import Sequence

from release_safety.verify.database import Connection, DatabaseError, message_of
from release_safety.verify.plan import FileRun


def run_file(conn: Connection, file: FileRun) -> str | None:
    """Run one file unobserved; None when it ran, else why not (`line N: message`)."""
    if file.unrunnable is not None:
        return file.unrunnable
    if not file.one_transaction:
        for line, sql in file.statements:
            try:
                conn.run(sql)
            except DatabaseError as exc:
                return f"line {line}: {message_of(exc)}"
        return None
    conn.run("BEGIN")
    for line, sql in file.statements:
        head = sql.split(None, 1)[0].upper() if sql.strip() else ""
        if head in ("BEGIN", "START"):
            continue
        if head in ("COMMIT", "END"):
            conn.run("COMMIT")
            conn.run("BEGIN")
            continue
        try:
            conn.run(sql)
        except DatabaseError as exc:
            conn.run("ROLLBACK")
            return f"line {line}: {message_of(exc)}"
    conn.run("COMMIT")
    return None


BOOKKEEPING = {
    "golang-migrate": "CREATE TABLE IF NOT EXISTS schema_migrations "
    "(version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL)",
    "dbmate": "CREATE TABLE IF NOT EXISTS schema_migrations (version varchar(128) PRIMARY KEY)",
    "goose": "CREATE TABLE IF NOT EXISTS goose_db_version (id serial PRIMARY KEY, "
    "version_id bigint NOT NULL, is_applied boolean NOT NULL, tstamp timestamp DEFAULT now())",
    "popx": "CREATE TABLE IF NOT EXISTS schema_migration "
    "(version varchar(48) NOT NULL, version_self int NOT NULL DEFAULT 0)",
    "knex": "CREATE TABLE IF NOT EXISTS knex_migrations (id serial PRIMARY KEY, "
    "name varchar(255), batch int, migration_time timestamptz)",
    "sqlx": "CREATE TABLE IF NOT EXISTS _sqlx_migrations (version bigint PRIMARY KEY, "
    "description text NOT NULL, installed_on timestamptz NOT NULL DEFAULT now(), "
    "success boolean NOT NULL, checksum bytea NOT NULL, execution_time bigint NOT NULL)",
    "diesel": "CREATE TABLE IF NOT EXISTS __diesel_schema_migrations "
    "(version varchar(50) PRIMARY KEY NOT NULL, run_on timestamp NOT NULL DEFAULT now())",
}
"""The table each tool keeps its own history in, as it creates it before the first migration
(a migration may read or alter it: harbor's 2.0.0 adds a column to `schema_migrations`)."""


def replay(conn: Connection, tool: str, files: Sequence[FileRun]) -> list[str]:
    """Create the tool's history table, then run the previous release's files in order; the
    problems, one line per file that did not run."""
    if tool in BOOKKEEPING:
        conn.run(BOOKKEEPING[tool])
    problems = []
    for file in files:
        reason = run_file(conn, file)
        if reason is not None:
            problems.append(f"{file.path}: {reason}")
    return problems
