"""Surface reports: what one surface found between two refs and what it read to find it.

Findings and rules are `finding`'s (pydantic-free, for `lint-migrations`), re-exported here for
the release path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from release_safety.contract.finding import RULES as RULES
from release_safety.contract.finding import SURFACES as SURFACES
from release_safety.contract.finding import Finding as Finding
from release_safety.contract.finding import Rule as Rule
from release_safety.contract.finding import register as register
from release_safety.contract.kinds import Severity as Severity
from release_safety.contract.kinds import Surface as Surface
from release_safety.contract.model import ConfigChange, DeclaredBreak, MigrationFile

COVERAGE_LISTED = 200
"""At most this many files are listed per ref in a surface's coverage; the rest are counted."""


class Unmodelled(BaseModel):
    """Something a surface found and could not model: a read through a computed name, a call
    into a library it does not know, a code migration, an image not in the catalogue, a file
    of an unknown kind. `blocking`: it stands between the tool and what it must judge (an
    unmodelled config loader), so it makes every release unknown, not only one that touches
    its file. `way_out` says, for this case, how to resolve it."""

    model_config = ConfigDict(
        extra="forbid", json_schema_serialization_defaults_required=True, defer_build=True
    )

    file: str
    line: int | None = None
    what: str
    way_out: str
    blocking: bool = False


class Coverage(BaseModel):
    """What a surface looked for and what it read: the settings entries it searched (`tried`),
    the files it read at each ref with their blob ids (`old`, `new`, at most COVERAGE_LISTED
    each, `unlisted` counting the rest), how many files its patterns matched at each ref
    (`matched`), the files it proved cannot change its answer and did not parse, counted per
    ref with why (`skipped`: `712 files skipped: no environment read reachable`), and, for a
    surface the maintainer declared absent, the reason given.

    Checked means understood: `understood` names what the surface modelled at the new ref,
    each with where it is defined (`PORT` -> `src/config.ts:12`), and `unmodelled` what it
    found there and could not model."""

    model_config = ConfigDict(
        extra="forbid", json_schema_serialization_defaults_required=True, defer_build=True
    )

    tried: list[str] = []
    old: dict[str, str] = {}
    new: dict[str, str] = {}
    unlisted: dict[str, int] = {}
    matched: dict[str, int] = {}
    skipped: dict[str, str] = {}
    absent: str | None = None
    understood: dict[str, str] = {}
    unmodelled: list[Unmodelled] = []

    @classmethod
    def of(
        cls,
        tried: Sequence[str],
        old: Mapping[str, str | None] | None = None,
        new: Mapping[str, str | None] | None = None,
        matched: Mapping[str, int] | None = None,
        absent: str | None = None,
    ) -> Coverage:
        """Coverage from the files read at each ref (path -> blob id; absent ones left out)."""
        sides: dict[str, dict[str, str]] = {}
        unlisted: dict[str, int] = {}
        for side, files in (("old", old or {}), ("new", new or {})):
            present = sorted((path, blob) for path, blob in files.items() if blob is not None)
            sides[side] = dict(present[:COVERAGE_LISTED])
            if len(present) > COVERAGE_LISTED:
                unlisted[side] = len(present) - COVERAGE_LISTED
        return cls(
            tried=list(tried),
            old=sides["old"],
            new=sides["new"],
            unlisted=unlisted,
            matched=dict(matched or {}),
            absent=absent,
        )


