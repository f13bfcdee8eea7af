"""Every MCP rule in both directions, on real git repositories with two release tags."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from release_safety.gitrepo import GitSnapshot
from release_safety.settings import McpSettings, Settings
from release_safety.surfaces.mcp import _parse, analyse
from release_safety.surfaces.mcp.load import ToolSnapshot

Files = dict[str, str | None]
Pair = Callable[[Files, Files], tuple[GitSnapshot, GitSnapshot]]

PATH = "mcp-tools.json"


def obj(required: tuple[str, ...] = (), **props: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = list(required)
    return schema


def tool(schema: dict[str, Any] | None = None, name: str = "run_sql", **extra: Any) -> dict:
    return {"name": name, "inputSchema": schema or obj(), "outputSchema": None, **extra}


def snapshot(*tools: dict[str, Any]) -> str:
    body = {"schemaVersion": "1", "tools": sorted(tools, key=lambda t: t["name"])}
    return json.dumps(body, indent=2, sort_keys=True) + "\n"


INT = {"type": "integer"}
STR = {"type": "string"}

# (case id, old tool, new tool, expected (rule, message) pairs)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], list[tuple[str, str]]]] = [
    (
        "input-removed",
        tool(obj(sql=STR, limit=INT)),
        tool(obj(sql=STR)),
        [("mcp-input-removed", "MCP tool `run_sql`: input `limit` removed")],
    ),
    ("input-added-optional", tool(obj(sql=STR)), tool(obj(sql=STR, limit=INT)), []),
    (
        "input-added-required",
        tool(obj(sql=STR)),
        tool(obj(("limit",), sql=STR, limit=INT)),
        [("mcp-input-required", "MCP tool `run_sql`: input `limit` added as required")],
    ),
    (
        "input-became-required",
        tool(obj(sql=STR, limit=INT)),
        tool(obj(("limit",), sql=STR, limit=INT)),
        [("mcp-input-required", "MCP tool `run_sql`: input `limit` became required")],
    ),
    ("input-became-optional", tool(obj(("limit",), limit=INT)), tool(obj(limit=INT)), []),
    (
        "input-type-narrowed",
        tool(obj(limit=INT)),
        tool(obj(limit=STR)),
        [("mcp-input-narrowed", "MCP tool `run_sql`: input `limit` type changed integer → string")],
    ),
    ("input-type-widened", tool(obj(limit=INT)), tool(obj(limit={"type": "number"})), []),
    (
        "input-nullable-added",
        tool(obj(limit=INT)),
        tool(obj(limit={"type": ["integer", "null"]})),
        [],
    ),
    (
        "input-enum-value-removed",
        tool(obj(mode={"enum": ["a", "b"]})),
        tool(obj(mode={"enum": ["a"]})),
        [("mcp-input-narrowed", "MCP tool `run_sql`: input `mode` enum value `b` removed")],
    ),
    (
        "input-enum-value-added",
        tool(obj(mode={"enum": ["a"]})),
        tool(obj(mode={"enum": ["a", "b"]})),
        [],
    ),
    (
        "input-pattern-tightened",
        tool(obj(code={"type": "string", "pattern": "^[a-z]+$"})),
        tool(obj(code={"type": "string", "pattern": "^[a-z]{3}$"})),
        [
            (
                "mcp-input-narrowed",
                "MCP tool `run_sql`: input `code` pattern changed `^[a-z]+$` → `^[a-z]{3}$`",
            )
        ],
    ),
    (
        "input-pattern-dropped",
        tool(obj(code={"type": "string", "pattern": "^[a-z]+$"})),
        tool(obj(code=STR)),
        [],
    ),
    (
        "input-max-length-tightened",
        tool(obj(sql={"type": "string", "maxLength": 100})),
        tool(obj(sql={"type": "string", "maxLength": 50})),
        [("mcp-input-narrowed", "MCP tool `run_sql`: input `sql` maxLength changed 100 → 50")],
    ),
    (
        "input-max-length-loosened",
        tool(obj(sql={"type": "string", "maxLength": 50})),
        tool(obj(sql={"type": "string", "maxLength": 100})),
        [],
    ),
    (
        "input-minimum-added",
        tool(obj(limit=INT)),
        tool(obj(limit={"type": "integer", "minimum": 1})),
        [("mcp-input-narrowed", "MCP tool `run_sql`: input `limit` minimum 1 added")],
    ),
    (
        "input-maximum-removed",
        tool(obj(limit={"type": "integer", "maximum": 500})),
        tool(obj(limit=INT)),
        [],
    ),
    (
        "input-closed",
        tool(obj(sql=STR)),
        tool({**obj(sql=STR), "additionalProperties": False}),
        [
            (
                "mcp-input-narrowed",
                "MCP tool `run_sql`: input schema no longer accepts additional properties",
            )
        ],
    ),
    ("input-opened", tool({**obj(sql=STR), "additionalProperties": False}), tool(obj(sql=STR)), []),
    (
        "input-nested-enum",
        tool(obj(filters=obj(op={"enum": ["eq", "ne"]}))),
        tool(obj(filters=obj(op={"enum": ["eq"]}))),
        [("mcp-input-narrowed", "MCP tool `run_sql`: input `filters.op` enum value `ne` removed")],
    ),
    (
        "input-array-items-narrowed",
        tool(obj(ids={"type": "array", "items": {"type": ["string", "integer"]}})),
        tool(obj(ids={"type": "array", "items": STR})),
        [
            (
                "mcp-input-narrowed",
                "MCP tool `run_sql`: input `ids[]` type changed integer | string → string",
            )
        ],
    ),
    (
        "input-array-items-widened",
        tool(obj(ids={"type": "array", "items": STR})),
        tool(obj(ids={"type": "array", "items": {"type": ["string", "integer"]}})),
        [],
    ),
    (
        "input-ref-target-narrowed",
        tool({**obj(q={"$ref": "#/$defs/Q"}), "$defs": {"Q": {"type": "string", "maxLength": 9}}}),
        tool({**obj(q={"$ref": "#/$defs/Q"}), "$defs": {"Q": {"type": "string", "maxLength": 5}}}),
        [("mcp-input-narrowed", "MCP tool `run_sql`: input `q` maxLength changed 9 → 5")],
    ),
    (
        "input-inlined-into-ref",
        tool(obj(q={"type": "string", "maxLength": 9})),
        tool(
            {
                **obj(q={"$ref": "#/definitions/Q"}),
                "definitions": {"Q": {"type": "string", "maxLength": 9}},
            }
        ),
        [],
    ),
    (
        "input-anyof-branch-removed",
        tool(obj(v={"anyOf": [STR, INT]})),
        tool(obj(v={"anyOf": [STR]})),
        [("mcp-input-narrowed", "MCP tool `run_sql`: input `v` type changed integer → string")],
    ),
    (
        "input-anyof-branch-added",
        tool(obj(v={"oneOf": [STR]})),
        tool(obj(v={"oneOf": [STR, INT]})),
        [],
    ),
    (
        "input-single-to-anyof",
        tool(obj(v=INT)),
        tool(obj(v={"anyOf": [INT, {"type": "null"}]})),
        [],
    ),
    (
        "input-allof-required",
        tool({"allOf": [obj(sql=STR), {"type": "object"}]}),
        tool({"allOf": [obj(sql=STR), {"required": ["sql"]}]}),
        [("mcp-input-required", "MCP tool `run_sql`: input `sql` became required")],
    ),
    (
        "output-schema-added",
        tool(obj(sql=STR)),
        tool(obj(sql=STR), outputSchema=obj(rows=INT)),
        [("mcp-output-schema-added", "MCP tool `run_sql`: outputSchema added")],
    ),
    (
        "output-schema-unchanged",
        tool(outputSchema=obj(rows=INT)),
        tool(outputSchema=obj(rows=INT)),
        [],
    ),
    (
        "output-property-removed",
        tool(outputSchema=obj(rows={"type": "array", "items": obj(id=STR, n=INT)})),
        tool(outputSchema=obj(rows={"type": "array", "items": obj(n=INT)})),
        [("mcp-output-removed", "MCP tool `run_sql`: output `rows[].id` removed")],
    ),
    (
        "output-property-added",
        tool(outputSchema=obj(n=INT)),
        tool(outputSchema=obj(n=INT, m=STR)),
        [],
    ),
    (
        "output-enum-value-added",
        tool(outputSchema=obj(status={"enum": ["ok"]})),
        tool(outputSchema=obj(status={"enum": ["ok", "late"]})),
        [("mcp-output-widened", "MCP tool `run_sql`: output `status` enum value `late` added")],
    ),
    (
        "output-enum-value-removed",
        tool(outputSchema=obj(status={"enum": ["ok", "late"]})),
        tool(outputSchema=obj(status={"enum": ["ok"]})),
        [],
    ),
    (
        "output-type-widened",
        tool(outputSchema=obj(n=INT)),
        tool(outputSchema=obj(n={"type": "number"})),
        [("mcp-output-widened", "MCP tool `run_sql`: output `n` type changed integer → number")],
    ),
    (
        "output-type-narrowed",
        tool(outputSchema=obj(n={"type": "number"})),
        tool(outputSchema=obj(n=INT)),
        [],
    ),
    (
        "output-became-optional",
        tool(outputSchema=obj(("n",), n=INT)),
        tool(outputSchema=obj(n=INT)),
        [("mcp-output-widened", "MCP tool `run_sql`: output `n` became optional")],
    ),
    (
        "output-became-required",
        tool(outputSchema=obj(n=INT)),
        tool(outputSchema=obj(("n",), n=INT)),
        [],
    ),
    (
        "annotation-read-only-lost",
        tool(annotations={"readOnlyHint": True}),
        tool(annotations={"readOnlyHint": False}),
        [
            (
                "mcp-annotation-less-safe",
                "MCP tool `run_sql`: annotation `readOnlyHint` true → false",
            )
        ],
    ),
    (
        "annotation-read-only-gained",
        tool(annotations={"readOnlyHint": False}),
        tool(annotations={"readOnlyHint": True}),
        [],
    ),
    (
        "annotation-destructive-gained",
        tool(annotations={"destructiveHint": False}),
        tool(annotations={}),
        [
            (
                "mcp-annotation-less-safe",
                "MCP tool `run_sql`: annotation `destructiveHint` false → true",
            )
        ],
    ),
    (
        "annotation-destructive-lost",
        tool(annotations={}),
        tool(annotations={"destructiveHint": False}),
        [],
    ),
    (
        "tool-deprecated",
        tool(),
        tool(description="Deprecated: use run_query."),
        [("mcp-deprecated", "MCP tool `run_sql`: deprecated")],
    ),
    (
        "input-deprecated",
        tool(obj(limit=INT)),
        tool(obj(limit={"type": "integer", "deprecated": True})),
        [("mcp-deprecated", "MCP tool `run_sql`: input `limit` deprecated")],
    ),
    (
        "description-and-title-edits",
        tool(obj(sql={"type": "string", "description": "SQL"}), title="Run", description="a"),
        tool(
            obj(sql={"type": "string", "description": "The SQL"}), title="Run SQL", description="b"
        ),
        [],
    ),
    (
        "non-local-ref",
        tool(obj(q=STR)),
        tool(obj(q={"$ref": "https://example.com/q.json"})),
        [
            (
                "mcp-schema-not-compared",
                "MCP tool `run_sql`: input `q` not compared: `$ref` `https://example.com/q.json` "
                "is not local",
            )
        ],
    ),
    (
        "opaque-keyword-changed",
        tool(obj(q={"not": STR})),
        tool(obj(q={"not": INT})),
        [("mcp-schema-not-compared", "MCP tool `run_sql`: input `q` not compared: `not` changed")],
    ),
    ("opaque-keyword-unchanged", tool(obj(q={"not": STR})), tool(obj(q={"not": STR})), []),
]


@pytest.mark.parametrize(
    ("old", "new", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_rule_table(
    release_pair: Pair,
    old: dict[str, Any],
    new: dict[str, Any],
    expected: list[tuple[str, str]],
) -> None:
    before, after = release_pair({PATH: snapshot(old)}, {PATH: snapshot(new)})
    report = analyse(before, after, Settings())
    assert report.checked is True
    assert [(f.rule, f.message) for f in report.findings] == expected
    severities = {f.rule: f.severity for f in report.findings}
    for rule, _ in expected:
        wanted = {"mcp-annotation-less-safe": "advisory", "mcp-deprecated": "advisory"}.get(
            rule, "unknown" if rule == "mcp-schema-not-compared" else "breaking"
        )
        assert severities[rule] == wanted


def test_tool_removed_and_added(release_pair: Pair) -> None:
    before, after = release_pair(
        {PATH: snapshot(tool(name="a"), tool(name="b"))},
        {PATH: snapshot(tool(name="b"), tool(name="c"))},
    )
    report = analyse(before, after, Settings())
    assert [(f.rule, f.message, f.severity) for f in report.findings] == [
        ("mcp-tool-removed", "MCP tool `a` removed", "breaking")
    ]
    assert report.findings[0].file == PATH
    assert report.findings[0].line == 4  # `{` of the first entry of the old file's tools array


def test_line_points_at_changed_key(release_pair: Pair) -> None:
    new_text = snapshot(tool(name="a"), tool(obj(limit=STR, sql=STR)))
    before, after = release_pair(
        {PATH: snapshot(tool(name="a"), tool(obj(limit=INT, sql=STR)))}, {PATH: new_text}
    )
    [finding] = analyse(before, after, Settings()).findings
    lines = new_text.splitlines()
    limit_line = next(i for i, text in enumerate(lines, 1) if '"limit"' in text)
    assert finding.line is not None
    assert lines[finding.line - 1].strip() == '"type": "string"'
    assert finding.line == limit_line + 1


def test_plain_tools_list_result(release_pair: Pair) -> None:
    old = json.dumps({"tools": [tool(obj(limit=INT))]})
    new = json.dumps({"tools": [tool(obj(limit=STR))], "nextCursor": None})
    before, after = release_pair({PATH: old}, {PATH: new})
    report = analyse(before, after, Settings())
    assert [f.rule for f in report.findings] == ["mcp-input-narrowed"]
    assert report.findings[0].line == 1


def test_absent_at_both_refs_is_not_checked(release_pair: Pair) -> None:
    before, after = release_pair({"a.txt": "1"}, {"a.txt": "2"})
    report = analyse(before, after, Settings())
    assert report.checked is False
    assert report.reason == (
        "no document found at v1.0.0 or v1.0.1; tried mcp.snapshots = '**/mcp-tools.json'"
    )
    assert [f.rule for f in report.findings] == ["surface-not-checked"]


def test_declared_absent_is_checked(release_pair: Pair) -> None:
    before, after = release_pair({"a.txt": "1"}, {"a.txt": "2"})
    reason = "the service exposes no MCP server to agents"
    report = analyse(before, after, Settings(mcp=McpSettings(absent=reason)))
    assert report.checked is True
    assert [(f.rule, f.severity) for f in report.findings] == [
        ("surface-declared-absent", "advisory")
    ]
    assert reason in report.findings[0].message


def test_first_snapshot_is_checked(release_pair: Pair) -> None:
    before, after = release_pair({}, {PATH: snapshot(tool())})
    report = analyse(before, after, Settings())
    assert report.checked is True
    assert [(f.rule, f.severity) for f in report.findings] == [("document-added", "advisory")]
    assert analyse(None, after, Settings()).checked is True


def test_snapshot_deleted_is_not_checked(release_pair: Pair) -> None:
    before, after = release_pair({PATH: snapshot(tool())}, {PATH: None})
    report = analyse(before, after, Settings())
    assert report.checked is False
    assert report.reason == f"{PATH} is present at v1.0.0 but gone at v1.0.1"
    assert [(f.rule, f.severity, f.file) for f in report.findings] == [
        ("surface-not-checked", "unknown", PATH)
    ]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "not valid JSON (line 1: Expecting property name enclosed in double quotes)"),
        ('{"tools": {}}', "expected an object with a `tools` array"),
        ('{"schemaVersion": "2", "tools": []}', "unsupported schemaVersion '2' (expected \"1\")"),
        ('{"tools": [{"inputSchema": {}}]}', "tools[0]: `name` must be a non-empty string"),
        ('{"tools": [{"name": "a"}]}', "tool `a`: `inputSchema` must be a JSON Schema object"),
        (
            '{"tools": [{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]}',
            "tool `a` listed twice",
        ),
    ],
)
def test_malformed_snapshot_is_not_checked(release_pair: Pair, text: str, why: str) -> None:
    before, after = release_pair({PATH: snapshot(tool())}, {PATH: text})
    report = analyse(before, after, Settings())
    assert report.checked is False
    assert report.reason == f"{PATH} at v1.0.1: {why}"
    assert report.findings[0].file == PATH


def test_snapshot_path_from_settings(release_pair: Pair) -> None:
    path = "packages/backend/mcp/snapshot.json"
    before, after = release_pair({path: snapshot(tool(name="x"))}, {path: snapshot(tool(name="y"))})
    settings = Settings(mcp=McpSettings(snapshots=(path,)))
    assert [f.message for f in analyse(before, after, settings).findings] == [
        "MCP tool `x` removed"
    ]
    assert analyse(before, after, Settings()).checked is False  # not where discovery looks
    typo = Settings(mcp=McpSettings(snapshots=("missing.json", path)))
    report = analyse(before, after, typo)
    assert report.checked is False
    assert [f.rule for f in report.findings] == ["settings-path-unmatched", "mcp-tool-removed"]


def test_recursive_schema_compares_once(release_pair: Pair) -> None:
    def tree(leaf: dict[str, Any]) -> dict[str, Any]:
        node = obj(v=leaf, children={"type": "array", "items": {"$ref": "#/$defs/Node"}})
        return {"$ref": "#/$defs/Node", "$defs": {"Node": node}}

    before, after = release_pair(
        {PATH: snapshot(tool(tree(INT)))}, {PATH: snapshot(tool(tree(STR)))}
    )
    assert [f.message for f in analyse(before, after, Settings()).findings] == [
        "MCP tool `run_sql`: input `v` type changed integer → string"
    ]


def test_output_one_of_variant_added(release_pair: Pair) -> None:
    ok, err = obj(("ok",), ok={"const": True}), obj(("error",), error=STR)
    wider = obj(("ok",), ok={"const": True}, partial=INT)
    before, after = release_pair(
        {PATH: snapshot(tool(outputSchema={"oneOf": [ok, err]}))},
        {PATH: snapshot(tool(outputSchema={"oneOf": [ok, err, {"type": "string"}]}))},
    )
    assert [f.message for f in analyse(before, after, Settings()).findings] == [
        "MCP tool `run_sql`: output schema type changed object → string"
    ]
    before, after = release_pair(
        {PATH: snapshot(tool(outputSchema={"oneOf": [ok, err]}))},
        {PATH: snapshot(tool(outputSchema={"oneOf": [wider, err]}))},
    )
    assert analyse(before, after, Settings()).findings == []


def test_fixture_releases(release_pair: Pair) -> None:
    """The sample snapshots under fixtures/mcp: a safe release and an unsafe one."""
    fixtures = Path(__file__).parents[2] / "fixtures" / "mcp"
    before = (fixtures / "before.json").read_text(encoding="utf-8")
    old, safe = release_pair({PATH: before}, {PATH: (fixtures / "after-safe.json").read_text()})
    assert analyse(old, safe, Settings()).findings == []
    old, unsafe = release_pair({PATH: before}, {PATH: (fixtures / "after-unsafe.json").read_text()})
    report = analyse(old, unsafe, Settings())
    assert sorted((f.severity, f.message) for f in report.findings) == [
        ("advisory", "MCP tool `run_sql`: annotation `readOnlyHint` true → false"),
        (
            "breaking",
            "MCP tool `run_metric_query`: input `filters[].operator` enum value `include` removed",
        ),
        ("breaking", "MCP tool `run_metric_query`: output `status` enum value `failed` added"),
        ("breaking", "MCP tool `run_sql`: input `limit` type changed integer → string"),
        ("breaking", "MCP tool `search_field_values` removed"),
    ]


def test_snapshot_is_parsed_once_per_blob(release_pair: Pair) -> None:
    text = snapshot(tool())
    before, after = release_pair({PATH: text}, {"other.txt": "x"})
    first = _parse(before, PATH)
    assert isinstance(first, ToolSnapshot)
    assert _parse(after, PATH) is first  # same blob at the next tag: no second parse
