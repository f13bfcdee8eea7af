"""Fixtures for the upgrade check: index documents and a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from upgrade_indexes import IndexServer, Served


@pytest.fixture
def index_server() -> Iterator[IndexServer]:
    """A real HTTP server on 127.0.0.1 serving `served.body` with an ETag, in a thread."""
    served = Served()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            served.requests.append({key.lower(): value for key, value in self.headers.items()})
            if served.failures > 0:
                served.failures -= 1
                self._answer(served.failure_status, b"try again")
                return
            if self.path == "/moved":
                # Recorded before it is sent: once the client has the 301 it may ask for the
                # new place on another thread before this one goes on.
                served.statuses.append(301)
                self.send_response(301)
                self.send_header("Location", "/release-safety-index.json")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if self.path != "/release-safety-index.json":
                self._answer(404, b"not found")
                return
            time.sleep(served.delay)
            same_tag = served.etag is not None and self.headers.get("If-None-Match") == served.etag
            same_date = (
                served.last_modified is not None
                and self.headers.get("If-Modified-Since") == served.last_modified
            )
            if same_tag or same_date:
                self._answer(304, b"")
                return
            self._answer(200, served.body)

        def _answer(self, status: int, body: bytes) -> None:
            served.statuses.append(status)
            self.send_response(status)
            if served.etag is not None:
                self.send_header("ETag", served.etag)
            if served.last_modified is not None:
                self.send_header("Last-Modified", served.last_modified)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if status != 304:
                self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            # A client that closes its kept-alive connection resets the server's next read:
            # nothing the test asked about, and its traceback on stderr would land in the
            # output a test compares (seen once in CI).
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield IndexServer(f"http://{host}:{port}/release-safety-index.json", served)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(autouse=True)
def cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own index cache, never the user's."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("RELEASE_SAFETY_CACHE_DIR", str(folder))
    return folder
