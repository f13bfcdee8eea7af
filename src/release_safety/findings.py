"""The one currency of every surface: findings, the rules that produce them, surface reports.

A finding says what was seen (rule id, severity, file, line, message) and how to do it safely
(hint). Severity decides the verdict:

- ``breaking``: a proven break for the previous release's running code or its clients;
- ``unknown``: something could not be proven either way (unparseable file, dynamic SQL, ...);
- ``advisory``: worth knowing, never changes the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from release_safety.model import ConfigChange, DeclaredBreak, MigrationFile

Severity = Literal["breaking", "unknown", "advisory"]
Surface = Literal["migrations", "rest", "mcp", "config", "declarations", "overrides"]
SURFACES: tuple[Surface, ...] = ("migrations", "rest", "mcp", "config", "declarations", "overrides")


class Finding(BaseModel):
    """One observation with its place in the repository and a rule id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule: str
    severity: Severity
    surface: Surface | Literal["release"]
    file: str | None = None
    line: int | None = None
    message: str
    hint: str | None = None

    def sort_key(self) -> tuple[str, str, int, str, str]:
        return (self.surface, self.file or "", self.line or 0, self.rule, self.message)


class SurfaceReport(BaseModel):
    """What one surface found between two refs.

    ``checked`` is false when the surface could not be read at either ref; ``reason`` then says
    why. A surface that was not checked is never "not breaking".
    """

    model_config = ConfigDict(extra="forbid")

    surface: Surface
    checked: bool
    reason: str | None = None
    findings: list[Finding] = []

    def breaking(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "breaking"]

    def unknown(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "unknown"]

    def advisories(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "advisory"]


def all_findings(reports: Sequence[SurfaceReport]) -> list[Finding]:
    """Every finding of every report, in a stable order (surface, file, line, rule)."""
    return sorted((f for report in reports for f in report.findings), key=Finding.sort_key)


def not_checked(surface: Surface, reason: str, file: str | None = None) -> SurfaceReport:
    """A surface that could not be read: not checked, with an unknown finding saying why."""
    finding = Finding(
        rule=SURFACE_NOT_CHECKED.id,
        severity="unknown",
        surface=surface,
        file=file,
        message=f"{surface} surface not checked: {reason}",
    )
    return SurfaceReport(surface=surface, checked=False, reason=reason, findings=[finding])


@dataclass(frozen=True)
class Rule:
    """A rule is data plus the code that applies it: id, title, why, unsafe and safe examples."""

    id: str
    surface: Surface | Literal["all", "release"]
    severity: Severity
    title: str
    why: str
    unsafe: str = ""
    safe: str = ""


RULES: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    """Add a rule to the catalogue; ids are unique across every surface."""
    if rule.id in RULES and RULES[rule.id] != rule:
        raise ValueError(f"rule id {rule.id!r} registered twice")
    RULES[rule.id] = rule
    return rule


SURFACE_NOT_CHECKED = register(
    Rule(
        id="surface-not-checked",
        surface="all",
        severity="unknown",
        title="A surface could not be read",
        why="A surface that could not be read at either ref cannot be proven safe.",
        safe="Fix the file so it parses, or point the settings at the right path.",
    )
)


class MigrationsReport(SurfaceReport):
    """The migrations surface: the artifact's file list besides the findings."""

    files: list[MigrationFile] = []


class ConfigReport(SurfaceReport):
    """The environment-config surface: the artifact's change list besides the findings."""

    changes: list[ConfigChange] = []


class DeclarationsReport(SurfaceReport):
    """Engineer-declared breaks added between the two refs (each also a breaking finding)."""

    declared: list[DeclaredBreak] = []


class OverridesReport(SurfaceReport):
    """Maintainers' upgrade overrides that apply to the release."""

    min_previous_version: str | None = None
    required_stops: list[str] = []
