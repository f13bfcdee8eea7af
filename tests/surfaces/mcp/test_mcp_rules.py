"""The MCP surface on real git repositories with two release tags: lines, snapshot states,
settings, shared and recursive schemas, the sample fixtures (rule pairs: test_rule_pairs.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp_pairs import snapshot
from mcp_pairs import tool as make_tool

from release_safety.git.repository import GitSnapshot
from release_safety.settings.model import McpSettings, Settings
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
    return make_tool(name, inputSchema=schema or obj(), **extra)


INT = {"type": "integer"}
STR = {"type": "string"}


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


def test_shared_definition_is_one_finding_at_its_line(release_pair: Pair) -> None:
    def schema(max_length: int) -> dict[str, Any]:
        ref = {"$ref": "#/$defs/Name"}
        defs = {"Name": {"type": "string", "maxLength": max_length}}
        return {**obj(first=ref, last=ref), "$defs": defs}

    new_text = snapshot(tool(schema(5)))
    before, after = release_pair({PATH: snapshot(tool(schema(9)))}, {PATH: new_text})
    [finding] = analyse(before, after, Settings()).findings
    assert finding.message == "MCP tool `run_sql`: input #/$defs/Name maxLength changed 9 → 5"
    assert new_text.splitlines()[(finding.line or 0) - 1].strip() == '"maxLength": 5,'


def test_spec_error_points_at_its_line(release_pair: Pair) -> None:
    new_text = snapshot(tool(obj(limit={"type": "integer", "min_value": 1})))
    before, after = release_pair({PATH: snapshot(tool(obj(limit=INT)))}, {PATH: new_text})
    [finding] = analyse(before, after, Settings()).findings
    assert (finding.rule, finding.severity) == ("spec-invalid", "advisory")
    assert new_text.splitlines()[(finding.line or 0) - 1].strip() == '"min_value": 1,'


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
        "MCP tool `run_sql`: input #/$defs/Node `v` type changed integer → string"
    ]


def test_output_one_of_variant_added(release_pair: Pair) -> None:
    ok, err = obj(("ok",), ok={"const": True}), obj(("error",), error=STR)
    wider = obj(("ok",), ok={"const": True}, partial=INT)
    before, after = release_pair(
        {PATH: snapshot(tool(outputSchema={"oneOf": [ok, err]}))},
        {PATH: snapshot(tool(outputSchema={"oneOf": [ok, err, {"type": "string"}]}))},
    )
    assert [f.message for f in analyse(before, after, Settings()).findings] == [
        "MCP tool `run_sql`: output schema may now be the `string` variant"
    ]
    before, after = release_pair(
        {PATH: snapshot(tool(outputSchema={"oneOf": [ok, err]}))},
        {PATH: snapshot(tool(outputSchema={"oneOf": [wider, err]}))},
    )
    assert analyse(before, after, Settings()).findings == []


def test_fixture_releases(release_pair: Pair) -> None:
    """The sample snapshots under fixtures/mcp: a safe release and an unsafe one."""
    fixtures = Path(__file__).parents[3] / "fixtures" / "mcp"
    before = (fixtures / "before.json").read_text(encoding="utf-8")
    old, safe = release_pair({PATH: before}, {PATH: (fixtures / "after-safe.json").read_text()})
    assert analyse(old, safe, Settings()).findings == []
    old, unsafe = release_pair({PATH: before}, {PATH: (fixtures / "after-unsafe.json").read_text()})
    report = analyse(old, unsafe, Settings())
    assert sorted((f.severity, f.message) for f in report.findings) == [
        ("advisory", "MCP tool `run_sql`: annotation `readOnlyHint` true → false"),
        (
            "breaking",
            "MCP tool `run_metric_query`: input #/$defs/Filter `operator` enum value `include`"
            " removed",
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
