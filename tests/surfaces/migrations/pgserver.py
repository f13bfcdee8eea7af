"""The suite's PostgreSQL server: the product's throwaway server (`release_safety.verify.server`:
initdb'd in a temporary folder, a free loopback port, its socket in that folder, removed on
exit), as a libpq connection string. Used by the tests' session fixture and by
`bench/score_real_migrations.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from release_safety.common.errors import CheckError
from release_safety.verify.server import throwaway_server


class ServerError(Exception):
    """PostgreSQL could not be started here; the message says why."""


@contextmanager
def pg_server() -> Iterator[str]:
    """Start a throwaway PostgreSQL cluster; yield its connection string; stop and remove it."""
    with ExitStack() as stack:
        try:
            started = stack.enter_context(throwaway_server())
        except CheckError as exc:
            raise ServerError(
                f"{exc.message}: the migration heaviness rules are verified on a real server"
            ) from None
        yield f"host={started.host} port={started.port} user=postgres dbname=postgres"
