"""The migrations surface report: discovery, extraction, classification, findings."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Literal

from release_safety.discovery import SETTINGS_PATH_UNMATCHED, absent_report, reason_of
from release_safety.findings import (
    Coverage,
    Finding,
    MigrationsReport,
    not_checked_finding,
)
from release_safety.model import Heaviness, MigrationFile
from release_safety.settings import (
    DEFAULT_MIGRATION_SOURCES,
    SETTINGS_FILE,
    MigrationSettings,
    MigrationSource,
    Settings,
)
from release_safety.snapshot import Snapshot, read_text
from release_safety.surfaces.declarations.annotations import scan
from release_safety.surfaces.declarations.comments import syntax_for
from release_safety.surfaces.migrations.acknowledge import acknowledge
from release_safety.surfaces.migrations.discover import discover, migration_files
from release_safety.surfaces.migrations.heaviness import FileAnalysis, LineIssue, analyse_extracted
from release_safety.surfaces.migrations.rules import BLOCKING_TABLE_LOCK, CATALOGUE
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
    syntax = syntax_for(path) or syntax_for("x.ts" if fmt == "knex" else "x.sql")
    acknowledgements = scan(text.encode("utf-8"), syntax) if syntax is not None else ()
    try:
        extracted = extract(text, path, fmt, settings.migrations, read_module)
    except (ValueError, SyntaxError) as exc:
        issue = LineIssue("migration-unparseable", 1, f"could not read the file: {exc}")
        analysis = FileAnalysis([], "unknown", "unknown", "unknown", [issue])
    else:
        analysis = analyse_extracted(extracted, settings.postgres_version)
    analysis.acknowledgements = acknowledgements
    return analysis


def findings_of(
    analysis: FileAnalysis, path: str, new_tables: Collection[str] = ()
) -> list[Finding]:
    """The file's rule hits as findings with its path, line and the rule's safe alternative;
    a blocking lock on a table that existed at the previous release (not one of `new_tables`,
    created by an earlier migration of the same release) is a breaking finding of its own; the
    file's acknowledgements are applied last."""
    findings: list[Finding] = []
    for issue in analysis.issues:
        findings.append(_RULES[issue.rule].finding("migrations", issue.message, path, issue.line))
    for heavy in analysis.heavy:
        if heavy.table in new_tables:
            continue
        work = "rewritten" if heavy.rewrites else "read"
        specific = next((f.hint for f in findings if f.line == heavy.line and f.hint), None)
        message = (
            f"{heavy.table} is locked ({heavy.lock.label}) while every row "
            f"is {work}: the previous release's queries on it wait for all of it"
        )
        findings.append(
            BLOCKING_TABLE_LOCK.finding("migrations", message, path, heavy.line, specific)
        )
    return acknowledge(findings, analysis.acknowledgements, analysis.statement_lines, path)


def _cached(snapshot: Snapshot, path: str, fmt: Format, settings: Settings) -> FileAnalysis:
    blob = snapshot.blob_id(path) or ""
    key = (blob, fmt, settings.postgres_version, settings.migrations.model_dump_json())
    if key not in _CACHE:

        def read_module(module: str) -> str | None:
            return read_text(snapshot, module) if snapshot.blob_id(module) else None

        text = read_text(snapshot, path)
        _CACHE[key] = analyse_text(text, path, fmt, settings, read_module)
    return _CACHE[key]


def _unmatched_sources(settings: Settings, new: Snapshot) -> list[Finding]:
    """A finding for every explicitly configured source with no migration file at `new`."""
    if not settings.explicitly_set("migrations", "sources"):
        return []
    files = migration_files(new, settings.migrations.sources)
    return [
        SETTINGS_PATH_UNMATCHED.finding(
            "migrations",
            f"{SETTINGS_FILE}: key 'migrations.sources[{i}]': {source.describe()} matches no "
            f"migration file at {new.ref}",
            SETTINGS_FILE,
        )
        for i, source in enumerate(settings.migrations.sources)
        if i not in files.values()
    ]


def _tried(key: str, sources: Sequence[MigrationSource]) -> list[str]:
    return [f"{key}[{i}] = {source.describe()}" for i, source in enumerate(sources)]


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> MigrationsReport:
    """Every migration added between the refs: its tables, heaviness and findings."""
    migrations = settings.migrations
    if migrations.absent is not None:
        found = sorted(migration_files(new, DEFAULT_MIGRATION_SOURCES))
        looked = _tried("migrations (discovery)", DEFAULT_MIGRATION_SOURCES)
        return absent_report(MigrationsReport, "migrations", migrations.absent, new, found, looked)
    tried = _tried("migrations.sources", migrations.sources)
    problems = _unmatched_sources(settings, new)
    matched_new = migration_files(new, migrations.sources)
    matched_old = migration_files(old, migrations.sources) if old is not None else {}
    if not matched_new and not matched_old:
        refs = f"{old.ref} or {new.ref}" if old is not None else new.ref
        reason = f"no migration file found at {refs}; tried {', '.join(tried)}"
        problems.append(not_checked_finding("migrations", reason))
    added, findings = discover(old, new, settings)
    files: list[MigrationFile] = []
    read: dict[str, str | None] = {}
    created: set[str] = set()
    for migration in added:
        analysis = _cached(new, migration.path, migration.source.format, settings)
        read[migration.path] = new.blob_id(migration.path)
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
        findings.extend(findings_of(analysis, migration.path, created))
        created |= analysis.created
    coverage = Coverage.of(
        tried, {}, read, matched={"old": len(matched_old), "new": len(matched_new)}
    )
    return MigrationsReport(
        surface="migrations",
        checked=not problems,
        reason=reason_of(problems),
        findings=sorted([*problems, *findings], key=Finding.sort_key),
        files=files,
        coverage=coverage,
    )
