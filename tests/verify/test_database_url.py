"""`--database-url`: a scratch database created and dropped; without the privilege to create
one, the given database, used only when it holds nothing and left as found; a database that
holds a table is never written; runs in a row give the same answers."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from verifying import release_repo, url, verify

from release_safety.common.errors import CheckError
from release_safety.contract.verification import Verification
from release_safety.verify.database import Target, own_objects
from release_safety.verify.run import Where

FILES = {
    "migrations/0002_age.up.sql": "ALTER TABLE users ALTER COLUMN age TYPE bigint;\n",
    "migrations/0003_email.up.sql": "CREATE INDEX CONCURRENTLY users_email ON users (email);\n",
}


def _scratch_databases(admin: Target) -> list[str]:
    conn = admin.connect()
    try:
        rows = conn.run(
            "SELECT datname FROM pg_database WHERE datname LIKE 'release_safety_verify_%'"
        )
    finally:
        conn.close()
    return sorted(str(r[0]) for r in rows)


@pytest.fixture
def unprivileged(admin: Target) -> Iterator[tuple[str, Target]]:
    """A role that cannot create databases, owning an empty database of its own."""
    role, name = f"r_{secrets.token_hex(4)}", f"d_{secrets.token_hex(4)}"
    conn = admin.connect()
    conn.run(f"CREATE ROLE {role} LOGIN NOCREATEDB")
    conn.run(f"CREATE DATABASE {name} OWNER {role}")
    try:
        yield role, admin.with_database(name)
    finally:
        conn.run(f"DROP DATABASE {name} WITH (FORCE)")
        conn.run(f"DROP ROLE {role}")
        conn.close()


def _answers(v: Verification) -> Any:
    """Everything but the measured times."""
    data = v.to_json_data()
    for file in data["files"]:
        file["statements"] = [(s["line"], s["sql"], s["error"]) for s in file["statements"]]
        for table in file["tables"]:
            table["observed"].pop("lockHeldMs")
    return data


def test_a_scratch_database_is_created_and_dropped(tmp_path: Path, admin: Target) -> None:
    path = release_repo(tmp_path, FILES)
    v = verify(path, Where(database_url=url(admin)))
    assert v.server == "scratch" and v.agree
    assert _scratch_databases(admin) == []


def test_runs_in_a_row_give_the_same_answers(tmp_path: Path, admin: Target) -> None:
    path = release_repo(tmp_path, FILES)
    where = Where(database_url=url(admin))
    first, second, third = (verify(path, where) for _ in range(3))
    assert _answers(first) == _answers(second) == _answers(third)


def test_without_the_privilege_the_empty_given_database_is_used_and_left_as_found(
    tmp_path: Path, unprivileged: tuple[str, Target]
) -> None:
    role, given = unprivileged
    path = release_repo(tmp_path, FILES)
    v = verify(path, Where(database_url=url(given, user=role)))
    assert v.server == "given" and v.agree
    conn = given.connect()
    try:
        assert own_objects(conn) == []
        schemas = conn.run("SELECT nspname FROM pg_namespace WHERE nspname !~ '^pg_'")
        assert sorted(r[0] for r in schemas) == ["information_schema", "public"]
    finally:
        conn.close()


def test_a_database_holding_a_table_is_never_written(
    tmp_path: Path, unprivileged: tuple[str, Target]
) -> None:
    role, given = unprivileged
    owner = Target(given.host, given.port, role, None, given.database)
    conn = owner.connect()
    conn.run("CREATE TABLE keep (id int)")
    conn.run("INSERT INTO keep VALUES (1), (2)")
    before = own_objects(conn)
    path = release_repo(tmp_path, FILES)
    with pytest.raises(CheckError, match=r"holds table public\.keep"):
        verify(path, Where(database_url=url(given, user=role)))
    assert own_objects(conn) == before
    assert conn.run("SELECT array_agg(id ORDER BY id) FROM keep")[0][0] == [1, 2]
    conn.close()


def test_a_bad_url_is_bad_input() -> None:
    from release_safety.common.errors import InputError
    from release_safety.verify.database import parse_url

    with pytest.raises(InputError, match="scheme 'mysql'"):
        parse_url("mysql://root@localhost/db")
    assert parse_url("postgresql://u:p%40ss@db:6543/app?sslmode=require") == Target(
        "db", 6543, "u", "p@ss", "app", None, True
    )
