"""Spec pairs for the REST tests: paths and the shorthand cases of `fixtures/rest/cases.yaml`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "rest"
# The steering repository's shared/ stands beside this repository or one of its parents (a
# git worktree), for CI and developers alike.
DATASET = next(
    (
        folder / "shared" / "datasets" / "openapi-real"
        for folder in Path(__file__).resolve().parents[3].parents
        if (folder / "shared" / "datasets" / "openapi-real").is_dir()
    ),
    Path("shared/datasets/openapi-real"),
)
OK = {"200": {"description": "ok"}}


def load_cases() -> list[dict[str, Any]]:
    cases = yaml.safe_load((FIXTURES / "cases.yaml").read_text(encoding="utf-8"))
    assert isinstance(cases, list)
    return cases


def case_id(case: dict[str, Any]) -> str:
    return f"{case['rule']}-{'fires' if case['fires'] else 'quiet'}"


def _operation(kind: str, value: Any) -> dict[str, Any]:
    if kind == "request":
        body = {"required": True, "content": {"application/json": {"schema": value}}}
        return {"post": {"requestBody": body, "responses": OK}}
    if kind == "response":
        content = {"application/json": {"schema": value}}
        return {"get": {"responses": {"200": {"description": "ok", "content": content}}}}
    if kind == "params":
        return {"get": {"parameters": value, "responses": OK}}
    return {"get": {"responses": OK, **value}}


def build_pair(case: dict[str, Any]) -> tuple[bytes, bytes]:
    """The two documents of a case, as JSON bytes."""
    components = case.get("components")
    docs: list[dict[str, Any]] = []
    for side in (0, 1):
        if "doc" in case:
            doc = dict(case["doc"][side])
        else:
            kind = next(k for k in ("request", "response", "params", "operation") if k in case)
            doc = {"paths": {"/pets": _operation(kind, case[kind][side])}}
        doc.setdefault("openapi", case.get("openapi", "3.0.3"))
        doc.setdefault("info", {"title": "pets", "version": str(side)})
        if components is not None:
            doc["components"] = components[side] if isinstance(components, list) else components
        docs.append(doc)
    return json.dumps(docs[0]).encode(), json.dumps(docs[1]).encode()
