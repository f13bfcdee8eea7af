"""The MCP rules: which deltas of a tool break its clients, and the findings they make.

Inputs may widen, never narrow; outputs may narrow, never widen. The deltas come from
`diff.py` (the shared JSON-Schema engine); this catalogue judges them, and
`docs/mcp-rules.md` is generated from it.
"""

from __future__ import annotations

from typing import Any

from release_safety.contract.reports import Finding
from release_safety.surfaces.jsonschema.build import pointer_parts
from release_safety.surfaces.jsonschema.delta import (
    ACCEPTS_FEWER,
    ACCEPTS_MORE,
    CHANGED,
    Delta,
    Kind,
)
from release_safety.surfaces.jsonschema.issues import SPEC_INVALID, token_line
from release_safety.surfaces.jsonschema.judge import DIRECTIONAL, Catalogue, DeltaRule, Neutral
from release_safety.surfaces.mcp.diff import ToolChange, ToolIssue, ToolKind, diff_snapshots
from release_safety.surfaces.mcp.load import Pointer, ToolSnapshot

D = Delta[Any]


def _where(d: D) -> str:
    """`input `filters.op``, `output schema`, `input #/$defs/Q `name``."""
    side = "input" if d.direction == "request" else "output"
    origin = f" {d.origin}" if d.origin else ""
    return f"{side}{origin} `{d.at}`" if d.at else f"{side}{origin or ' schema'}"


def _values(values: list[Any]) -> str:
    return ", ".join(f"`{v}`" for v in values)


def _enum(d: D) -> str:
    values = d.before if d.kind is Kind.ENUM_VALUE_REMOVED else d.after
    noun = "enum value" if len(values) == 1 else "enum values"
    verb = "removed" if d.kind is Kind.ENUM_VALUE_REMOVED else "added"
    return f"{noun} {_values(values)} {verb}"


def _types(value: Any) -> str:
    return "any" if value is None else " | ".join(sorted(value)) or "nothing"


def _bound(d: D) -> str:
    keyword, was, now = d.before[0], d.before[1], d.after[1]
    if was == "none":
        return f"{keyword} {now} added"
    if now == "none":
        return f"{keyword} {was} removed"
    return f"{keyword} changed {was} → {now}"


def _text(d: D) -> str:
    """What a schema delta says, after where it is."""
    kind = d.kind
    texts: dict[Any, str] = {
        Kind.PROPERTY_REMOVED: "removed",
        Kind.TUPLE_ITEM_REMOVED: "removed",
        Kind.PROPERTY_BECAME_REQUIRED: "became required",
        Kind.PROPERTY_BECAME_OPTIONAL: "became optional",
        Kind.NULLABLE_ADDED: "now accepts null",
        Kind.NULLABLE_REMOVED: "no longer accepts null",
        Kind.ADDITIONAL_PROPERTIES_DISALLOWED: "no longer accepts additional properties",
        Kind.ADDITIONAL_PROPERTIES_ALLOWED: "now allows additional properties",
        Kind.PROPERTY_DEPRECATED: "deprecated",
    }
    if kind in texts:
        return texts[kind]
    if kind is Kind.PROPERTY_ADDED:
        return "added as required"
    if kind in (Kind.TYPE_WIDENED, Kind.TYPE_NARROWED, Kind.TYPE_CHANGED):
        return f"type changed {_types(d.before)} → {_types(d.after)}"
    if kind in (Kind.ENUM_VALUE_ADDED, Kind.ENUM_VALUE_REMOVED):
        return _enum(d)
    if kind is Kind.ENUM_SET:
        return f"restricted to {_values(d.after) or 'null'}"
    if kind is Kind.ENUM_UNSET:
        return f"no longer restricted to {_values(d.before)}"
    if kind in (Kind.BOUND_TIGHTENED, Kind.BOUND_LOOSENED):
        return _bound(d)
    if kind.value.startswith(("pattern-", "format-")):
        keyword = kind.value.split("-")[0]
        return f"{keyword} changed `{d.before}` → `{d.after}`".replace("`None`", "none")
    if kind is Kind.DEPENDENT_REQUIRED_ADDED:
        return f"now requires {_values(d.after)}"
    if kind is Kind.DEPENDENT_REQUIRED_REMOVED:
        return f"no longer requires {_values(d.before)}"
    if kind is Kind.BRANCH_ADDED:
        return f"may now be the `{d.after}` variant"
    if kind is Kind.BRANCH_REMOVED:
        return f"no longer accepts the `{d.before}` variant"
    if kind is Kind.KEYWORD_NOT_COMPARED:
        return f"not compared: `{d.before[0]}` changed"
    return f"discriminator changed ({kind.value})"


