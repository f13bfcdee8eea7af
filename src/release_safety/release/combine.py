"""Two runs of the surfaces over one release, combined: with the release's own settings (the
primary run) and with the previous release's, when they differ.

A settings change must never hide a break, so the release is true only if both runs agree:

- every breaking finding of the previous settings' run counts;
- an unknown finding of that run counts when it is about a file the primary run did not read
  (a document the new settings no longer follow);
- what the primary run did not see (files, configuration changes, declared breaks, required
  stops) joins its report, so the artifact shows it too.

Each finding taken from the other run says so in its message. A surface's `checked` state and
coverage are the primary run's: what the previous settings could not read is no gap in the new
ones (the settings surface reports every narrowing on its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from release_safety.contract.reports import (
    ConfigReport,
    DeclarationsReport,
    Finding,
    MigrationsReport,
    OverridesReport,
    SurfaceReport,
)
from release_safety.contract.versions import version_key
from release_safety.surfaces.discovery import is_settings_error

T = TypeVar("T")
SUFFIX = " [seen with the previous release's settings]"


def _key(finding: Finding) -> tuple[str, str | None, int | None, str]:
    return (finding.rule, finding.file, finding.line, finding.message)


def _counts(finding: Finding, primary: SurfaceReport) -> bool:
    if finding.severity == "breaking":
        return True
    read = {*primary.coverage.old, *primary.coverage.new}
    return (
        finding.severity == "unknown"
        and finding.file is not None
        and finding.file not in read
        and not is_settings_error(finding)
    )


def combine(primary: SurfaceReport, other: SurfaceReport) -> SurfaceReport:
    """The primary report with what the other run adds (see the module docstring)."""
    seen = {_key(f) for f in primary.findings}
    extra = [
        f.replace(message=f.message + SUFFIX)
        for f in other.findings
        if _key(f) not in seen and _counts(f, primary)
    ]
    update: dict[str, object] = {
        "findings": sorted([*primary.findings, *extra], key=Finding.sort_key)
    }
    if isinstance(primary, MigrationsReport) and isinstance(other, MigrationsReport):
        names = {f.name for f in primary.files}
        update["files"] = [*primary.files, *(f for f in other.files if f.name not in names)]
    elif isinstance(primary, ConfigReport) and isinstance(other, ConfigReport):
        update["changes"] = [
            *primary.changes,
            *(c for c in other.changes if c not in primary.changes),
        ]
    elif isinstance(primary, DeclarationsReport) and isinstance(other, DeclarationsReport):
        update["declared"] = [
            *primary.declared,
            *(d for d in other.declared if d not in primary.declared),
        ]
    elif isinstance(primary, OverridesReport) and isinstance(other, OverridesReport):
        stops = {*primary.required_stops, *other.required_stops}
        update["required_stops"] = sorted(stops, key=version_key)
        floors = [v for v in (primary.min_previous_version, other.min_previous_version) if v]
        update["min_previous_version"] = max(floors, key=version_key) if floors else None
    return primary.model_copy(update=update)


def _union(first: Sequence[T], second: Sequence[T]) -> list[T]:
    return [*first, *(item for item in second if item not in first)]


def combine_runs(
    primary: Sequence[SurfaceReport], other: Sequence[SurfaceReport]
) -> list[SurfaceReport]:
    """Each primary report combined with the other run's report of the same surface."""
    by_surface = {report.surface: report for report in other}
    return [
        combine(report, by_surface[report.surface]) if report.surface in by_surface else report
        for report in primary
    ]
