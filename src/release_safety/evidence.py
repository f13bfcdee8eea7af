"""The evidence report: every finding behind a verdict, with file, line and rule id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from release_safety.findings import all_findings

if TYPE_CHECKING:
    from release_safety.generate import Generated


def evidence_document(generated: Generated) -> dict[str, Any]:
    """All findings of a release, sorted, with the verdict and, per surface, whether it was
    checked and what it read (the settings entries tried, the files read with their blob ids
    at each ref)."""
    release = generated.release
    findings = all_findings(generated.reports)
    return {
        "schemaVersion": "1",
        "version": release.version,
        "previousVersion": release.previous_version,
        "fromRef": release.from_ref,
        "toRef": release.to_ref,
        "rollingUpdateSafe": generated.decision.rolling_update_safe,
        "decisionRow": generated.decision.row,
        "because": [f.to_dict() for f in generated.decision.reasons],
        "surfaces": [
            {
                "surface": r.surface,
                "checked": r.checked,
                "reason": r.reason,
                "coverage": r.coverage.model_dump(mode="json"),
            }
            for r in generated.reports
        ],
        "findings": [f.to_dict() for f in findings],
    }
