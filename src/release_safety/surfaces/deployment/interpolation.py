"""Variables in compose files and Dockerfiles: `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
`${VAR:?error}`, `${VAR:+alternative}`, `$VAR`, and `$$` for a literal dollar. A default may
itself hold variables (`${PG_TAG:-${PG_MAJOR:-15}}`), as compose reads it."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATOR = re.compile(r":?[-?+]")


@dataclass(frozen=True)
class _Variable:
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


def _scan(text: str) -> Iterator[_Variable | int]:
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
            yield _Variable(name.group(0), None, "", i, name.end())
            i = name.end()
            continue
        op = _OPERATOR.match(text, name.end())
        arg_start = op.end() if op else name.end()
        close = _closing(text, arg_start)
        if close is None or (op is None and close != name.end()):
            i += 1
            continue
        arg = text[arg_start:close]
        yield _Variable(name.group(0), op.group(0) if op else None, arg, i, close + 1)
        i = close + 1


def interpolate(text: str, values: Mapping[str, str]) -> str:
    """`text` with every variable that has a value (in `values`, else its own default, itself
    interpolated) filled in; the others are kept as written."""
    out: list[str] = []
    last = 0
    for found in _scan(text):
        if isinstance(found, int):
            out += [text[last:found], "$"]
            last = found + 2
            continue
        out.append(text[last : found.start])
        last = found.end
        value = values.get(found.name)
        unset = value is None or (value == "" and found.op in (":-", ":+"))
        if (found.op in ("-", ":-") and unset) or (found.op in ("+", ":+") and not unset):
            out.append(interpolate(found.arg, values))
        elif found.op in ("+", ":+"):
            out.append("" if value is not None else text[found.start : found.end])
        else:
            out.append(value if value is not None else text[found.start : found.end])
    out.append(text[last:])
    return "".join(out)


def needed(text: str, values: Mapping[str, str]) -> Iterator[str]:
    """The variables `text` needs set: no value in `values` and no default of its own (those
    a default holds are needed when the default is used)."""
    for found in _scan(text):
        if isinstance(found, int):
            continue
        if found.name in values:
            continue
        if found.op in (None, "?", ":?"):
            yield found.name
        elif found.op in ("-", ":-"):
            yield from needed(found.arg, values)
