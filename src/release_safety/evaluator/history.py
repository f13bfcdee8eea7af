"""The query-history list: filters, windows, sort, search, counts and one page of rows.

Scope: the caller's own runs in the project created in (now - 30 days, now]. Windows are
bounds on createdAt with an inclusive newer end (a run exactly 5 minutes old is in lastHour).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from operator import itemgetter
from typing import Any, NamedTuple

import orjson

from release_safety.common.textcase import lower
from release_safety.evaluator.answers import Answer
from release_safety.evaluator.counts import (
    SCOPE_MINUTES,
    TRIGGER_NAMES,
    WINDOW_NAMES,
    WINDOWS,
    edge_positions,
    span_at,
    steady_span,
    tally,
    tally_runs,
    window_at,
)
from release_safety.evaluator.params import Params, offset_of, page_info, pagination
from release_safety.evaluator.search import CREATED, ROW_ID, RUNTIME, RUNTIME_KEY, TRIGGER
from release_safety.evaluator.store import Store
from release_safety.evaluator.times import MINUTE_US

LANGUAGES = ("semantic", "sql")
STATUSES = ("pending", "queued", "executing", "expired", "ready", "error", "cancelled")
SORTS = ("createdAt", "runtime")
DEFAULT_PAGE_SIZE = 25
MAX_PAGE_SIZE = 100
PARSED = 256  # query strings whose checked parameters are kept (clients repeat a few)
_ROW_ID_OF, _CREATED_OF, _TRIGGER_OF = itemgetter(ROW_ID), itemgetter(CREATED), itemgetter(TRIGGER)
_RUNTIME_OF, _RUNTIME_KEY_OF = itemgetter(RUNTIME), itemgetter(RUNTIME_KEY)


class HistoryQuery(NamedTuple):
    """The checked parameters of one history request (a tuple: made and hashed in C)."""

    page: int = 1
    page_size: int = DEFAULT_PAGE_SIZE
    trigger: str | None = None
    language: str | None = None
    statuses: tuple[str, ...] = ()
    search: str = ""
    window: str | None = None
    sort_by: str = "createdAt"


# A query string of distinct names, each with one value of unescaped characters (no `%`, `+`)
_PLAIN = re.compile(rb"[\w.~-]+=[\w.~-]+(?:&[\w.~-]+=[\w.~-]+)*", re.ASCII)
_COUNT = re.compile(r"[1-9][0-9]{0,8}")  # a page or pageSize that needs no further check
_CHOICES = {
    "trigger": TRIGGER_NAMES,
    "language": LANGUAGES,
    "window": WINDOW_NAMES,
    "sortBy": SORTS,
}


def parse_query(raw: bytes) -> HistoryQuery:
    """Read and check a raw query string (422 ValidateError or PaginationError)."""
    return _plain(raw) or _parsed(raw)


def _plain(raw: bytes) -> HistoryQuery | None:
    """The query of a plain string whose every parameter is known and valid (as `_parsed`
    reads it), else None: the common requests, read without `Params`."""
    if _PLAIN.fullmatch(raw) is None:
        return None
    found = dict(pair.split("=") for pair in raw.decode("ascii").split("&"))
    if len(found) != raw.count(b"&") + 1:  # a repeated name
        return None
    fields: dict[str, Any] = {}
    for name, value in found.items():
        if name == "search":
            fields["search"] = value
        elif name in ("page", "pageSize"):
            if _COUNT.fullmatch(value) is None:
                return None
            fields["page" if name == "page" else "page_size"] = int(value)
        elif name == "status":
            if value not in STATUSES:
                return None
            fields["statuses"] = (value,)
        elif value in _CHOICES.get(name, ()):
            fields["sort_by" if name == "sortBy" else name] = value
        else:
            return None
    fields["page"], fields["page_size"] = pagination(  # as `_parsed` caps them (both >= 1)
        fields.get("page", 1), fields.get("page_size", DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE
    )
    return HistoryQuery(**fields)


@lru_cache(maxsize=PARSED)
def _parsed(raw: bytes) -> HistoryQuery:
    """Read and check any raw query string; the answer depends on the string alone, so the
    last few distinct ones are kept."""
    params = Params(raw)
    page = params.integer("page", 1, saturate=True)
    page_size = params.integer("pageSize", DEFAULT_PAGE_SIZE, saturate=True)
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


def _bounds(query: HistoryQuery, now: int) -> tuple[int, int]:
    """(older exclusive, newer inclusive) createdAt bounds of the rows."""
    if query.window is None:
        return now - SCOPE_MINUTES * MINUTE_US, now
    _, newer, older = WINDOWS[WINDOW_NAMES.index(query.window)]
    return now - older * MINUTE_US, now - newer * MINUTE_US


def _filters(query: HistoryQuery) -> tuple[str, list[Any]]:
    """The language and status filters, which apply to the rows and to every count."""
    clauses = ""
    args: list[Any] = []
    if query.language:
        clauses += " AND language = ?"
        args.append(query.language)
    if query.statuses:
        clauses += f" AND status IN ({', '.join('?' * len(query.statuses))})"
        args.extend(query.statuses)
    return clauses, args


Computed = tuple[dict[str, Any], int, Sequence[int], tuple[int, int]]
"""Counts, total, the row ids of the page, and the span of clocks the answer holds for (see
`steady_span`)."""


def _searched(store: Store, query: HistoryQuery, scope: int, now: int) -> Computed:
    """Counts, total and page of a search: every matching run of the scope is counted. The
    answer depends on the creation times of the matching runs alone."""
    keys = store.keys
    oldest_first = keys.select(
        store.texts.runs_holding(lower(query.search), scope), query.language, query.statuses
    )
    created = list(map(_CREATED_OF, oldest_first))
    at = edge_positions(created, now)
    counts, total = tally_runs(
        at,
        list(map(_TRIGGER_OF, oldest_first)),
        list(map(_RUNTIME_OF, oldest_first)),
        keys.code,
        query.trigger,
        query.window,
        keys.whole_sums,
    )
    older, newer = window_at(query.window)  # the window's edges: its runs lie between
    chosen = oldest_first[at[older] : at[newer]]
    chosen.reverse()  # newest first
    start = offset_of(query.page, query.page_size)
    if query.trigger:
        code = keys.code(query.trigger)
        chosen = [row for row in chosen if row[TRIGGER] == code]
    if query.sort_by == "runtime":  # stable: runs of equal runtime stay newest first
        chosen.sort(key=_RUNTIME_KEY_OF, reverse=True)
    page = list(map(_ROW_ID_OF, chosen[start : start + query.page_size]))
    return counts, total, page, span_at(created, at)


def _listed(store: Store, query: HistoryQuery, scope: int, now: int) -> Computed:
    """Counts from the count index; the page's row ids from the covering index of its sort.
    The answer depends on the creation times of the scope's runs."""
    counts, total = tally(
        store.counts.matching(scope, query.language, query.statuses),
        query.trigger,
        query.window,
        now,
    )
    clauses, filters = _filters(query)
    if query.trigger:
        clauses += " AND trigger = ?"
        filters.append(query.trigger)
    order, index = "created_at DESC, query_uuid", "runs_recent"
    if query.sort_by == "runtime":
        order, index = "runtime_key DESC, " + order, "runs_by_runtime"
    rows = store.tuples(
        f"SELECT id FROM runs INDEXED BY {index} WHERE scope = ? AND created_at > ?"
        f" AND created_at <= ?{clauses} ORDER BY {order} LIMIT ? OFFSET ?",
        [
            scope,
            *_bounds(query, now),
            *filters,
            query.page_size,
            offset_of(query.page, query.page_size),
        ],
    )
    page = [row[0] for row in rows]
    return counts, total, page, steady_span(store.counts.created(scope), now)