def _say(d: D) -> str:
    return f"{_where(d)} {_text(d)}"


def _required(d: D) -> bool:
    return d.kind is not Kind.PROPERTY_ADDED or bool(d.after.required)


_REQUIRES = (Kind.PROPERTY_BECAME_REQUIRED, Kind.DEPENDENT_REQUIRED_ADDED)

RULES = [
    DeltaRule(
        "mcp-tool-removed",
        "breaking",
        "operation",
        (ToolKind.TOOL_REMOVED,),
        "An MCP tool was removed",
        "Agents and clients built against the previous release call the tool by name.",
        "`run_sql` is no longer listed by tools/list.",
        "Keep the tool (deprecated) for a release, then remove it.",
        lambda d: "removed",
    ),
    DeltaRule(
        "mcp-input-removed",
        "breaking",
        "request",
        (Kind.PROPERTY_REMOVED, Kind.TUPLE_ITEM_REMOVED),
        "A tool input was removed",
        "Clients still send it; a closed schema rejects it and an open one silently drops it.",
        "`run_sql` no longer declares `limit`.",
        "Keep accepting the input (ignored, deprecated) until clients stop sending it.",
        _say,
    ),
    DeltaRule(
        "mcp-input-required",
        "breaking",
        "request",
        (Kind.PROPERTY_ADDED, *_REQUIRES),
        "A tool input became required, or a new required input was added",
        "Calls from the previous clients do not send it and are rejected.",
        '`"required": ["sql"]` becomes `["sql", "limit"]`.',
        "Add the input as optional with a server-side default.",
        _say,
        _required,
    ),
    DeltaRule(
        "mcp-input-narrowed",
        "breaking",
        "request",
        (*(k for k in ACCEPTS_FEWER if k not in _REQUIRES), *CHANGED),
        "A tool input accepts fewer values",
        "A narrower type, a removed enum value or branch, a tighter pattern, format, length or"
        " range, or `additionalProperties: false` rejects calls that used to be valid.",
        "`limit` goes from `integer` to `string`, or `maxLength` from 100 to 50.",
        "Only widen inputs: add types, enum values, looser bounds.",
        _say,
    ),
    DeltaRule(
        "mcp-input-default-changed",
        "advisory",
        "request",
        (Kind.DEFAULT_CHANGED,),
        "A tool input's default changed",
        "Calls that leave the input out now behave differently.",
        '`"default": 100` becomes `"default": 1000` on `limit`.',
        "Keep the default; announce a change in the tool description.",
        lambda d: f"{_where(d)} default changed {d.before} → {d.after}",
    ),
    DeltaRule(
        "mcp-output-schema-added",
        "breaking",
        "response",
        (ToolKind.OUTPUT_SCHEMA_ADDED,),
        "A tool gained an outputSchema",
        "With an outputSchema, results must carry conforming structured content and clients"
        " validate it; clients of the previous release read unstructured text.",
        '`"outputSchema": null` becomes `{"type": "object", ...}`.',
        "Publish a new tool with the structured output and deprecate the old one.",
        lambda d: "outputSchema added",
    ),
    DeltaRule(
        "mcp-output-removed",
        "breaking",
        "response",
        (Kind.PROPERTY_REMOVED, Kind.TUPLE_ITEM_REMOVED),
        "A tool output field was removed",
        "Clients of the previous release read the field, required or not.",
        "`rows[].id` disappears from the outputSchema.",
        "Mark the field `deprecated: true` for a release, then remove it.",
        _say,
        lambda d: d.kind is Kind.TUPLE_ITEM_REMOVED or not d.before.deprecated,
    ),
    DeltaRule(
        "mcp-deprecated-output-removed",
        "advisory",
        "response",
        (Kind.PROPERTY_REMOVED,),
        "A deprecated tool output field was removed",
        "The previous release marked it `deprecated: true`: deprecate, then remove.",
        "`rows[].legacy_id`, deprecated in the previous release, disappears.",
        "Nothing more to do; say what replaced it in the release notes.",
        _say,
        lambda d: bool(d.before.deprecated),
    ),
    DeltaRule(
        "mcp-output-widened",
        "breaking",
        "response",
        (*ACCEPTS_MORE, *CHANGED, ToolKind.OUTPUT_SCHEMA_REMOVED),
        "A tool output may hold values clients never saw",
        "A new type, enum value or branch, a looser bound, pattern or format, a field turned"
        " optional, or the outputSchema dropped reaches clients written against the previous"
        " promise.",
        "`status` enum gains `archived`; `count` goes from integer to `integer | null`.",
        "Add a new field or tool for the new values; keep the old promise.",
        lambda d: (
            "outputSchema removed (structured output no longer promised)"
            if d.kind is ToolKind.OUTPUT_SCHEMA_REMOVED
            else _say(d)
        ),
    ),
    DeltaRule(
        "mcp-schema-not-compared",
        "unknown",
        "any",
        (Kind.KEYWORD_NOT_COMPARED, ToolKind.SCHEMA_NOT_COMPARED),
        "A schema change could not be reasoned about",
        "A non-local or broken `$ref`, a schema nested too deeply, or a changed keyword such as"
        " `not`, `if` or `patternProperties` cannot be proven compatible.",
        '`{"$ref": "https://example.com/schema.json"}`',
        "Inline the schema with local `$defs`, or declare the break if it is one.",
        lambda d: (
            f"{_where(d)} not compared: {d.after}"
            if d.kind is ToolKind.SCHEMA_NOT_COMPARED
            else _say(d)
        ),
    ),
    DeltaRule(
        "mcp-annotation-less-safe",
        "advisory",
        "operation",
        (ToolKind.ANNOTATION_LESS_SAFE,),
        "A tool's annotations turned less safe",
        "Clients use readOnlyHint, destructiveHint, idempotentHint and openWorldHint to decide"
        " what to run without asking; the tool now claims fewer guarantees.",
        "`readOnlyHint` true → false, `destructiveHint` false → true.",
        "Say so in the release notes; clients may start to ask for confirmation.",
        lambda d: f"annotation `{d.place}` {str(d.before).lower()} → {str(d.after).lower()}",
    ),
    DeltaRule(
        "mcp-deprecated",
        "advisory",
        "any",
        (ToolKind.TOOL_DEPRECATED, Kind.PROPERTY_DEPRECATED),
        "A tool or an input was deprecated",
        "Clients should move away before it is removed in a later release.",
        '`"deprecated": true` on the tool or on a property.',
        "Keep it working for at least one release after the deprecation.",
        lambda d: "deprecated" if d.kind is ToolKind.TOOL_DEPRECATED else _say(d),
    ),
]

