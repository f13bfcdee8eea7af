"""Deterministic JSON, bounded JSON reading and atomic writes: how files enter and leave this tool.

Reading is bounded (docs/bounds.md): values nested deeper than `MAX_DEPTH`, integers longer than
Python converts, `NaN`/`Infinity` and (with `strict`) a key twice in one object are bad input
with the place named, never a traceback. Writing goes through a temporary file in the target's
folder, renamed over the target: the target keeps its mode (a new file gets 0644 under the
umask), the file and then the folder are synced, and temporary files left by a killed writer
are removed by the next write of the same file.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import time
from collections.abc import Iterable
from functools import cache

from release_safety.common.errors import CheckError, InputError
from release_safety.common.localfile import read_regular

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from pathlib import Path  # imported where written to: reading needs no pathlib
    from typing import Any

MAX_DEPTH = 256
"""Deepest nesting of arrays and objects (and YAML collections) any document may have."""
TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"


class DuplicateKeyError(ValueError):
    """An object names the same key twice (JSON readers silently keep only the last)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"key {key!r} appears more than once in one object")
        self.key = key


def dumps(data: Any) -> str:
    """2-space JSON with a final newline; key order is the caller's (models keep theirs)."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def dumps_plain(data: Any) -> str:
    """`dumps` of data made of dicts with string keys, lists, strings, integers, booleans and
    None (no floats: orjson writes them differently), ten times faster through orjson; what
    orjson refuses (an integer past 64 bits, a lone surrogate, a subclass, a dataclass) goes
    through `dumps`."""
    import orjson  # deferred: only the commands that print plain data need it

    plain = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
    options = plain | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_INDENT_2
    try:
        return orjson.dumps(data, option=options | orjson.OPT_APPEND_NEWLINE).decode()
    except orjson.JSONEncodeError:
        return dumps(data)


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):  # which key: only on the error path
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return result


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads_bounded(text: str, *, strict: bool = False, depth_bounded: bool = False) -> Any:
    """`json.loads` that refuses NaN/Infinity, values nested deeper than `MAX_DEPTH` and (with
    `strict`) duplicate keys. Raises `json.JSONDecodeError` (with a line) or `ValueError`.

    `depth_bounded`: the caller validates against a schema that bounds the depth itself (and
    checks the depth before describing a failure, `schemas.validate_document`), so the walk
    over every value is left out."""
    try:
        value = json.loads(
            text,
            object_pairs_hook=_refuse_duplicates if strict else None,
            parse_constant=_refuse_constant,
        )
    except RecursionError as exc:
        raise ValueError(TOO_DEEP) from exc
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        digits = sys.get_int_max_str_digits()
        raise ValueError(f"an integer longer than {digits:,} digits") from exc
    if not depth_bounded and deeper_than(value, MAX_DEPTH):
        raise ValueError(TOO_DEEP)
    return value


def deeper_than(value: Any, limit: int) -> bool:
    """True when arrays and objects nest more than `limit` levels (walked without recursion)."""
    level: list[Any] = [value]
    for _ in range(limit):
        level = [
            child
            for node in level
            if isinstance(node, dict | list)
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, dict | list)
        ]
        if not level:
            return False
    return True


def parse_json(text: str, where: str, *, strict: bool = False, depth_bounded: bool = False) -> Any:
    """Parse JSON text (bounded, see `loads_bounded`), naming the place and the first error."""
    try:
        return loads_bounded(text, strict=strict, depth_bounded=depth_bounded)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON: {exc.msg} at line {exc.lineno}") from exc
    except DuplicateKeyError as exc:
        raise InputError(f"{where}: key {exc.key!r} appears twice in one object") from exc
    except ValueError as exc:
        raise InputError(f"{where}: not valid JSON: {exc}") from exc


def read_text(path: Path) -> str:
    """A UTF-8 file's text; missing or unreadable is an I/O error, not UTF-8 bad input."""
    try:
        return read_regular(path).decode("utf-8")
    except FileNotFoundError as exc:
        raise CheckError(f"{path}: no such file") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise CheckError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def read_json(path: Path, *, strict: bool = False) -> Any:
    """Read a JSON file; a missing file is an I/O error, a malformed one bad input."""
    return parse_json(read_text(path), str(path), strict=strict)


# --- writing --------------------------------------------------------------------------------

_STALE_LEGACY_SECONDS = 3600.0  # a temporary file of an older release names no process


