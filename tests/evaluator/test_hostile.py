"""Hostile input to the evaluator (issue 17, item 9): huge numbers, deep and huge bodies, bodies
sent without a token, sub-millisecond times, a replayed null pivot value, a bad `--db`.

Real server, real sockets. Every refusal carries the error payload of
docs/contract.md#evaluator-api."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from evaluator_support import (
    ALICE,
    ALICE_TOKEN,
    HISTORY,
    JAFFLE,
    NOW,
    NOW_US,
    Client,
    Running,
    dataset,
    make_run,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from release_safety.evaluator.app import MAX_BODY_BYTES, MAX_DEPTH
from release_safety.evaluator.contract import ContractRun, replay_rows
from release_safety.evaluator.fixture import read_data
from release_safety.evaluator.history import HistoryQuery, list_history
from release_safety.evaluator.openapi import openapi_document
from release_safety.evaluator.store import Store
from release_safety.evaluator.times import format_time

BIN = str(Path(sys.executable).with_name("release-safety"))
SQL = f"/api/v2/projects/{JAFFLE}/query/sql"
METRIC = f"/api/v2/projects/{JAFFLE}/query/metric-query"
CATALOG = f"/api/v2/projects/{JAFFLE}/dataCatalog/metrics-with-time-dimensions"
AUTH = {"Authorization": f"ApiKey {ALICE_TOKEN}"}


def error_of(response: httpx.Response) -> dict[str, Any]:
    """The error object of a refusal, checked against the payload shape of docs/contract.md."""
    body = response.json()
    assert body["status"] == "error"
    assert body["error"]["statusCode"] == response.status_code
    assert isinstance(body["error"]["name"], str)
    error: dict[str, Any] = body["error"]
    return error


numbers = st.one_of(
    st.integers(),
    st.integers(min_value=1, max_value=6_000).map(lambda n: "9" * n),
    st.integers(min_value=1, max_value=6_000).map(lambda n: "-" + "1" * n),
    st.integers(min_value=1, max_value=6_000).map(lambda n: "0" * n + "7"),
    st.text(max_size=40),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page=numbers, size=numbers)
@example(page="1" * 5_000, size="1")
@example(page="1", size="9" * 5_000)
def test_any_page_or_page_size_is_200_or_422(seeded: Running, page: Any, size: Any) -> None:
    for path in (HISTORY, CATALOG, "/api/v2/content"):
        response = seeded.client.get(path, params={"page": str(page), "pageSize": str(size)})
        assert response.status_code in (200, 422), response.text
        if response.status_code == 422:
            assert error_of(response)["name"] in ("ValidateError", "PaginationError")


def test_5000_digit_numbers_are_read_without_parsing_them(client: Client) -> None:
    """A 5,000-digit page is past the end (never parsed: int() refuses such digits); a
    5,000-digit negative page size is refused, naming the field."""
    response = client.get(HISTORY, params={"page": "9" * 5_000, "pageSize": "-" + "9" * 5_000})
    assert response.status_code == 422
    error = error_of(response)
    assert error["name"] == "ValidateError"
    assert set(error["data"]) == {"pageSize"}
    assert client.get(HISTORY, params={"page": "9" * 5_000}).status_code == 200
    assert client.get(HISTORY, params={"page": str(2**53)}).status_code == 200


def nested(depth: int, kind: str) -> str:
    """A JSON text nesting `depth` arrays or objects, built as text (no recursion)."""
    if kind == "array":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    depth=st.one_of(st.integers(1, 2 * MAX_DEPTH), st.integers(MAX_DEPTH, 200_000)),
    kind=st.sampled_from(["array", "object"]),
    where=st.sampled_from(["body", "sql", "query"]),
)
@example(depth=100_000, kind="array", where="body")
@example(depth=100_000, kind="object", where="query")
def test_deep_bodies_are_refused_not_crashed(
    seeded: Running, depth: int, kind: str, where: str
) -> None:
    inner = nested(depth, kind)
    text = {"body": inner, "sql": f'{{"sql": {inner}}}', "query": f'{{"query": {inner}}}'}[where]
    response = seeded.client.http.post(
        METRIC if where == "query" else SQL,
        content=text.encode(),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status_code in (400, 413, 422), response.text  # 413: over the size cap
    error = error_of(response)
    if depth + (where != "body") > MAX_DEPTH and response.status_code != 413:
        assert error["name"] == "ParameterError"
        assert "nests over" in error["message"] or "depth limit" in error["message"]


def raw_exchange(url: str, head: bytes, body: bytes = b"") -> bytes:
    """Send a request by hand on a real socket and read the answer's head and body."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.sendall(head + body)
        received = b""
        while b"\r\n\r\n" not in received or not received.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    return received