NEUTRAL = [
    *DIRECTIONAL,
    Neutral(
        "request",
        (Kind.PROPERTY_ADDED,),
        "An optional input added: clients that leave it out still call the tool.",
        lambda d: not d.after.required,
    ),
    Neutral(
        "response",
        (Kind.PROPERTY_ADDED, Kind.DEFAULT_CHANGED),
        "A new output field is ignored by clients that do not know it; an output's default"
        " describes nothing a client sends.",
    ),
]

WAYS_OUT = {
    "mcp-tool-removed": "Restore {subject}, its description saying it is deprecated, for a "
    "release; then remove it.",
    "mcp-input-removed": "Keep accepting {subject} (ignored, deprecated) until clients stop "
    "sending it.",
    "mcp-input-required": "Make {subject} optional, with a server-side default.",
    "mcp-input-narrowed": "Only widen {subject}: add types, enum values, looser bounds.",
    "mcp-output-schema-added": "Publish the structured output as a new tool beside {subject} "
    "and deprecate the old one.",
    "mcp-output-removed": "Keep returning {subject}, marked `deprecated: true` for a release, "
    "then remove it.",
    "mcp-output-widened": "Keep the promise of {subject}; add a new field or tool for the new "
    "values.",
    "mcp-schema-not-compared": "Inline the schema of {subject} with local `$defs`, or declare "
    "the break (`release-safety: breaking <reason>` beside it) if it is one.",
    "mcp-deprecated": "Keep {subject} working for at least one release after the deprecation.",
    "delta-not-judged": "If the change to {subject} breaks clients, declare it "
    "(`release-safety: breaking <reason>` beside it); if not, the rule catalogue needs an entry "
    "for this kind of change (report it), until then the release stays unknown.",
}
"""The way out of each breaking or unknown rule, for the case's `{subject}`."""

