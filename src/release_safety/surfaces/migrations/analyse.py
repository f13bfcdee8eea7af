"""The migrations surface report: discovery, the schema as of the previous release, then each
added migration linted (`lint`) against the schema the ones before it built.

The previous release's schema is built by replaying its migrations in the order migration
tools apply them (by file name). The schema a sequence of files leaves is cached under a hash
chain of (path, blob id), so consecutive releases (a backfill) replay only the files added since
the last one.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from release_safety.code.memo import Memo, per_tree
from release_safety.common.patterns import REMEMBERED
from release_safety.contract.model import Heaviness, MigrationFile
from release_safety.contract.reports import (
    Coverage,
    Finding,
    MigrationsReport,
    absent_entry,
    not_checked_finding,
)
from release_safety.git.snapshot import Snapshot, TextsInOrder, read_text
from release_safety.settings.model import (
    DEFAULT_MIGRATION_SOURCES,
    MigrationSource,
    Settings,
)
from release_safety.surfaces.migrations.find.discover import (
    below,
    discover,
    migration_files,
    migrations_anywhere,
    placements,
)
from release_safety.surfaces.migrations.find.engine import ASSUMED, EngineOf, engine_of
from release_safety.surfaces.migrations.find.formats import OrderKey, listings, order_key, reader
from release_safety.surfaces.migrations.find.parts import GO_EMBEDDED, added_part
from release_safety.surfaces.migrations.find.tools import migration_name
from release_safety.surfaces.migrations.frameworks.goembedded import way_out
from release_safety.surfaces.migrations.lint import (
    History,
    ReadModule,
    apply,
    findings_of,
    next_key,
    remember,
    start,
    with_acknowledgements,
)
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.rules.catalogue import SHIPPED_MIGRATION_DELETED
from release_safety.surfaces.migrations.schema.model import Schema

_STATES: OrderedDict[str, Schema] = OrderedDict()


class Queued(NamedTuple):
    """A migration file in its database's order: the source that reads it and its engine."""

    path: str
    source: MigrationSource
    engine: EngineOf


def replay(snapshot: Snapshot | None, paths: Sequence[Queued], reading: Reading) -> History:
    """The schema the migrations at `paths` (in the order they run) build, from the longest
    sequence of them already replayed."""
    history = start(reading)
    if snapshot is None:
        return history
    keys = [history.key]
    blobs = [_identity(snapshot, queued.path) for queued in paths]
    for queued, blob in zip(paths, blobs, strict=True):
        keys.append(next_key(keys[-1], queued.path, blob))
    done = next((k for k in range(len(keys) - 1, -1, -1) if keys[k] in _STATES), 0)
    if done:
        history = History(keys[done], _STATES[keys[done]])
    texts = TextsInOrder(snapshot, [queued.path for queued in paths[done:]])
    for (path, source, engine), blob in zip(paths[done:], blobs[done:], strict=True):

        def text(path: str = path) -> str:
            return texts(path)

        _, history = apply(
            history,
            path,
            blob,
            text,
            reader(source),
            reading,
            read_module=_reader(snapshot),
            engine=engine.engine,
        )
    remember(_STATES, history.key, history.schema)
    return history


def _identity(snapshot: Snapshot, path: str) -> str:
    """What a file's analysis is remembered under: its blob id, with that of the
    `metadata.toml` beside a diesel `up.sql` (which may run it outside a transaction)."""
    blob = snapshot.blob_id(path) or ""
    if blob and migration_name(path).endswith("/up.sql"):
        metadata = snapshot.blob_id(f"{path.rpartition('/')[0]}/metadata.toml")
        return f"{blob}+{metadata}" if metadata is not None else blob
    return blob


def _reader(snapshot: Snapshot) -> ReadModule:
    def read_module(module: str) -> str | None:
        return read_text(snapshot, module) if snapshot.blob_id(module) else None

    return read_module


def _unmatched_sources(settings: Settings, new: Snapshot, old: Snapshot | None) -> list[Finding]:
    """A finding for every explicitly configured source with no migration file at `new` nor
    at `old` (one with files at `old` only: its migrations are judged gone or moved)."""
    from release_safety.surfaces.discovery import SETTINGS_PATH_UNMATCHED

    if not settings.explicitly_set("migrations", "sources"):
        return []
    sources = settings.migrations.sources
    files = {**migration_files(old, sources), **migration_files(new, sources)}
    return [
        SETTINGS_PATH_UNMATCHED.finding(
            "migrations",
            f"{settings.origin}: key 'migrations.sources[{i}]': {source.describe()} matches no "
            f"migration file at {new.ref}",
            settings.file,
            hint=f"Correct `path` (the folder glob) or `pattern` (the file names) of "
            f"migrations.sources[{i}] in {settings.origin} to the files at {new.ref}, or remove "
            f"the entry; a service without migrations declares {absent_entry('migrations')}.",
        )
        for i, source in enumerate(settings.migrations.sources)
        if i not in files.values()
    ]


