"""Malformed and random MCP snapshots: a clear finding or "not checked", never a traceback."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from release_safety.contract.reports import RULES, SurfaceReport
from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.jsonschema.build import SchemaBuilder
from release_safety.surfaces.jsonschema.diff import SchemaDiffer
from release_safety.surfaces.jsonschema.issues import SpecError
from release_safety.surfaces.mcp import analyse

PATH = "mcp-tools.json"
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
names = st.sampled_from(["a", "b", "limit", "sql"])
types = st.sampled_from(["string", "integer", "number", "object", "array", "boolean", "null"])


def _schemas() -> st.SearchStrategy[Any]:
    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.fixed_dictionaries(
            {},
            optional={
                "type": types | st.lists(types, max_size=3),
                "properties": st.dictionaries(names, inner, max_size=3),
                "required": st.lists(names, max_size=3),
                "enum": st.lists(scalars, max_size=3),
                "const": scalars,
                "items": inner | st.lists(inner, max_size=2),
                "anyOf": st.lists(inner, max_size=3),
                "oneOf": st.lists(inner, max_size=3),
                "allOf": st.lists(inner, max_size=3),
                "$ref": st.sampled_from(["#/$defs/A", "#", "#/properties/a", "http://x/y", "#/no"]),
                "$defs": st.dictionaries(st.just("A"), inner, max_size=1),
                "additionalProperties": st.booleans() | inner,
                "pattern": st.text(max_size=5),
                "maxLength": st.integers(0, 9) | st.text(max_size=2),
                "minimum": st.integers(-5, 5) | st.floats(allow_nan=False),
                "not": inner,
                "deprecated": st.booleans(),
            },
        )

    return st.recursive(st.booleans() | st.just({}), extend, max_leaves=12)


schemas = _schemas()
tools = st.fixed_dictionaries(
    {"name": names, "inputSchema": schemas},
    optional={
        "outputSchema": st.none() | schemas,
        "annotations": st.dictionaries(
            st.sampled_from(["readOnlyHint", "destructiveHint", "openWorldHint"]), scalars
        ),
        "description": st.text(max_size=12),
    },
)


def _check(report: SurfaceReport) -> None:
    if report.checked:
        assert all(
            f.rule in RULES and f.file == PATH and (f.line or 0) >= 1 for f in report.findings
        )
    else:
        assert report.reason
        assert [f.rule for f in report.findings] == ["surface-not-checked"]


@FUZZ
@given(data=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_garbage_snapshot(data: bytes) -> None:
    old = MemorySnapshot({PATH: json.dumps({"tools": []})}, ref="v1")
    new = MemorySnapshot({PATH: data}, ref="v2")
    _check(analyse(old, new, Settings()))
    _check(analyse(new, old, Settings()))


@FUZZ
@given(old_tools=st.lists(tools, max_size=3), new_tools=st.lists(tools, max_size=3))
def test_random_tools(old_tools: list[Any], new_tools: list[Any]) -> None:
    old = MemorySnapshot({PATH: json.dumps({"tools": old_tools}, indent=1)}, ref="v1")
    new = MemorySnapshot({PATH: json.dumps({"tools": new_tools}, indent=1)}, ref="v2")
    _check(analyse(old, new, Settings()))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas)
def test_a_schema_is_compatible_with_itself(schema: Any) -> None:
    """Wrapped so the texts differ (a description edit): the engine finds no change at all."""
    old = {"type": "object", "properties": {"x": schema}}
    new = {**old, "description": "edited"}
    try:
        before, after = (SchemaBuilder(root).schema(root) for root in (old, new))
    except SpecError:
        return  # a remote or broken `$ref`: not compared (mcp-schema-not-compared)
    for direction in ("request", "response"):
        assert SchemaDiffer().compare(before, after, direction, "input") == [], json.dumps(schema)
