"""SQLite storage of the evaluator: schema, indexes, the connection, data loading.

Runs are stored with their derived fields; their finished list items (JSON bytes) are held
beside the database, by row id: a history page reads the count index (`counts.py`) for its
counts and one covering index per sort for its row ids, then joins the items of one page. A
`search` reads the runs' searched texts and keys held in memory (`search.py`).
"""

from __future__ import annotations

import gc
import itertools
import sqlite3
import threading
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any

import orjson

from release_safety.common.errors import CheckError, InputError
from release_safety.evaluator.answers import Answers
from release_safety.evaluator.counts import CountBuilder, CountIndex
from release_safety.evaluator.derive import Deriver, Names
from release_safety.evaluator.encoding import dumps
from release_safety.evaluator.fixture import (
    DataSet,
    RunChecker,
    check_parts,
    dataset_of,
    token_hash,
)
from release_safety.evaluator.search import Keys, Texts
from release_safety.evaluator.times import format_time, parse_time, resolve

TABLES = """
CREATE TABLE organization (uuid TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE projects (uuid TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE users (
  uuid TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE COLLATE NOCASE, org_role TEXT NOT NULL,
  is_active INTEGER NOT NULL, record BLOB NOT NULL
);
CREATE TABLE tokens (hash TEXT PRIMARY KEY, user_uuid TEXT NOT NULL, expires_at INTEGER);
CREATE TABLE project_roles (
  project_uuid TEXT NOT NULL, user_uuid TEXT NOT NULL, role TEXT NOT NULL,
  PRIMARY KEY (project_uuid, user_uuid)
);
CREATE TABLE explores (
  project_uuid TEXT NOT NULL, name TEXT NOT NULL, sql_table TEXT NOT NULL, fields BLOB NOT NULL,
  PRIMARY KEY (project_uuid, name)
);
CREATE TABLE spaces (uuid TEXT PRIMARY KEY, project_uuid TEXT NOT NULL, name TEXT NOT NULL);
CREATE TABLE saved_charts (
  uuid TEXT PRIMARY KEY, project_uuid TEXT NOT NULL, name TEXT NOT NULL, record BLOB NOT NULL
);
CREATE TABLE saved_sql_charts (
  uuid TEXT PRIMARY KEY, project_uuid TEXT NOT NULL, name TEXT NOT NULL, slug TEXT NOT NULL,
  sql TEXT NOT NULL
);
CREATE TABLE dashboards (
  uuid TEXT PRIMARY KEY, project_uuid TEXT NOT NULL, name TEXT NOT NULL COLLATE NOCASE,
  updated_at INTEGER NOT NULL, record BLOB NOT NULL
);
CREATE INDEX dashboards_by_project ON dashboards (project_uuid);
CREATE TABLE catalog_metrics (
  id INTEGER PRIMARY KEY, project_uuid TEXT NOT NULL, name TEXT NOT NULL,
  label TEXT NOT NULL COLLATE NOCASE, chart_usage INTEGER NOT NULL, table_name TEXT NOT NULL,
  record BLOB NOT NULL
);
CREATE INDEX catalog_by_project ON catalog_metrics (project_uuid, name);
CREATE TABLE catalog_tags (metric_id INTEGER NOT NULL, tag TEXT NOT NULL);
CREATE INDEX catalog_tags_by_tag ON catalog_tags (tag, metric_id);
CREATE TABLE scopes (
  id INTEGER PRIMARY KEY, project_uuid TEXT NOT NULL, user_uuid TEXT NOT NULL,
  UNIQUE (project_uuid, user_uuid)
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY, query_uuid TEXT NOT NULL,
  scope INTEGER NOT NULL, -- the (project, user) pair of scopes
  created_at INTEGER NOT NULL, -- epoch microseconds
  trigger TEXT NOT NULL, language TEXT NOT NULL, status TEXT NOT NULL, runtime REAL,
  runtime_key REAL NOT NULL -- runtime, or -1 without one: sorts runs without a runtime last
);
"""
# Built once the runs are in: faster than keeping them up to date row by row.
INDEXES = """
CREATE UNIQUE INDEX runs_by_uuid ON runs (query_uuid);
CREATE INDEX runs_recent ON runs (
  scope, created_at DESC, query_uuid, trigger, language, status, runtime
);
CREATE INDEX runs_by_runtime ON runs (
  scope, runtime_key DESC, created_at DESC, query_uuid, trigger, language, status
);
"""
DROP = (
    "organization", "projects", "users", "tokens", "project_roles", "explores", "spaces",
    "saved_charts", "saved_sql_charts", "dashboards", "catalog_metrics", "catalog_tags", "scopes",
    "runs",
)  # fmt: skip
_INSERT_RUN = f"INSERT INTO runs VALUES ({', '.join('?' * 9)})"
BATCH = 2_000
# what the count index gathers of a run's stored row
_COUNTED = itemgetter(2, 4, 5, 6, 3, 7)  # scope, trigger, language, status, created, runtime
REQUIRED = ("organization", "projects", "users")


