"""Loading: JSON and YAML agree, core-schema scalars, Swagger 2.0, lines, clear errors."""

from __future__ import annotations

import gzip
import json
import math
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from rest_pairs import DATASET, FIXTURES
from rest_strategies import SAFE, SLOTS, STATUSES, TREES, VERSIONS, assemble

from release_safety.surfaces.rest import load
from release_safety.surfaces.rest.load import SpecError, parse


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _slow(text: str) -> Any:
    return load._string_keys(yaml.load(text, Loader=load._CoreLoader))


SCALARS = """\
openapi: 3.1.0
date: 2024-10-01
stamp: 2024-10-01T10:00:00Z
words: [yes, no, on, off, inf, -inf, nan, Infinity]
octal: 012
hex: 0x1F
floats: [.inf, -.Inf, .NaN, 1e3, .5, 2025.]
nulls: [~, null, Null, NULL]
bools: [true, True, FALSE]
tagged: !!str 123
anchor: &a {x: 1}
alias: *a
200: numeric key
big: -9223372036854776000
"""


def test_core_schema_scalars() -> None:
    data = _slow(SCALARS)
    assert data["date"] == "2024-10-01"
    assert data["stamp"] == "2024-10-01T10:00:00Z"
    assert data["words"] == ["yes", "no", "on", "off", "inf", "-inf", "nan", "Infinity"]
    assert data["octal"] == 12 and data["hex"] == 31
    assert data["nulls"] == [None, None, None, None]
    assert data["bools"] == [True, True, False]
    assert data["tagged"] == "123"
    assert data["alias"] == {"x": 1}
    assert data["200"] == "numeric key"
    assert data["big"] == -9223372036854776000


@pytest.mark.parametrize(
    "text",
    [
        SCALARS,
        "a: [inf, nan, 1, 2.5, -3, 1e3, .5, 0, -0]\nb: {c: 'x', d: \"y\\u00e9\"}\n",
        "list:\n  - 1\n  - two\n  - 'three'\n  - - nested\n    - inf\nm:\n  <<: {k: 1}\n",
        'key: |\n  multi\n  line "q" \\\\ \nother: >\n  folded\n  text\n',
    ],
)
def test_fast_and_fallback_paths_agree(text: str) -> None:
    assert _same(load._parse_text(text), _slow(text))


def _dataset() -> list[Any]:
    return sorted(DATASET.glob("*.yaml.gz")) if DATASET.is_dir() else []


@pytest.mark.skipif(not _dataset(), reason="real dataset not present")
@pytest.mark.parametrize("path", _dataset()[:3] + _dataset()[-1:], ids=lambda p: p.name)
def test_fast_path_matches_pyyaml_on_real_documents(path: Any) -> None:
    text = gzip.decompress(path.read_bytes()).decode("utf-8")
    assert load._fast_text(text) is not None
    fast = load._parse_fast(load._fast_text(text) or "")
    assert fast is not None
    assert _same(fast, _slow(text))


@pytest.mark.parametrize(
    ("text", "aliased"),
    [
        ("&a x\nb: *a\n", True),
        ("a: &x 1\nb: *x\n", True),
        ("a: [&x 1, *x]\n", True),
        ("a: {b: 1,&x 2}\nc: *x\n", True),
        ("a: &x 1\nb: &y 2\nc: *y\n", True),
        ("a: &x 1\nb: 2\n", False),
        ("url: https://h/?a=1&x=2\nb: *x=2\n", False),
        ("a: x&&y 1\nb: *&y\n", False),
    ],
)
def test_aliases_are_found_by_their_anchor(text: str, aliased: bool) -> None:
    """Only an anchor that starts the text or follows a space, `[`, `{` or `,` counts, and a
    text with an alias of one never reaches rapidyaml."""
    assert load._may_alias(text) is aliased


@pytest.mark.parametrize(
    "text",
    [
        "a: &x {b: 1, c: [inf, 2]}\nd: *x\ne: [*x, *x]\n",
        "required: &r\n  - type\nother:\n  required: *r\n",
        "&k key: 1\nother: *k\n",
    ],
)
def test_aliases_of_complete_anchors_are_read_by_rapidyaml(text: str) -> None:
    """rapidyaml copies what an alias names, PyYAML shares it: the values are the same."""
    assert _same(load._read_fast(text), _slow(text))
    assert _same(load._parse_text(text), _slow(text))


@pytest.mark.parametrize(
    ("text", "problem"),
    [("a: *x\nb: &x 1\n", "found undefined alias"), ("a: &x 1\nb: &x 2\nc: *x\n", "second")],
    ids=["forward", "twice"],
)
def test_aliases_pyyaml_refuses_are_refused_as_before(text: str, problem: str) -> None:
    """A forward alias, an anchor defined twice (rapidyaml would take the last one)."""
    with pytest.raises(SpecError, match=problem):
        load._parse_text(text)