class SurfaceReport(BaseModel):
    """What one surface found between two refs, and what it read to find it.

    ``checked`` is false when the surface could not be read at either ref (or found nothing to
    read); ``reason`` then says why. A surface that was not checked is never "not breaking".
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    surface: Surface
    checked: bool
    reason: str | None = None
    findings: list[Finding] = []
    coverage: Coverage = Coverage()

    def breaking(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "breaking"]

    def unknown(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "unknown"]

    def advisories(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "advisory"]


def all_findings(reports: Sequence[SurfaceReport]) -> list[Finding]:
    """Every finding of every report, in a stable order (surface, file, line, rule)."""
    return sorted((f for report in reports for f in report.findings), key=Finding.sort_key)


SETTINGS_KEYS: dict[Surface, tuple[str, str, str]] = {
    "migrations": ("[[migrations.sources]] path", '"db/migrations"', "database migrations"),
    "rest": ("[rest] specs", '["api/openapi.yaml"]', "REST API"),
    "mcp": ("[mcp] snapshots", '["mcp-tools.json"]', "MCP server"),
    "config": ("[config] sources", '["src/config.ts"]', "environment configuration"),
    "deployment": ("[deployment] sources", '["deploy/compose.yaml"]', "deployment descriptors"),
    "declarations": ("[declarations] registry", '"release-safety.declarations.json"', ""),
    "overrides": ("[overrides] file", '"release-safety.overrides.json"', ""),
    "settings": ("", "", ""),
}
"""Per surface: the settings key that points at its documents, an example value, and what a
service without the surface lacks (empty: the surface cannot be declared absent)."""


def absent_entry(surface: Surface) -> str | None:
    """`[<surface>] absent = "<why ...>"`, or None for a surface that cannot be absent."""
    lacks = SETTINGS_KEYS[surface][2]
    return f'[{surface}] absent = "<why this service has no {lacks}>"' if lacks else None


def nothing_found_hint(surface: Surface) -> str:
    """The way out when discovery found nothing for the surface: point its key at the
    documents, or declare it absent with the reason."""
    key, value, _ = SETTINGS_KEYS[surface]
    absent = absent_entry(surface)
    point = f"Point {key} at the documents ({key.rpartition(' ')[2]} = {value})"
    return f"{point}, or declare the surface absent: {absent}." if absent else f"{point}."


def gone_hint(surface: Surface, what: str) -> str:
    """The way out when the surface's documents (`what`) are gone at the new ref."""
    key = SETTINGS_KEYS[surface][0]
    absent = absent_entry(surface)
    moved = f"If {what} moved, name the new place in {key}"
    return f"{moved}; if the service no longer has it, declare {absent}." if absent else moved


def unreadable_hint(surface: Surface, file: str, reason: str) -> str:
    """The way out when a document of the surface could not be read."""
    key = SETTINGS_KEYS[surface][0]
    point = f", or point {key} at the right file" if key else ""
    return f"Fix {file} so it reads ({reason}){point}."


def not_checked_finding(
    surface: Surface,
    reason: str,
    file: str | None = None,
    rule: Rule | None = None,
    line: int | None = None,
    hint: str | None = None,
) -> Finding:
    """The unknown finding that says why a surface was not checked (rule `surface-not-checked`
    unless another is named), at the file and line that could not be read when known; its
    hint, unless given, is the way out for that surface: a file that could not be read named
    with the reason, else the settings key that points at the documents and the surface's
    `absent` entry."""
    if hint is None:
        hint = (
            nothing_found_hint(surface) if file is None else unreadable_hint(surface, file, reason)
        )
    return (rule or SURFACE_NOT_CHECKED).finding(
        surface, f"{surface} surface not checked: {reason}", file, line, hint
    )


def not_checked(
    surface: Surface,
    reason: str,
    file: str | None = None,
    coverage: Coverage | None = None,
    rule: Rule | None = None,
    hint: str | None = None,
) -> SurfaceReport:
    """A surface that could not be read: not checked, with an unknown finding saying why."""
    return SurfaceReport(
        surface=surface,
        checked=False,
        reason=reason,
        findings=[not_checked_finding(surface, reason, file, rule, hint=hint)],
        coverage=coverage or Coverage(),
    )


SURFACE_NOT_CHECKED = register(
    Rule(
        id="surface-not-checked",
        surface="all",
        severity="unknown",
        title="A surface could not be read",
        why="A surface that could not be read at either ref cannot be proven safe.",
        safe="Fix the file so it parses, or point the settings at the right path; a "
        'service without the surface declares it: [<surface>] absent = "<why>".',
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
    added: list[Finding] = []
    """The floors and stops (their advisories) the file at the previous ref did not set."""
    recreate_note: str | None = None
