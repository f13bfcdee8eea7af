"""The MCP rules: data in the catalogue, and the tool-by-tool diff that applies them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from release_safety.findings import Finding, Rule, Severity, register
from release_safety.surfaces.mcp.load import Pointer, Tool, ToolSnapshot
from release_safety.surfaces.mcp.schema import Change, Direction, compare

TOOL_REMOVED = register(
    Rule(
        id="mcp-tool-removed",
        surface="mcp",
        severity="breaking",
        title="An MCP tool was removed",
        why="Agents and clients built against the previous release call the tool by name.",
        unsafe="`run_sql` is no longer listed by tools/list.",
        safe="Keep the tool (deprecated) for a release, then remove it.",
    )
)
INPUT_REMOVED = register(
    Rule(
        id="mcp-input-removed",
        surface="mcp",
        severity="breaking",
        title="A tool input was removed",
        why="Clients still send it; a closed schema rejects it and an open one silently drops it.",
        unsafe="`run_sql` no longer declares `limit`.",
        safe="Keep accepting the input (ignored, deprecated) until clients stop sending it.",
    )
)
INPUT_REQUIRED = register(
    Rule(
        id="mcp-input-required",
        surface="mcp",
        severity="breaking",
        title="A tool input became required, or a new required input was added",
        why="Calls from the previous clients do not send it and are rejected.",
        unsafe='`"required": ["sql"]` becomes `["sql", "limit"]`.',
        safe="Add the input as optional with a server-side default.",
    )
)
INPUT_NARROWED = register(
    Rule(
        id="mcp-input-narrowed",
        surface="mcp",
        severity="breaking",
        title="A tool input accepts fewer values",
        why=(
            "A narrower type, a removed enum value, a tighter pattern, length or range, or "
            "`additionalProperties: false` rejects calls that used to be valid."
        ),
        unsafe="`limit` goes from `integer` to `string`, or `maxLength` from 100 to 50.",
        safe="Only widen inputs: add types, enum values, looser bounds.",
    )
)
OUTPUT_SCHEMA_ADDED = register(
    Rule(
        id="mcp-output-schema-added",
        surface="mcp",
        severity="breaking",
        title="A tool gained an outputSchema",
        why=(
            "With an outputSchema, results must carry conforming structured content and "
            "clients validate it; clients of the previous release read unstructured text."
        ),
        unsafe='`"outputSchema": null` becomes `{"type": "object", ...}`.',
        safe="Publish a new tool with the structured output and deprecate the old one.",
    )
)
OUTPUT_REMOVED = register(
    Rule(
        id="mcp-output-removed",
        surface="mcp",
        severity="breaking",
        title="A tool output field was removed",
        why="Clients of the previous release read the field.",
        unsafe="`rows[].id` disappears from the outputSchema.",
        safe="Keep returning the field (deprecated) for a release.",
    )
)
OUTPUT_WIDENED = register(
    Rule(
        id="mcp-output-widened",
        surface="mcp",
        severity="breaking",
        title="A tool output may hold values clients never saw",
        why=(
            "A new type or enum value, a looser bound, or a field turned optional reaches "
            "clients written against the previous promise."
        ),
        unsafe="`status` enum gains `archived`; `count` goes from integer to `integer | null`.",
        safe="Add a new field or tool for the new values; keep the old promise.",
    )
)
SCHEMA_NOT_COMPARED = register(
    Rule(
        id="mcp-schema-not-compared",
        surface="mcp",
        severity="unknown",
        title="A schema change could not be reasoned about",
        why=(
            "A non-local or broken `$ref`, or a changed keyword such as `not`, `if` or "
            "`patternProperties`, cannot be proven compatible."
        ),
        unsafe='`{"$ref": "https://example.com/schema.json"}`',
        safe="Inline the schema with local `$defs`, or declare the break if it is one.",
    )
)
ANNOTATION_LESS_SAFE = register(
    Rule(
        id="mcp-annotation-less-safe",
        surface="mcp",
        severity="advisory",
        title="A tool's annotations turned less safe",
        why=(
            "Clients use readOnlyHint, destructiveHint, idempotentHint and openWorldHint to "
            "decide what to run without asking; the tool now claims fewer guarantees."
        ),
        unsafe="`readOnlyHint` true → false, `destructiveHint` false → true.",
        safe="Say so in the release notes; clients may start to ask for confirmation.",
    )
)
DEPRECATED = register(
    Rule(
        id="mcp-deprecated",
        surface="mcp",
        severity="advisory",
        title="A tool or an input was deprecated",
        why="Clients should move away before it is removed in a later release.",
        unsafe='`"deprecated": true` on the tool or on a property.',
        safe="Keep it working for at least one release after the deprecation.",
    )
)

# Hint name, the safe value, and the MCP default when the hint is absent.
_HINTS: tuple[tuple[str, bool, bool], ...] = (
    ("readOnlyHint", True, False),
    ("destructiveHint", False, True),
    ("idempotentHint", True, False),
    ("openWorldHint", False, True),
)


def diff_tools(old: ToolSnapshot, new: ToolSnapshot) -> list[Finding]:
    """Findings for every tool of the old snapshot against the new one."""
    findings: list[Finding] = []
    for name in sorted(old.tools):
        before = old.tools[name]
        after = new.tools.get(name)
        if after is None:
            line = old.line(("tools", before.index)) or 1
            findings.append(_finding(TOOL_REMOVED, f"MCP tool `{name}` removed", old.path, line))
            continue
        findings += _diff_tool(before, after, new)
    return findings


def _diff_tool(old: Tool, new: Tool, snapshot: ToolSnapshot) -> list[Finding]:
    base: Pointer = ("tools", new.index)
    tool_line = snapshot.line(base) or 1
    prefix = f"MCP tool `{new.name}`"
    findings: list[Finding] = []

    def add(rule: Rule, text: str, pointer: Pointer = ()) -> None:
        line = snapshot.line((*base, *pointer)) or tool_line
        findings.append(_finding(rule, f"{prefix}: {text}", snapshot.path, line))

    _schema_findings(old.input_schema, new.input_schema, "input", add)
    if old.output_schema is None and new.output_schema is not None:
        add(OUTPUT_SCHEMA_ADDED, "outputSchema added", ("outputSchema",))
    elif old.output_schema is not None and new.output_schema is None:
        add(OUTPUT_WIDENED, "outputSchema removed (structured output no longer promised)")
    elif old.output_schema is not None:
        _schema_findings(old.output_schema, new.output_schema, "output", add)
    for hint, safe, default in _HINTS:
        before = _hint(old.annotations, hint, default)
        after = _hint(new.annotations, hint, default)
        if before == safe and after != safe:
            text = f"annotation `{hint}` {_word(before)} → {_word(after)}"
            add(ANNOTATION_LESS_SAFE, text, ("annotations", hint))
    if new.deprecated and not old.deprecated:
        add(DEPRECATED, "deprecated")
    return findings


def _schema_findings(
    old: Any, new: Any, side: Direction, add: Callable[[Rule, str, Pointer], None]
) -> None:
    pointer_base: Pointer = ("inputSchema",) if side == "input" else ("outputSchema",)
    try:
        changes = compare(old, new, side)
    except RecursionError:
        add(SCHEMA_NOT_COMPARED, f"{side} schema not compared: nested too deeply", pointer_base)
        return
    for change in changes:
        add(_rule_for(change, side), _text(change, side), (*pointer_base, *change.pointer))


def _rule_for(change: Change, side: Direction) -> Rule:
    if change.kind == "unknown":
        return SCHEMA_NOT_COMPARED
    if change.kind == "deprecated":
        return DEPRECATED
    if side == "input":
        return {"removed": INPUT_REMOVED, "required": INPUT_REQUIRED}.get(
            change.kind, INPUT_NARROWED
        )
    return OUTPUT_REMOVED if change.kind == "removed" else OUTPUT_WIDENED


def _text(change: Change, side: Direction) -> str:
    if change.loc:
        return f"{side} `{change.loc}` {change.text}"
    return f"{side} schema {change.text}"


def _hint(annotations: dict[str, Any], name: str, default: bool) -> bool:
    value = annotations.get(name)
    return value if isinstance(value, bool) else default


def _word(value: bool) -> str:
    return "true" if value else "false"


def _finding(rule: Rule, message: str, file: str, line: int) -> Finding:
    severity: Severity = rule.severity
    return Finding(
        rule=rule.id,
        severity=severity,
        surface="mcp",
        file=file,
        line=line,
        message=message,
        hint=rule.safe,
    )
