"""Execute requests: each records a new pending run for the caller (no warehouse is queried).

The run keeps the request verbatim as its requestParameters, so a history row can be re-sent
to the operation of its variant.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Mapping
from typing import Any

from release_safety.evaluator.compile import compile_metric_query
from release_safety.evaluator.errors import ApiError, not_found
from release_safety.evaluator.store import Store, insert_run
from release_safety.evaluator.times import format_time

# operation path suffix -> request-body schema of the OpenAPI document
OPERATIONS: dict[str, str] = {
    "metric-query": "ExecuteMetricQueryParams",
    "chart": "ExecuteSavedChartParams",
    "dashboard-chart": "ExecuteDashboardChartParams",
    "underlying-data": "ExecuteUnderlyingDataParams",
    "sql": "ExecuteSqlQueryParams",
    "dashboard-sql-chart": "ExecuteDashboardSqlChartParams",
    "merge": "ExecuteMergeQueryParams",
    "field-values": "ExecuteFieldValueSearchParams",
}


def operation_of(params: Mapping[str, Any]) -> str:
    """The execute operation a stored request was sent to, told by its distinguishing keys."""
    if "query" in params:
        return "metric-query"
    if "mergeQuery" in params:
        return "merge"
    if "sql" in params:
        return "sql"
    if "savedSqlUuid" in params or "slug" in params:
        return "dashboard-sql-chart"
    if "underlyingDataSourceQueryUuid" in params:
        return "underlying-data"
    if "fieldId" in params:
        return "field-values"
    if "tileUuid" in params:
        return "dashboard-chart"
    return "chart"


def _compiled(conn: sqlite3.Connection, project: str, query: Mapping[str, Any]) -> str:
    explore = conn.execute(
        "SELECT sql_table, fields FROM explores WHERE project_uuid = ? AND name = ?",
        (project, query["exploreName"]),
    ).fetchone()
    if explore is None:
        raise not_found(f"Explore {query['exploreName']} not found")
    return compile_metric_query(
        str(query["exploreName"]), explore["sql_table"], json.loads(explore["fields"]), query
    )


def _chart_query(conn: sqlite3.Connection, project: str, chart: str) -> dict[str, Any]:
    row = conn.execute(
        "SELECT record FROM saved_charts WHERE uuid = ? AND project_uuid = ?", (chart, project)
    ).fetchone()
    if row is None:
        raise not_found(f"Saved chart {chart} not found")
    query: dict[str, Any] = json.loads(row["record"])["metricQuery"]
    return query


def _saved_sql(conn: sqlite3.Connection, project: str, params: Mapping[str, Any]) -> str:
    key, column = ("savedSqlUuid", "uuid") if "savedSqlUuid" in params else ("slug", "slug")
    if key not in params:
        raise ApiError(400, "ParameterError", "Give savedSqlUuid or slug")
    row = conn.execute(
        f"SELECT sql FROM saved_sql_charts WHERE {column} = ? AND project_uuid = ?",
        (params[key], project),
    ).fetchone()
    if row is None:
        raise not_found(f"Saved SQL chart {params[key]} not found")
    return str(row["sql"])


def execute(
    store: Store,
    conn: sqlite3.Connection,
    operation: str,
    project: str,
    user: str,
    params: Mapping[str, Any],
    now: int,
) -> dict[str, Any]:
    """Record the run an execute request starts; answer its uuid and status."""
    metric_query: Mapping[str, Any] | None = None
    compiled = ""
    if operation == "metric-query":
        metric_query = params["query"]
    elif operation in ("chart", "dashboard-chart"):
        metric_query = _chart_query(conn, project, params["chartUuid"])
    elif operation == "sql":
        compiled = str(params["sql"])
    elif operation == "dashboard-sql-chart":
        compiled = _saved_sql(conn, project, params)
    if metric_query is not None:
        compiled = _compiled(conn, project, metric_query)
    run = {
        "queryUuid": str(uuid.uuid4()),
        "projectUuid": project,
        "userUuid": user,
        "createdAt": format_time(now),
        "context": params.get("context", "api"),
        "status": "pending",
        "requestParameters": dict(params),
        "metricQuery": metric_query,
        "compiledSql": compiled,
    }
    insert_run(store, conn, run, now)
    return {"queryUuid": run["queryUuid"], "status": "pending"}
