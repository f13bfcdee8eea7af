"""`serve`, the function `serve-evaluator` ends in, as a real process on a real socket."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
from evaluator_support import free_socket

APP = """
import gc, sys
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
from release_safety.evaluator.server import serve

async def frozen(request):
    return JSONResponse({"frozen": gc.get_freeze_count()})

serve(Starlette(routes=[Route("/", frozen)]), "127.0.0.1", int(sys.argv[1]))
"""


def test_what_was_built_before_serving_is_never_walked_by_the_collector() -> None:
    """The loaded store lives as long as the server: `serve` freezes it out of the collector's
    passes (a large heap walked by every full collection cost a sixth of the throughput)."""
    with free_socket() as sock:
        port = sock.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-c", APP, str(port)], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.05)
        assert answer.json()["frozen"] > 1000
    finally:
        server.terminate()
        server.wait(timeout=10)