class Items:
    """The list items of the runs, by row id (1, 2, ...), end to end in one buffer: as many
    small bytes objects, each left behind by a larger buffer of the encoder, took six times
    their size. A page is joined from views of the buffer (one copy of each item); the buffer
    cannot grow while a view of it is held, so `joined` holds a lock while its views exist,
    and `add` (a writer on any thread), refused by a held view, waits for that lock."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._ends = array("q", [0])  # where item i ends is _ends[i]
        self._lock = threading.Lock()

    def add(self, rowid: int, item: bytes) -> None:
        """Keep the item of the next row id."""
        if rowid != len(self._ends):
            raise CheckError(f"run row {rowid} stored out of order (expected {len(self._ends)})")
        try:
            self._buffer += item
        except BufferError:  # a page is being joined from views of it: wait for the join
            with self._lock:
                self._buffer += item
        self._ends.append(len(self._buffer))

    def __getitem__(self, rowid: int) -> bytearray:
        return self._buffer[self._ends[rowid - 1] : self._ends[rowid]]

    def joined(self, rowids: Iterable[int], head: bytes = b"", tail: bytes = b"") -> bytes:
        """`head`, the items of these row ids in that order joined by commas, then `tail`:
        one copy of each item."""
        ends = self._ends
        with self._lock, memoryview(self._buffer) as buffer:
            parts: list[bytes | memoryview] = [head]
            for i in rowids:
                parts += (buffer[ends[i - 1] : ends[i]], b",")
            if len(parts) > 1:
                parts.pop()
            parts.append(tail)
            try:
                return b"".join(parts)
            finally:
                parts.clear()  # no view of the buffer outlives the lock


@dataclass(frozen=True)
class TokenOwner:
    """Who a stored token authenticates, and until when."""

    user_uuid: str
    org_role: str
    is_active: bool
    expires_at: int | None


class Store:
    """A SQLite database (a file, or memory), its count index and its token owners.

    One connection serves every request (the application runs its handlers on the event
    loop); `writing()` serializes writes from any other thread, such as a test's."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        try:
            if path is None:
                self._conn = sqlite3.connect(":memory:", check_same_thread=False)
            else:
                uri = Path(path).resolve().as_uri()
                self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=30)
                self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=OFF")  # rebuilt from the data at each start
        except sqlite3.Error as exc:
            raise self.failure(exc) from exc
        self._conn.row_factory = sqlite3.Row
        self.write_lock = threading.Lock()
        self.counts = CountIndex()
        self.scopes: dict[tuple[str, str], int] = {}
        self.tokens: dict[str, TokenOwner] = {}
        # runs are never changed, only added: their items, searched texts and keys by row id
        self.items = Items()
        self.texts = Texts()
        self.keys = Keys()
        self.generation = 0  # moves on at every write: answers computed before are stale
        self.answers = Answers()
        # (project, user) -> (project exists, role): existing projects only, so it stays as
        # small as the roles table; emptied by every write
        self._access: dict[tuple[str, str], tuple[bool, str | None]] = {}

    def failure(self, exc: sqlite3.Error) -> InputError | CheckError:
        """A database error as one line naming the file: 2 when the file is not a database
        (or a corrupt one), 3 when it cannot be opened or written."""
        place = str(self.path) if self.path is not None else "in-memory database"
        if type(exc) is sqlite3.DatabaseError:
            return InputError(f"{place}: not an SQLite database: {exc}")
        return CheckError(f"{place}: cannot use the database: {exc}")

    def conn(self) -> sqlite3.Connection:
        """The connection."""
        return self._conn

    def tuples(self, sql: str, args: Sequence[Any]) -> list[tuple[Any, ...]]:
        """The rows of a query as plain tuples (cheaper than the connection's named rows)."""
        cursor = self._conn.cursor()
        cursor.row_factory = None
        return cursor.execute(sql, args).fetchall()

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """A serialized write transaction; what was read of the access rules is read again."""
        with self.write_lock:
            try:
                with self._conn:
                    yield self._conn
            finally:
                self.generation += 1
                self._access.clear()

    def access(self, project: str, user: str) -> tuple[bool, str | None]:
        """Whether a project exists, and the user's role in it (None without one)."""
        key = (project, user)
        found = self._access.get(key)
        if found is None:
            exists, role = self.tuples(
                "SELECT EXISTS (SELECT 1 FROM projects WHERE uuid = ?1), (SELECT role FROM"
                " project_roles WHERE project_uuid = ?1 AND user_uuid = ?2)",
                key,
            )[0]
            found = (bool(exists), role)
            if exists:
                self._access[key] = found
        return found

    def load(self, data: DataSet | Mapping[str, Any], now: int) -> None:
        """Replace the whole database with a checked data set; times resolve against now."""
        if not isinstance(data, DataSet):
            data = dataset_of(data, "data")
        collecting = gc.isenabled()
        gc.disable()  # a load makes millions of short-lived objects and no cycles: no GC passes
        try:
            with self.writing() as conn:
                counted = _load(conn, data, now, self)
                _script(conn, INDEXES)
                conn.execute("ANALYZE")
                self.counts.build(counted)
        except sqlite3.Error as exc:
            raise self.failure(exc) from exc
        finally:
            if collecting:
                gc.enable()
        self.tokens = {
            row["hash"]: TokenOwner(
                row["uuid"], row["org_role"], bool(row["is_active"]), row["expires_at"]
            )
            for row in self._conn.execute(
                "SELECT t.hash, t.expires_at, u.uuid, u.org_role, u.is_active FROM tokens t"
                " JOIN users u ON u.uuid = t.user_uuid"
            )
        }

    def scope(self, project: str, user: str) -> int | None:
        """The scope id of a user's runs in a project (None when they have none)."""
        return self.scopes.get((project, user))


