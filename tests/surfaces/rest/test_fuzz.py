"""Malformed and adversarial documents: the loader and the differ never raise anything but a
SpecError (the surface then reports "not checked" with the reason)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rest_strategies import SAFE, documents

from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.rest.analyse import analyse
from release_safety.surfaces.rest.documents import compare_documents, load_api
from release_safety.surfaces.rest.load import SpecError


def _survives(old: bytes, new: bytes) -> None:
    try:
        found = compare_documents(load_api(old), load_api(new), "old", "new")
    except SpecError as exc:
        assert str(exc)
    else:
        assert all(f.message and f.rule for f in found)


@SAFE
@given(documents(), documents())
def test_adversarial_documents_never_crash(old: bytes, new: bytes) -> None:
    _survives(old, new)


@SAFE
@given(documents())
def test_a_document_against_itself_reports_nothing(doc: bytes) -> None:
    try:
        api = load_api(doc)
        again = load_api(doc)
    except SpecError:
        return
    assert compare_documents(api, again, "a", "b") == []


@SAFE
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_random_bytes_never_crash(data: bytes) -> None:
    _survives(data, data)


@SAFE
@given(documents(), documents())
def test_the_surface_is_checked_or_not_checked_with_a_reason(old: bytes, new: bytes) -> None:
    report = analyse(
        MemorySnapshot({"openapi.json": old}, "v1"),
        MemorySnapshot({"openapi.json": new}, "v2"),
        Settings.model_validate({"rest": {"specs": ["openapi.json"]}}),
    )
    assert report.checked or (report.reason and report.findings[0].severity == "unknown")


def _nested(depth: int, key: str) -> str:
    if key:
        opening = '{"type": "object", "properties": {"' + key + '": '
        return opening * depth + '{"type": "string"}' + "}}" * depth
    return '{"items": ' * depth + '{"type": "string"}' + "}" * depth


def _doc(schema: Any, components: Any = None) -> bytes:
    text = schema if isinstance(schema, str) else json.dumps(schema)
    content = '{"application/json": {"schema": ' + text + "}}"
    paths = '{"/a": {"get": {"responses": {"200": {"content": ' + content + "}}}}}"
    extra = json.dumps(components or {})
    return ('{"openapi": "3.1.0", "paths": ' + paths + ', "components": ' + extra + "}").encode()


CYCLES = {
    "self": {"A": {"$ref": "#/components/schemas/A"}},
    "pair": {"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}},
    "allOf": {"A": {"allOf": [{"$ref": "#/components/schemas/A"}, {"type": "object"}]}},
    "deep": {"A": {"properties": {"x": {"oneOf": [{"$ref": "#/components/schemas/A"}]}}}},
    "pointer": {"A": {"properties": {"b": {"$ref": "#/components/schemas/A/properties/b"}}}},
}


@pytest.mark.parametrize("name", sorted(CYCLES))
def test_cycles_terminate(name: str) -> None:
    doc = _doc({"$ref": "#/components/schemas/A"}, {"schemas": CYCLES[name]})
    _survives(doc, doc)
    _survives(doc, _doc({"type": "object"}))


@pytest.mark.parametrize(
    "ref", ["#/nope", "#/components/schemas/A/x", "other.yaml#/A", "", "#/paths/%zz", 7]
)
def test_bad_refs_are_refused_with_the_ref(ref: Any) -> None:
    doc = _doc({"$ref": ref}, {"schemas": {"A": {"type": "object"}}})
    try:
        load_api(doc)
    except SpecError as exc:
        assert repr(ref) in str(exc)
    else:
        assert not isinstance(ref, str) or ref == ""
