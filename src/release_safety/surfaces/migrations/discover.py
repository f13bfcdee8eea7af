"""Which migrations a release ships: added between two refs; shipped ones edited or deleted."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from release_safety.findings import Finding
from release_safety.settings import MigrationSource, Settings
from release_safety.snapshot import Change, Snapshot, changes_between, read_text
from release_safety.surfaces.migrations.edits import edited_line
from release_safety.surfaces.migrations.rules import (
    MIGRATION_NOT_READ,
    SHIPPED_MIGRATION_DELETED,
    SHIPPED_MIGRATION_EDITED,
)
from release_safety.surfaces.migrations.sections import tool_of

# Named as migration tools name the migrations they run from code: goose's
# `20240101120000_backfill.go`, Flyway's `V3__backfill.java`, TypeORM's and sequelize's
# `1588102412422-Init.ts`, Django's `0001_initial.py`, Rails' `20240101000000_add.rb`.
_CODE_MIGRATION = re.compile(
    r"(?:\d+[_-]|V\d+(?:[._]\d+)*__)[\w.-]*"
    r"\.(?:go|py|rb|java|kt|scala|ts|mts|cts|js|mjs|cjs|rs|ex|exs|php|cs)"
)
# ... but tests and type declarations beside them are not migrations.
_NOT_A_MIGRATION = re.compile(r".*(?:_test\.(?:go|py)|_spec\.rb|\.d\.[cm]?ts|\.(?:test|spec)\.\w+)")
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
        return self.path.rsplit("/", 1)[-1]


def source_of(path: str, settings: Settings) -> MigrationSource | None:
    """The first configured source a path belongs to, or None."""
    return next((s for s in settings.migrations.sources if s.matches(path)), None)


def migration_files(
    snapshot: Snapshot | None, sources: Sequence[MigrationSource]
) -> dict[str, int]:
    """Every migration file of a tree, with the index of the first source that claims it."""
    if snapshot is None:
        return {}
    claims = _claims(tuple(sources))
    if len(claims) >= REMEMBERED:
        claims.clear()
    found: dict[str, int] = {}
    for path in snapshot.paths():
        if path in claims:
            index = claims[path]
        else:
            index = claims[path] = next((i for i, s in enumerate(sources) if s.matches(path)), None)
        if index is not None:
            found[path] = index
    return found


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


def discover(
    old: Snapshot | None, new: Snapshot, settings: Settings
) -> tuple[list[MigrationPath], list[Finding]]:
    """Migrations added between the refs, in path order, and findings for shipped ones touched
    and for migrations added in code (`in_code`), which nothing here reads.

    A migration moved to another path is an addition (knex and sql-migrate key applied
    migrations by name), unless it kept its bytes and its version in a format whose tool keys
    them by version (`_kept_by_version`).
    """
    added: list[MigrationPath] = []
    findings: list[Finding] = []
    changes = changes_between(old, new)
    kept = _kept_by_version(old, new, changes)
    for change in changes:
        source = source_of(change.path, settings)
        if change.path in kept or (source is None and not in_code(change.path, settings)):
            continue
        if source is None and change.status == "added":
            message = (
                f"{change.path} is a migration written in code: its tool runs it, and what it "
                "locks, rewrites, scans or breaks is not known"
            )
            findings.append(MIGRATION_NOT_READ.finding("migrations", message, change.path, 1))
        elif source is not None and change.status == "added":
            added.append(MigrationPath(change.path, source, source.edition_of(change.path)))
        elif change.status in ("modified", "deleted"):
            edited = change.status == "modified"
            rule = SHIPPED_MIGRATION_EDITED if edited else SHIPPED_MIGRATION_DELETED
            findings.append(
                Finding(
                    rule=rule.id,
                    severity=rule.severity,
                    surface="migrations",
                    file=change.path,
                    line=_edited_line(old, new, change.path) if edited else None,
                    message=f"shipped migration {change.path} was {change.status}",
                    hint=rule.safe,
                )
            )
    return sorted(added, key=lambda m: (m.name, m.path)), findings


def _edited_line(old: Snapshot | None, new: Snapshot, path: str) -> int:
    """The line of the statement a shipped migration's first edit falls in."""
    before = read_text(old, path) if old is not None else ""
    return edited_line(before, read_text(new, path), sql=path.endswith(".sql"))


def _kept_by_version(old: Snapshot | None, new: Snapshot, changes: list[Change]) -> set[str]:
    """Both paths of each migration renamed with its bytes and its version kept (a new
    description), in a format whose tool keys applied migrations by version: golang-migrate's
    `*.up.sql`, goose, dbmate. The tool does not run it again: nothing was added or deleted."""
    deleted: dict[str | None, list[str]] = {}
    for change in changes:
        if change.status == "deleted" and old is not None:
            deleted.setdefault(old.blob_id(change.path), []).append(change.path)
    kept: set[str] = set()
    for change in changes if deleted else ():
        if change.status != "added":
            continue
        version = _version(change.path)
        renamed = [b for b in deleted.get(new.blob_id(change.path), ()) if _version(b) == version]
        if version is not None and renamed and _keyed_by_version(new, change.path):
            kept |= {renamed[0], change.path}
    return kept


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
