"""The REST report of a service without an OpenAPI document: its routes read from the code at
both refs and compared, with what was read and what could not be in the coverage."""

from __future__ import annotations

from collections.abc import Sequence

from release_safety.contract.reports import (
    Coverage,
    Finding,
    SurfaceReport,
    Unmodelled,
    not_checked_finding,
)
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import RouteSource
from release_safety.surfaces.discovery import (
    ABSENT_CONTRADICTED,
    contradicted,
    reason_of,
    unmatched_finding,
)
from release_safety.surfaces.rest.routes.judge import compare_routes
from release_safety.surfaces.rest.routes.model import Route, RouteReading
from release_safety.surfaces.rest.routes.read import own_code, read_routes

KEY = "rest.routes"


def tried(sources: Sequence[RouteSource]) -> list[str]:
    """The route sources searched, as the coverage names them."""
    return [f"{KEY} = {s.describe()!r}" for s in sources or (RouteSource(),)]


def routes_report(
    old: Snapshot | None,
    new: Snapshot,
    old_reading: RouteReading | None,
    new_reading: RouteReading,
    sources: Sequence[RouteSource],
    explicit: bool,
    origin: str,
    looked: Sequence[str],
) -> SurfaceReport:
    """The report from the routes at both refs (`old_reading` None for a first release)."""
    problems: list[Finding] = []
    if explicit:
        problems += [
            unmatched_finding("rest", KEY, s.describe(), new.ref, origin)
            for s in sources
            if not own_code(new.paths(), s.path)
        ]
    findings: list[Finding] = []
    if (
        old is not None
        and old_reading is not None
        and old_reading.routes
        and not found_any(new_reading)
    ):
        reason = (
            f"no route read at {new.ref}, where {old.ref} has {len(old_reading.routes)}: the "
            "service may register them with a framework the tool does not read"
        )
        hint = (
            f"Name the code that registers the routes at {new.ref} in [rest] routes (with its "
            "framework), or point [rest] specs at the service's OpenAPI document."
        )
        problems.append(not_checked_finding("rest", reason, hint=hint))
    elif old is not None and old_reading is not None:
        touched = {
            gap.file for gap in new_reading.gaps if old.blob_id(gap.file) != new.blob_id(gap.file)
        }
        findings = compare_routes(old_reading, new_reading, old.ref, new.ref, touched)
    coverage = Coverage.of(
        [*looked, *tried(sources)],
        old_reading.files if old_reading is not None else None,
        new_reading.files,
    )
    coverage.understood = {
        route.shown: f"{route.file}:{route.line}" for route in reversed(new_reading.routes)
    }
    coverage.unmodelled = [
        Unmodelled(file=gap.file, line=gap.line, what=gap.what, way_out=gap.way_out)
        for gap in new_reading.gaps
    ]
    return SurfaceReport(
        surface="rest",
        checked=not problems,
        reason=reason_of(problems),
        findings=sorted([*problems, *findings], key=Finding.sort_key),
        coverage=coverage,
    )


def found_any(reading: RouteReading | None) -> bool:
    return reading is not None and bool(reading.routes or reading.gaps)


def routes_contradict(
    report: SurfaceReport,
    old: Snapshot | None,
    new: Snapshot,
    sources: Sequence[RouteSource],
    origin: str,
) -> SurfaceReport:
    """The report of `[rest] absent` (with a reason) that no document contradicts, with an
    `absent-contradicted` finding when the code registers routes at either ref after all,
    naming them with their file and line (a registration the readers could not read counts)."""
    if not report.checked or any(f.rule == ABSENT_CONTRADICTED.id for f in report.findings):
        return report
    for snapshot in (new, old):
        if snapshot is None or (snapshot is old and old is new):
            continue
        reading = read_routes(snapshot, sources)
        there = [
            *(f"{r.shown} ({r.file}:{r.line})" for r in sorted(reading.routes, key=_place)),
            *(f"{g.what} ({g.file}:{g.line})" for g in reading.gaps),
        ]
        if there:
            first = min(reading.routes, key=_place, default=None) or reading.gaps[0]
            spot, line = (first.file, first.line) if snapshot is new else (None, None)
            finding = contradicted("rest", origin, snapshot.ref, there, spot, line, "[rest] routes")
            findings = sorted([*report.findings, finding], key=Finding.sort_key)
            return report.model_copy(update={"findings": findings})
    return report


def _place(route: Route) -> tuple[str, int]:
    return route.file, route.line
