"""The evaluator's ASGI application (Starlette): routes, authentication, the error payload.

Each handler is a plain function of a `Call` (connection, caller, query string, path values,
body, clock). Handlers run on the event loop itself: each is a few indexed SQLite reads or one
small write, and handing work to a thread would cost more than the work. What a handler returns
becomes `{status: ok, results}` (bytes are the whole body, already JSON), what it raises as
ApiError the error payload, anything else a 500 that exposes no internals.

The token is checked before the body is read; a body is read up to MAX_BODY_BYTES (413 past
that) and may nest MAX_DEPTH levels (400 deeper), so no request costs more than that to refuse.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, NamedTuple

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

import release_safety.evaluator.content as content
import release_safety.evaluator.history as history
from release_safety.common.jsonio import deeper_than
from release_safety.evaluator.auth import (
    Caller,
    authenticate,
    require_project,
    require_project_admin,
)
from release_safety.evaluator.compile import compile_metric_query
from release_safety.evaluator.encoding import dumps
from release_safety.evaluator.errors import ApiError, not_found
from release_safety.evaluator.execute import OPERATIONS, execute
from release_safety.evaluator.openapi import check_body
from release_safety.evaluator.params import Params, pagination
from release_safety.evaluator.store import Store

log = logging.getLogger("release_safety.evaluator")
HTTP_NAMES = {404: "NotFoundError", 405: "MethodNotAllowedError", 400: "ParameterError"}
MAX_BODY_BYTES = 1 << 20
MAX_DEPTH = 64


class Call(NamedTuple):
    """Everything a handler may use."""

    conn: sqlite3.Connection
    store: Store
    caller: Caller
    params: Params
    path: dict[str, str]
    body: Any
    now: int


Handler = Callable[[Call], Any]


def _json(payload: Any, status_code: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(dumps(payload), status_code, headers, media_type="application/json")


class JsonBody(Response):
    """A 200 answer of a body already JSON, with the headers Starlette's `Response` gives it
    (content-length, content-type), made without its general header handling."""

    media_type = "application/json"

    def __init__(self, body: bytes) -> None:
        self.status_code = 200
        self.background = None
        self.body = body
        self.raw_headers = [
            (b"content-length", b"%d" % len(body)),
            (b"content-type", b"application/json"),
        ]


def _error(exc: ApiError) -> Response:
    return _json(exc.payload(), exc.status_code)


def _too_large() -> ApiError:
    return ApiError(413, "PayloadTooLargeError", f"The request body is over {MAX_BODY_BYTES} bytes")


async def _read_body(request: Request) -> bytes:
    """The body, refused with 413 as soon as it is known to be over the cap."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared[:20]) > MAX_BODY_BYTES:
        raise _too_large()
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise _too_large()
        chunks.append(chunk)
    return b"".join(chunks)


def _parse_body(raw: bytes) -> Any:
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:  # orjson also refuses over 1,024 levels
        raise ApiError(400, "ParameterError", f"The request body is not JSON: {exc}") from exc
    if deeper_than(body, MAX_DEPTH):
        raise ApiError(400, "ParameterError", f"The request body nests over {MAX_DEPTH} levels")
    return body


def _authorization(request: Request) -> str | None:
    """The Authorization header (the first one), read off the raw headers: a request's
    Headers object is more work than the one look-up needs."""
    for key, value in request.scope["headers"]:
        if key == b"authorization":
            header: str = value.decode("latin-1")
            return header
    return None


def _serve(
    store: Store, clock: Callable[[], int], handler: Handler, body_schema: str | None
) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            now = clock()
            caller = authenticate(store, _authorization(request), now)
            body = None
            if body_schema is not None:
                body = _parse_body(await _read_body(request))
                check_body(body_schema, body)
            params = Params(request.scope["query_string"])
            path = request.path_params
            results = handler(Call(store.conn(), store, caller, params, path, body, now))
        except ApiError as exc:
            return _error(exc)
        except Exception:
            log.exception("unexpected error on %s %s", request.method, request.url.path)
            return _error(ApiError(500, "UnexpectedServerError", "Something went wrong."))
        if isinstance(results, bytes):  # the whole body, already JSON
            return JsonBody(results)
        return _json({"status": "ok", "results": results})

    return endpoint


def list_history(call: Call) -> bytes:
    query = history.parse_query(call.params.raw)
    project = call.path["projectUuid"]
    require_project(call.store, call.caller, project)
    return history.list_history(call.store, query, project, call.caller.uuid, call.now)


def query_status(call: Call) -> dict[str, Any]:
    project = call.path["projectUuid"]
    require_project(call.store, call.caller, project)
    scope = call.store.scope(project, call.caller.uuid)
    found = history.run_status(call.store, scope, call.path["queryUuid"])
    if found is None:
        raise not_found(f"Query {call.path['queryUuid']} not found")
    return found


def execute_query(operation: str, call: Call) -> dict[str, Any]:
    project = call.path["projectUuid"]
    require_project(call.store, call.caller, project)
    with call.store.writing() as conn:
        return execute(call.store, conn, operation, project, call.caller.uuid, call.body, call.now)


def saved_chart(call: Call) -> dict[str, Any]:
    return content.saved_chart(call.store, call.caller, call.path["chartUuid"])


def compile_query(call: Call) -> dict[str, Any]:
    project, explore = call.path["projectUuid"], call.path["exploreName"]
    require_project(call.store, call.caller, project)
    row = call.conn.execute(
        "SELECT sql_table, fields FROM explores WHERE project_uuid = ? AND name = ?",
        (project, explore),
    ).fetchone()
    if row is None:
        raise not_found(f"Explore {explore} not found")
    sql = compile_metric_query(explore, row["sql_table"], orjson.loads(row["fields"]), call.body)
    return {"query": sql}


