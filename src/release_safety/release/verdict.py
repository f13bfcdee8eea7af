"""The verdict: one pure function of the surface reports (decision table in docs/verdict.md).

| row | condition (first match wins)                                   | rollingUpdateSafe |
| --- | -------------------------------------------------------------- | ----------------- |
| 1   | any breaking finding (shape, REST/MCP/config change, declared) | false             |
| 2   | a surface missing or not checked, or any unknown finding       | unknown           |
| 3   | the release is backfilled                                      | unknown           |
| 4   | otherwise                                                      | true              |

A proven break dominates: nothing can loosen a declared or config break back to unknown/true.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from release_safety.contract.model import TriState
from release_safety.contract.reports import (
    SURFACE_NOT_CHECKED,
    SURFACES,
    Finding,
    Rule,
    SurfaceReport,
    nothing_found_hint,
    register,
)

BACKFILLED = register(
    Rule(
        id="backfilled-release",
        surface="release",
        severity="unknown",
        title="A backfilled release is never proven safe",
        why="A release analysed after the fact ran with no gate; verdict rule 6 gives it a "
        "conservative verdict.",
        safe="Cross backfilled releases with the Recreate strategy.",
    )
)
SURFACE_MISSING = register(
    Rule(
        id="surface-missing",
        surface="all",
        severity="unknown",
        title="A surface was not analysed",
        why="A verdict of true needs every surface checked.",
    )
)


@dataclass(frozen=True)
class Decision:
    """The verdict, the decision-table row that gave it, and the findings it rests on."""

    rolling_update_safe: TriState
    row: int
    reasons: list[Finding] = field(default_factory=list)

    @property
    def strategy(self) -> Literal["RollingUpdate", "Recreate"]:
        return "RollingUpdate" if self.rolling_update_safe is True else "Recreate"


def decide(reports: Sequence[SurfaceReport], backfilled: bool = False) -> Decision:
    """Apply the decision table to every surface's report."""
    findings = [f for report in reports for f in report.findings]
    breaking = [f for f in findings if f.severity == "breaking"]
    if breaking:
        return Decision(False, 1, breaking)
    seen = {report.surface for report in reports}
    missing = [
        Finding(
            rule=SURFACE_MISSING.id,
            severity="unknown",
            surface=surface,
            message=f"{surface} surface was not analysed",
            hint="Generate the release again with this version of release-safety "
            f"(`release-safety generate`), which analyses the {surface} surface.",
        )
        for surface in SURFACES
        if surface not in seen
    ]
    unknown = missing + [f for f in findings if f.severity == "unknown"]
    unchecked = [r for r in reports if not r.checked and not r.unknown()]
    unknown += [
        Finding(
            rule=SURFACE_NOT_CHECKED.id,
            severity="unknown",
            surface=r.surface,
            message=f"{r.surface} surface not checked: {r.reason or 'no reason given'}",
            hint=nothing_found_hint(r.surface),
        )
        for r in unchecked
    ]
    if unknown:
        return Decision("unknown", 2, unknown)
    if backfilled:
        reason = Finding(
            rule=BACKFILLED.id,
            severity="unknown",
            surface="release",
            message="backfilled release: verdict is never true",
            hint=BACKFILLED.safe,
        )
        return Decision("unknown", 3, [reason])
    return Decision(True, 4)
