"""Grouping of shared-schema edits, and the `diff-openapi` command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from release_safety.cli.main import run
from release_safety.surfaces.rest.documents import compare_documents, load_api


def _spec(pet: dict[str, Any], operations: int, extra: int = 0) -> bytes:
    ref = {"$ref": "#/components/schemas/Pet"}
    content = {"application/json": {"schema": ref}}
    paths: dict[str, Any] = {
        f"/pets{i}": {"get": {"responses": {"200": {"description": "ok", "content": content}}}}
        for i in range(operations)
    }
    for i in range(extra):
        paths[f"/old{i}"] = {"get": {"responses": {"200": {"description": "ok"}}}}
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": paths,
        "components": {"schemas": {"Pet": pet}},
    }
    return json.dumps(doc, indent=2).encode()


PET = {
    "type": "object",
    "required": ["tag"],
    "properties": {"id": {"type": "string"}, "tag": {"type": "string"}},
}
PET_NO_TAG = {"type": "object", "properties": {"id": {"type": "string"}}}


def test_one_schema_edit_reaching_a_hundred_operations_is_one_line() -> None:
    found = compare_documents(load_api(_spec(PET, 100)), load_api(_spec(PET_NO_TAG, 100)), "a", "b")
    assert [f.message for f in found] == [
        "#/components/schemas/Pet — required property `tag` removed (100 operations)"
    ]
    text = _spec(PET_NO_TAG, 100).decode()
    assert text.splitlines()[found[0].line - 1].strip() == '"Pet": {'


def _write(tmp_path: Path, old: bytes, new: bytes) -> tuple[str, str]:
    (tmp_path / "a.json").write_bytes(old)
    (tmp_path / "b.json").write_bytes(new)
    return str(tmp_path / "a.json"), str(tmp_path / "b.json")


def test_diff_openapi_json_and_fail_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _write(tmp_path, _spec(PET, 2, extra=60), _spec(PET_NO_TAG, 2))
    assert run(["diff-openapi", a, b, "--json", "--fail-on", "breaking"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["breaking"] is True
    assert out["breakingCount"] == 61
    assert len(out["changes"]) == 51
    assert out["changes"][-1] == "… and 11 more breaking change(s)"
    assert len(out["findings"]) == 61
    shared = next(f for f in out["findings"] if f["rule"] == "response-property-removed")
    assert shared["operations"] == ["GET /pets0", "GET /pets1"]
    assert run(["diff-openapi", a, b, "--json"]) == 1  # a break fails by default


@pytest.mark.parametrize(
    ("fail_on", "code"), [("breaking", 0), ("unknown", 0), ("advisory", 1), (None, 0)]
)
def test_fail_on_levels(tmp_path: Path, fail_on: str | None, code: int) -> None:
    """Only an advisory (a property added): it fails only when advisories do."""
    a, b = _write(tmp_path, _spec(PET_NO_TAG, 1), _spec(PET, 1))
    option = ["--fail-on", fail_on] if fail_on else []
    assert run(["diff-openapi", a, b, *option]) == code


def test_unknown_fails_by_default_and_not_on_breaking_only(tmp_path: Path) -> None:
    opaque = {**PET, "not": {"required": ["id"]}}
    a, b = _write(tmp_path, _spec(PET, 1), _spec({**opaque, "not": {"required": ["tag"]}}, 1))
    assert run(["diff-openapi", a, b]) == 1
    assert run(["diff-openapi", a, b, "--fail-on", "breaking"]) == 0


def test_diff_openapi_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grown = {"type": "object", "properties": {"id": {"type": "string"}, "nick": {}}}
    a, b = _write(tmp_path, _spec(PET, 3), _spec(grown, 3))
    assert run(["diff-openapi", a, b]) == 1
    out = capsys.readouterr().out
    lines = [text.strip() for text in _spec(grown, 3).decode().splitlines()]
    line = lines.index('"Pet": {') + 1
    assert out.splitlines()[:8] == [
        "1 breaking change(s), 0 unknown, 1 advisory note(s)",
        "",
        "Breaking:",
        f"  response-property-removed at {b}:{line}",
        "    #/components/schemas/Pet — required property `tag` removed (3 operations)",
        "    3 operations: GET /pets0, GET /pets1, GET /pets2",
        "    safer: Keep sending `tag` of #/components/schemas/Pet (GET /pets0 and 2 more), "
        "marked `deprecated: true` for a release, then remove it.",
        "",
    ]
    assert "Advisories:\n  response-property-added at " in out
    assert "became required" not in out
    assert out.splitlines()[-1] == "Found 2 issues in 1 file (1 breaking, 1 advisory)."


def test_many_operations_are_listed_up_to_twenty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _write(tmp_path, _spec(PET, 25), _spec(PET_NO_TAG, 25))
    run(["diff-openapi", a, b])
    listed = next(line for line in capsys.readouterr().out.splitlines() if "operations:" in line)
    assert listed.strip().startswith("25 operations: GET /pets0, GET /pets1, GET /pets10,")
    assert listed.endswith(", GET /pets4 and 5 more")  # sorted as text


def test_diff_openapi_bad_input_is_exit_2_with_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _write(tmp_path, _spec(PET, 1), b"openapi: [")
    assert run(["diff-openapi", a, b, "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["kind"] == "input" and error["message"].startswith(b)
    assert run(["diff-openapi", a, str(tmp_path / "missing.json")]) == 2