def org_users(call: Call) -> list[dict[str, Any]]:
    return content.org_users(call.conn)


def list_content(call: Call) -> dict[str, Any]:
    projects = call.params.texts("projectUuids")
    call.params.enum_list("contentTypes", ("dashboard",))
    page = call.params.integer("page", 1, saturate=True)
    page_size = call.params.integer("pageSize", 25, saturate=True)
    sort_by = call.params.enum("sortBy", tuple(content.CONTENT_SORTS)) or "lastUpdatedAt"
    direction = call.params.enum("sortDirection", ("asc", "desc")) or "desc"
    call.params.check()
    page, page_size = pagination(page, page_size, 100)
    for project in projects:
        require_project(call.store, call.caller, project)
    chosen = sorted(set(projects)) or content.visible_projects(call.conn, call.caller)
    return content.dashboards(call.conn, chosen, page, page_size, sort_by, direction == "desc")


def list_access(call: Call) -> list[dict[str, Any]]:
    project = call.path["projectUuid"]
    require_project(call.store, call.caller, project)
    return content.project_access(call.conn, project)


def grant_access(call: Call) -> dict[str, Any]:
    project = call.path["projectUuid"]
    require_project_admin(call.store, call.caller, project)
    with call.store.writing() as conn:
        return content.grant_access(conn, project, call.body["email"], call.body["role"])


def update_access(call: Call) -> dict[str, Any]:
    project = call.path["projectUuid"]
    require_project_admin(call.store, call.caller, project)
    with call.store.writing() as conn:
        return content.update_access(conn, project, call.path["userUuid"], call.body["role"])


def catalog_metrics(call: Call) -> dict[str, Any]:
    project = call.path["projectUuid"]
    page = call.params.integer("page", 1, saturate=True)
    page_size = call.params.integer("pageSize", 50, saturate=True)
    sort = call.params.enum("sort", tuple(content.CATALOG_SORTS)) or "name"
    order = call.params.enum("order", ("asc", "desc")) or "asc"
    tags = call.params.texts("tags")
    call.params.check()
    page, page_size = pagination(page, page_size, 100)
    require_project(call.store, call.caller, project)
    return content.catalog_metrics(call.conn, project, tags, page, page_size, sort, order == "desc")


async def _http_error(request: Request, exc: Exception) -> Response:
    code = exc.status_code if isinstance(exc, HTTPException) else 500
    name = HTTP_NAMES.get(code, "UnexpectedServerError" if code >= 500 else "ApiError")
    detail = exc.detail if isinstance(exc, HTTPException) else "Something went wrong."
    headers = getattr(exc, "headers", None)
    return _json(ApiError(code, name, str(detail)).payload(), code, headers)


class Front:
    """The application as served: GET of the history list (the one path a client polls) goes
    straight to its endpoint, everything else (HEAD, other methods, a trailing slash, a mount
    under a root path) through Starlette unchanged. The path is matched by the Starlette
    route's own pattern and converters, and the endpoint is the route's own, so the answer,
    error payloads and headers are the route's; what is skipped is the middleware and the
    router's walk over the routes (about half of a kept answer's time in the application)."""

    def __init__(self, app: Starlette, route: Route) -> None:
        self.app = app
        self._route = route
        self._endpoint: Callable[[Request], Awaitable[Response]] = route.endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and not scope.get("root_path"):
            match = self._route.path_regex.match(scope["path"])
            if match is not None:
                convertors = self._route.param_convertors
                scope["app"] = self.app
                scope["path_params"] = {
                    name: convertors[name].convert(value)
                    for name, value in match.groupdict().items()
                }
                response = await self._endpoint(Request(scope, receive, send))
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(store: Store, clock: Callable[[], int]) -> Front:
    """The evaluator application over a loaded store; `clock` gives now in epoch ms."""

    def route(path: str, handler: Handler, method: str = "GET", body: str | None = None) -> Route:
        return Route(path, _serve(store, clock, handler, body), methods=[method])

    project = "/api/v2/projects/{projectUuid}"
    history_route = route(f"{project}/query/history", list_history)
    routes = [
        # The literal /query/history is declared before the templated /query/{queryUuid}.
        history_route,
        *(
            route(f"{project}/query/{name}", partial(execute_query, name), "POST", schema)
            for name, schema in OPERATIONS.items()
        ),
        route(f"{project}/query/{{queryUuid}}", query_status),
        route("/api/v1/saved/{chartUuid}", saved_chart),
        route(
            "/api/v1/projects/{projectUuid}/explores/{exploreName}/compileQuery",
            compile_query,
            "POST",
            "MetricQuery",
        ),
        route("/api/v1/org/users", org_users),
        route("/api/v2/content", list_content),
        route("/api/v1/projects/{projectUuid}/access", list_access),
        route("/api/v1/projects/{projectUuid}/access", grant_access, "POST", "CreateProjectAccess"),
        route(
            "/api/v1/projects/{projectUuid}/access/{userUuid}",
            update_access,
            "PATCH",
            "UpdateProjectAccess",
        ),
        route(f"{project}/dataCatalog/metrics-with-time-dimensions", catalog_metrics),
    ]
    handlers: dict[Any, Any] = {HTTPException: _http_error, Exception: _http_error}
    return Front(Starlette(routes=routes, exception_handlers=handlers), history_route)