def _tried(key: str, sources: Sequence[MigrationSource]) -> list[str]:
    return [f"{key}[{i}] = {source.describe()}" for i, source in enumerate(sources)]


def _in_order(
    snapshot: Snapshot | None, files: dict[str, int], sources: Sequence[MigrationSource]
) -> dict[str, list[Queued]]:
    """Migration files per database (a source's database on each engine: two engines never
    share a schema), in the order their tools run them (`formats.order_key`); files their tool
    does not run are left out."""
    if snapshot is None:
        return {}
    read_file = _reader(snapshot)
    listing = listings(read_file, below(snapshot))
    keyed: dict[str, list[tuple[OrderKey, Queued]]] = {}
    for path, placed in placements(snapshot, files, sources).items():
        source = sources[files[path]]
        key = order_key(path, placed.tool, listing)
        if key is not None:
            engine = engine_of(placed, source.dialect, read_file)
            database = source.database
            if engine.engine != "postgres":
                database += f"@{engine.engine}"
            keyed.setdefault(database, []).append((key, Queued(path, source, engine)))
    return {
        database: [queued for _, queued in sorted(entries, key=_first)]
        for database, entries in sorted(keyed.items())
    }


def _no_longer_run(
    new: Snapshot,
    old_order: dict[str, list[Queued]],
    new_order: dict[str, list[Queued]],
    matched_new: dict[str, int],
) -> list[Finding]:
    """Shipped migrations their tool ran at the previous release and no longer runs while the
    file stays: a sqitch change dropped from `sqitch.plan`, a drizzle file from its journal.
    The tool refuses a database holding a change its plan no longer names: unknown, like a
    deleted shipped migration."""
    before = {q.path for entries in old_order.values() for q in entries}
    now = {q.path for entries in new_order.values() for q in entries}
    found: list[Finding] = []
    for path in sorted(p for p in before - now if p in matched_new):
        folder, _, name = path.rpartition("/")
        parent = folder.rpartition("/")[0]
        listings = [
            f"{parent}/sqitch.plan" if parent else "sqitch.plan",
            f"{folder}/meta/_journal.json",
        ]
        listing = next((p for p in listings if new.blob_id(p) is not None), None)
        change = name.removesuffix(".sql")
        where = listing or "its tool's listing"
        message = (
            f"shipped migration {path} is no longer run: {where} no longer names `{change}`, "
            "while the file stays"
        )
        hint = (
            f"Keep `{change}` in {where} (databases that deployed it refuse a plan without it), "
            "or drop it in a release with a documented minimum previous version."
        )
        rule = SHIPPED_MIGRATION_DELETED
        found.append(
            Finding(
                rule=rule.id,
                severity=rule.severity,
                surface="migrations",
                file=listing or path,
                line=None,
                message=message,
                hint=hint,
            )
        )
    return found


def _first(entry: tuple[OrderKey, Queued]) -> OrderKey:
    return entry[0]


def in_run_order(snapshot: Snapshot, settings: Settings) -> dict[str, list[Queued]]:
    """The migration files of a tree per database, in the order their tools run them."""
    sources = settings.migrations.sources
    return _in_order(snapshot, migration_files(snapshot, sources), sources)


_HELD: Memo[MigrationSource, dict[str, bool]] = Memo(64)
"""Per source, whether its folders include each folder asked about (every folder of every
release's tree, in a backfill)."""


def _held(source: MigrationSource, folders: Iterable[str]) -> dict[str, bool]:
    """`source.holds` of a file in each folder, kept per source (at most `REMEMBERED` each)."""
    known = _HELD.get(source, dict)
    if len(known) > REMEMBERED:
        known.clear()
    for folder in folders:
        if folder not in known:
            known[folder] = source.holds(f"{folder}/-")
    return known


