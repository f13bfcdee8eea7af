"""Shell-style variables in text, as POSIX shells and compose write them: `${VAR}`,
`${VAR:-default}`, `${VAR-default}`, `${VAR:=default}`, `${VAR:?error}`, `${VAR:+alternative}`,
`$VAR`, and `$$`; an argument may itself hold variables (`${PG_TAG:-${PG_MAJOR:-15}}`).
Compose files, Dockerfiles and entrypoint scripts are read with it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATOR = re.compile(r":?[-=?+]")


@dataclass(frozen=True)
class Variable:
    """One `${...}` or `$NAME` from `start` to `end` (exclusive), its operator and argument."""

    name: str
    op: str | None
    arg: str
    start: int
    end: int


def _closing(text: str, start: int) -> int | None:
    """The index of the `}` that closes the `${` whose argument starts at `start`."""
    depth = 0
    i = start
    while i < len(text):
        if text.startswith("$$", i):
            i += 2
            continue
        if text.startswith("${", i):
            depth += 1
            i += 2
            continue
        if text[i] == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return None


def scan(text: str) -> Iterator[Variable | int]:
    """The variables of `text` in order; an int is the index of a `$$`."""
    i = 0
    while (i := text.find("$", i)) != -1:
        if text.startswith("$$", i):
            yield i
            i += 2
            continue
        braced = text.startswith("${", i)
        name = _NAME.match(text, i + 2 if braced else i + 1)
        if name is None:
            i += 1
            continue
        if not braced:
            yield Variable(name.group(0), None, "", i, name.end())
            i = name.end()
            continue
        op = _OPERATOR.match(text, name.end())
        arg_start = op.end() if op else name.end()
        close = _closing(text, arg_start)
        if close is None or (op is None and close != name.end()):
            i += 1
            continue
        arg = text[arg_start:close]
        yield Variable(name.group(0), op.group(0) if op else None, arg, i, close + 1)
        i = close + 1