def _script(conn: sqlite3.Connection, script: str) -> None:
    """Run statements one by one, inside the open transaction (executescript would commit)."""
    for statement in script.split(";\n"):
        if statement.strip():
            conn.execute(statement)


def _reset(conn: sqlite3.Connection) -> None:
    if not conn.in_transaction:
        conn.execute("BEGIN")
    for table in DROP:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
    _script(conn, TABLES)


def _load(
    conn: sqlite3.Connection,
    data: DataSet,
    now: int,
    store: Store,
) -> CountBuilder:
    """Parts, then runs; a second reading of the runs when a part came after them. Returns
    the runs gathered for the count index."""
    for attempt in (1, 2):
        _reset(conn)
        counted = CountBuilder()
        store.scopes.clear()
        store.items, store.texts, store.keys = Items(), Texts(), Keys()
        batches = data.batches()
        first = next(batches, None)  # the parts before the runs are read now
        if attempt == 1 and any(key not in data.parts for key in REQUIRED) and data.path:
            for _ in batches:  # the runs come before parts they need: read on, then again
                pass
            continue
        check_parts(data)
        try:
            names = _load_parts(conn, data.parts, now)
        except ValueError as exc:
            raise InputError(f"{data.where}: {exc}") from exc
        if first is not None:
            _load_runs(conn, data, itertools.chain([first], batches), names, now, store, counted)
        if not data.late_parts:
            break
    return counted


