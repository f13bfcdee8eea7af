"""upgrade-plan's route: through the floor and the stops, split where minPreviousVersion asks."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from upgrade_indexes import as_index, chained, entry, index_doc, indexes, vkey

from release_safety.contract.versions import Version
from release_safety.upgrade.plan import plan_upgrade
from release_safety.upgrade.span import Releases, evaluate_span


def route(entries: list[dict[str, Any]], start: str, target: str, floor: str | None = None):
    plan = plan_upgrade(Releases.of(as_index(index_doc(entries, floor))), start, target)
    return plan, [(h.fromVersion, h.toVersion, h.strategy, h.stopReason) for h in plan.hops]


def test_a_safe_span_is_one_rolling_hop() -> None:
    plan, hops = route(chained(("1.0.0", True), ("1.1.0", True), ("1.2.0", True)), "1.0.0", "1.2.0")
    assert hops == [("1.0.0", "1.2.0", "RollingUpdate", "target")]
    assert plan.complete and plan.problem is None


def test_chained_minimums_need_one_hop_each() -> None:
    entries = [
        entry("1.0.0", None),
        entry("1.1.0", "1.0.0"),
        entry("1.2.0", "1.1.0", min_previous="1.1.0"),
        entry("1.3.0", "1.2.0", min_previous="1.2.0"),
    ]
    plan, hops = route(entries, "1.0.0", "1.3.0")
    assert hops == [
        ("1.0.0", "1.1.0", "RollingUpdate", "min-previous-version"),
        ("1.1.0", "1.2.0", "RollingUpdate", "min-previous-version"),
        ("1.2.0", "1.3.0", "RollingUpdate", "target"),
    ]
    assert [h.stopRequiredBy for h in plan.hops] == [["1.2.0"], ["1.3.0"], []]


def test_minimum_met_by_a_stop_adds_no_extra_hop() -> None:
    entries = [
        entry("1.0.0", None),
        entry("1.1.0", "1.0.0"),
        entry("1.2.0", "1.1.0", stops=("1.1.0",)),
        entry("1.3.0", "1.2.0", min_previous="1.1.0"),
    ]
    _, hops = route(entries, "1.0.0", "1.3.0")
    assert hops == [
        ("1.0.0", "1.1.0", "RollingUpdate", "required-stop"),
        ("1.1.0", "1.3.0", "RollingUpdate", "target"),
    ]


def test_each_hop_takes_its_own_strategy() -> None:
    entries = [
        *chained(("1.0.0", True), ("1.1.0", False)),
        entry("1.2.0", "1.1.0", True, ("1.1.0",)),
    ]
    _, hops = route(entries, "1.0.0", "1.2.0")
    assert [h[2] for h in hops] == ["Recreate", "RollingUpdate"]


def test_a_stop_the_index_does_not_hold_makes_the_plan_incomplete() -> None:
    entries = [
        *chained(("1.0.0", True), ("1.1.0", True)),
        entry("1.2.0", "1.1.0", True, ("1.1.5",)),
    ]
    plan, hops = route(entries, "1.0.0", "1.2.0")
    assert [h[:2] for h in hops] == [("1.0.0", "1.1.5"), ("1.1.5", "1.2.0")]
    assert not plan.complete
    assert {"afterVersion": "1.1.0", "beforeVersion": "1.2.0"} in [
        gap.to_json_data() for gap in plan.missingRanges
    ]


def test_same_version_needs_no_hop() -> None:
    plan, hops = route(chained(("1.0.0", True)), "1.0.0", "1.0.0")
    assert (hops, plan.complete) == ([], True)


def shortest_hops(doc: dict[str, Any], start: str, target: str) -> int | None:
    """Breadth-first search over indexed versions: fewest legal hops through every stop."""
    index = as_index(doc)
    stops = evaluate_span(index, start, target).requiredStops
    waypoints = [start, *stops, target]
    held = sorted({e["version"] for e in index["entries"]}, key=vkey)
    minimum = {e["version"]: e["minPreviousVersion"] for e in index["entries"]}
    total = 0
    for low, high in pairwise(waypoints):
        nodes = [low, *(v for v in held if vkey(low) < vkey(v) < vkey(high)), high]
        distance = {low: 0}
        frontier = [low]
        while frontier and high not in distance:
            following = []
            for here in frontier:
                for there in nodes:
                    if there in distance or vkey(there) <= vkey(here):
                        continue
                    crossed = [v for v in held if vkey(here) < vkey(v) <= vkey(there)]
                    if all(minimum[v] is None or vkey(minimum[v]) <= vkey(here) for v in crossed):
                        distance[there] = distance[here] + 1
                        following.append(there)
            frontier = following
        if high not in distance:
            return None
        total += distance[high]
    return total


@settings(max_examples=200, deadline=None)
@given(doc=indexes(), data=st.data())
def test_the_route_has_the_fewest_hops(doc: dict[str, Any], data: st.DataObject) -> None:
    held = sorted((e["version"] for e in doc["entries"]), key=vkey)
    if len(held) < 2:
        return
    start, target = sorted(
        data.draw(st.sets(st.sampled_from(held), min_size=2, max_size=2)), key=vkey
    )
    plan = plan_upgrade(Releases.of(as_index(doc)), start, target)
    fewest = shortest_hops(doc, start, target)
    if plan.problem is None:
        assert fewest == len(plan.hops)
    else:
        assert fewest is None


@pytest.mark.parametrize("kind", ["stops", "minimums"])
def test_the_route_reads_each_release_a_bounded_number_of_times(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2,000 releases each naming the one before as a required stop (or as its minimum): the
    plan reads the releases a few times over, never once per stop (issue 35 class 9: 100,000
    stops took more than 300 s)."""
    count = 2000
    versions = [f"1.{i}.0" for i in range(count)]
    entries = [entry(versions[0], None)]
    for before, version in pairwise(versions):
        stops = (before,) if kind == "stops" else ()
        minimum = before if kind == "minimums" else None
        entries.append(entry(version, before, stops=stops, min_previous=minimum))
    releases = Releases.of(as_index(index_doc(entries)))
    read = Releases.between
    visited = [0]

    def counted(self: Releases, lower: Version, upper: Version) -> tuple[Any, ...]:
        found = read(self, lower, upper)
        visited[0] += len(found)
        return found

    monkeypatch.setattr(Releases, "between", counted)
    plan = plan_upgrade(releases, versions[0], versions[-1])
    assert len(plan.hops) == count - 1 and plan.complete
    assert visited[0] <= 4 * count
