"""SQLite storage of the evaluator: schema, indexes, one connection per thread, data loading.

Runs are stored with their derived fields and their finished list item (JSON): a history
page reads indexed columns to filter, sort and count, then the stored items of one page.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from release_safety.evaluator.derive import Names, derive
from release_safety.evaluator.times import format_time, parse_time

SCHEMA = """
CREATE TABLE organization (uuid TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE projects (uuid TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE users (
  uuid TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE COLLATE NOCASE, org_role TEXT NOT NULL,
  is_active INTEGER NOT NULL, record TEXT NOT NULL
);
CREATE TABLE tokens (hash TEXT PRIMARY KEY, user_uuid TEXT NOT NULL, expires_at INTEGER);
CREATE TABLE project_roles (
  project_uuid TEXT NOT NULL, user_uuid TEXT NOT NULL, role TEXT NOT NULL,
  PRIMARY KEY (project_uuid, user_uuid)
);
CREATE TABLE explores (
  project_uuid TEXT NOT NULL, name TEXT NOT NULL, sql_table TEXT NOT NULL, fields TEXT NOT NULL,
  PRIMARY KEY (project_uuid, name)
);
CREATE TABLE spaces (uuid TEXT PRIMARY KEY, project_uuid TEXT NOT NULL, name TEXT NOT NULL);
CREATE TABLE saved_charts (
  uuid TEXT PRIMARY KEY, project_uuid TEXT NOT NULL, name TEXT NOT NULL, record TEXT NOT NULL
);
CREATE TABLE saved_sql_charts (
  uuid TEXT PRIMARY KEY, project_uuid TEXT NOT NULL, name TEXT NOT NULL, slug TEXT NOT NULL,
  sql TEXT NOT NULL
);
CREATE TABLE dashboards (
  uuid TEXT PRIMARY KEY, project_uuid TEXT NOT NULL, name TEXT NOT NULL COLLATE NOCASE,
  updated_at INTEGER NOT NULL, record TEXT NOT NULL
);
CREATE INDEX dashboards_by_project ON dashboards (project_uuid);
CREATE TABLE catalog_metrics (
  id INTEGER PRIMARY KEY, project_uuid TEXT NOT NULL, name TEXT NOT NULL,
  label TEXT NOT NULL COLLATE NOCASE, chart_usage INTEGER NOT NULL, table_name TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX catalog_by_project ON catalog_metrics (project_uuid, name);
CREATE TABLE catalog_tags (metric_id INTEGER NOT NULL, tag TEXT NOT NULL);
CREATE INDEX catalog_tags_by_tag ON catalog_tags (tag, metric_id);
CREATE TABLE runs (
  query_uuid TEXT PRIMARY KEY, project_uuid TEXT NOT NULL, user_uuid TEXT NOT NULL,
  created_at INTEGER NOT NULL, trigger TEXT NOT NULL, language TEXT NOT NULL,
  status TEXT NOT NULL, runtime REAL,
  runtime_key REAL NOT NULL, -- runtime, or -1 without one: sorts runs without a runtime last
  haystack TEXT NOT NULL, -- the six searched texts, lowercased, joined by NUL
  s_sql TEXT NOT NULL, s_explore TEXT NOT NULL, s_fields TEXT NOT NULL,
  s_chart TEXT NOT NULL, s_sql_chart TEXT NOT NULL, s_dashboard TEXT NOT NULL,
  item TEXT NOT NULL
);
CREATE TABLE run_buckets (
  project_uuid TEXT NOT NULL, user_uuid TEXT NOT NULL, bucket INTEGER NOT NULL,
  trigger TEXT NOT NULL, language TEXT NOT NULL, status TEXT NOT NULL,
  runs INTEGER NOT NULL, runtime REAL NOT NULL,
  PRIMARY KEY (project_uuid, user_uuid, bucket, trigger, language, status)
) WITHOUT ROWID;
CREATE INDEX runs_recent ON runs (
  project_uuid, user_uuid, created_at DESC, query_uuid, trigger, language, status, runtime
);
CREATE INDEX runs_by_trigger ON runs (
  project_uuid, user_uuid, trigger, created_at DESC, query_uuid
);
CREATE INDEX runs_by_runtime ON runs (
  project_uuid, user_uuid, runtime_key DESC, created_at DESC, query_uuid, created_at
);
"""

TABLES = (
    "organization", "projects", "users", "tokens", "project_roles", "explores", "spaces",
    "saved_charts", "saved_sql_charts", "dashboards", "catalog_metrics", "catalog_tags", "runs",
    "run_buckets",
)  # fmt: skip

_memory_ids = itertools.count(1)
BUCKET_MS = 6 * 3_600_000  # runs counted per 6 hours in run_buckets (see history._count_rows)
_BUCKET_ROW = f"""
INSERT INTO run_buckets
SELECT project_uuid, user_uuid, created_at / {BUCKET_MS}, trigger, language, status,
       count(*), total(runtime)
FROM runs {{where}} GROUP BY 1, 2, 3, 4, 5, 6
ON CONFLICT DO UPDATE SET runs = runs + excluded.runs, runtime = runtime + excluded.runtime
"""


def token_hash(token: str) -> str:
    """The stored form of a personal access token: its SHA-256 hex digest."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Store:
    """A SQLite database (a file, or shared memory) with one connection per thread."""

    def __init__(self, path: str | None = None) -> None:
        if path is None:
            self._target = f"file:evaluator-{next(_memory_ids)}?mode=memory&cache=shared"
        else:
            self._target = Path(path).resolve().as_uri()
        self._local = threading.local()
        self._anchor = self._open()  # keeps a shared in-memory database alive
        self.write_lock = threading.Lock()

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._target, uri=True, check_same_thread=False, timeout=30)
        conn.row_factory = sqlite3.Row
        if "mode=memory" not in self._target:
            conn.execute("PRAGMA journal_mode=WAL")
        return conn

    def conn(self) -> sqlite3.Connection:
        """This thread's connection."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
        return conn

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """A serialized write transaction on this thread's connection."""
        with self.write_lock:
            conn = self.conn()
            with conn:
                yield conn

    def load(self, data: Mapping[str, Any], now_ms: int) -> None:
        """Replace the whole database with a checked data set; times resolve against now."""
        with self.writing() as conn:
            for table in TABLES:
                conn.execute(f"DROP TABLE IF EXISTS {table}")
            conn.executescript(SCHEMA)
            _load(conn, data, now_ms)
            conn.execute("ANALYZE")


def _opt_time(value: Any, now_ms: int) -> str | None:
    return format_time(parse_time(value, now_ms)) if isinstance(value, str) else None


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _load(conn: sqlite3.Connection, data: Mapping[str, Any], now_ms: int) -> None:
    org = data["organization"]
    conn.execute("INSERT INTO organization VALUES (?, ?)", (org["uuid"], org["name"]))
    conn.executemany(
        "INSERT INTO projects VALUES (?, ?)", [(p["uuid"], p["name"]) for p in data["projects"]]
    )
    _load_users(conn, data["users"], org["uuid"], now_ms)
    conn.executemany(
        "INSERT INTO project_roles VALUES (?, ?, ?)",
        [(r["projectUuid"], r["userUuid"], r["role"]) for r in data.get("projectRoles", [])],
    )
    explores = data.get("explores", [])
    conn.executemany(
        "INSERT INTO explores VALUES (?, ?, ?, ?)",
        [(e["projectUuid"], e["name"], e["sqlTable"], _dumps(e["fields"])) for e in explores],
    )
    spaces = {s["uuid"]: s for s in data.get("spaces", [])}
    conn.executemany(
        "INSERT INTO spaces VALUES (?, ?, ?)",
        [(s["uuid"], s["projectUuid"], s["name"]) for s in spaces.values()],
    )
    dashboards = {d["uuid"]: d for d in data.get("dashboards", [])}
    conn.executemany(
        "INSERT INTO saved_sql_charts VALUES (?, ?, ?, ?, ?)",
        [
            (c["uuid"], c["projectUuid"], c["name"], c["slug"], c["sql"])
            for c in data.get("savedSqlCharts", [])
        ],
    )
    _load_charts(conn, data.get("savedCharts", []), spaces, dashboards, now_ms)
    _load_dashboards(conn, data, spaces, now_ms)
    _load_catalog(conn, data.get("catalogMetrics", []))
    labels = {
        e["name"]: {f["id"]: f["label"] for f in e["fields"] if f.get("label")} for e in explores
    }
    names = Names(
        charts={c["uuid"]: c["name"] for c in data.get("savedCharts", [])},
        sql_charts={c["uuid"]: c["name"] for c in data.get("savedSqlCharts", [])},
        dashboards={d["uuid"]: d["name"] for d in dashboards.values()},
        labels=labels,
    )
    conn.executemany(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (_run_row(run, names, now_ms) for run in data["queryRuns"]),
    )
    conn.execute(_BUCKET_ROW.format(where="WHERE true"))


def _load_users(
    conn: sqlite3.Connection, users: list[dict[str, Any]], org_uuid: str, now_ms: int
) -> None:
    for user in users:
        record = {
            "userUuid": user["uuid"],
            "firstName": user["firstName"],
            "lastName": user["lastName"],
            "email": user["email"],
            "organizationUuid": org_uuid,
            "role": user["role"],
            "isActive": user.get("isActive", True),
            "isInviteExpired": user.get("isInviteExpired", False),
            "groups": user.get("groups", []),
        }
        conn.execute(
            "INSERT INTO users VALUES (?, ?, ?, ?, ?)",
            (user["uuid"], user["email"], user["role"], int(record["isActive"]), _dumps(record)),
        )
        for token in user.get("tokens", []):
            digest = token.get("tokenHash") or token_hash(token["token"])
            expires = token.get("expiresAt")
            conn.execute(
                "INSERT OR REPLACE INTO tokens VALUES (?, ?, ?)",
                (digest, user["uuid"], parse_time(expires, now_ms) if expires else None),
            )


def _load_charts(
    conn: sqlite3.Connection,
    charts: list[dict[str, Any]],
    spaces: Mapping[str, Mapping[str, Any]],
    dashboards: Mapping[str, Mapping[str, Any]],
    now_ms: int,
) -> None:
    for chart in charts:
        dashboard = dashboards.get(chart.get("dashboardUuid") or "")
        record = {
            "uuid": chart["uuid"],
            "name": chart["name"],
            "description": chart.get("description"),
            "projectUuid": chart["projectUuid"],
            "tableName": chart["metricQuery"]["exploreName"],
            "metricQuery": chart["metricQuery"],
            "chartConfig": chart.get("chartConfig", {"type": "table", "config": {}}),
            "tableConfig": chart.get("tableConfig", {"columnOrder": []}),
            "pivotConfig": chart.get("pivotConfig"),
            "updatedAt": format_time(parse_time(chart["updatedAt"], now_ms)),
            "spaceUuid": chart["spaceUuid"],
            "spaceName": spaces[chart["spaceUuid"]]["name"],
            "dashboardUuid": dashboard["uuid"] if dashboard else None,
            "dashboardName": dashboard["name"] if dashboard else None,
        }
        conn.execute(
            "INSERT INTO saved_charts VALUES (?, ?, ?, ?)",
            (chart["uuid"], chart["projectUuid"], chart["name"], _dumps(record)),
        )


def _load_dashboards(
    conn: sqlite3.Connection,
    data: Mapping[str, Any],
    spaces: Mapping[str, Mapping[str, Any]],
    now_ms: int,
) -> None:
    org = data["organization"]
    projects = {p["uuid"]: p for p in data["projects"]}
    users = {u["uuid"]: u for u in data["users"]}
    for board in data.get("dashboards", []):
        author = users[board["createdBy"]]
        person = {
            "uuid": author["uuid"],
            "firstName": author["firstName"],
            "lastName": author["lastName"],
        }
        updated = parse_time(board["updatedAt"], now_ms)
        project = projects[board["projectUuid"]]
        record = {
            "contentType": "dashboard",
            "uuid": board["uuid"],
            "name": board["name"],
            "description": board.get("description"),
            "createdAt": format_time(parse_time(board["createdAt"], now_ms)),
            "createdBy": person,
            "lastUpdatedAt": format_time(updated),
            "lastUpdatedBy": person,
            "project": {"uuid": project["uuid"], "name": project["name"]},
            "organization": {"uuid": org["uuid"], "name": org["name"]},
            "space": {"uuid": board["spaceUuid"], "name": spaces[board["spaceUuid"]]["name"]},
            "views": board.get("views", 0),
            "firstViewedAt": _opt_time(board.get("firstViewedAt"), now_ms),
        }
        conn.execute(
            "INSERT INTO dashboards VALUES (?, ?, ?, ?, ?)",
            (board["uuid"], board["projectUuid"], board["name"], updated, _dumps(record)),
        )


def _load_catalog(conn: sqlite3.Connection, metrics: list[dict[str, Any]]) -> None:
    for metric in metrics:
        if "timeDimension" not in metric:
            continue
        record = {
            "name": metric["name"],
            "label": metric["label"],
            "tableName": metric["tableName"],
            "tableLabel": metric["tableLabel"],
            "description": metric.get("description"),
            "fieldType": "metric",
            "tags": metric.get("tags", []),
            "categories": metric.get("categories", []),
            "chartUsage": metric.get("chartUsage", 0),
            "timeDimension": metric["timeDimension"],
        }
        cursor = conn.execute(
            "INSERT INTO catalog_metrics (project_uuid, name, label, chart_usage, table_name,"
            " record) VALUES (?, ?, ?, ?, ?, ?)",
            (
                metric["projectUuid"],
                metric["name"],
                metric["label"],
                record["chartUsage"],
                metric["tableName"],
                _dumps(record),
            ),
        )
        conn.executemany(
            "INSERT INTO catalog_tags VALUES (?, ?)",
            [(cursor.lastrowid, tag) for tag in sorted(set(record["tags"]))],
        )


def insert_run(conn: sqlite3.Connection, run: Mapping[str, Any], now_ms: int) -> None:
    """Store one new run, deriving its fields from the names it joins to in the database."""
    params = run["requestParameters"]

    def name_of(table: str, key: str) -> dict[str, str]:
        value = params.get(key)
        if not isinstance(value, str):
            return {}
        row = conn.execute(f"SELECT name FROM {table} WHERE uuid = ?", (value,)).fetchone()
        return {} if row is None else {value: row[0]}

    labels: dict[str, dict[str, str]] = {}
    explore = (run.get("metricQuery") or {}).get("exploreName")
    row = conn.execute(
        "SELECT fields FROM explores WHERE project_uuid = ? AND name = ?",
        (run["projectUuid"], explore),
    ).fetchone()
    if row is not None:
        fields = json.loads(row[0])
        labels[str(explore)] = {f["id"]: f["label"] for f in fields if f.get("label")}
    names = Names(
        charts=name_of("saved_charts", "chartUuid"),
        sql_charts=name_of("saved_sql_charts", "savedSqlUuid"),
        dashboards=name_of("dashboards", "dashboardUuid"),
        labels=labels,
    )
    conn.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        _run_row(run, names, now_ms),
    )
    conn.execute(_BUCKET_ROW.format(where="WHERE query_uuid = ?"), (run["queryUuid"],))


def _run_row(run: Mapping[str, Any], names: Names, now_ms: int) -> tuple[Any, ...]:
    derived = derive(run, names)
    created = parse_time(run["createdAt"], now_ms)
    results_created = run.get("resultsCreatedAt")
    cache_hit = isinstance(results_created, str) and parse_time(results_created, now_ms) < created
    semantic = derived.language == "semantic"
    item = {
        "queryUuid": run["queryUuid"],
        "createdAt": format_time(created),
        "projectUuid": run["projectUuid"],
        "context": run["context"],
        "trigger": derived.trigger,
        "language": derived.language,
        "status": run["status"],
        "title": derived.title,
        "subline": derived.subline,
        "error": run.get("error"),
        "exploreName": derived.explore_name,
        "metricQuery": run.get("metricQuery") if semantic else None,
        "requestParameters": run["requestParameters"],
        "chartUuid": derived.chart_uuid,
        "chartName": derived.chart_name,
        "savedSqlUuid": derived.saved_sql_uuid,
        "dashboardUuid": derived.dashboard_uuid,
        "dashboardName": derived.dashboard_name,
        "compiledSql": run["compiledSql"],
        "totalRowCount": run.get("totalRowCount"),
        "warehouseExecutionTimeMs": run.get("warehouseExecutionTimeMs"),
        "cacheHit": cache_hit,
        "resultsExpiresAt": _opt_time(run.get("resultsExpiresAt"), now_ms),
        "resultsUpdatedAt": _opt_time(run.get("resultsUpdatedAt"), now_ms),
        "processingStartedAt": _opt_time(run.get("processingStartedAt"), now_ms),
        "erroredAt": _opt_time(run.get("erroredAt"), now_ms),
    }
    return (
        run["queryUuid"],
        run["projectUuid"],
        run["userUuid"],
        created,
        derived.trigger,
        derived.language,
        run["status"],
        run.get("warehouseExecutionTimeMs"),
        -1 if run.get("warehouseExecutionTimeMs") is None else run["warehouseExecutionTimeMs"],
        "\x00".join(derived.search_fields),
        *derived.search_fields,
        _dumps(item),
    )
