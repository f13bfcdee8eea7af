"""Indent the continuation lines of block YAML's multi-line single-quoted scalars deeper, so
rapidyaml reads what PyYAML reads.

PyYAML accepts a quoted scalar whose next line sits at its key's own indent (harbor's swagger:
`description: 'the valid values...` then `If it is set...'` under `description`); the YAML
spec and rapidyaml want it deeper ("bad indentation"). A flow scalar's continuation lines lose
their leading spaces when folded, so deepening them keeps the value. Lines of block scalars
(`|`, `>`) are left as written. Whatever this pass cannot follow line by line (a multi-line
double-quoted scalar or flow collection, an anchor or tag before a quote) gives None: the
caller's PyYAML reads the text then.
"""

from __future__ import annotations

import re

_LINE = re.compile(r"( *)((?:- +)*)(.*)")
# a plain key (no quote or flow start) up to its `:` then a space or the line's end
_PLAIN_KEY = re.compile(
    r"[^\s'\"\[{#&*!|>%@`?:-](?:[^:#\s]|[ \t]+(?=[^\s#])|:(?=\S)|(?<=\S)#)*?:(?: +|$)"
)
_PROPERTY = re.compile(r"[&!]\S*[ \t]*")  # an anchor or tag before a node
_BLOCK_SCALAR = re.compile(r"[|>][0-9+-]*[ \t]*(?:#.*)?$")
_OPENS = re.compile(r"['\"|>\[{]")  # a line without these starts nothing this pass follows
_MARGIN = 2  # continuation lines are put at least this far past their node's column


def _closing(text: str, start: int) -> int:
    """Index just after the single quote closing a scalar whose content starts at `start`,
    or -1 when the line ends first (`''` is a quote inside)."""
    at = start
    while True:
        at = text.find("'", at)
        if at < 0:
            return -1
        if text.startswith("''", at):
            at += 2
            continue
        return at + 1


def deepen_quoted(text: str) -> str | None:
    """The text with every multi-line single-quoted scalar's continuation lines indented past
    its node's column; None when some line is one this pass does not follow."""
    if "\r" in text:
        return None
    lines = text.split("\n")
    changed = False
    block_at = -1  # inside a block scalar: the column its lines must be deeper than
    quote_at = -1  # inside a quoted scalar: the column its lines must reach
    for number, line in enumerate(lines):
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if quote_at >= 0:
            if stripped.strip() and indent < quote_at:
                lines[number] = " " * (quote_at - indent) + line
                changed = True
            end = _closing(line, 0)
            if end < 0:
                continue
            quote_at = -1
            if not _tail_ok(line[end:]):
                return None
            continue
        if block_at >= 0:
            if not stripped.strip() or indent > block_at:
                continue
            block_at = -1
        if not stripped.strip() or stripped.startswith("#") or not _OPENS.search(stripped):
            continue
        match = _LINE.fullmatch(line)
        assert match is not None
        column = len(match[1]) + len(match[2])
        rest = match[3]
        key = _PLAIN_KEY.match(rest)
        if key is not None:
            rest = rest[key.end() :]
        elif rest.startswith("'"):
            end = _closing(rest, 1)
            if end > 0 and re.match(r":(?: +|$)", rest[end:]):
                rest = rest[end:].lstrip(":").lstrip(" ")
        while property_ := _PROPERTY.match(rest):
            rest = rest[property_.end() :]
        if rest.startswith("'"):
            end = _closing(rest, 1)
            if end < 0:
                quote_at = column + _MARGIN
            elif not _tail_ok(rest[end:]):
                return None
        elif _BLOCK_SCALAR.match(rest):
            block_at = len(match[1])
        elif rest[:1] in ('"', "[", "{") and not _one_line(rest):
            return None
    if quote_at >= 0:
        return None
    return "\n".join(lines) if changed else text


def _tail_ok(tail: str) -> bool:
    """What follows a closing quote is nothing, a comment, `:` or a flow separator."""
    return "'" not in tail and '"' not in tail


def _one_line(rest: str) -> bool:
    """A double-quoted scalar or flow collection that closes on its line."""
    if rest.startswith('"'):
        return re.match(r'"(?:[^"\\]|\\.)*"', rest) is not None
    opening, closing = rest[0], "]" if rest[0] == "[" else "}"
    body = re.sub(r"#.*$", "", rest).rstrip()
    return body.endswith(closing) and body.count(opening) == body.count(closing)
