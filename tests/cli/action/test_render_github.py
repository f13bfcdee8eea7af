"""Workflow-command annotations and the sticky comment."""

from __future__ import annotations

from release_safety.cli.render.github import (
    ANNOTATION_CAP,
    MARKER,
    comment_body,
    gate_annotations,
    overflow_section,
)
from release_safety.contract.model import DeclaredBreak
from release_safety.contract.reports import DeclarationsReport, Finding, SurfaceReport
from release_safety.release.pullrequest import gate

REGISTRY = "release-safety.declarations.json"


def breaking(n: int, surface: str = "migrations") -> Finding:
    return Finding(
        rule="drop-column",
        severity="breaking",
        surface=surface,  # type: ignore[arg-type]
        file=f"migrations/{n:03}_drop.sql",
        line=n,
        message=f"DROP COLUMN t{n}.c",
    )


def test_annotations_keep_githubs_per_level_cap_and_the_rest_overflows() -> None:
    findings = [breaking(n) for n in range(1, 13)]
    warning = Finding(
        rule="surface-not-checked",
        severity="unknown",
        surface="mcp",
        message="mcp surface not checked: bad JSON",
    )
    result = gate(
        [
            SurfaceReport(surface="migrations", checked=True, findings=findings),
            SurfaceReport(surface="mcp", checked=False, findings=[warning]),
        ],
        REGISTRY,
    )
    shown, overflow = gate_annotations(result)
    assert [a.level for a in shown].count("error") == ANNOTATION_CAP
    assert [a.level for a in shown].count("warning") == 1
    assert [a.finding for a in overflow] == findings[ANNOTATION_CAP:]
    first = shown[0].command()
    assert first == (
        "::error file=migrations/001_drop.sql,line=1,"
        "title=release-safety drop-column::DROP COLUMN t1.c"
    )
    assert shown[-1].command() == (
        "::warning title=release-safety surface-not-checked::mcp surface not checked: bad JSON"
    )
    section = overflow_section(overflow)
    assert section.startswith("### Not shown as annotations (2)")
    assert "`migrations/012_drop.sql:12`" in section


def test_annotation_text_and_properties_are_escaped() -> None:
    odd = Finding(
        rule="x-rule",
        severity="breaking",
        surface="config",
        file="a,b:c.env",
        line=2,
        message="50% of\nlines",
        hint="do this",
    )
    result = gate([SurfaceReport(surface="config", checked=True, findings=[odd])], REGISTRY)
    shown, _ = gate_annotations(result)
    assert shown[0].command() == (
        "::error file=a%2Cb%3Ac.env,line=2,title=release-safety x-rule::50%25 of%0Alines%0Ado this"
    )


def test_the_failing_comment_leads_with_a_headline_then_tables_then_how_to_unblock() -> None:
    result = gate(
        [SurfaceReport(surface="migrations", checked=True, findings=[breaking(2)])], REGISTRY
    )
    body = comment_body(result, "a" * 40, "b" * 40)
    lines = body.splitlines()
    assert lines[0] == MARKER
    assert lines[1].startswith("## ⛔ This pull request brings 1 undeclared breaking change:")
    assert body.index("### Database migrations") < body.index("### How to unblock")
    assert "| ⛔ | `drop-column` | `migrations/002_drop.sql:2` | DROP COLUMN t2.c |" in body
    assert "expand/contract" in body
    assert "they must use the Recreate strategy" in body


def test_the_passing_comment_names_the_declaration_and_its_consequence() -> None:
    declared = DeclaredBreak(
        file="migrations/002_drop.sql",
        line=1,
        reason="drops t2.c after | deprecation",
        requiredStop=True,
    )
    decl = DeclarationsReport(surface="declarations", checked=True, declared=[declared])
    result = gate(
        [SurfaceReport(surface="migrations", checked=True, findings=[breaking(2)]), decl], REGISTRY
    )
    body = comment_body(result, "a" * 40, "b" * 40)
    assert "## ✅ This pull request declares its breaking changes" in body
    assert "Recreate" in body
    assert "drops t2.c after \\| deprecation" in body
    assert "(required stop)" in body
    assert "How to unblock" not in body
