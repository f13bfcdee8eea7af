"""The migrations surface report: discovery, the schema as of the previous release, then each
added migration classified against the schema the ones before it built.

The previous release's schema is built by replaying its migrations in the order migration
tools apply them (by file name). Each file is read and split once per blob id; the schema a
sequence of files leaves is cached under a hash chain of (path, blob id), so consecutive
releases (a backfill) replay only the files added since the last one.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

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
    MigrationSource,
    Settings,
)
from release_safety.snapshot import Snapshot, read_text
from release_safety.surfaces.migrations.acknowledge import acknowledge
from release_safety.surfaces.migrations.budget import Budget, OverBudget
from release_safety.surfaces.migrations.coltypes import is_utc
from release_safety.surfaces.migrations.context import Context
from release_safety.surfaces.migrations.discover import discover, migration_files
from release_safety.surfaces.migrations.heaviness import FileAnalysis, LineIssue, analyse_extracted
from release_safety.surfaces.migrations.rules import BLOCKING_TABLE_LOCK, BY_ID
from release_safety.surfaces.migrations.rules.ids import RuleId
from release_safety.surfaces.migrations.schema import Schema
from release_safety.surfaces.migrations.sqlfile import extract_sql
from release_safety.surfaces.migrations.statements import Extracted

if TYPE_CHECKING:
    from release_safety.surfaces.declarations.annotations import Parsed

Format = Literal["sql", "knex"]
ReadModule = Callable[[str], str | None]
_KEPT = 256
_EXTRACTED: OrderedDict[tuple[str, str, str], Extracted | str] = OrderedDict()
_STATES: OrderedDict[str, Schema] = OrderedDict()
_ANALYSES: OrderedDict[tuple[str, str, str, str], tuple[FileAnalysis, Schema]] = OrderedDict()
NO_HISTORY = "no earlier migration was given"
KNEX_SUFFIXES = (".ts", ".js", ".mjs", ".cjs")
# What the annotation scanner looks for first (ASCII case only, as it compares bytes): a file
# without it has no acknowledgement, and the declarations surface need not be loaded to say so.
_MAY_ANNOTATE = re.compile("safety", re.IGNORECASE | re.ASCII)


K = TypeVar("K")
V = TypeVar("V")


def _remember(cache: OrderedDict[K, V], key: K, value: V) -> V:
    cache[key] = value
    cache.move_to_end(key)
    if len(cache) > _KEPT:
        cache.popitem(last=False)
    return value


@dataclass(frozen=True)
class History:
    """The schema a sequence of migrations leaves, under the key of that sequence."""

    key: str
    schema: Schema


def _then(key: str, path: str, blob: str) -> str:
    """The key of a sequence of migrations followed by one more file."""
    return hashlib.sha1(f"{key}\0{path}\0{blob}".encode()).hexdigest()


def _reading_key(settings: Settings) -> str:
    """What reading a file depends on besides its bytes."""
    return f"{settings.postgres_version}\0{settings.migrations.model_dump_json()}"


def start(settings: Settings, schema: Schema | None = None) -> History:
    """The history before any migration: an empty schema (a fresh database), or `schema`."""
    base = schema if schema is not None else Schema()
    digest = hashlib.sha1(repr(base).encode()).hexdigest() if schema is not None else ""
    return History(hashlib.sha1(f"{_reading_key(settings)}\0{digest}".encode()).hexdigest(), base)


def _constant(text: str) -> Callable[[], str]:
    return lambda: text


def extract(
    text: str, path: str, fmt: Format, settings: Settings, read_module: ReadModule | None = None
) -> Extracted:
    """A file's statements: SQL split directly, knex translated by the knex extractor
    (which resolves constants imported from other files through `read_module`). A leading
    byte-order mark is not part of the first statement. Raises ValueError, SyntaxError or
    OverBudget."""
    text = text.removeprefix("\ufeff")
    Budget.check_size(text)
    if fmt == "knex":
        from release_safety.surfaces.migrations.knex import extract_knex

        return extract_knex(text, path, read_module=read_module)
    return extract_sql(text, settings.migrations)


def _extracted(
    text: Callable[[], str],
    blob: str,
    path: str,
    fmt: Format,
    settings: Settings,
    read_module: ReadModule | None,
) -> Extracted | str:
    """A file's statements, once per blob (a file without one, read directly, is not
    remembered); a string says why the file cannot be read."""
    key = (blob, fmt, _reading_key(settings)) if blob else None
    found = _EXTRACTED.get(key) if key is not None else None
    if found is None:
        try:
            found = extract(text(), path, fmt, settings, read_module)
        except OverBudget as exc:
            found = f"over budget: {exc}"
        except (ValueError, SyntaxError, RecursionError) as exc:
            found = f"could not read the file: {exc}"
        if key is not None:
            _remember(_EXTRACTED, key, found)
    return found


def _context(schema: Schema, before: Schema, settings: Settings, **more: object) -> Context:
    utc = is_utc(settings.migrations.server_timezone)
    return Context(
        schema=schema,
        before=before,
        postgres_version=settings.postgres_version,
        utc=utc,
        server_utc=utc,
        **more,  # type: ignore[arg-type]
    )


def _unreadable(reason: str) -> FileAnalysis:
    rule = (
        RuleId.MIGRATION_OVER_BUDGET
        if reason.startswith("over budget")
        else (RuleId.MIGRATION_UNPARSEABLE)
    )
    issue = LineIssue(rule, 1, reason)
    return FileAnalysis([], "unknown", "unknown", "unknown", [issue])


def apply(
    history: History,
    path: str,
    blob: str,
    text: Callable[[], str],
    fmt: Format,
    settings: Settings,
    *,
    before: History | None = None,
    release_created: frozenset[str] = frozenset(),
    read_module: ReadModule | None = None,
) -> tuple[FileAnalysis | None, History]:
    """One migration run on the schema `history` left: its analysis (None when replaying,
    `before` not given) judged against the schema as of the previous release, and the history
    it leaves."""
    after_key = _then(history.key, path, blob)
    replay = before is None
    key = (history.key, before.key if before else "", after_key, ",".join(sorted(release_created)))
    if not replay and key in _ANALYSES and blob:
        cached, schema = _ANALYSES[key]
        return cached, History(after_key, schema)
    extracted = _extracted(text, blob, path, fmt, settings, read_module)
    schema = history.schema.copy()
    analysis: FileAnalysis | None
    if isinstance(extracted, str):
        schema.lose_everything(f"{path}: {extracted}")
        analysis = None if replay else _unreadable(extracted)
    else:
        ctx = _context(
            schema,
            before.schema if before else schema,
            settings,
            replay=replay,
            release_created=release_created,
        )
        try:
            found = analyse_extracted(extracted, ctx, Budget.start())
        except OverBudget as exc:
            schema.lose_everything(f"{path}: over budget: {exc}")
            found = _unreadable(f"over budget: {exc}")
        analysis = None if replay else found
    if analysis is not None and blob:
        _remember(_ANALYSES, key, (analysis, schema))
    return analysis, History(after_key, schema)


def replay(
    snapshot: Snapshot | None, paths: Sequence[tuple[str, MigrationSource]], settings: Settings
) -> History:
    """The schema the migrations at `paths` (in the order they run) build, from the longest
    sequence of them already replayed."""
    history = start(settings)
    if snapshot is None:
        return history
    keys = [history.key]
    blobs = [snapshot.blob_id(path) or "" for path, _ in paths]
    for (path, _), blob in zip(paths, blobs, strict=True):
        keys.append(_then(keys[-1], path, blob))
    done = next((k for k in range(len(keys) - 1, -1, -1) if keys[k] in _STATES), 0)
    if done:
        history = History(keys[done], _STATES[keys[done]])
    for (path, source), blob in zip(paths[done:], blobs[done:], strict=True):

        def text(path: str = path) -> str:
            return read_text(snapshot, path)

        _, history = apply(
            history, path, blob, text, source.format, settings, read_module=_reader(snapshot)
        )
    _remember(_STATES, history.key, history.schema)
    return history


def _reader(snapshot: Snapshot) -> ReadModule:
    def read_module(module: str) -> str | None:
        return read_text(snapshot, module) if snapshot.blob_id(module) else None

    return read_module


def schema_of(sql: str, settings: Settings) -> Schema:
    """The schema a SQL script builds (a fixture's history, say)."""
    _, history = apply(start(settings), "history.sql", "", _constant(sql), "sql", settings)
    return history.schema


def analyse_text(
    text: str,
    path: str,
    fmt: Format,
    settings: Settings,
    read_module: ReadModule | None = None,
    history: Schema | None = None,
) -> FileAnalysis:
    """Analyse one migration file's text against `history`, the schema as of the previous
    release (unknown when not given); an unreadable file is unknown throughout."""
    base = start(settings, history if history is not None else Schema(unknown=NO_HISTORY))
    analysis, _ = apply(
        base, path, "", _constant(text), fmt, settings, before=base, read_module=read_module
    )
    assert analysis is not None
    return with_acknowledgements(analysis, text, path, fmt)


def lint_texts(files: Sequence[tuple[str, str, Format]], settings: Settings) -> list[FileAnalysis]:
    """Analyse files (path, text, format) in the order given, each against the schema the ones
    before it built (the first against an unknown one)."""
    history = start(settings, Schema(unknown=NO_HISTORY))
    out = []
    for path, text, fmt in files:
        analysis, after = apply(history, path, "", _constant(text), fmt, settings, before=history)
        assert analysis is not None
        out.append(with_acknowledgements(analysis, text, path, fmt))
        history = after
    return out


def with_acknowledgements(
    analysis: FileAnalysis, text: str, path: str, fmt: Format
) -> FileAnalysis:
    """The analysis with the file's acknowledgement comments attached."""
    acknowledgements: tuple[Parsed, ...] = ()
    if _MAY_ANNOTATE.search(text):
        from release_safety.surfaces.declarations.annotations import scan
        from release_safety.surfaces.declarations.comments import syntax_for

        syntax = syntax_for(path) or syntax_for("x.ts" if fmt == "knex" else "x.sql")
        acknowledgements = scan(text.encode("utf-8"), syntax) if syntax is not None else ()
    if acknowledgements == analysis.acknowledgements:
        return analysis
    return analysis.with_acknowledgements(acknowledgements)


def findings_of(
    analysis: FileAnalysis, path: str, new_tables: Collection[str] = ()
) -> list[Finding]:
    """The file's rule hits as findings with its path, line and the rule's safe alternative;
    a blocking lock on a table that existed at the previous release (not one of `new_tables`,
    created by an earlier migration of the same release) is a breaking finding of its own; the
    file's acknowledgements are applied last."""
    findings: list[Finding] = []
    for issue in analysis.issues:
        findings.append(BY_ID[issue.rule].finding("migrations", issue.message, path, issue.line))
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


def _unmatched_sources(settings: Settings, new: Snapshot) -> list[Finding]:
    """A finding for every explicitly configured source with no migration file at `new`."""
    from release_safety.discovery import SETTINGS_PATH_UNMATCHED

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


def _in_order(
    files: dict[str, int], sources: Sequence[MigrationSource]
) -> list[tuple[str, MigrationSource]]:
    """Migration files in the order the tools run them: by file name, then path."""
    ordered = sorted(files, key=lambda p: (p.rsplit("/", 1)[-1], p))
    return [(path, sources[files[path]]) for path in ordered]


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> MigrationsReport:
    """Every migration added between the refs: its tables, heaviness and findings, judged
    against the schema the previous release's migrations build."""
    from release_safety.discovery import absent_report, reason_of  # not needed to lint files

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
    baseline = replay(old, _in_order(matched_old, migrations.sources), settings)
    if old is not None and not matched_old:
        baseline = start(settings, Schema(unknown=f"no migration file at {old.ref}"))
    files: list[MigrationFile] = []
    read: dict[str, str | None] = {}
    state = baseline
    created: frozenset[str] = frozenset()
    reader = _reader(new)
    for migration in added:
        blob = new.blob_id(migration.path) or ""

        def text(path: str = migration.path) -> str:
            return read_text(new, path)

        analysis, state = apply(
            state,
            migration.path,
            blob,
            text,
            migration.source.format,
            settings,
            before=baseline,
            release_created=created,
            read_module=reader,
        )
        assert analysis is not None
        analysis = with_acknowledgements(analysis, text(), migration.path, migration.source.format)
        read[migration.path] = blob or None
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
    if added and state.key not in _STATES:
        _remember(_STATES, state.key, state.schema)
    replayed = {path: old.blob_id(path) for path in matched_old} if old is not None else {}
    coverage = Coverage.of(
        tried, replayed, read, matched={"old": len(matched_old), "new": len(matched_new)}
    )
    return MigrationsReport(
        surface="migrations",
        checked=not problems,
        reason=reason_of(problems),
        findings=sorted([*problems, *findings], key=Finding.sort_key),
        files=files,
        coverage=coverage,
    )
