"""Kept history answers: reused only while they are the answer computed afresh."""

from __future__ import annotations

from evaluator_support import ALICE, JAFFLE, NOW_US, dataset, make_run
from hypothesis import example, given, settings
from hypothesis import strategies as st

from release_safety.evaluator.answers import KEPT, KEPT_BYTES, Answer, Answers
from release_safety.evaluator.counts import EDGE_OFFSETS
from release_safety.evaluator.history import HistoryQuery, compute_history, list_history
from release_safety.evaluator.store import Store, insert_run
from release_safety.evaluator.times import MINUTE_US, format_time

QUERIES = (
    HistoryQuery(),
    HistoryQuery(window="lastHour"),
    HistoryQuery(window="last7Days", trigger="interactive", page_size=2),
    HistoryQuery(search="select", sort_by="runtime"),
)
ages = st.one_of(
    st.integers(-5 * MINUTE_US, 45_000 * MINUTE_US),
    st.builds(lambda e, d: e + d, st.sampled_from(EDGE_OFFSETS), st.sampled_from([-1, 0, 1])),
)
STORE = Store()


def crossings(ages_us: list[int]) -> list[int]:
    """Clocks at which a run's creation time meets a window edge, and one µs either side."""
    return [
        NOW_US - age + offset + delta
        for age in ages_us
        for offset in EDGE_OFFSETS
        for delta in (-1, 0, 1)
    ]


@settings(max_examples=60, deadline=None)
@given(
    ages_us=st.lists(ages, min_size=1, max_size=12),
    contexts=st.lists(st.sampled_from(["exploreView", "dashboardView", "scheduledDelivery"])),
    shuffle=st.randoms(use_true_random=False),
)
@example(ages_us=[0, 5 * MINUTE_US, 60 * MINUTE_US], contexts=[], shuffle=None)
def test_kept_answers_equal_fresh_ones_at_every_clock(
    ages_us: list[int], contexts: list[str], shuffle: object
) -> None:
    runs = [
        make_run(
            f"r{i}",
            format_time(NOW_US - age),
            context=contexts[i] if i < len(contexts) else "exploreView",
            runtime=i * 10,
            sql=f"select {i}",
        )
        for i, age in enumerate(ages_us)
    ]
    STORE.load(dataset(runs), NOW_US)
    clocks = crossings(ages_us)
    if shuffle is not None:
        shuffle.shuffle(clocks)  # type: ignore[attr-defined]
    for now in [*clocks, *reversed(clocks)]:  # forward, then back over the same edges
        for query in QUERIES:
            kept = list_history(STORE, query, JAFFLE, ALICE, now)
            assert kept == compute_history(STORE, query, JAFFLE, ALICE, now), (now, query)


def test_a_write_replaces_the_kept_answer() -> None:
    store = Store()
    store.load(dataset([make_run("old", format_time(NOW_US - MINUTE_US))]), NOW_US)
    before = list_history(store, HistoryQuery(), JAFFLE, ALICE, NOW_US)
    assert list_history(store, HistoryQuery(), JAFFLE, ALICE, NOW_US) is before  # kept
    with store.writing() as conn:
        insert_run(store, conn, make_run("new", format_time(NOW_US)), NOW_US)
    after = list_history(store, HistoryQuery(), JAFFLE, ALICE, NOW_US)
    assert after == compute_history(store, HistoryQuery(), JAFFLE, ALICE, NOW_US)
    assert b'"queryUuid":"new"' in after and b'"queryUuid":"new"' not in before


def test_answers_hold_only_their_span_and_generation_and_keep_the_newest() -> None:
    answers = Answers()
    answers.put("a", Answer(generation=1, low=10, high=20, body=b"a"))
    assert answers.get("a", 1, 10) == b"a" and answers.get("a", 1, 19) == b"a"
    assert answers.get("a", 1, 9) is None and answers.get("a", 1, 20) is None
    assert answers.get("a", 2, 15) is None
    for key in range(KEPT):
        answers.put(key, Answer(1, 0, 1, str(key).encode()))
    assert answers.get("a", 1, 15) is None  # the oldest went first
    assert answers.get(0, 1, 0) == b"0" and answers.get(KEPT - 1, 1, 0) == str(KEPT - 1).encode()
    half = b"x" * (KEPT_BYTES // 2)
    answers.put("big", Answer(1, 0, 1, half))
    answers.put("bigger", Answer(1, 0, 1, half + b"x"))  # both would be over: the older goes
    assert answers.get("big", 1, 0) is None and answers.get("bigger", 1, 0) is not None
    answers.put("too big", Answer(1, 0, 1, half * 3))  # never kept, and nothing dropped for it
    assert answers.get("too big", 1, 0) is None and answers.get("bigger", 1, 0) is not None
