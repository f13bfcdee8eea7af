"""`$ref` bombs (issue 35 class 7): a few kilobytes whose `$ref`s name the next schema twice,
forty times over (2^40 paths to one leaf), diff in the time and memory of forty schemas, and
the leaf's change is one finding."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp_pairs import snapshot
from mcp_pairs import tool as make_tool

from release_safety.git.repository import GitSnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.mcp import analyse

LEVELS = 40
Files = dict[str, str | None]
Pair = Callable[[Files, Files], tuple[GitSnapshot, GitSnapshot]]


def chain(prefix: str, leaf: str) -> dict[str, Any]:
    """Schemas S0..S40, each an object whose two properties name the one below."""
    schemas: dict[str, Any] = {"S0": {"type": leaf}}
    for level in range(1, LEVELS + 1):
        below = {"$ref": f"{prefix}S{level - 1}"}
        schemas[f"S{level}"] = {"type": "object", "properties": {"a": below, "b": below}}
    return schemas


def openapi(leaf: str) -> str:
    response = {"$ref": f"#/components/schemas/S{LEVELS}"}
    ok = {"description": "ok", "content": {"application/json": {"schema": response}}}
    return json.dumps(
        {
            "openapi": "3.0.3",
            "info": {"title": "bomb", "version": "1"},
            "paths": {"/x": {"get": {"responses": {"200": ok}}}},
            "components": {"schemas": chain("#/components/schemas/", leaf)},
        }
    )


def test_a_ref_bomb_in_an_openapi_document_is_one_finding(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(openapi("string"))
    new.write_text(openapi("integer"))
    assert len(new.read_bytes()) < 8_000
    done = subprocess.run(
        [sys.executable, "-m", "release_safety", "diff-openapi", str(old), str(new), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)["findings"]
    assert [f["rule"] for f in findings] == ["response-type-widened"]
    assert "#/components/schemas/S0" in findings[0]["message"]


@pytest.mark.parametrize("leaf", ["integer"])
def test_a_ref_bomb_in_an_mcp_snapshot_is_one_finding(release_pair: Pair, leaf: str) -> None:
    def schema(kind: str) -> dict[str, Any]:
        top = {"$ref": f"#/$defs/S{LEVELS}"}
        return {"type": "object", "properties": {"q": top}, "$defs": chain("#/$defs/", kind)}

    path = "mcp-tools.json"
    before, after = release_pair(
        {path: snapshot(make_tool("run", inputSchema=schema("string")))},
        {path: snapshot(make_tool("run", inputSchema=schema(leaf)))},
    )
    findings = analyse(before, after, Settings()).findings
    assert len(findings) == 1 and "#/$defs/S0" in findings[0].message
