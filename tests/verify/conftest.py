"""The verify tests' PostgreSQL: the product's throwaway server, once per session, and a fresh
database on it per test."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from release_safety.common.errors import CheckError
from release_safety.verify.database import Target, of_server
from release_safety.verify.server import Server, throwaway_server


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    try:
        with throwaway_server() as started:
            yield started
    except CheckError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture
def admin(server: Server) -> Target:
    """The server's `postgres` database, as its superuser."""
    return of_server(server)


@pytest.fixture
def database(admin: Target) -> Iterator[Target]:
    """A fresh empty database, dropped after the test."""
    name = f"t_{secrets.token_hex(4)}"
    conn = admin.connect()
    conn.run(f'CREATE DATABASE "{name}"')
    try:
        yield admin.with_database(name)
    finally:
        conn.run(f'DROP DATABASE "{name}" WITH (FORCE)')
        conn.close()
