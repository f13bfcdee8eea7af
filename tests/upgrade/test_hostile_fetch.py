"""A hostile index server (issue 17 item 3, and the URL forms of item 11), for real on 127.0.0.1:
slow headers, slow bodies, endless bodies, gzip bombs, redirects elsewhere and in circles,
Retry-After. Each ends within the deadline with "could not check" (exit 3), never a hang,
never gigabytes of memory."""

from __future__ import annotations

import json
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from upgrade_indexes import chained, index_doc

from release_safety.cli.main import run
from release_safety.common.errors import CheckError, InputError
from release_safety.upgrade.indexsource import FetchPolicy, load_index

DOC = json.dumps(index_doc(chained(("1.0.0", True), ("1.1.0", True)))).encode()
POLICY = FetchPolicy(timeout=0.5, attempts=2, backoff=0.01, deadline=2.0, max_bytes=1 << 20)
DRIBBLE_SECONDS = 8.0  # a dribbling handler gives up after this, so no thread outlives a test


def _bomb(decoded: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = b"\0" * (1 << 20)
    return b"".join(packer.compress(block) for _ in range(decoded >> 20)) + packer.flush()


BOMB = _bomb(64 << 20)  # 64 MiB of zeros in about 64 KB


class Server:
    def __init__(self, routes: dict[str, Callable[[BaseHTTPRequestHandler], None]]) -> None:
        self.requests: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                owner.requests.append(self.path)
                routes.get(self.path, lambda h: answer(h, 404, b"no"))(self)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.http.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.http.server_address[1]}"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


def answer(handler: BaseHTTPRequestHandler, status: int, body: bytes, **headers: str) -> None:
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name.replace("_", "-"), value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def dribble(handler: BaseHTTPRequestHandler, head: bytes) -> None:
    try:
        handler.wfile.write(head)
        stop = time.monotonic() + DRIBBLE_SECONDS
        while time.monotonic() < stop:
            handler.wfile.write(b"x")
            handler.wfile.flush()
            time.sleep(0.1)
    except OSError:
        return


def endless(handler: BaseHTTPRequestHandler) -> None:
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
    try:
        for _ in range(4096):  # 4 GiB at most, far past any cap
            handler.wfile.write(b"a" * (1 << 20))
    except OSError:
        return


@pytest.fixture
def server() -> Iterator[Server]:
    retries: list[int] = []

    def retry_once(handler: BaseHTTPRequestHandler) -> None:
        retries.append(1)
        if len(retries) == 1:
            answer(handler, 503, b"busy", Retry_After="1")
        else:
            answer(handler, 200, DOC)

    routes: dict[str, Callable[[BaseHTTPRequestHandler], None]] = {
        "/index.json": lambda h: answer(h, 200, DOC),
        "/slow-headers": lambda h: dribble(h, b"HTTP/1.1 200 OK\r\nX-Slow: "),
        "/slow-body": lambda h: dribble(
            h, b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + DOC[:10]
        ),
        "/endless": endless,
        "/declared-huge": lambda h: h.wfile.write(
            b"HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n"
        ),
        "/gzip-bomb": lambda h: answer(h, 200, BOMB, Content_Encoding="gzip"),
        "/bad-gzip": lambda h: answer(h, 200, b"not gzip at all", Content_Encoding="gzip"),
        "/gzip": lambda h: answer(h, 200, _gzip(DOC), Content_Encoding="gzip"),
        "/loop": lambda h: answer(h, 302, b"", Location="/loop"),
        "/retry-once": retry_once,
        "/retry-later": lambda h: answer(h, 503, b"busy", Retry_After="3600"),
    }
    served = Server(routes)
    yield served
    served.close()


def _gzip(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    return packer.compress(data) + packer.flush()


@pytest.mark.parametrize("path", ["/slow-headers", "/slow-body"])
def test_a_slow_server_ends_at_the_deadline(server: Server, path: str) -> None:
    with pytest.raises(CheckError, match="could not fetch the index"):
        load_index(server.base + path, policy=POLICY)


@pytest.mark.parametrize("path", ["/endless", "/declared-huge", "/gzip-bomb"])
def test_a_body_past_the_cap_is_refused(server: Server, path: str) -> None:
    with pytest.raises(CheckError, match=r"larger than 1,048,576 bytes"):
        load_index(server.base + path, policy=POLICY)


def test_gzip_is_decoded_and_bad_gzip_is_could_not_check(server: Server) -> None:
    assert [e["version"] for e in load_index(server.base + "/gzip", policy=POLICY)["entries"]] == [
        "1.0.0",
        "1.1.0",
    ]
    with pytest.raises(CheckError, match="could not decode"):
        load_index(server.base + "/bad-gzip", policy=POLICY)


def test_retry_after_is_honoured_within_the_deadline(server: Server) -> None:
    policy = FetchPolicy(timeout=1.0, attempts=3, backoff=0.01, deadline=10.0)
    assert load_index(server.base + "/retry-once", policy=policy)["entries"]
    assert server.requests == ["/retry-once", "/retry-once"]


def test_a_retry_after_past_the_deadline_gives_up_at_once(server: Server) -> None:
    with pytest.raises(CheckError, match="would pass the deadline"):
        load_index(server.base + "/retry-later", policy=POLICY)
    assert server.requests == ["/retry-later"]


def test_redirects_in_circles_are_could_not_check(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    check = ["upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--json"]
    assert run([*check, "--index", server.base + "/loop"]) == 3
    error = json.loads(capsys.readouterr().out)["error"]
    assert "redirects" in error["message"] and error["exitCode"] == 3


def test_a_redirect_to_another_origin_needs_a_pin(server: Server) -> None:
    import hashlib

    elsewhere = Server({"/index.json": lambda h: answer(h, 200, DOC)})
    try:
        target = elsewhere.base + "/index.json"
        mover = Server({"/moved": lambda h: answer(h, 302, b"", Location=target)})
        try:
            with pytest.raises(CheckError, match="another origin"):
                load_index(mover.base + "/moved", policy=POLICY)
            assert elsewhere.requests == []
            pin = hashlib.sha256(DOC).hexdigest()
            assert load_index(mover.base + "/moved", policy=POLICY, sha256=pin)["entries"]
        finally:
            mover.close()
    finally:
        elsewhere.close()


def test_url_schemes_are_read_in_any_case_and_others_refused(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    upper = server.base.replace("http://", "HTTP://") + "/index.json"
    assert load_index(upper, policy=POLICY)["entries"]
    with pytest.raises(InputError, match="unsupported URL scheme"):
        load_index("ftp://127.0.0.1/index.json", policy=POLICY)
    check = ["upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--json"]
    assert run([*check, "--index", "ftp://127.0.0.1/index.json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["exitCode"] == 2
