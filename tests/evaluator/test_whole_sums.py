"""`Keys.whole_sums`: kept up to date as runs are recorded (at load and after), it says every
sum of some runs' runtimes is exact in any order only when it is, so a search's warehouse time
may skip looking at the runtimes and still sum them as the count index does."""

from __future__ import annotations

from evaluator_support import ALICE, JAFFLE, NOW_US, dataset, make_run
from hypothesis import given, settings
from hypothesis import strategies as st

from release_safety.evaluator.counts import _exact
from release_safety.evaluator.history import HistoryQuery, compute_history
from release_safety.evaluator.search import Keys
from release_safety.evaluator.store import Store, insert_run
from release_safety.evaluator.times import MINUTE_US, format_time

runtimes = st.lists(
    st.one_of(st.none(), st.integers(0, 2**60).map(float), st.floats(0, 1e6)), max_size=20
)


@settings(max_examples=300, deadline=None)
@given(runtimes=runtimes)
def test_whole_sums_is_exactness_of_every_runtime_recorded(runtimes: list[float | None]) -> None:
    keys = Keys()
    for rowid, runtime in enumerate(runtimes, start=1):
        keys.record((rowid, f"r{rowid}", 1, rowid, "apps", "sql", "ready", runtime))
        # as `_exact` finds of all runtimes so far (0 for a run without one): then of any
        # subset too, since a subset is no longer and holds no larger runtime
        summed = [runtime or 0.0 for runtime in runtimes[:rowid]]
        assert keys.whole_sums is _exact(summed)


def test_whole_sums_turns_false_as_runs_come() -> None:
    keys = Keys()
    assert keys.whole_sums
    for rowid in (1, 2):  # two runs of 2**52: every sum is at most 2**53, exact
        keys.record((rowid, f"r{rowid}", 1, rowid, "apps", "sql", "ready", 2**52))
    assert keys.whole_sums
    keys.record((3, "r3", 1, 3, "apps", "sql", "ready", None))  # three of up to 2**52: not
    assert not keys.whole_sums
    fractional = Keys()
    fractional.record((1, "r1", 1, 1, "apps", "sql", "ready", 0.5))
    assert not fractional.whole_sums


def _counts(store: Store, query: HistoryQuery) -> bytes:
    body = compute_history(store, query, JAFFLE, ALICE, NOW_US)
    return body[body.index(b'"counts":') :]


def test_a_search_sums_runtimes_added_after_load_as_the_count_index_does() -> None:
    # Every run matches the search, so its counts are the default page's (from the running
    # sums of the count index). Loaded: 2**52 eight days ago and 2 an hour ago, whole sums;
    # then 0.5 half an hour ago. The warehouse time of the last 7 days is the running sum's
    # difference, (2**52 + 2 + 0.5) - 2**52 = 2.0 in floats: 2.5 had the search still taken
    # the sums for exact.
    store = Store()
    runs = [
        make_run("old", format_time(NOW_US - 8 * 1440 * MINUTE_US), runtime=2**52, sql="select"),
        make_run("new", format_time(NOW_US - 60 * MINUTE_US), runtime=2, sql="select"),
    ]
    store.load(dataset(runs), NOW_US)
    search = HistoryQuery(search="select")
    assert store.keys.whole_sums
    assert _counts(store, search) == _counts(store, HistoryQuery())
    with store.writing() as conn:
        run = make_run("half", format_time(NOW_US - 30 * MINUTE_US), runtime=0.5, sql="select")
        insert_run(store, conn, run, NOW_US)
    assert not store.keys.whole_sums
    counts = _counts(store, search)
    assert counts == _counts(store, HistoryQuery())
    assert b'"warehouseTimeMsLast7Days":2}' in counts


def test_a_run_added_between_loaded_ones_is_summed_where_it_falls() -> None:
    # A float sum depends on its order: 1e16, then 1.0, then 2.0 gives 1e16 + 2 (1e16 + 1 rounds
    # to 1e16), while 1e16 + 2.0 + 1.0 gives 1e16 + 4. The run of 1.0, created between the
    # other two but recorded after the load, is summed in its place, as a load of the three
    # sums it, on the default page (the count index's running sums) as in a search.
    def at(minutes: int) -> str:
        return format_time(NOW_US - minutes * MINUTE_US)

    old = make_run("old", at(8 * 1440), runtime=1e16, sql="select")
    middle = make_run("middle", at(60), runtime=1.0, sql="select")
    new = make_run("new", at(30), runtime=2.0, sql="select")
    whole = Store()
    whole.load(dataset([old, middle, new]), NOW_US)
    store = Store()
    store.load(dataset([old, new]), NOW_US)
    with store.writing() as conn:
        insert_run(store, conn, middle, NOW_US)
    expected = _counts(whole, HistoryQuery())
    assert b'"warehouseTimeMsLast7Days":2}' in expected
    assert _counts(store, HistoryQuery()) == expected
    assert _counts(store, HistoryQuery(search="select")) == expected
