"""The coverage rule of the pull-request gate, on hand-built surface reports."""

from __future__ import annotations

from release_safety.contract.model import DeclaredBreak
from release_safety.contract.reports import DeclarationsReport, Finding, SurfaceReport, not_checked
from release_safety.release.pullrequest import gate

REGISTRY = "release-safety.declarations.json"
DROP = Finding(
    rule="drop-column",
    severity="breaking",
    surface="migrations",
    file="migrations/002_drop.sql",
    line=3,
    message="DROP COLUMN users.legacy_id",
    hint="Stop reading and writing the column one release before dropping it.",
)
REST = Finding(
    rule="response-property-removed",
    severity="breaking",
    surface="rest",
    file="openapi.json",
    line=12,
    message="GET /users — response property legacy_id removed",
)


def declarations(
    *declared: DeclaredBreak, extra: list[Finding] | None = None
) -> DeclarationsReport:
    findings = [
        Finding(
            rule="declared-break",
            severity="breaking",
            surface="declarations",
            file=d.file,
            line=d.line,
            message=d.reason,
        )
        for d in declared
    ]
    return DeclarationsReport(
        surface="declarations",
        checked=True,
        declared=list(declared),
        findings=findings + (extra or []),
    )


def reports(decl: DeclarationsReport) -> list[SurfaceReport]:
    return [
        SurfaceReport(surface="migrations", checked=True, findings=[DROP]),
        SurfaceReport(surface="rest", checked=True, findings=[REST]),
        decl,
    ]


def annotation(file: str) -> DeclaredBreak:
    return DeclaredBreak(
        file=file, line=1, reason="drops users.legacy_id after deprecation", requiredStop=True
    )


def test_nothing_declared_fails_with_every_break_uncovered() -> None:
    result = gate(reports(declarations()), REGISTRY)
    assert not result.passed
    assert result.uncovered == [DROP, REST]


def test_an_annotation_covers_the_breaks_of_its_own_file_only() -> None:
    declared = annotation("migrations/002_drop.sql")
    result = gate(reports(declarations(declared)), REGISTRY)
    assert [(c.finding, c.declaration) for c in result.covered] == [(DROP, declared)]
    assert result.uncovered == [REST]
    assert not result.passed


def test_a_registry_entry_naming_no_file_covers_every_break() -> None:
    entry = DeclaredBreak(
        file=REGISTRY, line=4, reason="removes legacy ids everywhere", requiredStop=False
    )
    result = gate(reports(declarations(entry)), REGISTRY)
    assert result.passed
    assert [c.finding for c in result.covered] == [DROP, REST]
    assert result.declared == [entry]


def test_a_registry_entry_naming_a_migration_covers_that_file_only() -> None:
    entry = DeclaredBreak(
        file=REGISTRY, line=4, reason="removes legacy ids everywhere", requiredStop=False
    )
    result = gate(reports(declarations(entry)), REGISTRY, {4: "migrations/002_drop.sql"})
    assert [c.finding for c in result.covered] == [DROP]
    assert result.uncovered == [REST]


def test_a_file_specific_declaration_wins_over_a_general_one() -> None:
    general = DeclaredBreak(
        file=REGISTRY, line=4, reason="removes legacy ids everywhere", requiredStop=False
    )
    own = annotation("migrations/002_drop.sql")
    result = gate(reports(declarations(general, own)), REGISTRY)
    assert {c.finding.rule: c.declaration for c in result.covered} == {
        "drop-column": own,
        "response-property-removed": general,
    }


def test_a_hollow_or_malformed_declaration_fails_the_gate_even_when_everything_is_covered() -> None:
    entry = DeclaredBreak(file=REGISTRY, line=4, reason="TODO", requiredStop=False)
    hollow = Finding(
        rule="declaration-hollow-reason",
        severity="unknown",
        surface="declarations",
        file=REGISTRY,
        line=5,
        message="declared break reason 'TODO' is hollow",
    )
    result = gate(reports(declarations(entry, extra=[hollow])), REGISTRY)
    assert result.uncovered == []
    assert result.problems == [hollow]
    assert not result.passed


def test_unknowns_of_other_surfaces_are_warnings_not_failures() -> None:
    parsed = [
        SurfaceReport(surface="migrations", checked=True),
        not_checked("mcp", "mcp-tools.json is not valid JSON", "mcp-tools.json"),
        not_checked("declarations", "cannot read"),
    ]
    result = gate(parsed, REGISTRY)
    assert result.passed
    assert [f.surface for f in result.warnings] == ["declarations", "mcp"]
    assert result.not_checked == ["declarations", "mcp"]


def test_declared_breaks_are_the_cover_never_something_to_cover() -> None:
    declared = annotation("src/users.ts")
    only = [declarations(declared)]
    result = gate(only, REGISTRY)
    assert result.passed
    assert result.uncovered == [] and result.covered == []
    assert result.declared == [declared]
