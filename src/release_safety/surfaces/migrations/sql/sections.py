"""The up section of a SQL migration that holds both directions, as the tool that runs it reads it.

goose (`-- +goose Up` / `-- +goose Down`, `-- +goose NO TRANSACTION`), sql-migrate
(`-- +migrate Up [notransaction]` / `-- +migrate Down`) and dbmate (`-- migrate:up
[transaction:false]` / `-- migrate:down`) keep the rollback in the same file, after a marker
line: only the lines of the up section run on an upgrade. A file these tools would refuse (no up
marker, two of them, down before up, statements before up, two tools' markers) raises
ValueError, and so does a goose up section that substitutes environment variables
(`-- +goose ENVSUB ON` with a `${...}`): its statements are only known at run time.
"""

from __future__ import annotations

import re

from release_safety.common.textcase import lower

# A marker line: at the start of a line, `--`, the tool's prefix and one of its commands
# (a comment such as `-- migrate: add users` is not one).
# (compiled when first used, as `_COMMENTS_AND_BLANKS`: `re` keeps them; a file without
# markers never pays for them)
_MARKER = (
    r"(?im)^--[ \t]*(?P<tool>\+goose|\+migrate|migrate:)[ \t]*"
    r"(?P<command>up|down|statementbegin|statementend|no[ \t]+transaction"
    r"|envsubs?t?[ \t]+o(?:n|ff))"
    r"(?P<options>(?:[ \t][^\n]*?)?)\r?$"
)
# What every marker holds, sought first: a search from a literal start is several times faster.
_HINT = re.compile(r"--[ \t]*(?:\+goose|\+migrate|migrate:)", re.IGNORECASE)
_COMMENTS_AND_BLANKS = r"(?:\s*--[^\n]*)*\s*"


def tool_of(text: str) -> str | None:
    """The marker prefix of the tool a file is written for (`+goose`, `+migrate`, `migrate:`
    for dbmate), or None for a file without markers; ValueError for two tools' markers."""
    return _tool(_markers(text))


def _markers(text: str) -> list[re.Match[str]]:
    return list(re.finditer(_MARKER, text)) if _HINT.search(text) is not None else []


def _tool(markers: list[re.Match[str]]) -> str | None:
    tools = {lower(m["tool"]) for m in markers}
    if len(tools) > 1:
        raise ValueError(f"markers of two migration tools ({', '.join(sorted(tools))})")
    return tools.pop() if tools else None


def up_section(text: str) -> tuple[str, bool] | None:
    """`text` with every line outside the up section emptied (lines keep their numbers), and
    whether the tool runs it in one transaction; None for a file without a tool's markers."""
    markers = _markers(text)
    tool = _tool(markers)
    if tool is None:
        return None
    up_line, down_line = (
        f"-- {tool}{'' if tool == 'migrate:' else ' '}{d}" for d in ("up", "down")
    )
    up = down = None
    transactional, envsub = True, False
    for marker in markers:
        command = " ".join(lower(marker["command"]).split())
        line = text.count("\n", 0, marker.start()) + 1
        if command == "up":
            if up is not None or down is not None:
                raise ValueError(f"line {line}: a second or late '{up_line}' line")
            up = marker
            options = lower(marker["options"]).split()
            if "notransaction" in options or "transaction:false" in options:
                transactional = False
        elif command == "down":
            if up is None or down is not None:
                raise ValueError(f"line {line}: '{down_line}' before the up section")
            down = marker
        elif command == "no transaction":
            transactional = False
        elif command.startswith("envsub") and down is None:
            envsub = envsub or command.endswith(" on")
    if up is None:
        raise ValueError(f"no '{up_line}' line: the tool refuses the file")
    if re.compile(_COMMENTS_AND_BLANKS).fullmatch(text, 0, up.start()) is None:
        raise ValueError(f"statements before the '{up_line}' line: the tool refuses the file")
    end = down.start() if down is not None else len(text)
    body = text[up.end() : end]
    if envsub and "${" in body:
        raise ValueError("goose substitutes environment variables into the up section (ENVSUB ON)")
    return "\n" * text.count("\n", 0, up.end()) + body + "\n" * text.count("\n", end), transactional
