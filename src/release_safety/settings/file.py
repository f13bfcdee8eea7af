"""Where the settings file is, its TOML read, and the defaults `lint-migrations` needs: without
pydantic, so a lint with no settings file starts fast (`settings` validates a file found)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from release_safety.common.errors import InputError
from release_safety.common.localfile import read_regular

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from pathlib import Path  # walked as text: a lint without settings loads no pathlib
    from typing import Any

SETTINGS_FILE = ".release-safety.toml"
PYPROJECT = "pyproject.toml"
"""Settings may instead be the `[tool.release-safety]` table of `pyproject.toml`; in one folder
`.release-safety.toml` wins (a file of its own is the more explicit choice, as ruff's is)."""
TABLE = "release-safety"
"""The name of this tool's table under `[tool]` in a `pyproject.toml`."""

OUTSIDE_REPOSITORY = "(outside the repository)"


def outside_label(config: Path) -> str:
    """How artifacts, evidence and notes name a settings file outside the repository: by its
    name, never by a local path no reader has (`--config ci.toml (outside the repository)`)."""
    return f"--config {config.name} {OUTSIDE_REPOSITORY}"


def finding_file(origin: str) -> str | None:
    """The settings file `origin` as a finding's file: None for a file outside the repository
    (no repository path names it; the finding's message does, by `outside_label`)."""
    return None if origin.endswith(OUTSIDE_REPOSITORY) else origin


DEFAULT_POSTGRES_VERSION = 15
DEFAULT_TEMPLATE = "public"
"""What any `{{ ... }}` template left in a migration becomes."""
DEFAULT_SERVER_TIMEZONE = "UTC"
"""The database server's TimeZone, which migrations run with unless they SET it."""


def settings_data(text: str, where: str, table: bool = False) -> tuple[dict[str, Any], str] | None:
    """The settings TOML text holds and where to say they are (from its `[tool.release-safety]`
    table when `table`: None when it has none); bad TOML is bad input naming `where`."""
    import tomllib  # here: a lint without a settings file never loads the TOML parser

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: not valid TOML: {exc}") from exc
    except RecursionError as exc:
        raise InputError(f"{where}: not valid TOML: nested too deeply") from exc
    if not table:
        return data, where
    found = data.get("tool", {}).get(TABLE)
    return None if found is None else (found, f"{where} [tool.{TABLE}]")


# Compiled when first used (`re` keeps it): a lint without a settings file never pays for them.
_HEADER = r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$"
_ASSIGNED = r"^\s*([\w\"'.-][\w\"' .-]*?)\s*="


def _dotted(name: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in name.split("."))


def key_line(text: str, key: Sequence[str | int], table: Sequence[str] = ()) -> int | None:
    """The line of TOML text that sets `key` (a validation error's path, under `table`), or
    the nearest line that sets a table or a key holding it (a list's line for one of its
    items); None when no line does. Found by the `[table]` headers and `name =` lines, which
    is all a settings file's keys are written with."""
    wanted = (*table, *(str(part) for part in key))
    best: tuple[int, int] | None = None  # (how much of the key, line)
    current: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(_HEADER, line)
        if header:
            current = _dotted(header.group(1))
            found = current
        elif (assigned := re.match(_ASSIGNED, line)) is not None:
            found = (*current, *_dotted(assigned.group(1)))
        else:
            continue
        if wanted[: len(found)] == found and (best is None or len(found) > best[0]):
            best = (len(found), number)
    return None if best is None or best[0] <= len(table) else best[1]


def settings_text(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: settings are not UTF-8 text (byte {exc.start})") from exc


def read_settings(path: str | Path) -> str:
    """A settings file's text; an unreadable or non-UTF-8 one is bad input."""
    try:
        data = read_regular(path)
    except OSError as exc:
        raise InputError(f"{path}: cannot read settings: {exc.strerror or exc}") from exc
    return settings_text(data, str(path))


def find_settings(start: str | Path) -> Path | None:
    """The nearest settings file at or above `start`, up to the repository root (the folder
    holding `.git`; only `start` itself outside a repository): `.release-safety.toml`, or a
    `pyproject.toml` with a `[tool.release-safety]` table."""
    folder = os.path.realpath(start)
    last = _git_root(folder) or folder
    for candidate in _upwards(folder):
        if os.path.isfile(settings := os.path.join(candidate, SETTINGS_FILE)):
            return _path(settings)
        pyproject = os.path.join(candidate, PYPROJECT)
        if os.path.isfile(pyproject) and _has_table(pyproject):
            return _path(pyproject)
        if candidate == last:
            break
    return None


def _path(path: str) -> Path:
    from pathlib import Path  # only for a file found

    return Path(path)


def _has_table(pyproject: str) -> bool:
    """Whether a `pyproject.toml` holds a `[tool.release-safety]` table: parsed only when its
    text names the table (`release-safety`, bare or quoted; a key spelled with escapes is not
    looked for), so a Python project's own `pyproject.toml` costs a lint in it no TOML parse
    (a third of a one-file lint's work)."""
    text = read_settings(pyproject)
    return TABLE in text and settings_data(text, pyproject, table=True) is not None


def _upwards(folder: str) -> list[str]:
    """`folder` (absolute) and each folder above it, nearest first (`Path.parents`)."""
    found = [folder]
    while (parent := os.path.dirname(found[-1])) != found[-1]:
        found.append(parent)
    return found


def _git_root(folder: str) -> str | None:
    """The nearest of `folder` (resolved) and the folders above it that holds `.git`."""
    return next((c for c in _upwards(folder) if os.path.exists(os.path.join(c, ".git"))), None)


def repository_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds `.git` (a folder, or a worktree's file)."""
    root = _git_root(str(start.resolve()))
    return None if root is None else _path(root)