def test_token_is_checked_before_the_body_is_read(seeded: Running) -> None:
    # 300 MB announced and never sent: the answer comes without waiting for the body.
    head = (
        f"POST {SQL} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 300000000\r\n\r\n"
    ).encode()
    answer = raw_exchange(seeded.url, head, b'{"sql": "')
    assert answer.startswith(b"HTTP/1.1 401 ")
    assert b'"name":"AuthorizationError"' in answer


def test_announced_body_over_the_cap_is_413_unread(seeded: Running) -> None:
    head = (
        f"POST {SQL} HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey {ALICE_TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {MAX_BODY_BYTES + 1}\r\n\r\n"
    ).encode()
    answer = raw_exchange(seeded.url, head)
    assert answer.startswith(b"HTTP/1.1 413 ")
    payload = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert payload["error"]["name"] == "PayloadTooLargeError"
    assert payload["error"]["statusCode"] == 413


def test_streamed_body_over_the_cap_is_413(start_server: Callable[..., Running]) -> None:
    running = start_server()  # the body within the cap records a run: not on the shared seed

    def chunks() -> Any:
        yield b'{"sql": "'
        for _ in range(3 * MAX_BODY_BYTES // 65536):
            yield b"x" * 65536
        yield b'"}'

    with httpx.Client(base_url=running.url, timeout=60) as http:
        response = http.post(SQL, content=chunks(), headers=AUTH)  # chunked: no length given
    assert response.status_code == 413
    assert error_of(response)["name"] == "PayloadTooLargeError"
    within = '{"sql": "' + "x" * (MAX_BODY_BYTES - 100) + '"}'
    with httpx.Client(base_url=running.url, timeout=60) as http:
        assert http.post(SQL, content=within.encode(), headers=AUTH).status_code == 200


def test_microseconds_are_kept(start_server: Callable[..., Running]) -> None:
    five = 5 * 60_000_000
    runs = [
        make_run("future-1us", format_time(NOW_US + 1)),
        make_run("now", format_time(NOW_US)),
        make_run("edge-5m", format_time(NOW_US - five)),
        make_run("inside-5m-by-1us", format_time(NOW_US - five + 1)),
        make_run("sub-ms", "2026-11-20T11:59:00.000250Z"),
    ]
    client = start_server(dataset(runs)).client
    results = client.history(pageSize=100)
    listed = {row["queryUuid"]: row["createdAt"] for row in results["data"]}
    assert "future-1us" not in listed
    assert listed["sub-ms"] == "2026-11-20T11:59:00.000250Z"
    assert listed["now"] == "2026-11-20T12:00:00.000Z"
    assert results["counts"]["windows"]["lastFewMinutes"] == 3  # now, sub-ms, inside by 1 µs
    assert results["counts"]["windows"]["lastHour"] == 1  # exactly 5 minutes old
    newest = client.history(window="lastFewMinutes")
    assert [row["queryUuid"] for row in newest["data"]] == ["now", "sub-ms", "inside-5m-by-1us"]


def test_null_pivot_value_replays_verbatim(start_server: Callable[..., Running]) -> None:
    run = make_run("pivot-null", "now-1m")
    sort = {
        "fieldId": "orders_total_revenue",
        "descending": True,
        "pivotValues": [{"value": None, "reference": "orders_status"}],
    }
    run["requestParameters"]["query"]["sorts"] = [sort]
    running = start_server(dataset([run]))
    # the test client checks every answer against the document with openapi-core (3.0.3)
    row = running.client.history()["data"][0]
    assert row["requestParameters"]["query"]["sorts"][0]["pivotValues"][0]["value"] is None
    response = running.client.http.post(METRIC, json=row["requestParameters"], headers=AUTH)
    assert response.status_code == 200, response.text
    spec = json.loads(json.dumps(openapi_document()))
    check = ContractRun(
        spec=Path("unused"),
        base_url=running.url,
        token=ALICE_TOKEN,
        params={"projectUuid": JAFFLE},
        replay=True,
        max_examples=1,
        seed=1,
        phases="examples",
    )
    replayed = replay_rows(check, spec)
    assert [(r["queryUuid"], r["result"]) for r in replayed] == [
        (response.json()["results"]["queryUuid"], "valid"),
        ("pivot-null", "valid"),
    ]


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BIN, "serve-evaluator", "--port", "0", "--now", NOW, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("make", "code", "reason"),
    [
        (lambda p: p.write_text("this is not a database, it is text\n" * 200), 2, "not an SQLite"),
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000), 2, "not an SQLite"),
        (lambda p: None, 3, "cannot use the database"),
    ],
)
def test_bad_db_is_one_line_and_exit_2_or_3(
    tmp_path: Path, make: Callable[[Path], Any], code: int, reason: str
) -> None:
    path = tmp_path / "evaluator.sqlite"
    make(path)
    target = path if path.exists() else tmp_path / "missing" / "folder" / "evaluator.sqlite"
    before = path.read_bytes() if path.exists() else None
    done = serve("--db", str(target))
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert str(target) in lines[0] and reason in lines[0]
    if before is not None:
        assert path.read_bytes() == before  # never overwritten


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"organization": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deep"),
        ('{"queryRuns": [' + "9" * 5_000 + "]}", "not valid JSON"),
        ('{"queryRuns": [{"a": NaN}]}', "not valid JSON"),
        ('{"queryRuns": []} {}', "extra data"),
        ('{"queryRuns": [], "queryRuns": []}', "duplicate key"),
    ],
)
def test_hostile_data_file_is_exit_2(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "data.json"
    path.write_text(text, encoding="utf-8")
    done = serve("--data", str(path))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert message in done.stderr


@pytest.mark.parametrize("runtime", [2**63, 2**70, 10**400])
def test_a_runtime_past_64_bits_is_exit_2_naming_the_run(tmp_path: Path, runtime: int) -> None:
    """A run's `warehouseExecutionTimeMs` is kept as a 64-bit integer: one past that range is
    refused with its place, not an internal error."""
    path = tmp_path / "data.json"
    data = dataset([make_run("r1", "now-1m"), make_run("r2", "now-2m", runtime=1)])
    data["queryRuns"][1]["warehouseExecutionTimeMs"] = runtime
    path.write_text(json.dumps(data), encoding="utf-8")
    done = serve("--data", str(path))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "/queryRuns/1: warehouseExecutionTimeMs: an integer past the 64 bits" in line


def test_runs_before_the_parts_they_name_load_the_same(tmp_path: Path) -> None:
    data = dataset([make_run("r1", "now-1m"), make_run("r2", "now-2h", sql="select 1 from x")])
    runs_first = {
        "queryRuns": data["queryRuns"],
        **{k: v for k, v in data.items() if k != "queryRuns"},
    }
    streamed, held = Store(), Store()
    path = tmp_path / "data.json"
    path.write_text(json.dumps(runs_first), encoding="utf-8")
    streamed.load(read_data(path), NOW_US)
    held.load(data, NOW_US)
    query = HistoryQuery()
    assert list_history(streamed, query, JAFFLE, ALICE, NOW_US) == list_history(
        held, query, JAFFLE, ALICE, NOW_US
    )


def test_the_document_declares_the_size_cap_on_every_body() -> None:
    operations = [
        op
        for item in openapi_document()["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "requestBody" in op
    ]
    assert operations
    for op in operations:
        assert op["responses"]["413"] == {"$ref": "#/components/responses/PayloadTooLarge"}
