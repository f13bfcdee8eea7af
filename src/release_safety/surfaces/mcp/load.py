"""Read an MCP tool snapshot: `{"schemaVersion": "1", "tools": [...]}` or a `tools/list` result.

Besides the tools, a snapshot keeps the 1-based line of every JSON value (keyed by its JSON
pointer as a tuple), so findings can point at the tool entry or the changed key.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from release_safety.common.jsonio import loads_bounded

Pointer = tuple[str | int, ...]


class SnapshotError(ValueError):
    """The snapshot is not a readable tool list; the message says why."""


@dataclass(frozen=True)
class Tool:
    """One MCP tool as the snapshot declares it."""

    name: str
    index: int
    annotations: dict[str, Any]
    input_schema: dict[str, Any] | bool
    output_schema: dict[str, Any] | bool | None
    deprecated: bool


@dataclass(frozen=True)
class ToolSnapshot:
    """The tools of one snapshot file by name, with the line of each JSON value."""

    path: str
    tools: dict[str, Tool]
    text: str

    @cached_property
    def lines(self) -> dict[Pointer, int]:
        """Computed on first use: most releases never need a line."""
        return _value_lines(self.text)

    def line(self, pointer: Pointer) -> int | None:
        """The line of the deepest known value on `pointer`'s way."""
        for end in range(len(pointer), 0, -1):
            found = self.lines.get(pointer[:end])
            if found is not None:
                return found
        return None


def parse(path: str, data: bytes) -> ToolSnapshot:
    """Parse and validate a snapshot; raises `SnapshotError` naming what is wrong."""
    try:
        text = data.decode("utf-8")
        document = loads_bounded(text)
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"not UTF-8 text ({exc.reason})") from exc
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    except ValueError as exc:
        raise SnapshotError(f"not valid JSON: {exc}") from exc
    if not isinstance(document, dict) or not isinstance(document.get("tools"), list):
        raise SnapshotError("expected an object with a `tools` array")
    version = document.get("schemaVersion")
    if version is not None and version != "1":
        raise SnapshotError(f'unsupported schemaVersion {version!r} (expected "1")')
    tools: dict[str, Tool] = {}
    for index, entry in enumerate(document["tools"]):
        tool = _tool(index, entry)
        if tool.name in tools:
            raise SnapshotError(f"tool `{tool.name}` listed twice")
        tools[tool.name] = tool
    return ToolSnapshot(path=path, tools=tools, text=text)


def _tool(index: int, entry: object) -> Tool:
    where = f"tools[{index}]"
    if not isinstance(entry, dict):
        raise SnapshotError(f"{where}: expected an object")
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise SnapshotError(f"{where}: `name` must be a non-empty string")
    schema = entry.get("inputSchema")
    if not isinstance(schema, dict | bool):
        raise SnapshotError(f"tool `{name}`: `inputSchema` must be a JSON Schema object")
    output = entry.get("outputSchema")
    if output is not None and not isinstance(output, dict | bool):
        raise SnapshotError(f"tool `{name}`: `outputSchema` must be an object or null")
    annotations = entry.get("annotations") or {}
    if not isinstance(annotations, dict):
        raise SnapshotError(f"tool `{name}`: `annotations` must be an object")
    return Tool(
        name=name,
        index=index,
        annotations=annotations,
        input_schema=schema,
        output_schema=output,
        deprecated=_is_deprecated(entry, annotations),
    )


def _is_deprecated(entry: dict[str, Any], annotations: dict[str, Any]) -> bool:
    meta = entry.get("_meta")
    flags = [entry.get("deprecated"), annotations.get("deprecated")]
    if isinstance(meta, dict):
        flags.append(meta.get("deprecated"))
    description = entry.get("description")
    marked = isinstance(description, str) and description.lstrip(" [(").lower().startswith(
        "deprecated"
    )
    return marked or any(flag is True or (isinstance(flag, str) and flag) for flag in flags)


def _value_lines(text: str) -> dict[Pointer, int]:
    """Map every JSON value's pointer to the line where it (or its object key) starts.

    The text is already known to be valid JSON; a document nested beyond the recursion limit
    simply gets no lines (findings then fall back to line 1).
    """
    lines: dict[Pointer, int] = {}
    try:
        _Scanner(text, lines).value(())
    except (RecursionError, IndexError):
        lines.clear()
    return lines


_SPACE = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_SCALAR = re.compile(r"[^ \t\r\n,\]}]*")


class _Scanner:
    def __init__(self, text: str, lines: dict[Pointer, int]) -> None:
        self.text = text
        self.at = 0
        self.line = 1
        self.lines = lines

    def skip(self) -> None:
        end = _SPACE.match(self.text, self.at)
        if end is not None and end.end() > self.at:
            self.line += self.text.count("\n", self.at, end.end())
            self.at = end.end()

    def value(self, pointer: Pointer, line: int | None = None) -> None:
        self.skip()
        self.lines[pointer] = line or self.line
        char = self.text[self.at]
        if char == "{":
            self.members(pointer)
        elif char == "[":
            self.elements(pointer)
        elif char == '"':
            self.string()
        else:
            found = _SCALAR.match(self.text, self.at)
            self.at = found.end() if found is not None else self.at + 1

    def string(self) -> str:
        found = _STRING.match(self.text, self.at)
        if found is None:
            raise IndexError("unterminated string")
        self.at = found.end()
        raw = found.group()
        if "\\" not in raw:
            return raw[1:-1]
        decoded = json.loads(raw)
        return decoded if isinstance(decoded, str) else raw

    def members(self, pointer: Pointer) -> None:
        self.at += 1
        self.skip()
        while self.text[self.at] != "}":
            key_line = self.line
            key = self.string()
            self.skip()
            self.at += 1  # the colon
            self.value((*pointer, key), key_line)
            self.skip()
            if self.text[self.at] == ",":
                self.at += 1
                self.skip()
        self.at += 1

    def elements(self, pointer: Pointer) -> None:
        self.at += 1
        self.skip()
        index = 0
        while self.text[self.at] != "]":
            self.value((*pointer, index))
            index += 1
            self.skip()
            if self.text[self.at] == ",":
                self.at += 1
                self.skip()
        self.at += 1