CATALOGUE = Catalogue("mcp", RULES, NEUTRAL, WAYS_OUT)
EXTRA = (SPEC_INVALID,)


def diff_tools(old: ToolSnapshot, new: ToolSnapshot) -> list[Finding]:
    """Findings for every tool of the old snapshot against the new one."""
    changes, issues = diff_snapshots(old, new)
    found: dict[tuple[str, str], Finding] = {}
    for change in changes:
        rule = CATALOGUE.judge(change.delta)
        if rule is not None:
            finding = _finding(change, rule, old, new)
            found.setdefault((finding.rule, finding.message), finding)
    out = list(found.values())
    return out + [_spec_invalid(issue, new) for issue in issues]


def _finding(change: ToolChange, rule: DeltaRule, old: ToolSnapshot, new: ToolSnapshot) -> Finding:
    tool, delta = change.tool, change.delta
    removed = delta.kind is ToolKind.TOOL_REMOVED
    snapshot = old if removed else new
    base: Pointer = ("tools", tool.index)
    pointer: Pointer = base
    if change.side is not None:
        origin = pointer_parts(delta.origin or "")
        pointer = (*base, change.side, *origin, *_schema_path(delta), *_keyword(delta))
    name = f"MCP tool `{tool.name}`"
    message = f"{name} removed" if removed else f"{name}: {rule.say(delta)}"
    side = f"the {change.side} of {name}" if change.side is not None else name
    subject = f"`{delta.at}` of {side}" if delta.at else side
    return CATALOGUE.finding(rule, message, snapshot.path, snapshot.line(pointer) or 1, subject)


def _schema_path(delta: D) -> Pointer:
    """The JSON pointer of a delta's path inside its schema (draft-07 form)."""
    out: list[str | int] = []
    for part in delta.path:
        if part == "[]":
            out.append("items")
        elif part == "*":
            out.append("additionalProperties")
        elif part == "{keys}":
            out.append("propertyNames")
        elif part.startswith("[") and part[1:-1].isdigit():
            out += ["items", int(part[1:-1])]
        else:
            out += ["properties", part]
    return tuple(out)


def _keyword(delta: D) -> Pointer:
    """The keyword a delta is about, when it is one key (the finding's line is that key's)."""
    if delta.kind in (Kind.BOUND_TIGHTENED, Kind.BOUND_LOOSENED):
        return (delta.before[0],)
    head = delta.kind.value.split("-")[0]
    return (head,) if head in ("type", "enum", "format", "pattern", "default") else ()


def _spec_invalid(found: ToolIssue, new: ToolSnapshot) -> Finding:
    issue = found.issue
    pointer: Pointer = ("tools", found.tool.index, found.side, *pointer_parts(issue.owner))
    line = token_line(new.text, new.line(pointer) or 1, issue.token)
    side = "input" if found.side == "inputSchema" else "output"
    owner = f" {issue.owner}" if issue.owner != "#" else ""
    message = f"MCP tool `{found.tool.name}`: {side}{owner} {issue.message}"
    return SPEC_INVALID.finding("mcp", message, new.path, line)


