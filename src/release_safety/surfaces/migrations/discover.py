"""Which migrations a release ships: added between two refs; shipped ones edited or deleted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from release_safety.findings import Finding
from release_safety.settings import MigrationSource, Settings
from release_safety.snapshot import Snapshot, changes_between
from release_safety.surfaces.migrations.rules import (
    SHIPPED_MIGRATION_DELETED,
    SHIPPED_MIGRATION_EDITED,
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
