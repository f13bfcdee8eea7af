"""The decision table of docs/verdict.md, row by row."""

import re
from pathlib import Path

from release_safety.contract.reports import SURFACES, Finding, SurfaceReport, not_checked
from release_safety.release.verdict import decide


def clean() -> list[SurfaceReport]:
    return [SurfaceReport(surface=s, checked=True) for s in SURFACES]


def with_finding(severity: str, surface: str = "rest") -> list[SurfaceReport]:
    reports = clean()
    finding = Finding(rule="x", severity=severity, surface=surface, message="m")  # type: ignore[arg-type]
    index = SURFACES.index(surface)  # type: ignore[arg-type]
    reports[index] = SurfaceReport(surface=surface, checked=True, findings=[finding])  # type: ignore[arg-type]
    return reports


def test_row1_any_break_is_false_even_with_unknowns() -> None:
    reports = with_finding("breaking", "declarations")
    reports[0] = not_checked("migrations", "unparseable")
    decision = decide(reports)
    assert (decision.rolling_update_safe, decision.row, decision.strategy) == (False, 1, "Recreate")
    assert [f.surface for f in decision.reasons] == ["declarations"]


def test_row1_holds_for_backfilled() -> None:
    assert decide(with_finding("breaking", "config"), backfilled=True).rolling_update_safe is False


def test_row2_unknown_finding() -> None:
    decision = decide(with_finding("unknown", "migrations"))
    assert (decision.rolling_update_safe, decision.row) == ("unknown", 2)


def test_row2_not_checked_surface() -> None:
    reports = clean()
    reports[1] = SurfaceReport(surface="rest", checked=False, reason="spec unreadable")
    decision = decide(reports)
    assert decision.rolling_update_safe == "unknown"
    assert "spec unreadable" in decision.reasons[0].message


def test_row2_missing_surface() -> None:
    decision = decide(clean()[:-1])
    assert decision.rolling_update_safe == "unknown"
    assert decision.reasons[0].rule == "surface-missing"


def test_row3_backfilled_clean_release_is_unknown() -> None:
    decision = decide(clean(), backfilled=True)
    assert (decision.rolling_update_safe, decision.row) == ("unknown", 3)


def test_row4_advisories_do_not_change_a_true() -> None:
    decision = decide(with_finding("advisory"))
    assert (decision.rolling_update_safe, decision.row, decision.strategy) == (
        True,
        4,
        "RollingUpdate",
    )


def test_every_change_listed_in_the_verdict_page_names_a_test_that_exists() -> None:
    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "verdict.md").read_text(encoding="utf-8")
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", page)
    assert len(named) >= 20
    for path, test in named:
        source = (root / path).read_text(encoding="utf-8")
        assert f"def {test}(" in source, f"docs/verdict.md names {path}::{test}, which is gone"