@cache
def _umask() -> int:
    try:
        with open("/proc/self/status") as status:
            lines = status.read().splitlines()
        for line in lines:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mode_for(path: Path) -> int:
    """The target's permission bits, or 0644 under the umask for a new file."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o644 & ~_umask()


_TEMPORARY = r"(?:(\d+)\.)?[A-Za-z0-9_]+\.tmp"
"""What follows `.NAME.` in the name of a temporary file of `write_atomic` (compiled when
first used: a lint writes no file)."""


def remove_stale_temporaries(path: Path) -> None:
    """Remove the temporary files (`.NAME.PID.RANDOM.tmp`, see `write_atomic`) a writer of `path`
    left when it was killed (its process is gone); a temporary file of a live writer is left
    alone."""
    import contextlib  # where a file is written: a lint's --json writes none

    prefix = f".{path.name}."
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent if str(path.parent) else "."):
            if not entry.name.startswith(prefix):
                continue
            found = re.compile(_TEMPORARY).fullmatch(entry.name, len(prefix))
            if found is not None and _is_stale(entry, found.group(1)):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _is_stale(entry: os.DirEntry[str], pid: str | None) -> bool:
    if pid is None:
        return time.time() - entry.stat().st_mtime > _STALE_LEGACY_SECONDS
    if int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def sync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (where the platform allows opening folders)."""
    import contextlib  # where a file is written: a lint's --json writes none

    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(descriptor)
    finally:
        os.close(descriptor)


def sync_files(paths: Iterable[Path]) -> None:
    """Make files written with `durable=False` durable: each file, then each folder once."""
    import contextlib  # where a file is written: a lint's --json writes none

    folders: dict[Path, None] = {}
    for path in paths:
        with contextlib.suppress(OSError):
            descriptor = os.open(path, os.O_RDONLY)
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
        folders[path.parent] = None
    for folder in folders:
        sync_folder(folder)


def write_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    """Write through a temporary file in the same folder, then rename over the target.

    A link is followed (the file it names is replaced, the link stays); a target that is not a
    regular file (`/dev/null`, a pipe) is written in place, never replaced by a file. With
    `durable` the file and its folder are synced before returning; without, the caller syncs
    a batch of files at once (`sync_files`).
    """
    from pathlib import Path

    path = Path(path).resolve() if Path(path).is_symlink() else Path(path)
    if path.exists() and not path.is_file():
        try:
            with path.open("w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise CheckError(f"{path}: cannot write: {exc.strerror or exc}") from exc
        return
    folder = path.parent if str(path.parent) else Path(".")
    tmp = folder / f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(path)
        mode = _mode_for(path)
        descriptor = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise CheckError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise CheckError(f"{path}: cannot write: {exc.strerror or exc}") from exc
        raise
    if durable:
        sync_folder(folder)


class FileLock:
    """An exclusive lock on `.NAME.lock` beside `path` (the `filelock` package: `flock` where
    there is one, portable elsewhere), for writers that read a file, change it and write it
    back: one at a time, each re-reading under the lock. Waits up to `timeout` seconds for
    another holder, then fails (CheckError, exit 3). The lock file stays (removing it would let
    two writers lock two different files), and it is taken beside the file the path resolves
    to, so writers naming one file through links lock the same one."""

    def __init__(self, path: Path, timeout: float, what: str) -> None:
        from pathlib import Path

        self.path = Path(path).resolve()
        folder = self.path.parent if str(self.path.parent) else Path(".")
        self.lock_path = folder / f".{self.path.name}.lock"
        self.timeout = timeout
        self.what = what
        self._lock: Any = None

    def __enter__(self) -> FileLock:
        import filelock  # deferred: only writers lock

        lock = filelock.FileLock(
            self.lock_path,
            timeout=self.timeout,
            mode=0o644 & ~_umask(),
            thread_local=False,
            fallback_to_soft=False,
            preserve_lock_file=True,
        )
        try:
            self.lock_path.parent.mkdir(parents=True, exist_ok=True)
            lock.acquire()
        except filelock.Timeout:
            waited = f", waited {self.timeout:g} s" if self.timeout else ""
            raise CheckError(
                f"{self.path}: {self.what} is being written by another run "
                f"(lock {self.lock_path}{waited})"
            ) from None
        except OSError as exc:
            raise CheckError(f"{self.lock_path}: cannot lock: {exc.strerror or exc}") from exc
        self._lock = lock
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None