def list_history(store: Store, query: HistoryQuery, project: str, user: str, now: int) -> bytes:
    """The response body of the history list, `{status: ok, results: {data, pagination,
    counts}}` as JSON bytes (whole, so a kept answer is sent as it is kept): the kept answer
    while it holds (see `answers.py`), else computed and kept."""
    key = (query, project, user)
    generation = store.generation
    body = store.answers.get(key, generation, now)
    if body is None:
        body, span = _answer(store, query, project, user, now)
        store.answers.put(key, Answer(generation, *span, body))
    return body


def compute_history(store: Store, query: HistoryQuery, project: str, user: str, now: int) -> bytes:
    """The response body of the history list as JSON bytes, computed."""
    return _answer(store, query, project, user, now)[0]


def _answer(
    store: Store, query: HistoryQuery, project: str, user: str, now: int
) -> tuple[bytes, tuple[int, int]]:
    """The answer, and the span of clocks it holds for."""
    scope = store.scope(project, user)
    if scope is None:
        counts, total = tally({}, query.trigger, query.window, now)[0], 0
        page: Sequence[int] = []
        span = steady_span((), now)
    elif query.search:
        counts, total, page, span = _searched(store, query, scope, now)
    else:
        counts, total, page, span = _listed(store, query, scope, now)
    tail = b"".join(
        (
            b'],"pagination":',
            orjson.dumps(page_info(query.page, query.page_size, total)),
            b',"counts":',
            orjson.dumps(counts),
            b"}}",
        )
    )
    return store.items.joined(page, b'{"status":"ok","results":{"data":[', tail), span


def run_status(store: Store, scope: int | None, query_uuid: str) -> dict[str, Any] | None:
    """One of the caller's runs in the project, with its status; None when not theirs."""
    rows = store.tuples(
        "SELECT id FROM runs WHERE query_uuid = ? AND scope = ?", (query_uuid, scope)
    )
    if not rows:
        return None
    item = orjson.loads(store.items[rows[0][0]])
    keys = ("queryUuid", "status", "error", "createdAt", "totalRowCount", "resultsUpdatedAt")
    return {key: item[key] for key in keys}
