"""Helpers of the evaluator tests: seed identities, a real HTTP client whose every response is
validated against the bundled OpenAPI document (openapi-core), hand-made data sets.

A module of its own name (not `conftest`) so that test areas never shadow each other."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from openapi_core import OpenAPI
from openapi_core.datatypes import RequestParameters
from werkzeug.datastructures import Headers, ImmutableMultiDict

from release_safety.evaluator.fixture import bundled_seed
from release_safety.evaluator.openapi import openapi_document
from release_safety.evaluator.store import Store
from release_safety.evaluator.times import parse_instant

NOW = "2026-11-20T12:00:00Z"
NOW_US = parse_instant(NOW)
ROOT = Path(__file__).resolve().parents[2]
SEED = bundled_seed()


def uuid_of(kind: str, key: str) -> str:
    """The uuid of a seed object by its generator key (`user:alice`, `project:jaffle`...)."""
    import uuid

    return str(uuid.uuid5(uuid.UUID("6f1c2b1e-8d0a-4c53-9a63-0e5a4b7c9d21"), f"{kind}:{key}"))


ALICE_TOKEN = "ldpat_" + "a1" * 16
BOB_TOKEN = "ldpat_" + "b2" * 16
CAROL_TOKEN = "ldpat_" + "c3" * 16
DAVE_TOKEN = "ldpat_" + "d4" * 16
ERIN_TOKEN = "ldpat_" + "e5" * 16
JAFFLE = uuid_of("project", "jaffle")
MARKETING = uuid_of("project", "marketing")
HISTORY = f"/api/v2/projects/{JAFFLE}/query/history"


class _Request:
    def __init__(self, request: httpx.Request) -> None:
        url = urlsplit(str(request.url))
        self.host_url = f"{url.scheme}://{url.netloc}"
        self.path = url.path
        self.method = request.method.lower()
        self.body = request.content or None
        self.content_type = request.headers.get("content-type", "application/json")
        query: dict[str, list[str]] = {}
        for key, value in request.url.params.multi_items():
            query.setdefault(key, []).append(value)
        self.parameters = RequestParameters(
            query=ImmutableMultiDict([(k, v) for k, vs in query.items() for v in vs]),
            header=Headers(dict(request.headers)),
            cookie=ImmutableMultiDict(),
        )


class _Response:
    def __init__(self, response: httpx.Response) -> None:
        self.status_code = response.status_code
        self.data = response.content
        self.headers = Headers(dict(response.headers))
        self.content_type = response.headers.get("content-type", "")


SPEC = OpenAPI.from_dict(openapi_document())


class Client:
    """httpx against the live server; every response must fit the OpenAPI document."""

    def __init__(self, base_url: str) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=30.0)
        self.validated = 0

    def request(
        self, method: str, path: str, token: str | None = ALICE_TOKEN, **kwargs: Any
    ) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}))
        if token is not None:
            headers["Authorization"] = f"ApiKey {token}"
        response = self.http.request(method, path, headers=headers, **kwargs)
        SPEC.validate_response(_Request(response.request), _Response(response))
        self.validated += 1
        body = response.json()
        if response.status_code != 200:
            assert body["status"] == "error"
            assert body["error"]["statusCode"] == response.status_code
        return response

    def get(self, path: str, token: str | None = ALICE_TOKEN, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, token, **kwargs)

    def post(self, path: str, token: str | None = ALICE_TOKEN, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, token, **kwargs)

    def history(self, token: str = ALICE_TOKEN, **params: Any) -> dict[str, Any]:
        response = self.get(HISTORY, token, params=params)
        assert response.status_code == 200, response.text
        results: dict[str, Any] = response.json()["results"]
        return results


@dataclass
class Running:
    """A live server and its client."""

    url: str
    client: Client
    store: Store


def free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def seed_copy() -> dict[str, Any]:
    """A deep copy of the seed to modify for one test."""
    data: dict[str, Any] = json.loads(json.dumps(SEED))
    return data


ALICE = uuid_of("user", "alice")
BOB = uuid_of("user", "bob")


def make_run(
    key: str,
    created: str,
    *,
    user: str = ALICE,
    project: str = JAFFLE,
    context: str = "exploreView",
    status: str = "ready",
    runtime: float | None = None,
    sql: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A stored run for a hand-made data set: semantic unless `sql` is given."""
    query = {
        "exploreName": "orders",
        "dimensions": ["orders_status"],
        "metrics": ["orders_total_revenue"],
        "filters": {},
        "sorts": [],
        "limit": 500,
        "tableCalculations": [],
    }
    params: dict[str, Any] = {"sql": sql} if sql is not None else {"query": query}
    return {
        "queryUuid": key,
        "projectUuid": project,
        "userUuid": user,
        "createdAt": created,
        "context": context,
        "status": status,
        "requestParameters": params,
        "metricQuery": None if sql is not None else query,
        "compiledSql": sql or "SELECT 1",
        "warehouseExecutionTimeMs": runtime,
        **extra,
    }


def dataset(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The seed's organization, users, projects and content with the given runs."""
    data = seed_copy()
    data["queryRuns"] = runs
    return data
