"""Shared by the deployment tests: judge two versions of a repository's files."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.contract.reports import SurfaceReport
from release_safety.git.repository import GitSnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.deployment import analyse

Files = dict[str, str | None]
Pair = Callable[[Files, Files], tuple[GitSnapshot, GitSnapshot]]


def report(pair: Pair, old: Files, new: Files, settings: Settings | None = None) -> SurfaceReport:
    """The deployment report between v1.0.0 (`old` files) and v1.0.1 (`new` written over)."""
    before, after = pair(old, new)
    return analyse(before, after, settings or Settings())


def judged(pair: Pair, old: Files, new: Files) -> list[tuple[str, str, str | None, int | None]]:
    """(rule, severity, file, line) of each finding; the surface must have been checked."""
    found = report(pair, old, new)
    assert found.checked, found.reason
    return [(f.rule, f.severity, f.file, f.line) for f in found.findings]
