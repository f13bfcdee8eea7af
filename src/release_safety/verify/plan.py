"""What a verification runs: the previous release's migrations to replay, and the release's new
ones with their static flags, per database, each file read as its tool runs it (its up part,
its transaction mode) through the migrations surface's own reader."""

from __future__ import annotations

import re
from dataclasses import dataclass

from release_safety.contract.model import Heaviness
from release_safety.contract.release import Release
from release_safety.git.repository import GitRepo
from release_safety.git.snapshot import Snapshot, read_text
from release_safety.settings.atref import ReleaseSettings
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.analyse import Queued, analyse, in_run_order
from release_safety.surfaces.migrations.find.discover import discover
from release_safety.surfaces.migrations.find.formats import reader
from release_safety.surfaces.migrations.find.parts import added_part
from release_safety.surfaces.migrations.find.tools import migration_name
from release_safety.surfaces.migrations.lint import extract
from release_safety.surfaces.migrations.reading import Reading
from release_safety.verify.observe import outside_transaction


@dataclass(frozen=True)
class FileRun:
    """One migration file as its tool runs it: its statements (line, SQL), whether they run in
    one transaction, and why it cannot be run here (dynamic SQL, a file the reader refuses)."""

    path: str
    statements: tuple[tuple[int, str], ...]
    one_transaction: bool
    unrunnable: str | None = None
    static: Heaviness | None = None
    tables: tuple[str, ...] = ()


@dataclass(frozen=True)
class Database:
    """One database's migrations: the tool that runs them (its bookkeeping table exists in
    production too), the files to replay and the release's files to observe."""

    tool: str
    replay: list[FileRun]
    observe: list[FileRun]


@dataclass(frozen=True)
class Plan:
    """Per database (the settings' `database` of a migration source), what to run."""

    release: Release
    databases: dict[str, Database]


_GOLANG_MIGRATE = re.compile(r"\d+_[^/]*\.up\.sql")


def tool_of(files: list[Queued]) -> str:
    """The migration tool of a database's files: the sources' format, golang-migrate for
    plain SQL files named as golang-migrate names them."""
    formats = {queued.source.format for queued in files}
    if len(formats) == 1 and formats != {"sql"}:
        return formats.pop()
    names = [queued.path.rpartition("/")[2] for queued in files]
    if names and all(_GOLANG_MIGRATE.fullmatch(name) for name in names):
        return "golang-migrate"
    return "sql"


def file_run(
    snapshot: Snapshot,
    queued: Queued,
    reading: Reading,
    static: Heaviness | None = None,
    tables: tuple[str, ...] = (),
    shipped: Snapshot | None = None,
) -> FileRun:
    """A file as its tool runs it (of a changelog `shipped` already held, the changesets the
    release adds); a file on another engine than PostgreSQL, one the reader refuses, or with
    a statement whose text is only known at run time cannot be run and says why."""
    path, source, engine = queued
    if engine.engine != "postgres":
        reason = f"it runs on {engine.label}; verify-migrations runs PostgreSQL"
        return FileRun(path, (), True, reason, static, tables)

    def module(name: str) -> str | None:
        return read_text(snapshot, name) if snapshot.blob_id(name) else None

    text = read_text(snapshot, path)
    if shipped is not None and shipped.blob_id(path) is not None:
        text = added_part(read_text(shipped, path), text, path, source.format)
    try:
        extracted = extract(text, path, reader(source), reading, module)
    except (ValueError, SyntaxError) as exc:
        return FileRun(path, (), True, f"cannot be read: {exc}", static, tables)
    except Exception as exc:  # OverBudget and the like: too large to read
        return FileRun(path, (), True, f"cannot be read: {exc}", static, tables)
    statements = []
    for statement in extracted.statements:
        if statement.sql is None:
            reason = statement.reason or "its text is built at run time"
            return FileRun(path, (), True, f"line {statement.line}: {reason}", static, tables)
        statements.append((statement.line, statement.sql))
    outside = any(outside_transaction(sql) for _, sql in statements)
    one = extracted.transactional and not (outside and not extracted.wrapped)
    return FileRun(path, tuple(statements), one, None, static, tables)


def plan_release(repo: GitRepo, settings: ReleaseSettings, release: Release) -> Plan:
    """The files to replay and to observe between the release's two refs."""
    current: Settings = settings.current.settings
    reading = Reading.of(current)
    new = repo.snapshot(release.to_ref)
    old = repo.snapshot(release.from_ref) if release.from_ref else None
    report = analyse(old, new, current)
    static = iter(report.files)
    added = {m.path for m in discover(old, new, current).added}
    old_order = in_run_order(old, current) if old is not None else {}
    new_order = in_run_order(new, current)
    databases: dict[str, Database] = {}
    for database in sorted(set(old_order) | set(new_order)):
        assert old is not None or database not in old_order
        engines = {q.engine.engine for q in new_order.get(database, [])}
        replay = [  # another engine's files are not run here, nor the ones before them
            file_run(old, queued, reading)
            for queued in old_order.get(database, [])
            if old is not None and engines <= {"postgres"}
        ]
        observed = []
        for queued in new_order.get(database, []):
            if queued.path not in added:
                continue
            flags = next(static, None)
            assert flags is None or flags.name == migration_name(queued.path)
            observed.append(
                file_run(
                    new,
                    queued,
                    reading,
                    flags.heaviness if flags else None,
                    tuple(flags.tables) if flags else (),
                    shipped=old,
                )
            )
        if observed:
            files = [*old_order.get(database, []), *new_order.get(database, [])]
            databases[database] = Database(tool_of(files), replay, observed)
    return Plan(release, databases)
