"""The cumulative index: strict reading, and the pure upsert of one release's entry."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from release_safety.errors import InputError
from release_safety.jsonio import parse_json
from release_safety.model import Artifact, Index, IndexEntry
from release_safety.versions import is_release, version_key


def validation_message(exc: ValidationError) -> str:
    """The first failing path and why, e.g. `entries.3.rollingUpdateSafe: Input should be ...`."""
    error = exc.errors()[0]
    path = ".".join(str(part) for part in error["loc"]) or "(top level)"
    reason = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
    return f"{path}: {reason}"


def parse_index(text: str, where: str) -> Index:
    """An index from JSON text, strictly validated; errors name `where` and the failing path."""
    try:
        index = Index.model_validate_json(text, strict=True)
    except ValidationError:
        index = _explain_invalid(text, where)
    versions = [entry.version for entry in index.entries]
    if len(set(versions)) != len(versions):
        raise InputError(f"{where}: not a valid index: a version appears twice in entries")
    return index


def _explain_invalid(text: str, where: str) -> Index:
    """The slow path for text the fast parse refused: name the JSON error or the failing path."""
    data = parse_json(text, where)
    try:
        return Index.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{where}: not a valid index: {validation_message(exc)}") from exc


EMPTY_INDEX = Index(schemaVersion="1", generatedAt=None, backfillFloorVersion=None, entries=[])


def entry_from_artifact(artifact: Artifact, backfilled: bool) -> IndexEntry:
    """The index entry of one release; a backfilled release is never true (rule 6)."""
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
    )


def upsert(index: Index, entry: IndexEntry, force: bool = False) -> tuple[Index, bool]:
    """Insert or replace the entry for its version, keeping entries sorted numerically.

    A backfilled entry never replaces a release's own (non-backfilled) entry unless `force`.
    Returns the new index and whether the entry was taken.
    """
    existing = next((e for e in index.entries if e.version == entry.version), None)
    if existing is not None and not existing.backfilled and entry.backfilled and not force:
        return index, False
    if existing is not None and existing.syntheticRequiredStop:
        entry = _with_floor(entry)
    entries = [e for e in index.entries if e.version != entry.version] + [entry]
    return _finish(index, entries, index.backfillFloorVersion), True


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
    return _finish(index, entries, floor)


def _with_floor(entry: IndexEntry) -> IndexEntry:
    stops = sorted({*entry.requiredStops, entry.version}, key=version_key)
    return entry.model_copy(update={"requiredStops": stops, "syntheticRequiredStop": True})


def _finish(index: Index, entries: list[IndexEntry], floor: str | None) -> Index:
    entries = sorted(entries, key=lambda e: version_key(e.version))
    newest = max((e.releaseDate for e in entries), default=None)
    return Index(
        schemaVersion="1",
        generatedAt=newest,
        backfillFloorVersion=floor,
        entries=entries,
    )


def read_index(path: Path) -> Index:
    """The index at `path`; a missing file is an empty index, a malformed one bad input."""
    if not path.exists():
        return EMPTY_INDEX
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read index: {exc.strerror or exc}") from exc
    return parse_index(text, str(path))
