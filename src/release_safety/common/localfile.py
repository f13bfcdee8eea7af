"""Reading a local file a user named (a document, settings, an index, an artifact): a regular
file only, its size checked before any byte is read.

A FIFO, a device (`/dev/zero`), a folder or a socket is refused at once, never read (a FIFO
would block for ever, `/dev/zero` never ends); a file over MAX_FILE_BYTES is refused from its
size, so a sparse 100 GB file costs nothing. Errors opening it are the caller's to word
(`OSError`, as `open` raises them)."""

from __future__ import annotations

import os
import stat

from release_safety.common.errors import InputError

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from pathlib import Path

MAX_FILE_BYTES = 256 * 1024 * 1024
"""The largest local file read: far above any spec, migration or index (docs/bounds.md)."""

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def shown(path: str | Path) -> str:
    """The path as `Path` shows it (imported only on the error path: `upgrade-check --json`
    starts without pathlib)."""
    from pathlib import Path

    return str(Path(path))


def read_regular(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at `path` (links followed), at most `limit` of them:
    InputError for anything else or anything larger, OSError when it cannot be opened."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a file")
            raise InputError(f"{shown(path)}: {kind}, not a regular file: not read")
        if info.st_size > limit:
            raise InputError(f"{shown(path)}: {info.st_size:,} bytes, more than the {limit:,} read")
        os.set_blocking(descriptor, True)
        chunks = []
        left = limit + 1  # a file that grows past its size while read is still bounded
        while left > 0 and (chunk := os.read(descriptor, min(left, max(info.st_size, 1 << 16)))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(descriptor)
    data = b"".join(chunks)
    if len(data) > limit:
        raise InputError(f"{shown(path)}: grew past {limit:,} bytes while read")
    return data
