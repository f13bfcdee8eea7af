"""The history path served in front of Starlette (`app.Front`) answers exactly as the Starlette
route does: the same ASGI messages (status, headers, body) for the same requests, whether the
front serves them (GET of the history path) or hands them on (anything else)."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import unquote

import pytest
from evaluator_support import ALICE_TOKEN, BOB_TOKEN, HISTORY, JAFFLE, NOW_US, Running
from starlette.responses import Response

from release_safety.evaluator.app import JsonBody, create_app

PROJECTS = "/api/v2/projects"
# (method, raw path, query string, token, root path, served by the front)
CASES: list[tuple[str, str, str, str | None, str, bool]] = [
    ("GET", HISTORY, "", ALICE_TOKEN, "", True),
    ("GET", HISTORY, "search=Orders&sortBy=runtime&pageSize=3", ALICE_TOKEN, "", True),
    ("GET", HISTORY, "search=%E2%82%AC+a&window=lastHour&trigger=apps", ALICE_TOKEN, "", True),
    ("GET", HISTORY, "status=ready&status=error&language=sql&page=2", ALICE_TOKEN, "", True),
    ("GET", HISTORY, "page=0", ALICE_TOKEN, "", True),  # 422 PaginationError
    ("GET", HISTORY, "pageSize=x&status=bogus&window=", ALICE_TOKEN, "", True),  # 422
    ("GET", HISTORY, "page=" + "9" * 40, ALICE_TOKEN, "", True),  # past the end: empty
    ("GET", HISTORY, "", None, "", True),  # 401
    ("GET", HISTORY, "", "ldpat_" + "0" * 32, "", True),  # 401
    ("GET", HISTORY, "", BOB_TOKEN, "", True),  # another user: their own (empty) history
    ("GET", f"{PROJECTS}/not-a-project/query/history", "", ALICE_TOKEN, "", True),  # 404
    ("GET", HISTORY.replace(JAFFLE, JAFFLE.replace("-", "%2D")), "", ALICE_TOKEN, "", True),
    ("GET", HISTORY + "%0A", "", ALICE_TOKEN, "", True),  # `$` matches before a newline
    ("GET", f"{PROJECTS}/a%2Fb/query/history", "", ALICE_TOKEN, "", False),  # 404
    ("GET", HISTORY + "/", "", ALICE_TOKEN, "", False),  # redirected to the path without
    ("GET", HISTORY.replace("history", "History"), "", ALICE_TOKEN, "", False),  # a run's uuid
    ("GET", "/prefix" + HISTORY, "", ALICE_TOKEN, "/prefix", False),  # mounted under a root
    ("HEAD", HISTORY, "", ALICE_TOKEN, "", False),
    ("POST", HISTORY, "", ALICE_TOKEN, "", False),  # 405
    ("DELETE", HISTORY, "", None, "", False),  # 405
    ("GET", "/api/v1/org/users", "", ALICE_TOKEN, "", False),
    ("GET", "/nowhere", "", ALICE_TOKEN, "", False),  # 404
]


def scope_of(method: str, raw_path: str, query: str, token: str | None, root: str) -> Any:
    """The scope uvicorn makes of such a request (the path percent-decoded)."""
    headers = [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"test")]
    if token is not None:
        headers.append((b"authorization", f"ApiKey {token}".encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "scheme": "http",
        "method": method,
        "root_path": root,
        "path": unquote(raw_path),
        "raw_path": raw_path.encode(),
        "query_string": query.encode(),
        "headers": headers,
        "state": {},
    }


def answer(app: Any, scope: Any) -> list[Any]:
    """The messages an ASGI application sends for a request without a body."""
    sent: list[Any] = []

    async def receive() -> Any:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent


@pytest.mark.parametrize(("method", "path", "query", "token", "root", "front"), CASES)
def test_the_front_answers_as_the_starlette_route(
    seeded: Running,
    method: str,
    path: str,
    query: str,
    token: str | None,
    root: str,
    front: bool,
) -> None:
    app = create_app(seeded.store, lambda: NOW_US)
    through_front = scope_of(method, path, query, token, root)
    through_starlette = scope_of(method, path, query, token, root)
    assert answer(app, through_front) == answer(app.app, through_starlette)
    assert ("router" not in through_front) is front  # the router saw only what was handed on


@pytest.mark.parametrize("body", [b"", b'{"status":"ok"}', b"[" + b"1," * 5000 + b"1]"])
def test_a_json_body_is_sent_as_starlette_sends_it(body: bytes) -> None:
    async def messages(response: Response) -> list[Any]:
        sent: list[Any] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Any) -> None:
            sent.append(message)

        await response({"type": "http", "method": "GET"}, receive, send)
        return sent

    expected = Response(body, media_type="application/json")
    assert asyncio.run(messages(JsonBody(body))) == asyncio.run(messages(expected))
