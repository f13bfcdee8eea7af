"""Span evaluation: may an install at one version roll to another in one hop?

The verdict rules 1 to 7 of docs/contract.md#verdict-rules, over an already validated index.
Pure: no I/O.

The span is every indexed release after the lower version up to and including the upper one.
Its verdict is the AND of their `rollingUpdateSafe` (unknown counts as false); a break in the
`previousVersion` chain or an endpoint the index does not hold is a missing range (unknown).
Required stops strictly between the two versions block the single hop; a stop equal to the
target is where the hop lands. The floor is always a stop, so an install below it goes there
first. A downgrade is evaluated over the same releases for the report but is never safe.

The read path builds no pydantic model: entries are the `index.EntryData` objects of an index
the shipped JSON Schema validated (`index.index_data`), and the result is a `SpanResult` whose
JSON is the `model.UpgradeCheckResult` contract (a test holds the two to the same fields).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from release_safety.contract.versions import Version

if TYPE_CHECKING:
    from release_safety.contract.index import EntryData, IndexData
    from release_safety.contract.model import TriState

Direction = Literal["upgrade", "same-version", "downgrade"]


Key = tuple[int, ...]
Span = tuple["EntryData", ...]


class MissingRange(NamedTuple):
    """A gap in coverage: the nearest indexed versions around it (`model.MissingRange`)."""

    afterVersion: str | None
    beforeVersion: str | None


class SpanResult(NamedTuple):
    """The verdict on one hop: what `upgrade-check --json` prints (`model.UpgradeCheckResult`)."""

    fromVersion: str
    toVersion: str
    direction: Direction
    safe: bool
    verdict: TriState
    requiredStops: list[str]
    minPreviousVersion: str | None
    coveredVersions: list[str]
    missingRanges: list[MissingRange]

    def to_json_data(self) -> dict[str, Any]:
        """The fields in order, ranges as objects (lists shared, not copied)."""
        data = self._asdict()
        data["missingRanges"] = [gap._asdict() for gap in self.missingRanges]
        return data


def keys_of(versions: list[str]) -> list[Key]:
    """Sort keys of versions the index schema already validated as MAJOR.MINOR.PATCH, every
    part read in one pass (each version has exactly three)."""
    if not versions:
        return []
    parts = list(map(int, ".".join(versions).split(".")))
    return list(zip(parts[0::3], parts[1::3], parts[2::3], strict=True))


class Releases(NamedTuple):
    """An index's entries ordered by version, with their sort keys for quick lookup."""

    entries: Span
    keys: tuple[Key, ...]
    floor: Version | None

    @classmethod
    def of(cls, index: IndexData) -> Releases:
        """The releases of an index already validated by `index.index_data`."""
        entries = index["entries"]
        keys = keys_of(list(map(itemgetter("version"), entries)))
        order = sorted(range(len(keys)), key=keys.__getitem__)
        floor = index["backfillFloorVersion"]
        return cls(
            entries=tuple(map(entries.__getitem__, order)),
            keys=tuple(map(keys.__getitem__, order)),
            floor=Version.parse(floor) if floor is not None else None,
        )

    def holds(self, version: Version) -> bool:
        at = bisect_left(self.keys, version.key())
        return at < len(self.keys) and self.keys[at] == version.key()

    def named_previous(self, version: Version) -> bool:
        """True when some entry names `version` as its previousVersion."""
        text = str(version)
        return any(entry["previousVersion"] == text for entry in self.entries)

    def between(self, lower: Version, upper: Version) -> Span:
        """Entries after `lower` up to and including `upper`, oldest first."""
        start = bisect_right(self.keys, lower.key())
        return self.entries[start : bisect_right(self.keys, upper.key())]

    def held_below(self, version: Version) -> str | None:
        at = bisect_left(self.keys, version.key())
        return self.entries[at - 1]["version"] if at > 0 else None

    def held_above(self, version: Version) -> str | None:
        at = bisect_right(self.keys, version.key())
        return self.entries[at]["version"] if at < len(self.entries) else None


def direction_of(start: Version, target: Version) -> Direction:
    if start < target:
        return "upgrade"
    return "same-version" if start == target else "downgrade"


def compose(verdicts: list[TriState], complete: bool) -> TriState:
    """AND over a span: false wins, then unknown (or incomplete coverage), else true."""
    if any(verdict is False for verdict in verdicts):
        return False
    if not complete or any(verdict is not True for verdict in verdicts):
        return "unknown"
    return True