_Held = tuple[frozenset[str], frozenset[str], list[int]]
"""Of a tree, with some sources: the files no source reads, those they read, and per source the
unread ones in its folders (`_held_counts`)."""
_HELD_COUNTS: Memo[tuple[str, tuple[MigrationSource, ...]], _Held] = Memo(8)
"""`_held_counts` per tree and sources: a tree is the new one of a release and the old one of
the next, whose counts follow from these and the paths that differ."""


def _held_counts(
    new: Snapshot, sources: tuple[MigrationSource, ...], matched: dict[str, int]
) -> list[int]:
    """Per source, the files of the tree no source reads (`matched`: the files they read) that
    lie in its folders: counted from those of a tree it differs from by some paths (consecutive
    releases), when that tree's are kept, else over every file."""
    tree = new.tree_key()

    def make() -> _Held:
        base = new.changed_from()
        if base is None or (base[0], sources) not in _HELD_COUNTS:
            return _counted(new, sources, matched)
        return _recounted(_HELD_COUNTS.peek((base[0], sources)), base[1], sources, matched)

    return list(per_tree(_HELD_COUNTS, tree, sources, make)[2])


def _counted(new: Snapshot, sources: tuple[MigrationSource, ...], matched: dict[str, int]) -> _Held:
    """`_held_counts` over every file of the tree."""
    unread = frozenset(p for p in new.paths() if p not in matched)
    # whether a source holds a file follows from its folder: each folder is asked once
    folders = Counter(p.rpartition("/")[0] for p in unread)
    return unread, frozenset(matched), _per_source(sources, folders)


def _recounted(
    before: _Held,
    changed: Mapping[str, str | None],
    sources: tuple[MigrationSource, ...],
    matched: dict[str, int],
) -> _Held:
    """`_held_counts` of a tree from those of one it differs from by the `changed` paths (each
    with its blob here, None when it is no file here): the files that stop or start being
    unread, by a change or by the sources reading another set, counted in their folders."""
    unread, read, counts = before
    now = set(unread)
    moved: Counter[str] = Counter()
    for path in [*changed, *read.symmetric_difference(matched)]:
        there = changed[path] is not None if path in changed else path in read or path in now
        if path in now:
            now.discard(path)
            moved[path.rpartition("/")[0]] -= 1
        if there and path not in matched:
            now.add(path)
            moved[path.rpartition("/")[0]] += 1
    more = _per_source(sources, moved)
    return frozenset(now), frozenset(matched), [a + b for a, b in zip(counts, more, strict=True)]


def _per_source(sources: tuple[MigrationSource, ...], folders: Counter[str]) -> list[int]:
    """Per source, the sum of the counts of the folders it holds."""
    counts = []
    for source in sources:
        holds = _held(source, folders)
        counts.append(sum(n for folder, n in folders.items() if holds[folder]))
    return counts