def test_merge_keys_and_recursive_aliases_are_read_by_pyyaml() -> None:
    """rapidyaml would merge a `<<` key (the core schema does not) and hang on a recursive
    alias: PyYAML reads both."""
    merged = load._parse_text("a: &x {b: 1}\nc: {<<: *x, d: 2}\n")
    assert merged == {"a": {"b": 1}, "c": {"<<": {"b": 1}, "d": 2}}
    recursive = load._parse_text("a: &x {b: *x}\n")
    assert recursive["a"]["b"] is recursive["a"]


def test_fast_path_quotes_bare_infinity_words_even_in_block_text() -> None:
    """The one known deviation: a block-scalar line that is exactly `- inf` reads `- "inf"`
    (descriptions and examples are never compared; enum values stay exact)."""
    text = "enum:\n  - inf\ndescription: |\n  - inf\n"
    assert load._parse_text(text) == {"enum": ["inf"], "description": '- "inf"\n'}


@pytest.mark.parametrize(
    "text",
    [
        "additionalProperties: True\nb: [TRUE, False, FALSE]\nc: {d: ~, e: Null, f: NULL}\n",
        "a: True  # a comment\nb:\n  - False\nq: 'True'\nr: \"NULL\"\n",
    ],
)
def test_core_schema_words_take_the_fast_path_as_their_literals(text: str) -> None:
    """`True`, `FALSE`, `~`, `Null` as plain values are the core schema's literals: rapidyaml
    reads them (through placeholders) and gives what PyYAML gives; quoted ones stay strings."""
    fast = load._read_fast(text)
    assert fast is not None
    assert _same(fast, _slow(text))


@pytest.mark.parametrize("text", ["a: True\nh: |\n  - True\n", "h: >\n  x: False\n"])
def test_core_schema_words_in_block_text_go_to_pyyaml(text: str) -> None:
    """A block scalar's line ending in `- True` or `: False` is text, not a literal: the fast
    path refuses it and PyYAML keeps the words as written."""
    assert load._read_fast(text) is None
    assert _same(load._parse_text(text), _slow(text))


def test_json_and_yaml_give_the_same_document() -> None:
    text = (FIXTURES / "refactor" / "swagger" / "revision.yaml").read_text(encoding="utf-8")
    as_json = json.dumps(yaml.safe_load(text)).encode()
    assert parse(text.encode()).root == parse(as_json).root


def test_swagger_is_converted_explicitly() -> None:
    doc = parse((FIXTURES / "refactor" / "swagger" / "base.yaml").read_bytes())
    assert doc.version == "2.0"
    put = doc.root["paths"]["/pets/{id}"]["put"]
    assert put["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Pet"
    }
    assert put["parameters"][1]["style"] == "form" and put["parameters"][1]["explode"] is True
    assert doc.root["servers"] == [{"url": "https://api.example.com/v1"}]
    assert doc.line_of("components", "schemas", "Pet") == 30


