"""Assemble the evaluator from a data file and a clock, and serve it with uvicorn."""

from __future__ import annotations

import gc
import socket
from collections.abc import Callable
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from release_safety.common.errors import CheckError, InputError
from release_safety.evaluator.app import create_app
from release_safety.evaluator.fixture import read_data
from release_safety.evaluator.store import Store
from release_safety.evaluator.times import now_us, parse_instant


def clock_of(now: str | None) -> Callable[[], int]:
    """A fixed clock for `--now`, else the real one (epoch microseconds)."""
    if now is None:
        return now_us
    try:
        fixed = parse_instant(now)
    except ValueError as exc:
        raise InputError(f"--now: {exc}") from exc
    return lambda: fixed


def build_app(data_file: Path | None, db: Path | None, now: str | None) -> ASGIApp:
    """Load the data (or the bundled seed) into SQLite and build the application.

    A `db` that cannot be opened or written is exit 3, one that is not an SQLite database
    exit 2 (it is never overwritten); the message names the file and the reason."""
    clock = clock_of(now)
    data = read_data(data_file)
    store = Store(db)
    store.load(data, clock())
    return create_app(store, clock)


def serve(app: ASGIApp, host: str, port: int) -> None:
    """Serve until interrupted; a port that cannot be bound is an I/O error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CheckError(f"{host}:{port}: cannot listen: {exc.strerror or exc}") from exc
    # What was built before serving (the loaded store: 100,000 runs make a large heap) lives as
    # long as the server: frozen, no collection walks it again (about a sixth more requests/s).
    gc.freeze()
    uvicorn.run(
        app, host=host, port=port, log_level="warning", access_log=False, timeout_keep_alive=60
    )