def _load_parts(conn: sqlite3.Connection, data: Mapping[str, Any], now: int) -> Names:
    """Everything but the runs; the names and labels the runs join to."""
    org = data["organization"]
    conn.execute("INSERT INTO organization VALUES (?, ?)", (org["uuid"], org["name"]))
    conn.executemany(
        "INSERT INTO projects VALUES (?, ?)", [(p["uuid"], p["name"]) for p in data["projects"]]
    )
    _load_users(conn, data["users"], org["uuid"], now)
    conn.executemany(
        "INSERT INTO project_roles VALUES (?, ?, ?)",
        [(r["projectUuid"], r["userUuid"], r["role"]) for r in data.get("projectRoles", [])],
    )
    explores = data.get("explores", [])
    conn.executemany(
        "INSERT INTO explores VALUES (?, ?, ?, ?)",
        [(e["projectUuid"], e["name"], e["sqlTable"], dumps(e["fields"])) for e in explores],
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
    _load_charts(conn, data.get("savedCharts", []), spaces, dashboards, now)
    _load_dashboards(conn, data, spaces, now)
    _load_catalog(conn, data.get("catalogMetrics", []))
    return Names(
        charts={c["uuid"]: c["name"] for c in data.get("savedCharts", [])},
        sql_charts={c["uuid"]: c["name"] for c in data.get("savedSqlCharts", [])},
        dashboards={d["uuid"]: d["name"] for d in dashboards.values()},
        labels={
            e["name"]: {f["id"]: f["label"] for f in e["fields"] if f.get("label")}
            for e in explores
        },
    )


def _load_runs(
    conn: sqlite3.Connection,
    data: DataSet,
    batches: Iterator[list[Any]],
    names: Names,
    now: int,
    store: Store,
    counted: CountBuilder,
) -> None:
    """Check, derive and insert the runs in batches: no more than a batch is held at once."""
    checker = RunChecker(data)
    deriver = Deriver(names)
    rows: list[tuple[Any, ...]] = []
    scopes, items, texts, keys = store.scopes, store.items, store.texts, store.keys
    for index, run in checker.checked(batches):
        key = (run["projectUuid"], run["userUuid"])
        scope = scopes.get(key)
        if scope is None:
            scope = scopes[key] = len(scopes) + 1
        try:
            row, searched, item = run_row(index + 1, scope, run, deriver, now)
        except ValueError as exc:
            raise InputError(f"{data.where}: /queryRuns/{index}: {exc}") from exc
        items.add(index + 1, item)
        texts.add(searched, keys.record(row))
        rows.append(row)
        counted.add(*_COUNTED(row))
        if len(rows) >= BATCH:
            conn.executemany(_INSERT_RUN, rows)
            rows.clear()
    conn.executemany(_INSERT_RUN, rows)
    conn.executemany(
        "INSERT INTO scopes VALUES (?, ?, ?)", [(i, p, u) for (p, u), i in scopes.items()]
    )


def _opt_time(value: Any, now: int) -> str | None:
    return resolve(value, now)[1] if isinstance(value, str) else None


def _load_users(
    conn: sqlite3.Connection, users: list[dict[str, Any]], org_uuid: str, now: int
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
            (user["uuid"], user["email"], user["role"], int(record["isActive"]), dumps(record)),
        )
        for token in user.get("tokens", []):
            digest = token.get("tokenHash") or token_hash(token["token"])
            expires = token.get("expiresAt")
            conn.execute(
                "INSERT OR REPLACE INTO tokens VALUES (?, ?, ?)",
                (digest, user["uuid"], parse_time(expires, now) if expires else None),
            )


def _load_charts(
    conn: sqlite3.Connection,
    charts: list[dict[str, Any]],
    spaces: Mapping[str, Mapping[str, Any]],
    dashboards: Mapping[str, Mapping[str, Any]],
    now: int,
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
            "updatedAt": format_time(parse_time(chart["updatedAt"], now)),
            "spaceUuid": chart["spaceUuid"],
            "spaceName": spaces[chart["spaceUuid"]]["name"],
            "dashboardUuid": dashboard["uuid"] if dashboard else None,
            "dashboardName": dashboard["name"] if dashboard else None,
        }
        conn.execute(
            "INSERT INTO saved_charts VALUES (?, ?, ?, ?)",
            (chart["uuid"], chart["projectUuid"], chart["name"], dumps(record)),
        )


def _load_dashboards(
    conn: sqlite3.Connection,
    data: Mapping[str, Any],
    spaces: Mapping[str, Mapping[str, Any]],
    now: int,
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
        updated = parse_time(board["updatedAt"], now)
        project = projects[board["projectUuid"]]
        record = {
            "contentType": "dashboard",
            "uuid": board["uuid"],
            "name": board["name"],
            "description": board.get("description"),
            "createdAt": format_time(parse_time(board["createdAt"], now)),
            "createdBy": person,
            "lastUpdatedAt": format_time(updated),
            "lastUpdatedBy": person,
            "project": {"uuid": project["uuid"], "name": project["name"]},
            "organization": {"uuid": org["uuid"], "name": org["name"]},
            "space": {"uuid": board["spaceUuid"], "name": spaces[board["spaceUuid"]]["name"]},
            "views": board.get("views", 0),
            "firstViewedAt": _opt_time(board.get("firstViewedAt"), now),
        }
        conn.execute(
            "INSERT INTO dashboards VALUES (?, ?, ?, ?, ?)",
            (board["uuid"], board["projectUuid"], board["name"], updated, dumps(record)),
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
                dumps(record),
            ),
        )
        conn.executemany(
            "INSERT INTO catalog_tags VALUES (?, ?)",
            [(cursor.lastrowid, tag) for tag in sorted(set(record["tags"]))],
        )


def insert_run(store: Store, conn: sqlite3.Connection, run: Mapping[str, Any], now: int) -> None:
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
        fields = orjson.loads(row[0])
        labels[str(explore)] = {f["id"]: f["label"] for f in fields if f.get("label")}
    names = Names(
        charts=name_of("saved_charts", "chartUuid"),
        sql_charts=name_of("saved_sql_charts", "savedSqlUuid"),
        dashboards=name_of("dashboards", "dashboardUuid"),
        labels=labels,
    )
    key = (run["projectUuid"], run["userUuid"])
    scope = store.scopes.get(key)
    if scope is None:
        cursor = conn.execute("INSERT INTO scopes (project_uuid, user_uuid) VALUES (?, ?)", key)
        scope = store.scopes[key] = int(cursor.lastrowid or 0)
    values, searched, item = run_row(None, scope, run, Deriver(names), now)
    rowid = int(conn.execute(_INSERT_RUN, values).lastrowid or 0)
    store.items.add(rowid, item)
    store.texts.add(searched, store.keys.record((rowid, *values[1:])))
    _, _, _, created, trigger, language, status, runtime = values[:8]
    store.counts.add(scope, trigger, language, status, created, runtime)


def run_row(
    rowid: int | None, scope: int, run: Mapping[str, Any], deriver: Deriver, now: int
) -> tuple[tuple[Any, ...], tuple[str, ...], bytes]:
    """The stored row of a run, its six searched texts (lowercased) and its list item."""
    derived = deriver(run)
    language = derived.language
    get = run.get
    uuid, status = run["queryUuid"], run["status"]
    created, created_text = resolve(run["createdAt"], now)
    results_created = get("resultsCreatedAt")
    cache_hit = isinstance(results_created, str) and resolve(results_created, now)[0] < created
    runtime = get("warehouseExecutionTimeMs")
    if isinstance(runtime, int) and runtime >= 2**63:  # the data schema refuses negatives
        raise ValueError("warehouseExecutionTimeMs: an integer past the 64 bits the store holds")
    item = {
        "queryUuid": uuid,
        "createdAt": created_text,
        "projectUuid": run["projectUuid"],
        "context": run["context"],
        "trigger": derived.trigger,
        "language": language,
        "status": status,
        "title": derived.title,
        "subline": derived.subline,
        "error": get("error"),
        "exploreName": derived.explore_name,
        "metricQuery": get("metricQuery") if language == "semantic" else None,
        "requestParameters": run["requestParameters"],
        "chartUuid": derived.chart_uuid,
        "chartName": derived.chart_name,
        "savedSqlUuid": derived.saved_sql_uuid,
        "dashboardUuid": derived.dashboard_uuid,
        "dashboardName": derived.dashboard_name,
        "compiledSql": run["compiledSql"],
        "totalRowCount": get("totalRowCount"),
        "warehouseExecutionTimeMs": runtime,
        "cacheHit": cache_hit,
        "resultsExpiresAt": _opt_time(get("resultsExpiresAt"), now),
        "resultsUpdatedAt": _opt_time(get("resultsUpdatedAt"), now),
        "processingStartedAt": _opt_time(get("processingStartedAt"), now),
        "erroredAt": _opt_time(get("erroredAt"), now),
    }
    row = (
        rowid,
        uuid,
        scope,
        created,
        derived.trigger,
        language,
        status,
        runtime,
        -1 if runtime is None else runtime,
    )
    return row, derived.search_fields, dumps(item)