_INTRO = """
Generated from `src/release_safety/surfaces/mcp/rules.py` (`tests/surfaces/mcp/test_mcp_docs.py`
keeps it in sync). The surface reads the committed MCP tool snapshot at both refs (the first of
`[mcp] snapshots` present, default `mcp-tools.json`): the source service's `{"schemaVersion": "1",
"tools": [...]}` or a plain `tools/list` result `{"tools": [...]}`. Tools are compared by name.
Breaking findings make `api.mcp.breaking` true; advisories never change the verdict; an "unknown"
finding makes it unknown.

**Inputs may widen, never narrow; outputs may narrow, never widen.** For `inputSchema`, the new
schema must accept every value the old one accepted; for `outputSchema`, the new schema may
promise nothing the old one did not. A property removed breaks both ways (clients send it, or
read it), except an output property the previous release marked `deprecated: true`.
Description, title, `examples` and `$comment` edits report nothing.

Tool schemas are normalised and compared by the engine the REST surface uses
(`surfaces/jsonschema/`), so the two surfaces know the same JSON Schema: `type` (a string or a
list; `integer` is a subset of `number`; `null` in it, `nullable` and a `{type: null}` branch
are one thing), `properties` to any depth, `required` (also for names without a property),
`dependentRequired`, `additionalProperties` / `unevaluatedProperties`, `propertyNames` (a
schema of the keys, `a.{keys}`), `items`, `prefixItems`
and draft-07 tuples, `uniqueItems`, `enum`, `const` and open enums (`x-extensible-enum`),
`pattern`, `format`, `multipleOf`, every length, size and range bound (draft-04 and 2020-12
exclusive bounds alike), `default`, `readOnly` / `writeOnly`, `deprecated`, local `$ref`
(`#/$defs/X`, `#/definitions/X`, any `#/` pointer; siblings merged; cycles kept), `allOf`
(merged), `anyOf` / `oneOf` (branches matched by what names them: a `type` tag, the `$ref`
they came from, else their type; a renamed or regrouped branch is no change) and OpenAPI's
`discriminator`. A schema reached from several places (`#/$defs/X`) is compared once and
reported once, in its own name: ``MCP tool `x`: input #/$defs/Filter `op` enum value `b`
removed``. Every kind of change the diff reports is judged by a rule below or listed as
neutral on purpose (last table); one that is neither is `delta-not-judged`, unknown.

Fail closed: a non-local or unresolvable `$ref`, a schema nested too deeply, or a changed
keyword the comparison does not reason about (`not`, `if`/`then`/`else`, `patternProperties`,
`dependencies`, `dependentSchemas`, `contains`, `unevaluatedItems` ...) is
`mcp-schema-not-compared`, of severity unknown. Spec errors are not contract changes: a `type`
that is not a JSON Schema type (`int`), a key that is not a keyword (`min`), a non-numeric
bound leaves that element unconstrained and uncompared in that version; each one the new
snapshot brings is a `spec-invalid` advisory.

Messages: ``MCP tool `run_sql`: input `limit` type changed integer → string``,
``MCP tool `name` removed``, ``MCP tool `x`: output `rows[].id` removed``. Paths read `a.b`
for nested properties, `a[]` for array items, `a[0]` for tuple items, `a.*` for additional
properties; the schema's root is `input schema` / `output schema`. `file` is the snapshot path
and `line` the line of the changed key in the new snapshot (the tool's entry when the key is
gone; the old snapshot's entry for a removed tool).

Snapshot states: absent at both refs, or only at the new ref (a first snapshot): checked, no
findings. Present at the old ref and absent at the new, not UTF-8, not JSON, no `tools` array,
a `schemaVersion` other than "1", a tool without a name or an object `inputSchema`, a name
listed twice: not checked, with the reason and the path.
"""


def render_docs() -> str:
    """The Markdown page of the catalogue (`docs/mcp-rules.md`)."""
    return CATALOGUE.render("MCP rules", _INTRO, EXTRA)
