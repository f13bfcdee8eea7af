"""The evidence report (`generate --evidence`): every finding behind a verdict, with file, line
and rule id, and what each surface read; its model is the published schema
(`schemas/evidence.schema.json`, `release-safety schema evidence`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field, StrictBool, StrictInt

from release_safety.findings import Coverage, Finding, Surface, all_findings
from release_safety.model import AnyVersion, Closed, TriState

if TYPE_CHECKING:
    from release_safety.generate import Generated


class SurfaceEvidence(Closed):
    """One surface: whether it was checked (else why not) and what it read."""

    surface: Surface
    checked: StrictBool
    reason: str | None
    coverage: Coverage


class Evidence(Closed):
    """The evidence file: the release, its verdict, the decision-table row (docs/verdict.md)
    and the findings it rests on (`because`), every surface's coverage, every finding."""

    schemaVersion: Literal["1"]
    version: AnyVersion
    previousVersion: AnyVersion | None
    fromRef: str | None
    toRef: str
    rollingUpdateSafe: TriState
    decisionRow: Annotated[StrictInt, Field(ge=1, le=4)]
    because: list[Finding]
    surfaces: list[SurfaceEvidence]
    findings: list[Finding]


def evidence_document(generated: Generated) -> Evidence:
    """All findings of a release, sorted, with the verdict and, per surface, whether it was
    checked and what it read (the settings entries tried, the files read with their blob ids
    at each ref)."""
    release = generated.release
    return Evidence(
        schemaVersion="1",
        version=release.version,
        previousVersion=release.previous_version,
        fromRef=release.from_ref,
        toRef=release.to_ref,
        rollingUpdateSafe=generated.decision.rolling_update_safe,
        decisionRow=generated.decision.row,
        because=generated.decision.reasons,
        surfaces=[
            SurfaceEvidence(
                surface=r.surface, checked=r.checked, reason=r.reason, coverage=r.coverage
            )
            for r in generated.reports
        ],
        findings=all_findings(generated.reports),
    )
