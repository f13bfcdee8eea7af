"""Where the migrations run: a database on the throwaway server, or on the server a
`--database-url` names (a CI service container).

On a given server the tool works in a scratch database it creates and drops at the end; without
the privilege to create one, in the given database itself, which must hold nothing of its own
(no table, view, sequence, type, function or extension beyond plpgsql) and is left as it was
found: every schema, extension and object the run created is dropped. A database that holds a
table is refused before anything is written to it.

The driver is pg8000 (BSD-3-Clause, pure Python): the product depends on nothing under the
(L)GPL.
"""

from __future__ import annotations

import contextlib
import secrets
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol, cast
from urllib.parse import parse_qs, unquote, urlsplit

import pg8000.native

from release_safety.common.errors import CheckError, InputError
from release_safety.verify.server import Server

DatabaseError: type[Exception] = pg8000.native.DatabaseError
InterfaceError: type[Exception] = pg8000.native.InterfaceError


class Connection(Protocol):
    """One session (pg8000's native connection): each `run` its own transaction unless a
    BEGIN is open; parameters by name (`:name`)."""

    def run(self, sql: str, **params: Any) -> list[list[Any]]: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Target:
    """How to connect to one database."""

    host: str | None
    port: int
    user: str
    password: str | None
    database: str
    unix_sock: str | None = None
    tls: bool = False

    def with_database(self, name: str) -> Target:
        return Target(
            self.host, self.port, self.user, self.password, name, self.unix_sock, self.tls
        )

    def connect(self, application: str = "release-safety verify") -> Connection:
        """A new session (autocommit: each statement its own transaction unless BEGIN)."""
        try:
            connection = pg8000.native.Connection(
                self.user,
                host=self.host if self.unix_sock is None else None,
                unix_sock=self.unix_sock,
                database=self.database,
                port=self.port,
                password=self.password,
                ssl_context=ssl.create_default_context() if self.tls else None,
                application_name=application,
                timeout=None,
            )
        except (InterfaceError, DatabaseError, OSError) as exc:
            raise CheckError(f"cannot connect to {self.describe()}: {_message(exc)}") from None
        session = cast(Connection, connection)
        with contextlib.suppress(DatabaseError):  # before 14 there is no such setting
            # A backend whose client died (a SIGKILL) stops its statement within a second.
            session.run("SET client_connection_check_interval = 1000")
        return session

    def describe(self) -> str:
        """host:port/database, never the password."""
        return f"{self.host or self.unix_sock}:{self.port}/{self.database}"


def _message(exc: BaseException) -> str:
    """A driver error in one line: PostgreSQL's message when it sent one."""
    if exc.args and isinstance(exc.args[0], dict):
        fields = exc.args[0]
        return str(fields.get("M", exc))
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def message_of(exc: BaseException) -> str:
    """What PostgreSQL (or the driver) said, in one line."""
    return _message(exc)


def sqlstate_of(exc: BaseException) -> str | None:
    if exc.args and isinstance(exc.args[0], dict):
        return str(exc.args[0].get("C")) or None
    return None


def parse_url(url: str) -> Target:
    """`postgresql://user:password@host:port/database?sslmode=require`; InputError naming what
    is wrong."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise InputError(f"--database-url: scheme {parts.scheme!r} is not postgresql://")
    query = parse_qs(parts.query)
    try:
        port = parts.port or 5432
    except ValueError:
        raise InputError("--database-url: the port is not a number") from None
    database = unquote(parts.path.lstrip("/")) or "postgres"
    socket_dir = query.get("host", [None])[0]
    host = parts.hostname or (None if socket_dir else "localhost")
    unix_sock = f"{socket_dir}/.s.PGSQL.{port}" if socket_dir and not parts.hostname else None
    return Target(
        host=host,
        port=port,
        user=unquote(parts.username or "postgres"),
        password=unquote(parts.password) if parts.password is not None else None,
        database=database,
        unix_sock=unix_sock,
        tls=query.get("sslmode", ["disable"])[0] in ("require", "verify-ca", "verify-full"),
    )


def of_server(server: Server) -> Target:
    return Target(server.host, server.port, "postgres", None, "postgres")


# What a database holds of its own: a database holding any of it is never written to.
_OWN_OBJECTS = """
SELECT 'table ' || n.nspname || '.' || c.relname FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
    AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
UNION ALL
SELECT 'type ' || n.nspname || '.' || t.typname FROM pg_type t
  JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
    AND t.typtype IN ('e', 'd', 'c', 'r') AND (t.typrelid = 0 OR t.typtype <> 'c')
