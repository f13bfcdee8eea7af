"""The span evaluation against a plain reference over random indexes, and its invariants."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from upgrade_indexes import ENDPOINTS, as_index, indexes, vkey

from release_safety.upgrade.plan import plan_upgrade
from release_safety.upgrade.span import Releases, evaluate_span


def reference(doc: dict[str, Any], start: str, target: str) -> dict[str, Any]:
    """Verdict rules 1 to 7 (docs/contract.md), written out plainly with lists and loops."""
    entries = sorted(doc["entries"], key=lambda e: vkey(e["version"]))
    held = [e["version"] for e in entries]
    floor = doc["backfillFloorVersion"]
    if vkey(start) < vkey(target):
        direction, low, high = "upgrade", start, target
    elif vkey(start) == vkey(target):
        direction, low, high = "same-version", start, target
    else:
        direction, low, high = "downgrade", target, start

    def below(version: str) -> str | None:
        older = [v for v in held if vkey(v) < vkey(version)]
        return older[-1] if older else None

    def above(version: str) -> str | None:
        newer = [v for v in held if vkey(v) > vkey(version)]
        return newer[0] if newer else None

    span = [e for e in entries if vkey(low) < vkey(e["version"]) <= vkey(high)]
    via_floor = floor is not None and vkey(low) < vkey(floor) <= vkey(high)
    known = low in held or any(e["previousVersion"] == low for e in entries)
    missing = []
    if not known and not via_floor:
        missing.append({"afterVersion": below(low), "beforeVersion": above(low)})
    expected_previous = low
    for number, e in enumerate(span):
        link_checked = number > 0 or known or via_floor
        if link_checked and e["previousVersion"] != expected_previous:
            missing.append({"afterVersion": expected_previous, "beforeVersion": e["version"]})
        expected_previous = e["version"]
    if high not in held:
        gap = {"afterVersion": below(high), "beforeVersion": above(high)}
        if gap not in missing:
            missing.append(gap)

    verdicts = [e["rollingUpdateSafe"] for e in span]
    if any(v is False for v in verdicts):
        verdict: Any = False
    elif missing or "unknown" in verdicts:
        verdict = "unknown"
    else:
        verdict = True
    if direction == "downgrade" and verdict is True:
        verdict = "unknown"

    stops = set()
    for e in span:
        stops.update(e["requiredStops"])
        if e["syntheticRequiredStop"]:
            stops.add(e["version"])
    if floor is not None:
        stops.add(floor)
    stops = {s for s in stops if vkey(low) < vkey(s) < vkey(high)}
    minimums = [e["minPreviousVersion"] for e in span if e["minPreviousVersion"] is not None]
    minimum = max(minimums, key=vkey) if minimums else None

    safe = (
        direction != "downgrade"
        and verdict is True
        and not stops
        and (minimum is None or vkey(minimum) <= vkey(start))
    )
    return {
        "fromVersion": start,
        "toVersion": target,
        "direction": direction,
        "safe": safe,
        "verdict": verdict,
        "requiredStops": sorted(stops, key=vkey),
        "minPreviousVersion": minimum,
        "coveredVersions": [e["version"] for e in span],
        "missingRanges": missing,
    }


@settings(max_examples=300, deadline=None)
@given(doc=indexes(), start=ENDPOINTS, target=ENDPOINTS)
def test_span_matches_the_reference(doc: dict[str, Any], start: str, target: str) -> None:
    result = evaluate_span(as_index(doc), start, target).to_json_data()
    assert result == reference(doc, start, target)


@settings(max_examples=200, deadline=None)
@given(doc=indexes(), start=ENDPOINTS, target=ENDPOINTS)
def test_safe_means_every_condition_holds(doc: dict[str, Any], start: str, target: str) -> None:
    result = evaluate_span(as_index(doc), start, target)
    if result.safe:
        assert result.verdict is True
        assert result.direction != "downgrade"
        assert not result.requiredStops
        assert not result.missingRanges
    if result.direction == "downgrade":
        assert not result.safe
        assert result.verdict is not True


@settings(max_examples=200, deadline=None)
@given(doc=indexes(), data=st.data())
def test_a_safe_span_is_safe_in_each_part(doc: dict[str, Any], data: st.DataObject) -> None:
    held = sorted((e["version"] for e in doc["entries"]), key=vkey)
    if len(held) < 3:
        return
    picked = data.draw(st.sets(st.sampled_from(held), min_size=3, max_size=3))
    low, middle, high = sorted(picked, key=vkey)
    index = as_index(doc)
    if evaluate_span(index, low, high).safe:
        assert evaluate_span(index, low, middle).safe
        assert evaluate_span(index, middle, high).safe


@settings(max_examples=300, deadline=None)
@given(doc=indexes(), start=ENDPOINTS, target=ENDPOINTS)
def test_plan_hops_are_legal_single_hops(doc: dict[str, Any], start: str, target: str) -> None:
    releases = Releases.of(as_index(doc))
    plan = plan_upgrade(releases, start, target)
    check = evaluate_span(releases, start, target)
    if plan.direction != "upgrade":
        assert plan.hops == []
        return
    if plan.problem is None:
        assert plan.hops[0].fromVersion == start
        assert plan.hops[-1].toVersion == target
    for before, after in pairwise(plan.hops):
        assert before.toVersion == after.fromVersion
    ends = {hop.toVersion for hop in plan.hops}
    if plan.problem is None:
        assert set(check.requiredStops) <= ends
    for hop in plan.hops:
        leg = evaluate_span(releases, hop.fromVersion, hop.toVersion)
        assert leg.requiredStops == []
        assert leg.minPreviousVersion is None or vkey(leg.minPreviousVersion) <= vkey(
            hop.fromVersion
        )
        assert (hop.strategy == "RollingUpdate") == leg.safe
    if check.safe:
        assert len(plan.hops) == 1
        assert plan.hops[0].strategy == "RollingUpdate"
        assert plan.complete
