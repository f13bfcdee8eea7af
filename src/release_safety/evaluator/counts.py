"""The counts of a history page from sorted creation times and prefix sums of runtimes.

Each caller's runs in a project (a scope) are kept as series of creation times, sorted, one
series per trigger and per filter combination the list offers (language, status, both, or
none): how many runs fall in a window is two binary searches, and the warehouse time of the
last 7 days two look-ups in the running sum of runtimes. A page costs the same for 100 runs
or 100,000. Creation times are a list, not an array: a binary search over an array makes an
integer object at every step (three times the instructions).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from itertools import accumulate, compress, repeat
from operator import add
from typing import Any

from release_safety.evaluator.times import MINUTE_US

# (name, newer minutes, older minutes): the window holds createdAt in (now - older, now - newer]
WINDOWS: tuple[tuple[str, int, int], ...] = (
    ("lastFewMinutes", 0, 5),
    ("lastHour", 5, 60),
    ("last24Hours", 60, 1_440),
    ("last7Days", 1_440, 10_080),
    ("last30Days", 10_080, 43_200),
)
WINDOW_NAMES = tuple(name for name, _, _ in WINDOWS)
TRIGGER_NAMES = ("interactive", "apps", "scheduled")
SCOPE_MINUTES = 43_200
SEVEN_DAYS_MINUTES = 10_080


@dataclass(init=False)
class Series:
    """Creation times in ascending order, each run's runtime (0.0 without one), and the running
    sum of the runtimes before each run, summed oldest first however the runs came (a float sum
    depends on its order: a search sums a window's runtimes the same way)."""

    created: list[int]
    runtimes: array[float]
    runtime_before: array[float]

    def __init__(
        self,
        created: list[int] | None = None,
        runtimes: array[float] | None = None,
        runtime_before: array[float] | None = None,
    ) -> None:
        self.created = [] if created is None else created
        self.runtimes = array("d") if runtimes is None else runtimes
        self.runtime_before = array("d", [0.0]) if runtime_before is None else runtime_before

    @classmethod
    def of(cls, created: Sequence[int], runtimes: Sequence[float | None]) -> Series:
        """The series of runs given in createdAt order."""
        each = array("d", (runtime or 0.0 for runtime in runtimes))
        return cls(list(created), each, array("d", accumulate(each, initial=0.0)))

    def append(self, created: int, runtime: float | None) -> None:
        """Add a run no older than the newest one."""
        self.created.append(created)
        self.runtimes.append(runtime or 0.0)
        self.runtime_before.append(self.runtime_before[-1] + (runtime or 0.0))

    def insert(self, created: int, runtime: float | None) -> None:
        """Add a run anywhere (after the runs created at the same time): the running sums from
        it on are summed again, oldest first."""
        at = bisect_right(self.created, created)
        if at == len(self.created):
            self.append(created, runtime)
            return
        self.created.insert(at, created)
        self.runtimes.insert(at, runtime or 0.0)
        sums = accumulate(self.runtimes[at:], initial=self.runtime_before[at])
        next(sums)  # the sum before the new run, already there
        del self.runtime_before[at + 1 :]
        self.runtime_before.extend(sums)


Key = tuple[int, str, str | None, str | None]  # scope, trigger, language or None, status or None


def _keys(scope: int, trigger: str, language: str, status: str) -> tuple[Key, ...]:
    return (
        (scope, trigger, None, None),
        (scope, trigger, language, None),
        (scope, trigger, None, status),
        (scope, trigger, language, status),
    )


class CountBuilder:
    """Runs gathered in any order (as a load reads them), then sorted once by creation time
    (a stable sort: runs created together stay in the order they came) and dealt into the
    series of their keys, which so come out sorted."""

    def __init__(self) -> None:
        self._kinds: dict[tuple[int, str, str, str], int] = {}  # scope, trigger, language, status
        self._kind = array("I")  # of each run
        self._created: list[int] = []
        self._runtimes = array("d")  # 0 without one: what the running sums add

    def add(
        self, scope: int, trigger: str, language: str, status: str, created: int, runtime: Any
    ) -> None:
        """Gather one run."""
        kinds = self._kinds
        kind = (scope, trigger, language, status)
        self._kind.append(kinds[kind] if kind in kinds else kinds.setdefault(kind, len(kinds)))
        self._created.append(created)
        self._runtimes.append(runtime or 0.0)

    def series(self) -> dict[Key, Series]:
        """The series of every key, each sorted by creation time; the builder is emptied
        as they are built (a load's peak of memory is here)."""
        gathered: dict[Key, tuple[list[int], array[float]]] = {}
        targets = [
            [gathered.setdefault(key, ([], array("d"))) for key in _keys(*kind)]
            for kind in self._kinds
        ]
        created, runtimes, kinds = self._created, self._runtimes, self._kind
        self._kinds, self._kind, self._created, self._runtimes = {}, array("I"), [], array("d")
        for index in sorted(range(len(created)), key=created.__getitem__):
            moment, runtime = created[index], runtimes[index]
            for times, times_runtimes in targets[kinds[index]]:
                times.append(moment)
                times_runtimes.append(runtime)
        del created, runtimes, kinds, targets
        built = {}
        while gathered:
            key, lists = gathered.popitem()
            built[key] = Series.of(*lists)
        return built


class CountIndex:
    """The series of every scope, for every trigger and filter combination."""

    def __init__(self) -> None:
        self.series: dict[Key, Series] = {}

    def build(self, runs: CountBuilder) -> None:
        """Fill from the gathered runs."""
        self.series = runs.series()

    def add(
        self,
        scope: int,
        trigger: str,
        language: str,
        status: str,
        created: int,
        runtime: float | None,
    ) -> None:
        """Count one more run."""
        for key in _keys(scope, trigger, language, status):
            self.series.setdefault(key, Series()).insert(created, runtime)

    def created(self, scope: int) -> list[list[int]]:
        """The creation times of every run of a scope, sorted, one list per trigger."""
        found = (self.series.get((scope, trigger, None, None)) for trigger in TRIGGER_NAMES)
        return [series.created for series in found if series is not None]

    def matching(
        self, scope: int, language: str | None, statuses: Sequence[str]
    ) -> dict[str, list[Series]]:
        """The series that hold exactly the runs passing the language and status filters."""
        return {
            trigger: [
                series
                for status in (statuses or (None,))
                if (series := self.series.get((scope, trigger, language, status))) is not None
            ]
            for trigger in TRIGGER_NAMES
        }


# How far each window edge lies before now, oldest first: 30 days ... 5 minutes, 0.
EDGE_OFFSETS = (*(older * MINUTE_US for _, _, older in reversed(WINDOWS)), 0)
WEEK_EDGE = EDGE_OFFSETS.index(SEVEN_DAYS_MINUTES * MINUTE_US)  # the 7-day edge's position


def edges(now: int) -> list[int]:
    """The window edges, oldest first: now - 30 days ... now - 5 minutes, now."""
    return [now - offset for offset in EDGE_OFFSETS]


def edge_positions(created: Sequence[int], now: int) -> list[int]:
    """How many of these sorted creation times lie at or before each edge, oldest first."""
    return list(map(bisect_right, repeat(created), edges(now)))


def steady_span(created_series: Iterable[Sequence[int]], now: int) -> tuple[int, int]:
    """The clocks [low, high) around `now` at which no creation time crosses a window edge.

    `created_series` are sorted creation times. For a clock in the span every edge
    (now - offset) has the same times at or before it as at `now`, so every comparison of
    a creation time with an edge (the windows, the 30-day scope, the 7-day warehouse time)
    comes out the same."""
    low, high = -(2**63), 2**63
    for created in created_series:
        one_low, one_high = span_at(created, edge_positions(created, now))
        low, high = max(low, one_low), min(high, one_high)
    return low, high


def span_at(created: Sequence[int], at: Sequence[int]) -> tuple[int, int]:
    """`steady_span` of one series, given its `edge_positions`."""
    low, high = -(2**63), 2**63
    for offset, before in zip(EDGE_OFFSETS, at, strict=True):
        if before:
            low = max(low, created[before - 1] + offset)
        if before < len(created):
            high = min(high, created[before] + offset)
    return low, high


def window_at(window: str | None) -> tuple[int, int]:
    """Positions in `edges` of a window's older and newer edge (the whole scope if none)."""
    if window is None:
        return 0, len(WINDOWS)
    low = len(WINDOWS) - 1 - WINDOW_NAMES.index(window)
    return low, low + 1


def _counts(triggers: dict[str, int], below: Sequence[int], warehouse: float) -> dict[str, Any]:
    """The counts object from the runs of each trigger, the counted runs at or before each
    edge (oldest edge first) and their warehouse time."""
    return {
        "total": sum(triggers.values()),
        "triggers": triggers,
        "windows": {name: below[-1 - i] - below[-2 - i] for i, name in enumerate(WINDOW_NAMES)},
        "warehouseTimeMsLast7Days": int(warehouse) if warehouse.is_integer() else warehouse,
    }


def tally(
    by_trigger: Mapping[str, Sequence[Series]], trigger: str | None, window: str | None, now: int
) -> tuple[dict[str, Any], int]:
    """The counts object, and how many runs pass every filter (trigger and window too).

    `windows` ignores the window filter, `triggers` the trigger filter; the warehouse time sums
    the runtimes newer than 7 days over the runs of `windows`."""
    bounds = edges(now)
    low, high = window_at(window)
    triggers = dict.fromkeys(TRIGGER_NAMES, 0)
    below = [0] * len(bounds)  # counted runs at or before each edge, oldest edge first
    warehouse = 0.0
    for name, series_list in by_trigger.items():
        counted = trigger is None or trigger == name
        for series in series_list:
            at = list(map(bisect_right, repeat(series.created), bounds))
            triggers[name] += at[high] - at[low]
            if counted:
                below = list(map(add, below, at))
                warehouse += series.runtime_before[at[-1]] - series.runtime_before[at[WEEK_EDGE]]
    return _counts(triggers, below, warehouse), below[high] - below[low]


def _exact(runtimes: Sequence[float]) -> bool:
    """Whether every sum of some of these runtimes is an exact float: whole numbers, all
    together at most 2**53 in size."""
    return all(map(float.is_integer, runtimes)) and (
        not runtimes or exact_sums(len(runtimes), max(max(runtimes), -min(runtimes)))
    )


def exact_sums(count: int, largest: float) -> bool:
    """Whether any sum of up to `count` whole numbers, none larger than `largest` in size, is
    an exact float."""
    return count * largest <= 2**53


def tally_runs(
    at: Sequence[int],
    codes: Sequence[int],
    runtimes: Sequence[float],
    code_of: Callable[[str], int],
    trigger: str | None,
    window: str | None,
    whole: bool = False,
) -> tuple[dict[str, Any], int]:
    """`tally` of runs given one by one, in createdAt order (of any time), by the
    `edge_positions` of their creation times, their trigger codes (`code_of` a trigger's
    name; each run in the scope is of a trigger of TRIGGER_NAMES) and runtimes. The same
    answer as `tally` of their series, float sums included (each trigger's runtimes in the
    scope summed oldest first, from 0.0, as its running sum is, unless every order gives the
    same sum: `whole` says so of every runtime given, else they are looked at)."""
    first, week, last = at[0], at[WEEK_EDGE], at[-1]
    low, high = window_at(window)
    triggers = {name: codes[at[low] : at[high]].count(code_of(name)) for name in TRIGGER_NAMES}
    counted = TRIGGER_NAMES if trigger is None else (trigger,)
    newer = runtimes[week:last]
    if trigger is None and (whole or _exact(runtimes[first:last])):  # any order, one sum
        warehouse = float(sum(newer))
    else:
        warehouse = 0.0
        for name in counted:
            code = code_of(name)
            older = compress(runtimes[first:week], map(code.__eq__, codes[first:week]))
            before = reduce(add, older, 0.0)
            own = compress(newer, map(code.__eq__, codes[week:last]))
            warehouse += reduce(add, own, before) - before
    if trigger is not None:
        code = code_of(trigger)
        at = [codes[first:end].count(code) for end in at]
    return _counts(triggers, at, warehouse), at[high] - at[low]
