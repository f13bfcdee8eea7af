"""The pull-request gate: every proven break must be declared in the same pull request.

Coverage rule (docs/action.md):

1. An annotation comment (`release-safety: breaking ...`) added in the pull request covers the
   breaking findings of its own file (the migration, the YAML spec, the config file it sits in).
2. A registry declaration added in the pull request that names a `migration` covers the breaking
   findings of that file; one that names no file covers every breaking finding of the pull
   request (a break in a generated JSON spec, say, where no comment can live).
3. Declared breaks are themselves breaking findings (rule `declared-break`): they are the cover,
   never something to cover.
4. A settings change that narrows what is checked (`settings-narrowed`) needs cover like a
   break: the pull request that narrows the settings declares it (a comment in the settings
   file, or a registry entry) or accepts it with a reason (`[[accept]]` in the settings: an
   advisory then, listed as acknowledged), or it does not merge. The head's settings never
   hide a break in the pull request itself: the merge base's settings are applied too.

What the pull request accepts or changes without a break is listed beside the gate's answer:
its acknowledgements (inline in its migrations, narrowings accepted in the settings), the
required stops and floors it adds to the overrides (one it removes is a breaking
`upgrade-override-removed`), and its settings changes.

The gate fails when a breaking finding or a settings narrowing is left uncovered, or when a
declaration is malformed or hollow (any `unknown` finding of the declarations surface but its
"not checked"). Other `unknown` findings (a surface not checked, an unparseable file) do not
fail the gate by default (`--fail-on breaking`): they are shown as warnings, and the release's
own verdict stays unknown, so operators will use Recreate regardless. A strict gate
(`--fail-on unknown`, as oasdiff's `--fail-on` and squawk's exit codes) fails on them too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from release_safety.contract.model import DeclaredBreak
from release_safety.contract.reports import (
    SURFACE_NOT_CHECKED,
    DeclarationsReport,
    Finding,
    OverridesReport,
    SurfaceReport,
    all_findings,
)
from release_safety.surfaces.declarations.rules import DECLARED_BREAK
from release_safety.surfaces.overrides import OVERRIDE_REMOVED
from release_safety.surfaces.settingsdiff import SETTINGS_NARROWED

DECLARED_RULE = DECLARED_BREAK.id
NOT_CHECKED_RULE = SURFACE_NOT_CHECKED.id

FailOn = Literal["breaking", "unknown"]
"""What fails the gate: an undeclared break (the default), or any `unknown` finding as well."""
FAIL_ON: tuple[FailOn, ...] = ("breaking", "unknown")

Scope = str | None
"""The one file a declaration covers, or None for every break of the pull request."""


@dataclass(frozen=True)
class Covered:
    """A breaking finding and the declaration that covers it."""

    finding: Finding
    declaration: DeclaredBreak


@dataclass(frozen=True)
class GateResult:
    """The gate's answer and everything it rests on, each list sorted."""

    uncovered: list[Finding] = field(default_factory=list)
    covered: list[Covered] = field(default_factory=list)
    problems: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    advisories: list[Finding] = field(default_factory=list)
    declared: list[DeclaredBreak] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)
    acknowledged: list[Finding] = field(default_factory=list)
    """Findings the pull request accepts with a reason: inline acknowledgements in its
    migrations, narrowings accepted in the settings (`[[accept]]`)."""
    overrides_added: list[Finding] = field(default_factory=list)
    """The required stops and upgrade floors the pull request adds to the overrides file."""
    fail_on: FailOn = "breaking"
    """`unknown`: the warnings fail the gate too (a strict gate)."""

    @property
    def passed(self) -> bool:
        strict = self.fail_on == "unknown" and self.warnings
        return not self.uncovered and not self.problems and not strict

    @property
    def overrides_removed(self) -> list[Finding]:
        """The required stops and upgrade floors it removes (breaking: covered or not)."""
        removed = [*self.uncovered, *(c.finding for c in self.covered)]
        return sorted((f for f in removed if f.rule == OVERRIDE_REMOVED.id), key=Finding.sort_key)


def declaration_scopes(
    declared: Sequence[DeclaredBreak],
    registry_path: str,
    registry_files: Mapping[int, str],
) -> dict[tuple[str, int], Scope]:
    """What each declaration covers: its own file, the registry's named file, or everything.

    `registry_files` maps the line of a registry entry to the `migration` it names.
    """
    scopes: dict[tuple[str, int], Scope] = {}
    for d in declared:
        if d.file == registry_path:
            scopes[(d.file, d.line)] = registry_files.get(d.line)
        else:
            scopes[(d.file, d.line)] = d.file
    return scopes


def _cover(
    finding: Finding, declared: Sequence[DeclaredBreak], scopes: Mapping[tuple[str, int], Scope]
) -> DeclaredBreak | None:
    """The first declaration naming the finding's file, else the first one covering all."""
    general: DeclaredBreak | None = None
    for d in declared:
        scope = scopes.get((d.file, d.line), d.file)
        if scope is not None and scope == finding.file:
            return d
        if scope is None and general is None:
            general = d
    return general


def gate(
    reports: Sequence[SurfaceReport],
    registry_path: str,
    registry_files: Mapping[int, str] | None = None,
    fail_on: FailOn = "breaking",
) -> GateResult:
    """Apply the coverage rule to the reports of merge-base..head."""
    declared: list[DeclaredBreak] = []
    for report in reports:
        if isinstance(report, DeclarationsReport):
            declared.extend(report.declared)
    declared.sort(key=lambda d: (d.file, d.line, d.reason))
    scopes = declaration_scopes(declared, registry_path, registry_files or {})
    findings = all_findings(reports)
    uncovered: list[Finding] = []
    covered: list[Covered] = []
    problems: list[Finding] = []
    warnings: list[Finding] = []
    advisories: list[Finding] = []
    for f in findings:
        if f.severity == "advisory":
            advisories.append(f)
        elif f.severity == "unknown" and f.rule != SETTINGS_NARROWED.id:
            declaration = f.surface == "declarations" and f.rule != NOT_CHECKED_RULE
            (problems if declaration else warnings).append(f)
        elif f.rule != DECLARED_RULE:
            cover = _cover(f, declared, scopes)
            if cover is None:
                uncovered.append(f)
            else:
                covered.append(Covered(f, cover))
    return GateResult(
        uncovered=uncovered,
        covered=covered,
        problems=problems,
        warnings=warnings,
        advisories=advisories,
        declared=declared,
        not_checked=sorted(r.surface for r in reports if not r.checked),
        acknowledged=[f for f in advisories if f.acknowledged],
        overrides_added=sorted(
            (f for r in reports if isinstance(r, OverridesReport) for f in r.added),
            key=Finding.sort_key,
        ),
        fail_on=fail_on,
    )
