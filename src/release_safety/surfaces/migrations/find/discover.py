"""Which migrations a release ships: added between two refs; shipped ones edited or deleted."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Literal

from release_safety.code.memo import Memo, per_tree
from release_safety.common.errors import CheckError
from release_safety.contract.reports import Finding, Unmodelled
from release_safety.git.snapshot import (
    Change,
    Snapshot,
    TextsInOrder,
    changes_between,
    read_text,
)
from release_safety.settings.model import (
    DEFAULT_MIGRATION_SOURCES,
    MigrationSource,
    Settings,
    skipped,
)
from release_safety.surfaces.migrations.find import goose
from release_safety.surfaces.migrations.find.edits import edited_line
from release_safety.surfaces.migrations.find.formats import dialect_skipped
from release_safety.surfaces.migrations.find.golists import go_lists
from release_safety.surfaces.migrations.find.outside import outside_sql
from release_safety.surfaces.migrations.find.parts import GO_EMBEDDED, appends
from release_safety.surfaces.migrations.find.parts import edited_line as edited_part
from release_safety.surfaces.migrations.find.tools import Exists, Placed, migration_name, place
from release_safety.surfaces.migrations.frameworks.goembedded import (
    Unreadable,
    holds_migrations,
    migration_list,
)
from release_safety.surfaces.migrations.rules.catalogue import (
    MIGRATION_NOT_READ,
    SHIPPED_MIGRATION_DELETED,
    SHIPPED_MIGRATION_EDITED,
)
from release_safety.surfaces.migrations.sql.liquibase import formatted
from release_safety.surfaces.migrations.sql.sections import tool_of

# Named as migration tools name the migrations they run from code: goose's
# `20240101120000_backfill.go`, Flyway's `V3__backfill.java`, TypeORM's and sequelize's
# `1588102412422-Init.ts`, Django's `0001_initial.py`, Rails' `20240101000000_add.rb`.
_CODE_MIGRATION = re.compile(
    r"(?:\d+[_-]|V\d+(?:[._]\d+)*__)[\w.-]*"
    r"\.(?:go|py|rb|java|kt|scala|ts|mts|cts|js|mjs|cjs|rs|ex|exs|php|cs)"
)
# ... but tests and type declarations beside them are not migrations.
_NOT_A_MIGRATION = re.compile(r".*(?:_test\.(?:go|py)|_spec\.rb|\.d\.[cm]?ts|\.(?:test|spec)\.\w+)")
# Code that registers a migration with its tool, wherever it lives: goose's `AddMigration`
# (`...Context`, `...NoTx`, `AddNamedMigration...`), popx's Go migrations, Flyway's Java and
# Kotlin ones, Rails', Alembic's and Django's.
_REGISTERS = re.compile(
    r"\bgoose\.Add(?:Named)?Migration\w*\s*\(|\bpopx\.Migration\s*\{"
    r"|\b(?:extends|:)\s*BaseJavaMigration\b|<\s*ActiveRecord::Migration\b"
    r"|^from alembic import op\b|\bclass\s+\w+\(\s*migrations\.Migration\s*\)",
    re.MULTILINE,
)
_REGISTER_HINTS = ("Migration", "alembic")
"""One of these is in every text `_REGISTERS` finds something in (`in` is far faster)."""
_CODE_SUFFIXES = (".go", ".java", ".kt", ".rb", ".py")
# Characters a path may hold that no name pattern's `.` matches as written (a newline), or
# that tools read names line by line over: C0 controls and DEL.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]")
# The version a tool that keys applied migrations by version reads from a file name.
_VERSION = re.compile(r"(\d+)_")


@dataclass(frozen=True)
class MigrationPath:
    """A migration file of the new tree with the source that claims it."""

    path: str
    source: MigrationSource
    edition: Literal["core", "ee"]

    @property
    def name(self) -> str:
        return migration_name(self.path)


def source_of(path: str, settings: Settings) -> MigrationSource | None:
    """The first configured source a path belongs to, or None."""
    return next((s for s in settings.migrations.sources if s.matches(path)), None)


_FOUND: Memo[tuple[str, tuple[MigrationSource, ...]], dict[str, int]] = Memo(64)
"""`migration_files` per (tree, sources): the search asks it again for each file it finds
unread."""


def migration_files(
    snapshot: Snapshot | None, sources: Sequence[MigrationSource]
) -> dict[str, int]:
    """Every migration file of a tree, with the index of the first source that claims it (kept
    per tree and sources: it follows from the paths alone, and the search for unread migrations
    asks it once per changed file)."""
    return dict(_claimed(snapshot, tuple(sources)))


def _claimed(snapshot: Snapshot | None, sources: tuple[MigrationSource, ...]) -> dict[str, int]:
    """`migration_files` as kept in the memo (not to be changed)."""
    if snapshot is None:
        return {}
    make = partial(_migration_files, snapshot, sources)
    found: dict[str, int] = per_tree(_FOUND, snapshot.tree_key(), sources, make)
    return found


def _migration_files(snapshot: Snapshot, sources: Sequence[MigrationSource]) -> dict[str, int]:
    claims = _claims(tuple(sources))
    if len(claims) >= REMEMBERED:
        claims.clear()
    found: dict[str, int] = {}
    held: dict[str, list[int]] = {}  # per folder, the sources that hold its files
    for path in snapshot.paths():
        if path in claims:
            index = claims[path]
        else:
            folder, _, name = path.rpartition("/")
            holding = held.get(folder)
            if holding is None:
                holding = held[folder] = [
                    i for i, source in enumerate(sources) if source.holds_folder(folder)
                ]
            index = claims[path] = next((i for i in holding if sources[i].names(name)), None)
        if index is not None:
            found[path] = index
    popx = [p for p, i in found.items() if sources[i].format in ("sql", "popx")]
    for path in dialect_skipped(popx):
        del found[path]
    exists = _exists(snapshot)
    for path in [p for p, i in found.items() if not place(p, sources[i].format, exists).forward]:
        del found[path]  # a down part: its tool never runs it on an upgrade
    return found


def _exists(snapshot: Snapshot) -> Exists:
    def exists(path: str) -> bool:
        return snapshot.blob_id(path) is not None

    return exists


def by_changeset(snapshot: Snapshot, path: str, fmt: str) -> bool:
    """True when the file's tool runs it migration by migration: Liquibase changeset by
    changeset (a changelog of a liquibase source, or formatted SQL wherever it is), a Go list
    element by element."""
    if fmt == GO_EMBEDDED:
        return True
    if place(path, fmt, _exists(snapshot)).tool == "liquibase":
        return True
    return path.endswith(".sql") and formatted(read_text(snapshot, path))


def below(snapshot: Snapshot) -> Callable[[str], list[str]]:
    """The files below a folder of the tree, by path (Liquibase's includeAll)."""

    def files(folder: str) -> list[str]:
        prefix = f"{folder}/" if folder else ""  # "": the whole tree
        return sorted(p for p in snapshot.paths() if p.startswith(prefix))

    return files


def placements(
    snapshot: Snapshot, files: dict[str, int], sources: Sequence[MigrationSource]
) -> dict[str, Placed]:
    """Each migration file's tool and root (`tools.place`)."""
    exists = _exists(snapshot)
    return {path: place(path, sources[index].format, exists) for path, index in files.items()}


REMEMBERED = 1 << 18
"""Paths whose claiming source a set of sources remembers (a backfill asks about the same paths
release after release)."""


@lru_cache(maxsize=8)
def _claims(sources: tuple[MigrationSource, ...]) -> dict[str, int | None]:
    """The index of the source claiming each path asked about so far (None: no source)."""
    return {}


def in_code(path: str, settings: Settings) -> bool:
    """True when a path no source reads is a migration its tool runs from code: named like one,
    in a folder of a migrations source."""
    name = path.rpartition("/")[2]
    return (
        _CODE_MIGRATION.fullmatch(name) is not None
        and _NOT_A_MIGRATION.fullmatch(name) is None
        and any(source.holds(path) for source in settings.migrations.sources)
    )


_CODE_FOLDERS = frozenset({"migrations", "migrate", "versions", "migration"})
"""Folders migrations written in code live in: Django's and Ecto's `migrations/`, Rails'
`db/migrate/`, Alembic's `versions/`."""


_ONE_FILE = re.compile(r"[^/]*migrat[^/]*\.(?:go|rs|py|rb|ts|js|java|kt|php|cs|ex|exs)", re.I)
"""Code that keeps a service's migrations in one file (miniflux's `migrations.go`)."""
_DDL = re.compile(r"\b(?:CREATE|ALTER|DROP)\s+(?:TABLE|INDEX|TYPE|SCHEMA|SEQUENCE|VIEW)\b", re.I)


def migrations_anywhere(snapshot: Snapshot | None) -> list[str]:
    """Every migration the search finds in a tree whatever the settings (what a surface declared
    absent is checked against): SQL and knex files in `migrations` folders, files named like a
    migration written in code in a folder such files live in (or, named otherwise, such as
    Alembic's `1975ea83b712_add.py`, holding code that registers one), and code named for
    migrations that holds SQL DDL (`internal/database/migrations.go`)."""
    if snapshot is None:
        return []
    found = set(migration_files(snapshot, DEFAULT_MIGRATION_SOURCES))
    found.update(go_lists(snapshot))
    for path in snapshot.paths():
        folder, _, name = path.rpartition("/")
        if (
            _ONE_FILE.fullmatch(name)
            and _NOT_A_MIGRATION.fullmatch(name) is None
            and not skipped("**/migrations/**", path)
            and _DDL.search(read_text(snapshot, path))
        ):
            found.add(path)
            continue
        if (
            folder.rpartition("/")[2] not in _CODE_FOLDERS
            or not name.endswith((*_CODE_SUFFIXES, ".ts", ".js", ".ex", ".exs", ".php"))
            or _NOT_A_MIGRATION.fullmatch(name) is not None
            or skipped("**/migrations/**", path)
        ):
            continue
        named = _CODE_MIGRATION.fullmatch(name) is not None
        registers = name.endswith(_CODE_SUFFIXES) and _registers(read_text(snapshot, path))
        if named or registers:
            found.add(path)
    return sorted(found)


@dataclass(frozen=True)
class Discovery:
    """What a release adds, and findings for shipped migrations touched and migrations found
    that no source reads (`unread`, also listed for the coverage), the files an exclusion
    covers (path -> reason), and the shipped migrations it moved to where a source reads them
    (new path -> old path)."""

    added: list[MigrationPath]
    findings: list[Finding]
    unread: list[Unmodelled]
    excluded: dict[str, str]
    moved: dict[str, str]


def discover(old: Snapshot | None, new: Snapshot, settings: Settings) -> Discovery:
    """Migrations added between the refs, in path order; findings for shipped ones touched and
    for migrations the search finds (`unread_migration`) that the release adds or changes and
    no source reads.

    A migration moved to another path is an addition (knex and sql-migrate key applied
    migrations by name), unless it kept its bytes and its file name (a folder moved: no tool
    keys applied migrations by folder) or its version in a format whose tool keys them by
    version (`_moved`): then it is the shipped migration where it now is, when a source reads
    it there, and `migration-not-read` with the source to add when none does (as is every
    migration the release adds to a folder it moved migrations to).
    """
    added: list[MigrationPath] = []
    findings: list[Finding] = []
    unread: list[Unmodelled] = []
    excluded: dict[str, str] = {}
    changes = changes_between(old, new)
    moved = _moved(old, new, changes)
    sources = settings.migrations.sources
    claimed = migration_files(new, sources)
    kept = {path: before for path, before in moved.items() if path in claimed}
    moved_into = {  # folder -> the source that read what the release moved there
        path.rpartition("/")[0]: source
        for path, before in moved.items()
        if path not in claimed and (source := source_of(before, settings)) is not None
    }
    gaps = {
        path: gap
        for path, before in moved.items()
        if path not in kept and (gap := _moved_gap(path, before, moved_into)) is not None
    }
    gone = {moved[path] for path in (*kept, *gaps)}  # said at the path it moved to
    asked = search(new, settings, _texts_searched(new, changes, claimed))
    for change in changes:
        if change.path in gone or change.path in kept:
            continue
        if change.status == "deleted":
            source = source_of(change.path, settings)
            if source is not None and old is not None:
                source = source if place(change.path, source.format, _exists(old)).forward else None
        else:
            source = sources[claimed[change.path]] if change.path in claimed else None
        shipped = source is not None or in_code(change.path, settings)
        if (
            source is None
            and change.status != "deleted"
            and (change.status == "added" or not shipped)
        ):
            gap = (
                gaps.get(change.path)
                or _moved_gap(change.path, None, moved_into)
                or unread_migration(new, change.path, settings, asked)
            )
            if gap is None:
                continue
            reason = next(
                (e.reason for e in settings.migrations.exclude if e.covers(change.path)), None
            )
            if reason is not None:
                excluded[change.path] = reason
                continue
            unread.append(gap)
            shown = repr(change.path) if _CONTROLS.search(change.path) else change.path
            message = f"{shown} {change.status}: {gap.what}"  # one line, whatever the name
            findings.append(
                MIGRATION_NOT_READ.finding("migrations", message, gap.file, gap.line, gap.way_out)
            )
        elif source is not None and change.status == "added":
            added.append(MigrationPath(change.path, source, source.edition_of(change.path)))
        elif (
            source is not None
            and change.status == "modified"
            and old is not None
            and by_changeset(new, change.path, source.format)
            and edited_part(
                read_text(old, change.path),
                read_text(new, change.path),
                change.path,
                source.format,
            )
            is None
        ):  # shipped changesets kept, new ones added: the new ones are judged
            added.append(MigrationPath(change.path, source, source.edition_of(change.path)))
        elif not shipped or change.status not in ("modified", "deleted"):
            continue
        else:
            edited = change.status == "modified"
            rule = SHIPPED_MIGRATION_EDITED if edited else SHIPPED_MIGRATION_DELETED
            line: int | None = None
            fmt = source.format if source else "sql"
            if edited and by_changeset(new, change.path, fmt):
                before = read_text(old, change.path) if old is not None else ""
                line = edited_part(before, read_text(new, change.path), change.path, fmt) or 1
            elif edited:
                line = _edited_line(old, new, change.path)
            message = f"shipped migration {change.path} was {change.status}"
            hint = _shipped_hint(change.path, old, edited, settings.overrides.file)
            if edited and source is not None and fmt == GO_EMBEDDED and old is not None:
                message = f"a shipped migration of {change.path} was modified (line {line})"
                hint = (
                    f"Restore the migration at line {line} of {change.path} as {old.ref} has it "
                    f"(`git show {old.ref}:{change.path}`) and write the change as a new one at "
                    "the end of the list: databases that ran it never run it again."
                )
                if appends(read_text(old, change.path), read_text(new, change.path), fmt):
                    added.append(MigrationPath(change.path, source, source.edition_of(change.path)))
            findings.append(
                Finding(
                    rule=rule.id,
                    severity=rule.severity,
                    surface="migrations",
                    file=change.path,
                    line=line,
                    message=message,
                    hint=hint,
                )
            )
    return Discovery(
        sorted(added, key=lambda m: (m.name, m.path)), findings, unread, excluded, kept
    )


def _exclusion(path: str) -> str:
    """The way out for a file the search takes for a migration that is not one of the service."""
    return (
        f"or, if it is not run against this service's database, an [[migrations.exclude]] "
        f"with path = {path!r} and the reason"
    )


def _moved_gap(
    path: str, before: str | None, moved_into: dict[str, MigrationSource]
) -> Unmodelled | None:
    """A migration the release moved (from `before`) to a folder no source reads, or one it
    adds there that the source its moved ones came from would read: with that source, at the
    new folder, as the way out."""
    folder = path.rpartition("/")[0]
    source = moved_into.get(folder)
    if source is None or not source.with_folder(folder).matches(path):
        return None
    if before is not None:
        what = f"the shipped migration {before} moved to {folder}, which no source reads"
    else:
        what = f"a migration added to {folder}, where this release moved shipped ones, "
        what += "which no source reads"
    entry = source.with_folder(folder).entry()
    return Unmodelled(
        file=path,
        line=1,
        what=what,
        way_out=f"add a [[migrations.sources]] with {entry} so the moved migrations are read "
        f"where they now are (and what the release adds there judged), {_exclusion(path)}",
    )


def _shipped_hint(path: str, old: Snapshot | None, edited: bool, overrides: str) -> str:
    """The way out of a shipped migration edited or deleted: restore it as the previous
    release has it, or (deleted) set the floor a squash needs in the overrides file."""
    ref = old.ref if old is not None else "the previous release"
    if edited:
        return (
            f"Restore {path} as {ref} has it (`git checkout {ref} -- {path}`) and write the "
            "change as a new migration."
        )
    return (
        f"Restore {path} (`git checkout {ref} -- {path}`); if the squash is deliberate, set "
        '"default": {"minPreviousVersion": "<the first release with the squashed files>"} in '
        f"{overrides}, so older installs stop there first."
    )


@dataclass(frozen=True)
class Search:
    """What the search for unread migrations asks about many files of one tree, found once:
    how each file reads (`read`), the default sources' files (`defaults`), and what each path
    is taken for by its name alone (`named`, kept per sources across trees)."""

    read: Callable[[str], str]
    defaults: Mapping[str, int]
    named: dict[str, Named]


Named = Literal["in code", "control characters", "case", "held", ""]
"""What a path no source reads is taken for by its name and the sources alone (`_named`)."""


def search(snapshot: Snapshot, settings: Settings, paths: Sequence[str] = ()) -> Search:
    """The search over `snapshot` with `settings`, the texts of `paths` read in few round trips."""
    named = _names(tuple(settings.migrations.sources))
    if len(named) >= REMEMBERED:
        named.clear()
    defaults = _claimed(snapshot, DEFAULT_MIGRATION_SOURCES)
    return Search(_reader(snapshot, list(paths)), defaults, named)


@lru_cache(maxsize=8)
def _names(sources: tuple[MigrationSource, ...]) -> dict[str, Named]:
    """`_named` of each path asked about so far with these sources."""
    return {}


def _named(path: str, settings: Settings) -> Named:
    """What `unread_migration` takes a path for before it looks at the tree (in this order): a
    migration run from code in a source's folder, one named like a migration but for control
    characters or for its case, a file a source's folder holds (whose pattern leaves it out on
    purpose); else ""."""
    if in_code(path, settings):
        return "in code"
    every = (*settings.migrations.sources, *DEFAULT_MIGRATION_SOURCES)
    plain = _CONTROLS.sub("", path)
    if plain != path and any(s.matches(plain) or s.matches(plain.lower()) for s in every):
        return "control characters"
    folded = path.lower()
    if folded != path and any(s.matches(folded) for s in every):
        return "case"
    if any(s.holds(path) for s in settings.migrations.sources):
        return "held"
    return ""


def unread_migration(
    snapshot: Snapshot, path: str, settings: Settings, asked: Search | None = None
) -> Unmodelled | None:
    """What the search for migrations takes `path` for when no source reads it, with the way
    out for this file; None for a file it does not take for one, or one a source's folder holds
    and its pattern leaves out on purpose (another dialect, a down file). `asked`: the search
    over this snapshot with these settings (`search`), for a caller asking about many files."""
    folder, _, name = path.rpartition("/")
    exclusion = _exclusion(path)
    asked = asked or search(snapshot, settings)
    read, defaults = asked.read, asked.defaults
    named = asked.named.get(path)
    if named is None:
        named = asked.named[path] = _named(path, settings)
    if named == "in code":
        return _default_gap(snapshot, path, exclusion, defaults) or _code_gap(path, 1, exclusion)
    every = (*settings.migrations.sources, *DEFAULT_MIGRATION_SOURCES)
    if snapshot.blob_id(path) is None:  # a link or a submodule: git stores no migration there
        if not any(s.holds(path) or s.holds(f"{path}/x") for s in every):
            return None
        return Unmodelled(
            file=path,
            line=1,
            what="a symbolic link or a submodule where migrations are looked for: git stores "
            "the link, not the migrations, and the tool does not follow it",
            way_out=f"commit the migrations themselves at {path}, or name the folder the link "
            f"points to in [[migrations.sources]], {exclusion}",
        )
    if named == "control characters":
        plain = _CONTROLS.sub("", path)
        shown = ", ".join(sorted({repr(c) for c in _CONTROLS.findall(path)}))
        return Unmodelled(
            file=path,
            line=1,
            what=f"named like a migration but for the control characters in its path ({shown}):"
            " the sources and the search match names line by line, and whether its tool runs "
            "it is not known",
            way_out=f"rename it to {plain!r} (no control characters) so it is read, {exclusion}",
        )
    if named == "case":
        return Unmodelled(
            file=path,
            line=1,
            what=f"named like a migration but for its case ({path}): the sources and "
            "the search match names as written, a tool configured with this folder runs it",
            way_out=f"add a [[migrations.sources]] with path = {folder!r} (its case as written) "
            "and a pattern that matches its name's case (RE2 takes `(?i)`: "
            f"pattern = '(?i).*\\.sql') so it is read, {exclusion}",
        )
    if named == "held":
        return None
    default = _default_gap(snapshot, path, exclusion, defaults)
    if default is not None:
        return default
    if _code_searched(name):
        if _CODE_MIGRATION.fullmatch(name) and any(
            s.holds(path) for s in DEFAULT_MIGRATION_SOURCES
        ):
            return _code_gap(path, 1, exclusion)
        found = _CODE_FOUND.get(_code_key(snapshot, path), lambda: _in_code(read(path), name))
        if found is not None:
            kind, line = found
            if kind == "go-list":
                return _go_gap(path, line, exclusion)
            return _code_gap(path, line, exclusion)
    if name.endswith(".sql"):
        return outside_sql(path, read(path), exclusion)
    return None


def _code_searched(name: str) -> bool:
    """True when the search reads a file of this name no source reads for migrations in code."""
    return name.endswith(_CODE_SUFFIXES) and _NOT_A_MIGRATION.fullmatch(name) is None


Found = tuple[Literal["go-list", "code"], int]
"""What a code file no source reads holds: a Go list of migrations or code registering one (or
named for migrations and holding DDL), and its line."""
_CODE_FOUND: Memo[tuple[str, bool, bool], Found | None] = Memo(1 << 15)
"""`_in_code` per (blob id, Go file, named for migrations): a backfill asks it of the same files
release after release."""


def _code_key(snapshot: Snapshot, path: str) -> tuple[str, bool, bool]:
    """What `_in_code` depends on: the file's blob (its text), and of its name only whether it
    is Go and whether it is named for migrations."""
    name = path.rpartition("/")[2]
    blob = snapshot.blob_id(path) or ""  # a caller asks only of files the tree holds
    return blob, name.endswith(".go"), _ONE_FILE.fullmatch(name) is not None


def _in_code(text: str, name: str) -> Found | None:
    """What the search takes a code file named `name` with this text for (see `Found`)."""
    if name.endswith(".go") and holds_migrations(text):
        try:
            listed = migration_list(text)
        except Unreadable:
            listed = None
        return "go-list", listed.line if listed is not None else 1
    found = _registers(text)
    if found is not None:
        return "code", text.count("\n", 0, found.start()) + 1
    line = goose.registration_line(text) if name.endswith(".go") else None
    if line is not None:
        return "code", line
    ddl = _DDL.search(text) if _ONE_FILE.fullmatch(name) else None
    if ddl is not None:  # code named for migrations holding DDL, in no shape read
        return "code", text.count("\n", 0, ddl.start()) + 1
    return None


def _reader(snapshot: Snapshot, paths: list[str]) -> Callable[[str], str]:
    """`read_text` at the snapshot, the files `paths` read in few round trips; once a round trip
    fails (a blob missing or too large), file by file, so the error names its own file."""
    texts: TextsInOrder | None = TextsInOrder(snapshot, paths)

    def read(path: str) -> str:
        nonlocal texts
        if texts is not None:
            try:
                return texts(path)
            except CheckError:
                texts = None
        return read_text(snapshot, path)

    return read


def _texts_searched(
    snapshot: Snapshot, changes: Sequence[Change], claimed: Mapping[str, int]
) -> list[str]:
    """The files of a release's changes whose text the search for unread migrations may read
    (code and SQL no source reads, the code not known by its blob yet), read in one go."""
    paths = []
    for change in changes:
        name = change.path.rpartition("/")[2]
        if change.status == "deleted" or change.path in claimed:
            continue
        if name.endswith(".sql") or (
            _code_searched(name) and _code_key(snapshot, change.path) not in _CODE_FOUND
        ):
            paths.append(change.path)
    return paths


def _registers(text: str) -> re.Match[str] | None:
    """Where the code registers a migration with its tool, if it does."""
    return _REGISTERS.search(text) if any(hint in text for hint in _REGISTER_HINTS) else None


def _default_gap(
    snapshot: Snapshot, path: str, exclusion: str, defaults: Mapping[str, int]
) -> Unmodelled | None:
    """A file the default discovery reads (SQL, knex, Rails, Django, Alembic: `defaults`) that
    no source of the settings reads: with the source to add, in its format."""
    default = defaults.get(path)
    if default is None:
        return None
    fmt = default_format(snapshot, path, DEFAULT_MIGRATION_SOURCES[default])
    folder = path.rpartition("/")[0]
    return Unmodelled(
        file=path,
        line=1,
        what=f"a {fmt} migration in {folder or '.'} that no [[migrations.sources]] reads",
        way_out=f"add a [[migrations.sources]] with path = {folder!r} and "
        f"format = {fmt!r} so it is read, {exclusion}",
    )


def default_format(snapshot: Snapshot, path: str, source: MigrationSource) -> str:
    """The format a file the default discovery found is written for: its source's (knex,
    Rails, Django, Alembic), or for SQL the tool its markers and name say (`sql_format`)."""
    return sql_format(snapshot, path) if source.format == "sql" else source.format


def _go_gap(path: str, line: int, exclusion: str) -> Unmodelled:
    """A Go file listing migrations (from `line`) that no source reads: with the go-embedded
    source."""
    folder, _, name = path.rpartition("/")
    return Unmodelled(
        file=path,
        line=line,
        what="a list of migrations written in Go that no [[migrations.sources]] reads",
        way_out=f"add a [[migrations.sources]] with path = {folder!r}, pattern = "
        f"'{re.escape(name)}' and format = 'go-embedded' so its migrations are read, {exclusion}",
    )


def _code_gap(path: str, line: int, exclusion: str) -> Unmodelled:
    return Unmodelled(
        file=path,
        line=line,
        what="a migration written in code: its tool runs it, and what it locks, rewrites, "
        "scans or breaks is not known",
        way_out=f"review what {path} does to the schema by hand and acknowledge the release, "
        f"{exclusion}",
    )


def sql_format(snapshot: Snapshot, path: str) -> str:
    """The tool a SQL file found by the search is most likely written for, for the way out."""
    name = path.rpartition("/")[2]
    try:
        tool = tool_of(read_text(snapshot, path))
    except ValueError:
        tool = None
    if tool is not None:
        return {"+goose": "goose", "migrate:": "dbmate"}.get(tool, "sql")
    if re.search(r"\.(?:postgres|mysql|sqlite3|cockroach)\.up\.", name):
        return "popx"
    if name.endswith(".up.sql"):
        return "golang-migrate"
    return "flyway" if re.match(r"V\d+(?:[._]\d+)*__", name) else "sql"


def _edited_line(old: Snapshot | None, new: Snapshot, path: str) -> int:
    """The line of the statement a shipped migration's first edit falls in."""
    before = read_text(old, path) if old is not None else ""
    return edited_line(before, read_text(new, path), sql=path.endswith(".sql"))


def moved_migrations(old: Snapshot | None, new: Snapshot) -> dict[str, str]:
    """The paths a release moved with their name and bytes kept (new path -> old path)."""
    return _moved(old, new, changes_between(old, new))


def _moved(old: Snapshot | None, new: Snapshot, changes: list[Change]) -> dict[str, str]:
    """Each path the release adds that is a path it deletes moved (new path -> old path), with
    its bytes kept and either its file name (a folder moved: tools key applied migrations by
    name or version, never by folder) or its version (a new description) in a format whose tool
    keys applied migrations by version: golang-migrate's `*.up.sql`, goose, dbmate. The tool
    does not run it again: nothing was added or deleted."""
    deleted: dict[str | None, list[str]] = {}
    for change in changes:
        if change.status == "deleted" and old is not None:
            deleted.setdefault(old.blob_id(change.path), []).append(change.path)
    moved: dict[str, str] = {}
    taken: set[str] = set()
    for change in changes if deleted else ():
        if change.status != "added":
            continue
        name = change.path.rpartition("/")[2]
        before = [b for b in deleted.get(new.blob_id(change.path), ()) if b not in taken]
        same = [b for b in before if b.rpartition("/")[2] == name]
        version = _version(change.path)
        if not same and version is not None and _keyed_by_version(new, change.path):
            same = [b for b in before if _version(b) == version]
        if same:
            moved[change.path] = same[0]
            taken.add(same[0])
    return moved


def _version(path: str) -> str | None:
    found = _VERSION.match(path.rpartition("/")[2])
    return found.group(1) if found else None


def _keyed_by_version(snapshot: Snapshot, path: str) -> bool:
    if path.endswith(".up.sql"):
        return True
    try:
        return tool_of(read_text(snapshot, path)) in ("+goose", "migrate:")
    except ValueError:  # two tools' markers: the file is refused anyway
        return False
