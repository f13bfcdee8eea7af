"""Deterministic JSON and atomic writes: the only way files leave this tool."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from release_safety.errors import CheckError, InputError


def dumps(data: Any) -> str:
    """2-space JSON with a final newline; key order is the caller's (models keep theirs)."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file in the same folder, then rename over the target.

    A link is followed (the file it names is replaced, the link stays); a target that is not a
    regular file (`/dev/null`, a pipe) is written in place, never replaced by a file.
    """
    path = Path(path).resolve() if Path(path).is_symlink() else Path(path)
    if path.exists() and not path.is_file():
        try:
            with path.open("w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise CheckError(f"{path}: cannot write: {exc.strerror or exc}") from exc
        return
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise CheckError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise CheckError(f"{path}: cannot write: {exc.strerror or exc}") from exc
        raise


def read_json(path: Path) -> Any:
    """Read a JSON file; a missing file is an I/O error, a malformed one bad input."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise CheckError(f"{path}: no such file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckError(f"{path}: cannot read: {exc}") from exc
    return parse_json(text, str(path))


def parse_json(text: str, where: str) -> Any:
    """Parse JSON text, naming the place and the position of the first error."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON: {exc.msg} at line {exc.lineno}") from exc
