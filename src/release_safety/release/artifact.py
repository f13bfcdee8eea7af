"""Render the artifact (the contract) from the surface reports and the verdict: pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from release_safety.contract.model import (
    Api,
    ApiSurface,
    Artifact,
    Compatibility,
    Config,
    Migrations,
    TriState,
    Upgrade,
)
from release_safety.contract.reports import (
    ConfigReport,
    DeclarationsReport,
    Finding,
    MigrationsReport,
    SurfaceReport,
)
from release_safety.release.verdict import Decision

LIST_CAP = 50


def capped(lines: Sequence[str], noun: str) -> list[str]:
    """At most LIST_CAP lines plus one overflow line `… and N more <noun>(s)`."""
    if len(lines) <= LIST_CAP:
        return list(lines)
    return [*lines[:LIST_CAP], f"… and {len(lines) - LIST_CAP} more {noun}(s)"]


def surface_breaking(report: SurfaceReport) -> TriState:
    """true when a break is proven, unknown when not checked or not provable, else false."""
    if report.breaking():
        return True
    if not report.checked or report.unknown():
        return "unknown"
    return False


def _messages(findings: Sequence[Finding]) -> list[str]:
    return sorted({f.message for f in findings})


def api_surface(report: SurfaceReport) -> ApiSurface:
    if not report.checked:
        return ApiSurface(
            checked=False,
            breaking="unknown",
            changes=[],
            breakingCount=0,
            advisories=[],
            advisoryCount=0,
        )
    changes = _messages(report.breaking())
    advisories = _messages(report.advisories())
    return ApiSurface(
        checked=True,
        breaking=surface_breaking(report),
        changes=capped(changes, "breaking change"),
        breakingCount=len(changes),
        advisories=capped(advisories, "advisory note"),
        advisoryCount=len(advisories),
    )


def migrations_block(report: MigrationsReport) -> Migrations:
    files = report.files
    present: TriState = bool(files) if report.checked else "unknown"
    return Migrations(
        present=present,
        count=len(files),
        coreCount=sum(1 for f in files if f.edition == "core"),
        eeCount=sum(1 for f in files if f.edition == "ee"),
        files=files,
    )


def config_block(report: ConfigReport) -> Config:
    return Config(
        checked=report.checked,
        breaking=surface_breaking(report),
        changes=report.changes if report.checked else [],
    )


R = TypeVar("R", bound=SurfaceReport)


def pick(reports: Sequence[SurfaceReport], kind: type[R], surface: str) -> R | None:
    return next((r for r in reports if r.surface == surface and isinstance(r, kind)), None)


def build_artifact(
    *,
    version: str,
    previous_version: str | None,
    release_date: str,
    reports: Sequence[SurfaceReport],
    decision: Decision,
    upgrade: Upgrade,
) -> Artifact:
    """The artifact for one release. A surface absent from `reports` renders as not checked."""
    migrations = pick(reports, MigrationsReport, "migrations")
    rest = pick(reports, SurfaceReport, "rest")
    mcp = pick(reports, SurfaceReport, "mcp")
    config = pick(reports, ConfigReport, "config")
    declarations = pick(reports, DeclarationsReport, "declarations")
    return Artifact(
        schemaVersion="2",
        version=version,
        previousVersion=previous_version,
        releaseDate=release_date,
        migrations=migrations_block(migrations)
        if migrations
        else Migrations(present="unknown", count=0, coreCount=0, eeCount=0, files=[]),
        compatibility=Compatibility(
            rollingUpdateSafe=decision.rolling_update_safe,
            recommendedStrategy=decision.strategy,
        ),
        api=Api(
            rest=api_surface(rest or SurfaceReport(surface="rest", checked=False)),
            mcp=api_surface(mcp or SurfaceReport(surface="mcp", checked=False)),
        ),
        config=config_block(config or ConfigReport(surface="config", checked=False)),
        upgrade=upgrade,
        declaredBreaks=declarations.declared if declarations else [],
    )


def unknown_artifact(version: str, previous_version: str | None, release_date: str) -> Artifact:
    """The all-unknown artifact printed when generation fails: it claims nothing."""
    return build_artifact(
        version=version,
        previous_version=previous_version,
        release_date=release_date,
        reports=[],
        decision=Decision("unknown", 2),
        upgrade=Upgrade(minPreviousVersion=None, requiredStops=[]),
    )
