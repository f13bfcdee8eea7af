"""Normalising a document against its previous version reuses what did not change, and the
findings are exactly those of a fresh normalisation."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_strategies import SAFE, SLOTS, STATUSES, TREES, VERSIONS, assemble

from release_safety.contract.reports import Finding
from release_safety.surfaces.rest.documents import compare_documents, load_api
from release_safety.surfaces.rest.load import SpecError, parse
from release_safety.surfaces.rest.normalise import MAX_DEPTH, Api, normalise

REF = "#/components/schemas/"


def _outcome(old: Api | SpecError, new: bytes, previous: Api | None) -> list[Finding] | str:
    """The findings from `old` to `new` (normalised against `previous`), or the error."""
    try:
        if isinstance(old, SpecError):
            raise old
        return compare_documents(old, normalise(parse(new), previous=previous), "o", "n")
    except SpecError as exc:
        return f"error: {exc}"


def _api(data: bytes, previous: Api | None = None) -> Api | SpecError:
    try:
        return normalise(parse(data), previous=previous)
    except SpecError as exc:
        return exc


REFS = st.sampled_from([f"{REF}A", f"{REF}B", f"{REF}A/properties/a"])
TYPES = st.sampled_from(["string", "integer", "number", "object", "array", "null"])
LEAF_SCHEMAS = st.fixed_dictionaries({"$ref": REFS}) | st.fixed_dictionaries(
    {"type": TYPES},
    optional={
        "nullable": st.booleans(),
        "enum": st.lists(st.integers(0, 3), max_size=3),
        "format": st.sampled_from(["date", "uuid"]),
        "minimum": st.integers(0, 3),
        "readOnly": st.booleans(),
    },
)
NAMES = st.sampled_from("abc")
SCHEMA_TREES = st.recursive(
    LEAF_SCHEMAS,
    lambda inner: (
        st.fixed_dictionaries(
            {"type": st.just("object"), "properties": st.dictionaries(NAMES, inner, max_size=3)},
            optional={
                "required": st.lists(NAMES, max_size=2),
                "additionalProperties": st.booleans() | inner,
            },
        )
        | st.fixed_dictionaries({"type": st.just("array"), "items": inner})
        | st.fixed_dictionaries({"allOf": st.lists(inner, min_size=1, max_size=2)})
        | st.fixed_dictionaries(
            {"oneOf": st.lists(inner, min_size=1, max_size=3)},
            optional={"discriminator": st.fixed_dictionaries({"propertyName": NAMES})},
        )
        | st.fixed_dictionaries({"$ref": REFS, "nullable": st.booleans()})
    ),
    max_leaves=10,
)
SECURITY = st.sampled_from([None, [], [{"key": []}], [{"key": ["read"]}, {}]])
BODIES = SCHEMA_TREES.map(lambda s: {"content": {"application/json": {"schema": s}}})
# Mostly well-formed schemas where the diff reads them, so that parts are shared and reached.
SLOT_STRATEGIES = [TREES] * SLOTS
SLOT_STRATEGIES[1], SLOT_STRATEGIES[2] = BODIES, SCHEMA_TREES
SLOT_STRATEGIES[4] = SLOT_STRATEGIES[9] = SECURITY
SLOT_STRATEGIES[10] = SLOT_STRATEGIES[11] = SCHEMA_TREES


@st.composite
def histories(draw: st.DrawFn) -> list[bytes]:
    """Three versions of a document, each keeping some parts of the one before."""
    version, status = draw(VERSIONS), draw(STATUSES)
    parts = [draw(strategy) for strategy in SLOT_STRATEGIES]
    out = [assemble(version, status, parts)]
    for _ in range(2):
        parts = [
            draw(strategy) if draw(st.booleans()) else part
            for strategy, part in zip(SLOT_STRATEGIES, parts, strict=True)
        ]
        out.append(assemble(version, status, parts))
    return out


@settings(SAFE, max_examples=300)
@given(histories())
def test_reusing_the_previous_version_finds_what_a_fresh_normalisation_finds(
    history: list[bytes],
) -> None:
    fresh = [_api(data) for data in history]
    chained: list[Api | SpecError] = [fresh[0]]
    for data in history[1:]:
        before = chained[-1]
        chained.append(_api(data, before if isinstance(before, Api) else None))
    for index in (1, 2):
        old, reused_old = fresh[index - 1], chained[index - 1]
        expected = _outcome(old, history[index], None)
        assert _outcome(reused_old, history[index], _previous(reused_old)) == expected


def _previous(api: Api | SpecError) -> Api | None:
    return api if isinstance(api, Api) else None


def _doc(paths: dict[str, Any], schemas: dict[str, Any], security: Any = None) -> bytes:
    schemes = {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}
    components = {"schemas": schemas, "securitySchemes": schemes}
    doc: dict[str, Any] = {"openapi": "3.0.3", "paths": paths, "components": components}
    if security is not None:
        doc["security"] = security
    return json.dumps(doc).encode()


def _get(schema: Any) -> dict[str, Any]:
    content = {"application/json": {"schema": schema}}
    return {"get": {"responses": {"200": {"description": "ok", "content": content}}}}


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


STRING = {"type": "string"}
SCHEMAS = {
    "Pet": _object(name=STRING, owner={"$ref": REF + "Owner"}),
    "Owner": _object(id=STRING),
    "Toy": _object(id=STRING),
}
PATHS = {"/pets": _get({"$ref": REF + "Pet"}), "/toys": _get({"$ref": REF + "Toy"})}


def test_unchanged_operations_and_schemas_are_the_previous_objects() -> None:
    old = normalise(parse(_doc(PATHS, SCHEMAS)))
    new = normalise(parse(_doc(PATHS, SCHEMAS)), previous=old)
    assert all(new.operations[key] is op for key, op in old.operations.items())
    assert new.trace is not None and old.trace is not None
    assert new.trace.schemas[REF + "Owner"] is old.trace.schemas[REF + "Owner"]
    assert compare_documents(old, new, "o", "n") == []


def test_a_change_two_references_deep_rebuilds_only_what_reaches_it() -> None:
    old = normalise(parse(_doc(PATHS, SCHEMAS)))
    changed = {**SCHEMAS, "Owner": _object(id={"type": "integer"})}
    new = normalise(parse(_doc(PATHS, changed)), previous=old)
    assert new.operations[("GET", "/toys")] is old.operations[("GET", "/toys")]
    assert new.operations[("GET", "/pets")] is not old.operations[("GET", "/pets")]
    found = compare_documents(old, new, "o", "n")
    assert [f.rule for f in found] == ["response-type-widened"]
    assert REF + "Owner" in found[0].message


def test_schemas_in_a_reference_cycle_are_rebuilt_and_still_compared() -> None:
    tree = {"Node": _object(children={"type": "array", "items": {"$ref": REF + "Node"}})}
    paths = {"/tree": _get({"$ref": REF + "Node"}), "/toys": _get({"$ref": REF + "Toy"})}
    schemas = {**tree, "Toy": SCHEMAS["Toy"]}
    old = normalise(parse(_doc(paths, schemas)))
    same = normalise(parse(_doc(paths, schemas)), previous=old)
    assert same.operations[("GET", "/tree")] is not old.operations[("GET", "/tree")]
    assert same.operations[("GET", "/toys")] is old.operations[("GET", "/toys")]
    assert compare_documents(old, same, "o", "n") == []
    node = _object(children={"type": "array", "items": {"$ref": REF + "Node"}}, name=STRING)
    node["required"] = ["name"]
    grown = normalise(parse(_doc(paths, {**schemas, "Node": node})), previous=same)
    assert [f.rule for f in compare_documents(same, grown, "o", "n")] == ["response-property-added"]


def test_a_new_document_wide_security_requirement_rebuilds_every_operation() -> None:
    old = normalise(parse(_doc(PATHS, SCHEMAS)))
    new = normalise(parse(_doc(PATHS, SCHEMAS, [{"key": []}])), previous=old)
    assert not any(new.operations[key] is op for key, op in old.operations.items())
    rules = {f.rule for f in compare_documents(old, new, "o", "n")}
    assert rules == {"security-requirement-added"}


def _nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = _object(x=leaf)
    return leaf


def test_a_reused_schema_met_deeper_still_hits_the_depth_limit() -> None:
    deep = {"Deep": _nested(MAX_DEPTH - 20, STRING)}
    old = normalise(parse(_doc({"/a": _get({"$ref": REF + "Deep"})}, deep)))
    deeper = _doc({"/a": _get(_nested(30, {"$ref": REF + "Deep"}))}, deep)
    with pytest.raises(SpecError, match="nested deeper"):
        normalise(parse(deeper))
    with pytest.raises(SpecError, match="nested deeper"):
        normalise(parse(deeper), previous=old)


def test_only_the_newest_loaded_document_keeps_its_raw_tree() -> None:
    """The raw tree a trace holds is as large as the document: one is kept, not one per memo."""
    first = load_api(_doc(PATHS, SCHEMAS), "blob-1")
    assert first.trace is not None
    changed = {**SCHEMAS, "Toy": _object(id=STRING, name=STRING)}
    second = load_api(_doc(PATHS, changed), "blob-2", previous=first)
    assert first.trace is None and second.trace is not None
    assert second.operations[("GET", "/pets")] is first.operations[("GET", "/pets")]
    assert load_api(_doc(PATHS, changed), "blob-2") is second  # memoised, trace kept
    third = load_api(_doc(PATHS, SCHEMAS), "blob-3")
    assert second.trace is None and third.trace is not None
