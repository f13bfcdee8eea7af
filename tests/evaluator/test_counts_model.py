"""Property: the counts (bucket summary + exact edge reads) equal a plain recount of the runs."""

from __future__ import annotations

import json
from typing import Any

from evaluator_support import ALICE, BOB, JAFFLE, NOW_US, dataset, make_run
from hypothesis import example, given, settings
from hypothesis import strategies as st

from release_safety.evaluator.derive import CONTEXTS, trigger_of
from release_safety.evaluator.history import WINDOWS, HistoryQuery, list_history
from release_safety.evaluator.store import Store
from release_safety.evaluator.times import MINUTE_US, format_time

MINUTE = MINUTE_US
EDGES = [0, 5, 60, 1_440, 10_080, 43_200]
# ages in ms: anywhere, or within a few ms of a window edge (where buckets are cut)
ages = st.one_of(
    st.integers(-5 * MINUTE, 45_000 * MINUTE),
    st.builds(lambda e, d: e * MINUTE + d, st.sampled_from(EDGES), st.sampled_from([-1, 0, 1])),
)
runs = st.lists(
    st.tuples(
        ages,
        st.sampled_from(CONTEXTS),
        st.sampled_from(["ready", "error", "pending"]),
        st.booleans(),
        st.one_of(st.none(), st.integers(1, 1000)),
        st.sampled_from([ALICE, ALICE, BOB]),
    ),
    max_size=60,
)
queries = st.builds(
    HistoryQuery,
    trigger=st.sampled_from([None, "interactive", "apps", "scheduled"]),
    language=st.sampled_from([None, "semantic", "sql"]),
    statuses=st.sampled_from([(), ("ready",), ("error", "pending")]),
    window=st.sampled_from([None, *(name for name, _, _ in WINDOWS)]),
    page=st.just(1),
    page_size=st.just(25),
    search=st.just(""),
    sort_by=st.just("createdAt"),
)
STORE = Store()


def expected(specs: list[Any], query: HistoryQuery, now: int) -> dict[str, Any]:
    triggers = dict.fromkeys(["interactive", "apps", "scheduled"], 0)
    windows = {name: 0 for name, _, _ in WINDOWS}
    warehouse = 0
    for age, context, status, sql, runtime, user in specs:
        created = now - age
        if user != ALICE or not now - 43_200 * MINUTE < created <= now:
            continue
        if query.language and query.language != ("sql" if sql else "semantic"):
            continue
        if query.statuses and status not in query.statuses:
            continue
        window = next(
            n for n, new, old in WINDOWS if now - old * MINUTE < created <= now - new * MINUTE
        )
        trigger = trigger_of(context)
        if query.trigger in (None, trigger):
            windows[window] += 1
            if created > now - 10_080 * MINUTE:
                warehouse += runtime or 0
        if query.window in (None, window):
            triggers[trigger] += 1
    return {
        "total": sum(triggers.values()),
        "triggers": triggers,
        "windows": windows,
        "warehouseTimeMsLast7Days": warehouse,
    }


EDGE_RUNS = [
    (edge * MINUTE + delta, "exploreView", "ready", False, 100, ALICE)
    for edge in EDGES
    for delta in (-1, 0, 1)
]


@settings(max_examples=300, deadline=None)
@given(specs=runs, query=queries, shift=st.integers(0, 360 * MINUTE))
@example(specs=EDGE_RUNS, query=HistoryQuery(), shift=0)
@example(specs=EDGE_RUNS, query=HistoryQuery(window="last7Days"), shift=1)
def test_counts_equal_a_plain_recount(specs: list[Any], query: HistoryQuery, shift: int) -> None:
    now = NOW_US + shift  # moves the window edges
    data = dataset(
        [
            make_run(
                f"r{i}",
                format_time(now - age),
                user=user,
                context=context,
                status=status,
                runtime=runtime,
                sql="select 1" if sql else None,
            )
            for i, (age, context, status, sql, runtime, user) in enumerate(specs)
        ]
    )
    STORE.load(data, now)
    results = json.loads(list_history(STORE, query, JAFFLE, ALICE, now))["results"]
    counts = expected(specs, query, now)
    assert results["counts"] == counts
    assert (
        results["pagination"]["totalResults"]
        == (counts["windows"][query.window] if query.window else sum(counts["windows"].values()))
        or query.trigger is not None
    )
