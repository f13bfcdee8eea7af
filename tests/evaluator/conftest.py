"""Fixtures: a real evaluator (uvicorn on a free 127.0.0.1 port) and its validating client."""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn
from evaluator_support import NOW_US, SEED, Client, Running, free_socket

from release_safety.evaluator.app import create_app
from release_safety.evaluator.fixture import check_data
from release_safety.evaluator.store import Store


@pytest.fixture(scope="session")
def start_server() -> Iterator[Callable[..., Running]]:
    """Start evaluators (uvicorn in a thread, real sockets); all stop at the end."""
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(data: dict[str, Any] | None = None, now_us: int = NOW_US) -> Running:
        data = copy.deepcopy(SEED if data is None else data)
        check_data(data, "test data")
        store = Store()
        store.load(data, now_us)
        app = create_app(store, lambda: now_us)
        sock = free_socket()
        config = uvicorn.Config(app, log_level="warning", access_log=False)
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.02)
        host, port = sock.getsockname()
        url = f"http://{host}:{port}"
        servers.append((server, thread))
        return Running(url=url, client=Client(url), store=store)

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def seeded(start_server: Callable[..., Running]) -> Running:
    """One read-only server over the bundled seed (tests must not write to it)."""
    return start_server()


@pytest.fixture
def client(seeded: Running) -> Client:
    return seeded.client
