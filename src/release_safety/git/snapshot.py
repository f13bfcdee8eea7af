"""A repository tree at one ref, as surfaces see it, and the changes between two trees.

Surfaces are pure functions of two snapshots; `git.repository.GitSnapshot` reads them from git and
`MemorySnapshot` holds them in memory (tests, demos, fixtures).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

ChangeStatus = Literal["added", "modified", "deleted", "renamed"]


@dataclass(frozen=True)
class Change:
    """A path that differs between two trees; renames carry the old path."""

    status: ChangeStatus
    path: str
    old_path: str | None = None


class Snapshot(Protocol):
    """Read-only view of the files of one tree."""

    @property
    def ref(self) -> str: ...

    def paths(self) -> Sequence[str]:
        """Every file path in the tree, sorted."""
        ...

    def blob_id(self, path: str) -> str | None:
        """The content id of a path (git's blob id), or None when absent."""
        ...

    def read(self, path: str) -> bytes:
        """The file's bytes; KeyError when the path is absent."""
        ...

    def changes_since(self, old: Snapshot | None) -> list[Change]:
        """Added, modified and deleted paths since `old`, sorted by path (no rename pairing)."""
        ...

    def read_each(self, paths: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        """Each present path with its bytes, in order, as they are read: a git snapshot reads
        them in one round trip and hands each over as it arrives. Consume it to the end."""
        ...

    def tree_key(self) -> str | None:
        """A name equal for snapshots of the same tree (git: the commit id), under which what
        follows from the paths alone may be kept; None when there is none."""
        ...

    def changed_from(self) -> tuple[str, Mapping[str, str | None]] | None:
        """The `tree_key` of a tree this one is known to differ from only by the given paths
        (each with its blob id here, None when it is no file here), or None."""
        ...


def read_text(snapshot: Snapshot, path: str) -> str:
    """The file decoded as UTF-8 (invalid bytes replaced: sources are text)."""
    return snapshot.read(path).decode("utf-8", errors="replace")


READ_AHEAD = 512
"""Files `TextsInOrder` reads in one round trip."""


class TextsInOrder:
    """`read_text` of files read in the order of `paths`: asked for one, it reads it and the
    next `READ_AHEAD - 1` in one round trip (a git snapshot would wait on git once per file:
    100,000 migrations, 100,000 waits), and keeps only those."""

    def __init__(self, snapshot: Snapshot, paths: Sequence[str]) -> None:
        self.snapshot = snapshot
        self.paths = paths
        self._at = {path: i for i, path in enumerate(paths)}
        self._texts: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        text = self._texts.get(path)
        if text is None:
            start = self._at.get(path)
            if start is None:
                return read_text(self.snapshot, path)
            batch = self.paths[start : start + READ_AHEAD]
            self._texts = {
                p: data.decode("utf-8", errors="replace")
                for p, data in self.snapshot.read_each(batch)
            }
            text = self._texts.get(path)
            if text is None:
                raise KeyError(path)
        return text


def changes_between(old: Snapshot | None, new: Snapshot) -> list[Change]:
    """Added, modified and deleted paths by content id (no rename pairing), sorted by path."""
    return new.changes_since(old)


def compare_trees(old: Snapshot | None, new: Snapshot) -> list[Change]:
    """`changes_between` by comparing every path's content id: the generic way."""
    old_ids = {p: old.blob_id(p) for p in old.paths()} if old is not None else {}
    new_ids = {p: new.blob_id(p) for p in new.paths()}
    changes: list[Change] = []
    for path in sorted(old_ids.keys() | new_ids.keys()):
        if path not in old_ids:
            changes.append(Change("added", path))
        elif path not in new_ids:
            changes.append(Change("deleted", path))
        elif old_ids[path] != new_ids[path]:
            changes.append(Change("modified", path))
    return changes


class MemorySnapshot:
    """A snapshot held in memory; blob ids are git's, so both kinds agree."""

    def __init__(self, files: Mapping[str, bytes | str], ref: str = "memory") -> None:
        self._files = {
            path: data.encode("utf-8") if isinstance(data, str) else data
            for path, data in files.items()
        }
        self._ref = ref

    @property
    def ref(self) -> str:
        return self._ref

    def paths(self) -> Sequence[str]:
        return sorted(self._files)

    def blob_id(self, path: str) -> str | None:
        data = self._files.get(path)
        if data is None:
            return None
        return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()

    def read(self, path: str) -> bytes:
        return self._files[path]

    def changes_since(self, old: Snapshot | None) -> list[Change]:
        return compare_trees(old, self)

    def read_each(self, paths: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        return ((path, self._files[path]) for path in paths if path in self._files)

    def tree_key(self) -> str | None:
        return None

    def changed_from(self) -> tuple[str, Mapping[str, str | None]] | None:
        return None
