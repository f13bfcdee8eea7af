"""The query-history list: filters, windows, sort, search, counts and one page of rows.

Scope: the caller's own runs in the project created in (now - 30 days, now]. Windows are
bounds on createdAt with an inclusive newer end (a run exactly 5 minutes old is in lastHour).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from release_safety.evaluator.params import Params, offset_of, page_info, pagination
from release_safety.evaluator.store import BUCKET_MS
from release_safety.evaluator.times import MINUTE_MS

WINDOWS: tuple[tuple[str, int, int], ...] = (
    ("lastFewMinutes", 0, 5),
    ("lastHour", 5, 60),
    ("last24Hours", 60, 1_440),
    ("last7Days", 1_440, 10_080),
    ("last30Days", 10_080, 43_200),
)
WINDOW_NAMES = tuple(name for name, _, _ in WINDOWS)
TRIGGER_NAMES = ("interactive", "apps", "scheduled")
LANGUAGES = ("semantic", "sql")
STATUSES = ("pending", "queued", "executing", "expired", "ready", "error", "cancelled")
SORTS = ("createdAt", "runtime")
SEARCH_COLUMNS = ("s_sql", "s_explore", "s_fields", "s_chart", "s_sql_chart", "s_dashboard")
DEFAULT_PAGE_SIZE = 25
MAX_PAGE_SIZE = 100
SEVEN_DAYS_MINUTES = 10_080


@dataclass(frozen=True)
class HistoryQuery:
    """The checked parameters of one history request."""

    page: int = 1
    page_size: int = DEFAULT_PAGE_SIZE
    trigger: str | None = None
    language: str | None = None
    statuses: tuple[str, ...] = ()
    search: str = ""
    window: str | None = None
    sort_by: str = "createdAt"


def parse_query(params: Params) -> HistoryQuery:
    """Read and check the query string (422 ValidateError or PaginationError)."""
    page = params.integer("page", 1)
    page_size = params.integer("pageSize", DEFAULT_PAGE_SIZE)
    trigger = params.enum("trigger", TRIGGER_NAMES)
    language = params.enum("language", LANGUAGES)
    statuses = params.enum_list("status", STATUSES)
    window = params.enum("window", WINDOW_NAMES)
    sort_by = params.enum("sortBy", SORTS) or "createdAt"
    search = params.text("search") or ""
    params.check()
    page, page_size = pagination(page, page_size, MAX_PAGE_SIZE)
    return HistoryQuery(
        page=page,
        page_size=page_size,
        trigger=trigger,
        language=language,
        statuses=tuple(dict.fromkeys(statuses)),
        search=search,
        window=window,
        sort_by=sort_by,
    )


def _bounds(window: str, now: int) -> tuple[int, int]:
    """(older exclusive, newer inclusive) createdAt bounds of a window."""
    _, newer, older = next(w for w in WINDOWS if w[0] == window)
    return now - older * MINUTE_MS, now - newer * MINUTE_MS


def _common_filters(
    query: HistoryQuery, project: str, user: str, now: int
) -> tuple[list[str], list[Any]]:
    """Scope plus every filter that applies to both the rows and all counts."""
    clauses = ["project_uuid = ?", "user_uuid = ?", "created_at > ?", "created_at <= ?"]
    args: list[Any] = [project, user, now - 43_200 * MINUTE_MS, now]
    if query.language:
        clauses.append("language = ?")
        args.append(query.language)
    if query.statuses:
        clauses.append(f"status IN ({', '.join('?' * len(query.statuses))})")
        args.extend(query.statuses)
    needle = query.search.lower()
    if needle and "\x00" not in needle:
        clauses.append("instr(haystack, ?) > 0")  # one call over the NUL-joined texts
        args.append(needle)
    elif needle:
        clauses.append("(" + " OR ".join(f"instr({c}, ?) > 0" for c in SEARCH_COLUMNS) + ")")
        args.extend([needle] * len(SEARCH_COLUMNS))
    return clauses, args


def _window_case(column: str, now: int) -> str:
    """SQL giving the index of the window that holds `column` (a createdAt in ms)."""
    whens = " ".join(
        f"WHEN {column} > {now - older * MINUTE_MS} THEN {index}"
        for index, (_, _, older) in enumerate(WINDOWS)
    )
    return f"CASE {whens} END"


def _count_rows(
    conn: sqlite3.Connection,
    query: HistoryQuery,
    where: str,
    args: list[Any],
    now: int,
) -> list[tuple[str, int, int, float]]:
    """(trigger, window index, runs, runtime newer than 7 days) over the counted rows.

    Without a search, whole buckets of `run_buckets` that no window edge cuts are summed, and
    only the runs of the (at most six) buckets holding an edge are read one by one."""
    week_start = now - SEVEN_DAYS_MINUTES * MINUTE_MS
    exact = (
        f"SELECT trigger, {_window_case('created_at', now)} AS w, count(*),"
        f" total(CASE WHEN created_at > {week_start} THEN runtime END) FROM ({{rows}})"
        " GROUP BY trigger, w"
    )
    select = "SELECT trigger, created_at, runtime FROM runs WHERE "
    if query.search:
        return list(conn.execute(exact.format(rows=select + where), args).fetchall())
    edges = sorted(
        {(now - older * MINUTE_MS) // BUCKET_MS for _, _, older in WINDOWS} | {now // BUCKET_MS}
    )
    # `where` starts with project, user, created_at > ?, created_at <= ?: narrow the two bounds
    # to each edge bucket so the index range is the bucket, not the whole scope.
    parts = [select + where for _ in edges]
    edge_args = [
        a
        for edge in edges
        for a in (
            *args[:2],
            max(args[2], edge * BUCKET_MS - 1),
            min(args[3], (edge + 1) * BUCKET_MS - 1),
            *args[4:],
        )
    ]
    rows = conn.execute(exact.format(rows=" UNION ALL ".join(parts)), edge_args).fetchall()
    filters = ["project_uuid = ?", "user_uuid = ?", "bucket > ?", "bucket < ?"]
    filters.append(f"bucket NOT IN ({', '.join(map(str, edges))})")
    summary_args: list[Any] = [args[0], args[1], edges[0], edges[-1]]
    if query.language:
        filters.append("language = ?")
        summary_args.append(query.language)
    if query.statuses:
        filters.append(f"status IN ({', '.join('?' * len(query.statuses))})")
        summary_args.extend(query.statuses)
    start = f"bucket * {BUCKET_MS}"
    rows += conn.execute(
        f"SELECT trigger, {_window_case(start, now)} AS w, sum(runs),"
        f" total(CASE WHEN {start} > {week_start} THEN runtime END)"
        f" FROM run_buckets WHERE {' AND '.join(filters)} GROUP BY trigger, w",
        summary_args,
    ).fetchall()
    return rows


def _counts(
    conn: sqlite3.Connection, query: HistoryQuery, where: str, args: list[Any], now: int
) -> tuple[dict[str, Any], int]:
    """The counts object, and how many rows match every filter."""
    rows = _count_rows(conn, query, where, args, now)
    window_index = WINDOW_NAMES.index(query.window) if query.window else None
    triggers = dict.fromkeys(TRIGGER_NAMES, 0)
    windows = dict.fromkeys(WINDOW_NAMES, 0)
    warehouse = 0.0
    matching = 0
    for trigger, bucket, count, runtime in rows:
        if query.trigger in (None, trigger):
            windows[WINDOW_NAMES[bucket]] += count
            warehouse += runtime
        if window_index in (None, bucket):
            triggers[trigger] += count
            if query.trigger in (None, trigger):
                matching += count
    counts = {
        "total": sum(triggers.values()),
        "triggers": triggers,
        "windows": windows,
        "warehouseTimeMsLast7Days": int(warehouse) if warehouse.is_integer() else warehouse,
    }
    return counts, matching


class RawJson(str):
    """Results already encoded as JSON (stored items are spliced in, not re-encoded)."""


def list_history(
    conn: sqlite3.Connection, query: HistoryQuery, project: str, user: str, now: int
) -> RawJson:
    """The `results` object of the history list (data, pagination, counts) as JSON text."""
    clauses, args = _common_filters(query, project, user, now)
    counts, total = _counts(conn, query, " AND ".join(clauses), args, now)
    if query.trigger:
        clauses.append("trigger = ?")
        args.append(query.trigger)
    if query.window:
        older, newer = _bounds(query.window, now)
        clauses[2:4] = ["created_at > ?", "created_at <= ?"]
        args[2:4] = [older, newer]
    where = " AND ".join(clauses)
    order = "created_at DESC, query_uuid"
    source = "runs"
    if query.sort_by == "runtime":
        order = "runtime_key DESC, " + order
        source = "runs INDEXED BY runs_by_runtime"  # walk in order; never sort the whole scope
    rows = conn.execute(
        f"SELECT item FROM {source} WHERE {where} ORDER BY {order} LIMIT ? OFFSET ?",
        [*args, query.page_size, offset_of(query.page, query.page_size)],
    ).fetchall()
    pages = json.dumps(page_info(query.page, query.page_size, total))
    data = ",".join(row[0] for row in rows)
    return RawJson(f'{{"data":[{data}],"pagination":{pages},"counts":{json.dumps(counts)}}}')


def run_status(
    conn: sqlite3.Connection, project: str, user: str, query_uuid: str
) -> dict[str, Any] | None:
    """One of the caller's runs in the project, with its status; None when not theirs."""
    row = conn.execute(
        "SELECT item FROM runs WHERE query_uuid = ? AND project_uuid = ? AND user_uuid = ?",
        (query_uuid, project, user),
    ).fetchone()
    if row is None:
        return None
    item = json.loads(row[0])
    keys = ("queryUuid", "status", "error", "createdAt", "totalRowCount", "resultsUpdatedAt")
    return {key: item[key] for key in keys}