def _source_lines(
    new: Snapshot,
    sources: Sequence[MigrationSource],
    matched: dict[str, int],
    ordered: dict[str, list[Queued]],
    excluded: dict[str, str],
    settings: Settings,
) -> list[str]:
    """Per source, what it read at the new ref, what its tool does not run (another dialect's
    file, a sqitch script the plan does not name, a down part) and the other files of its
    folders; per database, the engine its findings speak for and what says so; per exclusion,
    the files of the release it covered and why."""
    run = {queued.path for entries in ordered.values() for queued in entries}
    counts = _held_counts(new, tuple(sources), matched)
    lines = []
    for i, (source, held) in enumerate(zip(sources, counts, strict=True)):
        mine = [p for p, k in matched.items() if k == i]
        read = sum(p in run for p in mine)
        lines.append(
            f"migrations.sources[{i}] = {source.describe()}: {read} read, "
            f"{len(mine) - read} not run by its tool, {held} in its folders skipped by pattern"
        )
    said = {q.engine for entries in ordered.values() for q in entries}
    if any(engine.engine != "postgres" or engine.said_by != ASSUMED for engine in said):
        for database, entries in ordered.items():  # which database each finding speaks for
            engines = sorted({f"{q.engine.label} ({q.engine.said_by})" for q in entries})
            lines.append(
                f"database {database}: {len(entries)} files judged as {', '.join(engines)}"
            )
    for i, exclusion in enumerate(settings.migrations.exclude):
        covered = sorted(p for p in excluded if exclusion.covers(p))
        lines.append(
            f"migrations.exclude[{i}] = {exclusion.path!r} ({exclusion.reason}): "
            f"{', '.join(covered) or 'nothing in this release'}"
        )
    return lines


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> MigrationsReport:
    """Every migration added between the refs: its tables, heaviness and findings, judged
    against the schema the previous release's migrations build."""
    from release_safety.surfaces.discovery import (  # not needed to lint files
        absent_report,
        reason_of,
    )

    migrations = settings.migrations
    if migrations.absent is not None:
        looked = _tried("migrations (discovery)", DEFAULT_MIGRATION_SOURCES)
        looked.append("migrations written in code (the migrations search)")
        return absent_report(
            MigrationsReport,
            "migrations",
            migrations.absent,
            new,
            migrations_anywhere(new),
            looked,
            settings.origin,
            settings.absent_line("migrations"),
            old,
            migrations_anywhere(old) if old is not new else [],
        )
    tried = _tried("migrations.sources", migrations.sources)
    problems = _unmatched_sources(settings, new, old)
    matched_new = migration_files(new, migrations.sources)
    matched_old = migration_files(old, migrations.sources) if old is not None else {}
    discovery = discover(old, new, settings)
    for path, before in discovery.moved.items():  # replayed where they were, as the sources
        matched_old.setdefault(before, matched_new[path])  # that read them now would
    if not matched_new and not matched_old:
        refs = f"{old.ref} or {new.ref}" if old is not None else new.ref
        reason = f"no migration file found at {refs}; tried {', '.join(tried)}"
        problems.append(not_checked_finding("migrations", reason))
    findings = discovery.findings
    reading = Reading.of(settings)
    old_order = _in_order(old, matched_old, migrations.sources)
    new_order = _in_order(new, matched_new, migrations.sources)
    findings += _no_longer_run(new, old_order, new_order, matched_new)
    added = {m.path: m for m in discovery.added}
    files: list[MigrationFile] = []
    read: dict[str, str | None] = {}
    module_reader = _reader(new)
    several = len({q.engine.engine for entries in new_order.values() for q in entries}) > 1
    for database in sorted(set(old_order) | set(new_order)):
        if not any(queued.path in added for queued in new_order.get(database, [])):
            continue  # nothing added to judge against the schema the earlier ones build
        baseline = replay(old, old_order.get(database, []), reading)
        if old is not None and database not in old_order:
            baseline = start(reading, Schema(unknown=f"no migration file at {old.ref}"))
        state = baseline
        created: frozenset[str] = frozenset()
        texts = TextsInOrder(new, [q.path for q in new_order.get(database, []) if q.path in added])
        for path, source, engine in new_order.get(database, []):
            migration = added.get(path)
            if migration is None:
                continue
            blob = _identity(new, path)
            shipped = old.blob_id(path) if old is not None else None
            part = None
            if shipped is not None and old is not None:  # changesets added to a changelog
                blob, part = (
                    f"{blob}+{shipped}",
                    added_part(read_text(old, path), texts(path), path, source.format),
                )

            def text(path: str = path, texts: TextsInOrder = texts, part: str | None = part) -> str:
                return texts(path) if part is None else part

            analysis, state = apply(
                state,
                path,
                blob,
                text,
                reader(source),
                reading,
                before=baseline,
                release_created=created,
                read_module=module_reader,
                engine=engine.engine,
            )
            assert analysis is not None
            analysis = with_acknowledgements(analysis, text(), path, reader(source))
            read[path] = new.blob_id(path)  # the file itself, not the key it is kept under
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
            of_file = findings_of(analysis, path, created)
            if source.format == GO_EMBEDDED:
                of_file = [way_out(finding) for finding in of_file]
            if engine.engine == "postgres" and several:  # say which database it speaks for
                of_file = [f.replace(message=f"{f.message} ({engine.label})") for f in of_file]
            findings.extend(of_file)
            if not analysis.created <= created:  # a new set only when it grows
                created |= analysis.created
        if state is not baseline and state.key not in _STATES:
            remember(_STATES, state.key, state.schema)
    read.update((path, new.blob_id(path)) for path in discovery.moved)  # the shipped ones
    replayed = {path: old.blob_id(path) for path in matched_old} if old is not None else {}
    coverage = Coverage.of(
        _source_lines(
            new, migrations.sources, matched_new, new_order, discovery.excluded, settings
        ),
        replayed,
        read,
        matched={"old": len(matched_old), "new": len(matched_new)},
    )
    coverage.unmodelled = list(discovery.unread)
    return MigrationsReport(
        surface="migrations",
        checked=not problems,
        reason=reason_of(problems),
        findings=sorted([*problems, *findings], key=Finding.sort_key),
        files=files,
        coverage=coverage,
    )
