"""The migrations surface report: discovery, extraction, classification, findings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from release_safety.findings import Finding, MigrationsReport
from release_safety.model import Heaviness, MigrationFile
from release_safety.settings import MigrationSettings, Settings
from release_safety.snapshot import Snapshot, read_text
from release_safety.surfaces.migrations.discover import discover
from release_safety.surfaces.migrations.heaviness import FileAnalysis, LineIssue, analyse_extracted
from release_safety.surfaces.migrations.rules import CATALOGUE
from release_safety.surfaces.migrations.sqlfile import extract_sql
from release_safety.surfaces.migrations.statements import Extracted

Format = Literal["sql", "knex"]
_RULES = {entry.id: entry.rule for entry in CATALOGUE}
_CACHE: dict[tuple[str, Format, int, str], FileAnalysis] = {}


def extract(
    text: str,
    path: str,
    fmt: Format,
    settings: MigrationSettings,
    read_module: Callable[[str], str | None] | None = None,
) -> Extracted:
    """A file's statements: SQL split directly, knex translated by the knex extractor
    (which resolves constants imported from other files through `read_module`)."""
    if fmt == "knex":
        from release_safety.surfaces.migrations.knex import extract_knex

        return extract_knex(text, path, read_module=read_module)
    return extract_sql(text, settings)


def analyse_text(
    text: str,
    path: str,
    fmt: Format,
    settings: Settings,
    read_module: Callable[[str], str | None] | None = None,
) -> FileAnalysis:
    """Analyse one migration file's text; an unreadable file is unknown throughout."""
    try:
        extracted = extract(text, path, fmt, settings.migrations, read_module)
    except (ValueError, SyntaxError) as exc:
        issue = LineIssue("migration-unparseable", 1, f"could not read the file: {exc}")
        return FileAnalysis([], "unknown", "unknown", "unknown", [issue])
    return analyse_extracted(extracted, settings.postgres_version)


def findings_of(analysis: FileAnalysis, path: str) -> list[Finding]:
    """The file's rule hits as findings with its path, line and the rule's safe alternative."""
    findings: list[Finding] = []
    for issue in analysis.issues:
        rule = _RULES[issue.rule]
        findings.append(
            Finding(
                rule=rule.id,
                severity=rule.severity,
                surface="migrations",
                file=path,
                line=issue.line,
                message=f"{path}:{issue.line}: {issue.message}",
                hint=rule.safe or None,
            )
        )
    return findings


def _cached(snapshot: Snapshot, path: str, fmt: Format, settings: Settings) -> FileAnalysis:
    blob = snapshot.blob_id(path) or ""
    key = (blob, fmt, settings.postgres_version, settings.migrations.model_dump_json())
    if key not in _CACHE:

        def read_module(module: str) -> str | None:
            return read_text(snapshot, module) if snapshot.blob_id(module) else None

        text = read_text(snapshot, path)
        _CACHE[key] = analyse_text(text, path, fmt, settings, read_module)
    return _CACHE[key]


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> MigrationsReport:
    """Every migration added between the refs: its tables, heaviness and findings."""
    added, findings = discover(old, new, settings)
    files: list[MigrationFile] = []
    for migration in added:
        analysis = _cached(new, migration.path, migration.source.format, settings)
        heaviness = Heaviness(
            locksTable=analysis.locks,
            rewritesTable=analysis.rewrites,
            scansTable=analysis.scans,
        )
        files.append(
            MigrationFile(
                name=migration.name,
                edition=migration.edition,
                tables=analysis.tables,
                heaviness=heaviness,
            )
        )
        findings.extend(findings_of(analysis, migration.path))
    findings.sort(key=Finding.sort_key)
    return MigrationsReport(surface="migrations", checked=True, findings=findings, files=files)