UNION ALL
SELECT 'function ' || n.nspname || '.' || p.proname FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
UNION ALL
SELECT 'extension ' || extname FROM pg_extension WHERE extname <> 'plpgsql'
"""
_SCHEMAS = """
SELECT nspname FROM pg_namespace
WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND nspname NOT LIKE 'pg_temp_%' AND nspname NOT LIKE 'pg_toast_temp_%'
"""


def own_objects(conn: Connection) -> list[str]:
    """What the connected database holds of its own, sorted."""
    return sorted(str(row[0]) for row in conn.run(_OWN_OBJECTS))


@dataclass(frozen=True)
class Workspace:
    """The database the run works in, and how it got it (`scratch`: created and dropped by the
    tool; `given`: the given empty database, cleaned back to how it was)."""

    target: Target
    how: Literal["scratch", "given"]
    major: int


def server_major(conn: Connection) -> int:
    rows = conn.run("SHOW server_version_num")
    return int(rows[0][0]) // 10000


@contextlib.contextmanager
def workspace(target: Target) -> Iterator[Workspace]:
    """A database to run the release in on the server `target` points at: a scratch one
    created there (dropped at the end), else `target`'s own database when it is empty (left as
    found). CheckError when neither is possible."""
    admin = target.connect()
    try:
        major = server_major(admin)
        _sweep(admin, major)
        name = f"release_safety_verify_{secrets.token_hex(6)}"
        try:
            admin.run(f'CREATE DATABASE "{name}" TEMPLATE template0')
        except DatabaseError as exc:
            if sqlstate_of(exc) != "42501":  # insufficient privilege: work in the given one
                raise CheckError(f"cannot create a scratch database: {_message(exc)}") from None
            with _given(admin, target) as given:
                yield Workspace(given, "given", major)
            return
        try:
            yield Workspace(target.with_database(name), "scratch", major)
        finally:
            _drop(admin, name, major)
    finally:
        admin.close()


def _sweep(admin: Connection, major: int) -> None:
    """Drop the scratch databases of runs that were killed (SIGKILL) before their cleanup: no
    session is connected to them (a running one's always is)."""
    rows = admin.run(
        "SELECT datname FROM pg_database d WHERE datname LIKE 'release\\_safety\\_verify\\_%' "
        "AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)"
    )
    for (name,) in rows:
        with contextlib.suppress(DatabaseError):
            _drop(admin, str(name), major)


def _drop(admin: Connection, name: str, major: int) -> None:
    force = " WITH (FORCE)" if major >= 13 else ""
    if major < 13:
        admin.run(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :name",
            name=name,
        )
    admin.run(f'DROP DATABASE IF EXISTS "{name}"{force}')


@contextlib.contextmanager
def _given(admin: Connection, target: Target) -> Iterator[Target]:
    held = own_objects(admin)
    if held:
        more = f" (and {len(held) - 3} more)" if len(held) > 3 else ""
        raise CheckError(
            f"--database-url: cannot create a scratch database there, and {target.database} "
            f"holds {', '.join(held[:3])}{more}: the tool writes only to an empty database"
        )
    schemas = {str(row[0]) for row in admin.run(_SCHEMAS)}
    try:
        yield target
    finally:
        clean(admin, schemas)


def clean(conn: Connection, schemas: set[str]) -> None:
    """Drop what a run created in a database that held nothing of its own: new schemas, new
    extensions, and every object in the schemas that were there."""
    for (name,) in conn.run(_SCHEMAS):
        if name not in schemas:
            conn.run(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    for (name,) in conn.run("SELECT extname FROM pg_extension WHERE extname <> 'plpgsql'"):
        conn.run(f'DROP EXTENSION IF EXISTS "{name}" CASCADE')
    for schema in sorted(schemas):
        _empty(conn, schema)


def _empty(conn: Connection, schema: str) -> None:
    rows = conn.run(
        "SELECT c.relname, c.relkind::text FROM pg_class c JOIN pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname = :s AND c.relkind IN "
        "('r', 'p', 'v', 'm', 'f', 'S')",
        s=schema,
    )
    kinds = {"v": "VIEW", "m": "MATERIALIZED VIEW", "f": "FOREIGN TABLE", "S": "SEQUENCE"}
    for name, kind in rows:
        conn.run(f'DROP {kinds.get(kind, "TABLE")} IF EXISTS "{schema}"."{name}" CASCADE')
    for (signature,) in conn.run(
        "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n "
        "ON n.oid = p.pronamespace WHERE n.nspname = :s",
        s=schema,
    ):
        conn.run(f"DROP ROUTINE IF EXISTS {signature} CASCADE")
    for (name,) in conn.run(
        "SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
        "WHERE n.nspname = :s AND t.typtype IN ('e', 'd', 'r', 'c') AND "
        "(t.typtype <> 'c' OR t.typrelid = 0 OR NOT EXISTS "
        "(SELECT 1 FROM pg_class c WHERE c.oid = t.typrelid AND c.relkind <> 'c'))",
        s=schema,
    ):
        conn.run(f'DROP TYPE IF EXISTS "{schema}"."{name}" CASCADE')
