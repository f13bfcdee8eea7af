"""Go files that list a service's migrations (`go-embedded`: miniflux's
`var migrations = [...]func(tx *sql.Tx) error{...}`), found by their shape whatever their name:
what the default search and `init` take for a migrations root."""

from __future__ import annotations

import re
from functools import partial

from release_safety.code.memo import Memo
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import skipped
from release_safety.surfaces.migrations.budget import MAX_FILE_CHARS
from release_safety.surfaces.migrations.frameworks.goembedded import holds_migrations

_MAY_LIST = re.compile(
    rb"(?:\]|map\[u?int\d*\])\s*func\s*\([^)]*\b(?:sql|sqlx|pgx|pgxpool)\.(?:Tx|DB|Conn|Pool)\b"
    rb"|\]string\s*\{[^}]*?\b(?:CREATE|ALTER|DROP)\s",
    re.IGNORECASE,
)
"""What a file listing migrations holds (a list of functions taking a database handle, or of
SQL strings), looked for in the bytes before the file is parsed."""


_SEEN: Memo[str, bool] = Memo(1 << 16)
"""Whether each Go blob read so far lists migrations (the trees of a release history share
most of their blobs: `init` reads HEAD and ten releases)."""


def go_lists(snapshot: Snapshot | None) -> list[str]:
    """The Go files of a tree (tests, vendored code and the other skipped folders left out)
    that declare a list of migrations, by path."""
    if snapshot is None:
        return []
    blobs = {
        path: snapshot.blob_id(path)
        for path in snapshot.paths()
        if path.endswith(".go") and not path.endswith("_test.go") and not skipped("**/x", path)
    }
    unseen = [path for path, blob in blobs.items() if blob is None or blob not in _SEEN]
    read = {  # a file the migrations reader would not read (over its size) is no list here
        path: len(data) <= MAX_FILE_CHARS
        and bool(_MAY_LIST.search(data))
        and holds_migrations(data.decode("utf-8", "replace"))
        for path, data in snapshot.read_each(unseen)
    }
    # every answer taken before any is kept, so none the memo lets go of is lost
    held = {path: read[path] if path in read else _seen(blob) for path, blob in blobs.items()}
    for path, blob in blobs.items():
        if blob is not None and path in read:
            _SEEN.get(blob, partial(bool, read[path]))
    return sorted(path for path, lists in held.items() if lists)


def _seen(blob: str | None) -> bool:
    """What was found in a blob read before (no list where the clone lacks the blob)."""
    return blob is not None and blob in _SEEN and _SEEN.peek(blob)
