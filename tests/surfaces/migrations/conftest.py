"""The session's PostgreSQL server (`pgserver.py`) and the probe that measures migrations on it.

Missing PostgreSQL binaries fail the tests: the heaviness rules are only trusted when PostgreSQL
agrees.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from pgprobe import Probe
from pgserver import ServerError, pg_server


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    """Start a throwaway PostgreSQL cluster; yield its connection string."""
    with ExitStack() as stack:
        try:
            dsn = stack.enter_context(pg_server())
        except ServerError as exc:
            pytest.fail(str(exc), pytrace=False)
        yield dsn


@pytest.fixture(scope="session")
def probe(pg_dsn: str) -> Iterator[Probe]:
    measuring = Probe(pg_dsn)
    try:
        yield measuring
    finally:
        measuring.close()
