"""Tool-by-tool diff of two MCP snapshots: typed deltas and the spec errors a revision brings.

Tool schemas are built and compared by the engine the REST surface uses
(`surfaces/jsonschema/`): a tool's input is what clients send (a request), its output what
they read (a response). Identical schemas (canonical JSON) are not built at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from release_safety.surfaces.jsonschema.build import SchemaBuilder
from release_safety.surfaces.jsonschema.delta import Delta, Direction, Kind
from release_safety.surfaces.jsonschema.diff import SchemaDiffer
from release_safety.surfaces.jsonschema.issues import SpecError, SpecIssue
from release_safety.surfaces.jsonschema.model import canonical
from release_safety.surfaces.mcp.load import Tool, ToolSnapshot

Side = Literal["inputSchema", "outputSchema"]
_DIRECTIONS: dict[Side, Direction] = {"inputSchema": "request", "outputSchema": "response"}
_PLACES: dict[Side, str] = {"inputSchema": "input", "outputSchema": "output"}
# Hint name, the safe value, and the MCP default when the hint is absent.
_HINTS: tuple[tuple[str, bool, bool], ...] = (
    ("readOnlyHint", True, False),
    ("destructiveHint", False, True),
    ("idempotentHint", True, False),
    ("openWorldHint", False, True),
)


class ToolKind(Enum):
    """What changed in a tool outside its schemas, or why a schema was not compared."""

    TOOL_REMOVED = "tool-removed"
    TOOL_DEPRECATED = "tool-deprecated"
    OUTPUT_SCHEMA_ADDED = "output-schema-added"
    OUTPUT_SCHEMA_REMOVED = "output-schema-removed"
    ANNOTATION_LESS_SAFE = "annotation-less-safe"
    SCHEMA_NOT_COMPARED = "schema-not-compared"


McpDelta = Delta[Kind | ToolKind]


@dataclass(frozen=True)
class ToolChange:
    """A delta of one tool (the old tool when it was removed); `side` names its schema."""

    tool: Tool
    delta: McpDelta
    side: Side | None = None


@dataclass(frozen=True)
class ToolIssue:
    """A spec error in a tool's schema that the old snapshot's tool did not have."""

    tool: Tool
    side: Side
    issue: SpecIssue


def diff_snapshots(
    old: ToolSnapshot, new: ToolSnapshot
) -> tuple[list[ToolChange], list[ToolIssue]]:
    """The changes of every tool of the old snapshot, and the spec errors the new one brings."""
    changes: list[ToolChange] = []
    issues: list[ToolIssue] = []
    for name in sorted(old.tools):
        before, after = old.tools[name], new.tools.get(name)
        if after is None:
            changes.append(ToolChange(before, _delta(ToolKind.TOOL_REMOVED, "operation", "tool")))
            continue
        _schemas(after, "inputSchema", before.input_schema, after.input_schema, changes, issues)
        _schemas(after, "outputSchema", before.output_schema, after.output_schema, changes, issues)
        for hint, safe, default in _HINTS:
            was, now = (
                _hint(before.annotations, hint, default),
                _hint(after.annotations, hint, default),
            )
            if was == safe and now != safe:
                delta = _delta(ToolKind.ANNOTATION_LESS_SAFE, "operation", hint, was, now)
                changes.append(ToolChange(after, delta))
        if after.deprecated and not before.deprecated:
            changes.append(ToolChange(after, _delta(ToolKind.TOOL_DEPRECATED, "operation", "tool")))
    return changes, issues


def _delta(
    kind: ToolKind, direction: Direction, place: str, before: Any = None, after: Any = None
) -> McpDelta:
    return Delta(kind, direction, place, None, (), before, after)


def _hint(annotations: dict[str, Any], name: str, default: bool) -> bool:
    value = annotations.get(name)
    return value if isinstance(value, bool) else default


def _schemas(
    tool: Tool,
    side: Side,
    old: Any,
    new: Any,
    changes: list[ToolChange],
    issues: list[ToolIssue],
) -> None:
    """The deltas of one schema of a tool (a missing output schema is `None`)."""
    direction, place = _DIRECTIONS[side], _PLACES[side]
    if old is None or new is None:
        if old is not new:
            kind = ToolKind.OUTPUT_SCHEMA_ADDED if old is None else ToolKind.OUTPUT_SCHEMA_REMOVED
            changes.append(ToolChange(tool, _delta(kind, direction, place), side))
        return
    if canonical(old) == canonical(new):
        return
    try:
        builders = SchemaBuilder(old), SchemaBuilder(new)
        before, after = (b.schema(b.root) for b in builders)
        deltas = SchemaDiffer().compare(before, after, direction, place)
    except (SpecError, RecursionError) as exc:
        reason = str(exc) if isinstance(exc, SpecError) else "nested too deeply"
        delta = _delta(ToolKind.SCHEMA_NOT_COMPARED, direction, place, None, reason)
        changes.append(ToolChange(tool, delta, side))
        return
    changes += [ToolChange(tool, d, side) for d in deltas]
    brought = builders[1].all_issues() - builders[0].all_issues()
    issues += [ToolIssue(tool, side, issue) for issue in sorted(brought)]
