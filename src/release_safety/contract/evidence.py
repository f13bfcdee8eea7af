"""The evidence report's model (`generate --evidence`, built by `generate.evidence_document`):
every finding behind a verdict, with file, line and rule id, and what each surface read; it is
the published schema (`schemas/evidence.schema.json`, `release-safety schema evidence`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, StrictInt

from release_safety.contract.model import AnyVersion, Closed, TriState
from release_safety.contract.reports import Coverage, Finding, Surface
from release_safety.contract.verification import Verification


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
    verification: Verification | None = None
    """The release's migrations run on PostgreSQL (`generate --verify`); absent otherwise."""

    def to_json_data(self) -> dict[str, Any]:
        data = super().to_json_data()
        if data["verification"] is None:
            del data["verification"]
        return data