def stops_within(releases: Releases, span: Span, lower: Version, upper: Version) -> list[str]:
    """Required stops strictly between `lower` and `upper`: listed by a release, or the floor."""
    candidates: set[Version] = set()
    for entry in span:
        if entry["requiredStops"]:
            candidates.update(Version.parse(stop) for stop in entry["requiredStops"])
        if entry["syntheticRequiredStop"]:
            candidates.add(Version.parse(entry["version"]))
    if releases.floor is not None:
        candidates.add(releases.floor)
    return [str(stop) for stop in sorted(s for s in candidates if lower < s < upper)]


def missing_ranges(
    releases: Releases, span: Span, lower: Version, upper: Version
) -> list[MissingRange]:
    """Gaps in coverage: an endpoint the index does not hold, or a broken previousVersion chain.

    An unheld lower version is not a gap of its own when some entry names it as its
    `previousVersion` (the index knows that release, and the chain link below says whether the
    step from it is covered), nor below the floor: the route goes to the floor first, and the
    floor entry's chain link says whether that step is covered.
    """
    ranges: list[MissingRange] = []
    below_floor = releases.floor is not None and lower < releases.floor <= upper
    lower_known = releases.holds(lower) or releases.named_previous(lower)
    if not lower_known and not below_floor:
        ranges.append(
            MissingRange(
                afterVersion=releases.held_below(lower), beforeVersion=releases.held_above(lower)
            )
        )
    previous = str(lower)
    unchecked = not (lower_known or below_floor)  # an unheld start's gap is already reported
    for entry in span:
        if entry["previousVersion"] != previous and not unchecked:
            ranges.append(MissingRange(afterVersion=previous, beforeVersion=entry["version"]))
        unchecked = False
        previous = entry["version"]
    if not releases.holds(upper):
        gap = MissingRange(
            afterVersion=releases.held_below(upper), beforeVersion=releases.held_above(upper)
        )
        if gap not in ranges:
            ranges.append(gap)
    return ranges


def highest_min_previous(span: Span) -> str | None:
    floors = [Version.parse(e["minPreviousVersion"]) for e in span if e["minPreviousVersion"]]
    return str(max(floors)) if floors else None


def evaluate_span(index: IndexData | Releases, from_version: str, to_version: str) -> SpanResult:
    """The verdict on rolling from `from_version` to `to_version` in one hop (rules 1 to 7).

    Malformed versions raise InputError.
    """
    releases = index if isinstance(index, Releases) else Releases.of(index)
    start, target = Version.parse(from_version), Version.parse(to_version)
    direction = direction_of(start, target)
    lower, upper = min(start, target), max(start, target)
    span = releases.between(lower, upper)
    missing = missing_ranges(releases, span, lower, upper)
    verdict = compose([entry["rollingUpdateSafe"] for entry in span], complete=not missing)
    stops = stops_within(releases, span, lower, upper)
    min_previous = highest_min_previous(span)
    if direction == "downgrade" and verdict is True:
        verdict = "unknown"
    safe = (
        direction != "downgrade"
        and verdict is True
        and not stops
        and (min_previous is None or Version.parse(min_previous) <= start)
    )
    return SpanResult(
        fromVersion=str(start),
        toVersion=str(target),
        direction=direction,
        safe=safe,
        verdict=verdict,
        requiredStops=stops,
        minPreviousVersion=min_previous,
        coveredVersions=[entry["version"] for entry in span],
        missingRanges=missing,
    )


class Verdicts(NamedTuple):
    """Of some indexed versions: the false ones, the unknown ones, and which of those are
    backfilled (unknown because they were judged after the fact)."""

    unsafe: list[str]
    unknown: list[str]
    backfilled: list[str]


def releases_by_verdict(releases: Releases, versions: list[str]) -> Verdicts:
    """Of the given indexed versions, those marked false and those marked unknown."""
    wanted = set(versions)
    found = Verdicts([], [], [])
    for entry in releases.entries:
        if entry["version"] not in wanted:
            continue
        if entry["rollingUpdateSafe"] is False:
            found.unsafe.append(entry["version"])
        elif entry["rollingUpdateSafe"] == "unknown":
            found.unknown.append(entry["version"])
            if entry["backfilled"]:
                found.backfilled.append(entry["version"])
    return found
