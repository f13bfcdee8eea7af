"""`tally_runs` (a search's runs, one by one) gives the counts `tally` gives from the runs'
series, float sums of fractional runtimes included, for every trigger and window filter."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from release_safety.evaluator.counts import (
    EDGE_OFFSETS,
    TRIGGER_NAMES,
    WINDOW_NAMES,
    Series,
    edge_positions,
    tally,
    tally_runs,
)

NOW = 10**15
SCOPE = EDGE_OFFSETS[0]
# creation times in the scope (newer than 30 days, not after now), many on a window edge
times = st.one_of(
    st.integers(NOW - SCOPE + 1, NOW),
    st.builds(
        lambda offset, d: NOW - offset + d,
        st.sampled_from(EDGE_OFFSETS),
        st.sampled_from([-1, 0, 1]),
    ),
).filter(lambda t: NOW - SCOPE < t <= NOW)
runs = st.lists(
    st.tuples(times, st.sampled_from(TRIGGER_NAMES), st.floats(0, 1e6, allow_nan=False)),
    max_size=40,
)
CODES = {"apps": 7, "interactive": 3}  # "scheduled" is a trigger no run has a code for
# runs a search also finds, older than the scope or after now (of any code): never counted
outside = st.lists(
    st.tuples(
        st.one_of(st.integers(NOW - 2 * SCOPE, NOW - SCOPE), st.integers(NOW + 1, NOW + SCOPE)),
        st.sampled_from([7, 3, 99]),
        st.floats(0, 1e6, allow_nan=False),
    ),
    max_size=10,
)


@settings(max_examples=400, deadline=None)
@given(
    runs=runs,
    trigger=st.one_of(st.none(), st.sampled_from(TRIGGER_NAMES)),
    window=st.one_of(st.none(), st.sampled_from(WINDOW_NAMES)),
    whole=st.booleans(),
    others=outside,
)
def test_tally_of_runs_is_tally_of_their_series(
    runs: list[tuple[int, str, float]],
    trigger: str | None,
    window: str | None,
    whole: bool,
    others: list[tuple[int, int, float]],
) -> None:
    runs = sorted(runs, key=lambda run: run[0])
    if whole:  # whole milliseconds, summed exactly in any order
        runs = [(t, name, float(round(r))) for t, name, r in runs]
    runs = [run for run in runs if run[1] in CODES]
    by_trigger = {
        name: [
            Series.of([t for t, n, _ in runs if n == name], [r for _, n, r in runs if n == name])
        ]
        for name in TRIGGER_NAMES
    }
    given = sorted([(t, CODES[name], r) for t, name, r in runs] + others, key=lambda run: run[0])
    created = [t for t, _, _ in given]
    codes = [code for _, code, _ in given]
    runtimes = [r for _, _, r in given]
    code_of = lambda name: CODES.get(name, -1)  # noqa: E731
    at = edge_positions(created, NOW)
    assert tally_runs(at, codes, runtimes, code_of, trigger, window) == tally(
        by_trigger, trigger, window, NOW
    )
