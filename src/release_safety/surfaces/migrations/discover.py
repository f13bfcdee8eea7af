"""Which migrations a release ships: added between two refs; shipped ones edited or deleted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from release_safety.findings import Finding, Rule, register
from release_safety.settings import MigrationSource, Settings
from release_safety.snapshot import Snapshot, changes_between

SHIPPED_MIGRATION_EDITED = register(
    Rule(
        id="shipped-migration-edited",
        surface="migrations",
        severity="unknown",
        title="A migration that already shipped was edited",
        why="Installs that ran the old text never run the new one: the schema now depends on "
        "which release an install came from, and the edit itself is never analysed as a step.",
        unsafe="Editing 20240101000000_add_users.ts after it was released.",
        safe="Leave shipped migrations as they are; write a new migration for the change.",
    )
)
SHIPPED_MIGRATION_DELETED = register(
    Rule(
        id="shipped-migration-deleted",
        surface="migrations",
        severity="unknown",
        title="A migration that already shipped was deleted",
        why="Migration tools record applied files by name; a deleted one can make an upgrade "
        "refuse to start, and a fresh install no longer builds the same schema.",
        unsafe="git rm migrations/0042_add_index.sql after it was released.",
        safe="Keep shipped migrations; squash only with a documented minimum previous version.",
    )
)


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


def discover(
    old: Snapshot | None, new: Snapshot, settings: Settings
) -> tuple[list[MigrationPath], list[Finding]]:
    """Migrations added between the refs, in path order, and findings for shipped ones touched.

    A migration moved to another path is an addition (tools key applied migrations by name).
    """
    added: list[MigrationPath] = []
    findings: list[Finding] = []
    for change in changes_between(old, new):
        source = source_of(change.path, settings)
        if source is None:
            continue
        if change.status == "added":
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
                    line=1 if change.status == "modified" else None,
                    message=f"shipped migration {change.path} was {change.status}",
                    hint=rule.safe,
                )
            )
    return sorted(added, key=lambda m: (m.name, m.path)), findings
