"""The cumulative index: strict reading, and the pure upsert of releases' entries.

Reading (`index_data`) is the read path of `upgrade-check`: bounded JSON that refuses a key
twice in one object, validated against the shipped JSON Schema (formats included; the schema
bounds the depth too) and for versions listed twice, with no pydantic model built. Writers
(`index update`, `backfill`) read the models (`read_index`) under the index's lock and write
them back atomically.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from release_safety.common import jsonio
from release_safety.common.errors import CheckError, InputError
from release_safety.contract.schemas import validate_document
from release_safety.contract.versions import is_release, version_key

if TYPE_CHECKING:
    from pathlib import Path

    from release_safety.contract.model import Artifact, Index, IndexEntry, TriState

INDEX_LOCK_SECONDS = 60.0
"""How long a writer waits for another writer of the same index before giving up (exit 3)."""


class EntryData(TypedDict):
    """One entry as the validated JSON holds it (`model.IndexEntry`)."""

    version: str
    previousVersion: str | None
    releaseDate: str
    rollingUpdateSafe: TriState
    requiredStops: list[str]
    minPreviousVersion: str | None
    backfilled: bool
    syntheticRequiredStop: bool
    recreateNote: NotRequired[str]


class IndexData(TypedDict):
    """The index as the validated JSON holds it (`model.Index`)."""

    schemaVersion: str
    generatedAt: str | None
    backfillFloorVersion: str | None
    entries: list[EntryData]


def index_data(text: str, where: str) -> IndexData:
    """A validated index from JSON text; errors name `where` and the failing path (InputError)."""
    return checked_index(jsonio.parse_json(text, where, strict=True, depth_bounded=True), where)


def checked_index(data: Any, where: str) -> IndexData:
    """JSON data validated as an index: the schema, and no version twice."""
    validate_document(data, where, "release-safety-index")
    versions = [entry["version"] for entry in data["entries"]]
    if len(set(versions)) != len(versions):
        raise InputError(f"{where}: not a valid index: a version appears twice in entries")
    result: IndexData = data
    return result


def parse_index(text: str, where: str) -> Index:
    """The index model of JSON text, validated as `index_data` validates it."""
    from release_safety.contract.model import Index

    return Index.model_validate(index_data(text, where))


def empty_index() -> Index:
    from release_safety.contract.model import Index

    return Index(schemaVersion="1", generatedAt=None, backfillFloorVersion=None, entries=[])


def entry_from_artifact(artifact: Artifact, backfilled: bool) -> IndexEntry:
    """The index entry of one release; a backfilled release is never true (rule 6)."""
    from release_safety.contract.model import IndexEntry

    verdict = artifact.compatibility.rollingUpdateSafe
    previous = artifact.previousVersion
    return IndexEntry(
        version=artifact.version,
        previousVersion=previous if previous is not None and is_release(previous) else None,
        releaseDate=artifact.releaseDate,
        rollingUpdateSafe="unknown" if backfilled and verdict is True else verdict,
        requiredStops=artifact.upgrade.requiredStops,
        minPreviousVersion=artifact.upgrade.minPreviousVersion,
        backfilled=backfilled,
        syntheticRequiredStop=False,
        recreateNote=artifact.upgrade.recreateNote,
    )


def merge(index: Index, entries: Iterable[IndexEntry], force: bool = False) -> tuple[Index, int]:
    """Insert or replace each entry for its version (later ones win), sorting once.

    A backfilled entry never replaces a release's own (non-backfilled) entry unless `force`.
    Returns the new index and how many entries were not taken for that reason.
    """
    by_version = {entry.version: entry for entry in index.entries}
    refused = 0
    for entry in entries:
        existing = by_version.get(entry.version)
        if existing is not None and not existing.backfilled and entry.backfilled and not force:
            refused += 1
            continue
        if existing is not None and existing.syntheticRequiredStop:
            entry = _with_floor(entry)
        by_version[entry.version] = entry
    return _finish(list(by_version.values()), index.backfillFloorVersion), refused


def upsert(index: Index, entry: IndexEntry, force: bool = False) -> tuple[Index, bool]:
    """`merge` of one entry; returns the new index and whether the entry was taken."""
    updated, refused = merge(index, [entry], force)
    return updated, not refused


def apply_floor(index: Index, floor: str | None) -> Index:
    """Mark the floor entry with its synthetic required stop (and unmark an older floor)."""
    entries = []
    for entry in index.entries:
        if entry.syntheticRequiredStop and entry.version != floor:
            stops = [s for s in entry.requiredStops if s != entry.version]
            update = {"requiredStops": stops, "syntheticRequiredStop": False}
            entry = entry.model_copy(update=update)
        if entry.version == floor and not entry.syntheticRequiredStop:
            entry = _with_floor(entry)
        entries.append(entry)
    return _finish(entries, floor)


def _with_floor(entry: IndexEntry) -> IndexEntry:
    stops = sorted({*entry.requiredStops, entry.version}, key=version_key)
    return entry.model_copy(update={"requiredStops": stops, "syntheticRequiredStop": True})


def _finish(entries: list[IndexEntry], floor: str | None) -> Index:
    from release_safety.contract.model import Index

    entries = sorted(entries, key=lambda e: version_key(e.version))
    newest = max((e.releaseDate for e in entries), default=None)
    return Index(schemaVersion="1", generatedAt=newest, backfillFloorVersion=floor, entries=entries)


def read_index(path: Path) -> Index:
    """The index at `path`; a missing file is an empty index, a malformed one bad input."""
    try:
        text = jsonio.read_text(path)
    except CheckError:
        if not os.path.exists(path):
            return empty_index()
        raise
    return parse_index(text, str(path))


def write_index(path: Path, index: Index) -> None:
    jsonio.write_atomic(path, jsonio.dumps(index.to_json_data()))


def index_lock(path: Path) -> jsonio.FileLock:
    """The lock every writer of the index at `path` holds while it reads and writes it."""
    return jsonio.FileLock(path, INDEX_LOCK_SECONDS, "the index")
