"""Run the REST surface on two releases of a service's code (real git repositories)."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.contract.reports import SurfaceReport
from release_safety.git.repository import GitSnapshot
from release_safety.settings.model import Settings, parse_settings
from release_safety.surfaces.rest.analyse import analyse

Files = dict[str, str | None]
Pair = Callable[[Files, Files], tuple[GitSnapshot, GitSnapshot]]


def judge(pair: Pair, old: Files, new: Files, toml: str = "") -> SurfaceReport:
    """The REST report between a release with `old` files and the next with `new` written over
    them (None deletes)."""
    before, after = pair(old, new)
    settings = parse_settings(toml, ".release-safety.toml") if toml else Settings()
    assert settings is not None
    return analyse(before, after, settings)


def removed(report: SurfaceReport) -> list[str]:
    """The messages' routes of the route-removed findings (`GET /x`)."""
    return sorted(
        f.message.split(" removed:")[0] for f in report.findings if f.rule == "route-removed"
    )


def rules(report: SurfaceReport) -> list[str]:
    return sorted(f.rule for f in report.findings)