def test_swagger_form_parameters_become_a_body() -> None:
    spec = {
        "swagger": "2.0",
        "info": {},
        "consumes": ["multipart/form-data"],
        "paths": {
            "/up": {
                "post": {
                    "parameters": [
                        {"name": "file", "in": "formData", "type": "file", "required": True}
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    body = parse(json.dumps(spec).encode()).root["paths"]["/up"]["post"]["requestBody"]
    schema = body["content"]["multipart/form-data"]["schema"]
    assert body["required"] is True
    assert schema["properties"]["file"] == {"type": "string", "format": "binary"}


def test_swagger_shared_parameters_and_responses_are_named_by_json_pointers() -> None:
    spec = {
        "swagger": "2.0",
        "info": {},
        "parameters": {"page/size": {"name": "size", "in": "query", "type": "integer"}},
        "responses": {"Gone~": {"description": "gone", "schema": {"type": "string"}}},
        "paths": {
            "/items": {
                "get": {
                    "parameters": [
                        {"$ref": "#/parameters/page~1size"},
                        {"$ref": "#/parameters/missing"},
                    ],
                    "responses": {"410": {"$ref": "#/responses/Gone~0"}},
                }
            }
        },
    }
    get = parse(json.dumps(spec).encode()).root["paths"]["/items"]["get"]
    assert [p.get("name") for p in get["parameters"]] == ["size"]
    assert get["parameters"][0]["schema"] == {"type": "integer"}
    assert get["responses"]["410"]["description"] == "gone"


def test_lines_of_operations_in_yaml_and_pretty_json() -> None:
    doc = parse((FIXTURES / "refactor" / "path-parameters" / "base.yaml").read_bytes())
    assert doc.line_of("paths", "/pets/{id}", "delete") == 11
    pretty = json.dumps(doc.root, indent=2).encode()
    again = parse(pretty)
    line = again.line_of("paths", "/pets/{id}", "delete")
    assert pretty.decode().splitlines()[line - 1].strip().startswith('"delete"')
    assert parse(json.dumps(doc.root).encode()).line_of("paths", "/pets/{id}", "get") == 1


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xff\xfe\x00", "not UTF-8"),
        (b"a: [1, 2\n", "not valid YAML or JSON at line"),
        (b"- just\n- a list\n", "not a mapping"),
        (b"openapi: 4.0.0\n", "unsupported OpenAPI version '4.0.0'"),
        (b"swagger: 1.2\n", "unsupported Swagger version 1.2 (2.0, or OpenAPI 3.0, 3.1)"),
        (b"x: 1\n", "not an OpenAPI document: no top-level `openapi` or `swagger` key"),
        (b"openapi: 3.0.0\nx: !custom 1\n", "not valid YAML"),
        (b"[" * 5000 + b"]" * 5000, "nested deeper than 256 levels"),
    ],
)
def test_unreadable_documents_say_why(data: bytes, reason: str) -> None:
    with pytest.raises(SpecError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        parse(data)


@pytest.mark.parametrize(
    "odd",
    ["\U0001f600 and \\ud83d", "a\u2028b", "a\x85b", "a\x7fb", "\r"],
    ids=["escaped-emoji", "line-separator", "next-line", "delete", "carriage-return"],
)
def test_lines_of_pretty_json_counted_by_line_feeds(odd: str) -> None:
    """What libyaml reads otherwise (`json.dumps` escapes 😀 as a surrogate pair; NEL, LS and a
    lone CR break its lines; DEL it refuses) moves no line."""
    doc = parse((FIXTURES / "refactor" / "path-parameters" / "base.yaml").read_bytes())
    doc.root["info"]["title"] = odd.strip()
    pretty = json.dumps(doc.root, indent=2, ensure_ascii=odd.startswith("\U0001f600"))
    pretty = "{\r" + pretty[2:] if odd == "\r" else pretty  # a lone CR between two tokens
    line = parse(pretty.encode()).line_of("paths", "/pets/{id}", "delete")
    assert pretty.split("\n")[line - 1].strip().startswith('"delete"')


def _lines_both_ways(text: str) -> tuple[dict[tuple[str, ...], int], dict[tuple[str, ...], int]]:
    """A document's key lines read from its shallow lines first, and from the whole text."""
    doc = parse(text.encode())
    return load._key_lines(doc.text, 3, doc.outline), load._key_lines(doc.text, 3)


@SAFE
@given(
    VERSIONS,
    STATUSES,
    st.lists(TREES, min_size=SLOTS, max_size=SLOTS),
    st.sampled_from([2, 3, 4]),
    st.sampled_from([12, 80]),
    st.sampled_from([None, "|", '"']),
)
def test_lines_from_shallow_lines_are_the_whole_texts(
    version: str, status: str, parts: list[Any], indent: int, width: int, style: str | None
) -> None:
    """Block YAML of every indent, scalars folded over lines, literal or quoted: the lines of
    the first three levels' keys are the ones the whole text gives, in the same order."""
    value = json.loads(assemble(version, status, parts))
    text = yaml.safe_dump(value, indent=indent, width=width, default_style=style, sort_keys=False)
    try:
        shallow, whole = _lines_both_ways(text)
    except SpecError:
        return
    assert list(shallow.items()) == list(whole.items())


@pytest.mark.parametrize(
    "text",
    [
        "openapi: 3.1.0\npaths:\n  /a:\n      get: {}\n      put: {}\n",  # deeper than 2 steps
        "openapi: 3.1.0\ninfo: |\n      deep: first\n\n      then: deep\npaths: {}\n",
        'openapi: 3.1.0\npaths:\n  /a:\n    get: "x\n        y"\n    put: {}\n',
        "openapi: 3.1.0\npaths:\n  /a:\n    get: [1,\n        2]\n    put: {}\n",
        "openapi: 3.1.0\npaths:\n  /a: &p\n    get: {}\n  /b: *p\n",
        "openapi: 3.1.0\npaths:\n- /a\n- /b:\n    get: {}\n",
        "openapi: 3.1.0\npaths:\n  /a:\n    get: {}\n  /a:\n    put: {}\n",
    ],
    ids=["uneven", "block-scalar", "quoted", "flow", "alias", "sequence", "duplicate"],
)
def test_lines_where_the_shallow_lines_cannot_say(text: str) -> None:
    """Indents deeper than the first, multi-line values cut by the blanking, aliases, duplicate
    keys: the whole text is read, and the lines are its lines."""
    shallow, whole = _lines_both_ways(text)
    assert list(shallow.items()) == list(whole.items())
    assert ("paths",) in whole


@pytest.mark.skipif(not _dataset(), reason="real dataset not present")
def test_lines_of_real_documents_come_from_their_shallow_lines() -> None:
    """The dataset's documents (3 MB of YAML) are read from their shallow lines, and their
    key lines are exactly the whole texts'."""
    for path in _dataset():
        doc = parse(gzip.decompress(path.read_bytes()))
        shallow = load._shallow(doc.text, 3)
        assert shallow is not None and len(shallow) < len(doc.text) / 5
        found: dict[tuple[str, ...], int] = {}
        load._record_keys(shallow, 3, found)
        assert tuple(found) == doc.outline
        assert list(found.items()) == list(load._key_lines(doc.text, 3).items())
