"""A route the code no longer registers, shown like every REST finding: the artifact, the
release notes, check-pr's SARIF."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

SETTINGS = """\
[mcp]
absent = "the service exposes no MCP tools to agents"
[deployment]
absent = "operators run the service from their own manifests"
[migrations]
absent = "the service keeps no database"
[config]
absent = "the service reads no environment"
"""
HANDLER = "export default function handler(req, res) { res.json({}) }\n"
ROUTE = "export async function GET() {\n  return Response.json({})\n}\n"


def test_a_dropped_route_in_the_artifact_the_notes_and_sarif(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    builder = make_repo("next")
    old = {
        ".release-safety.toml": SETTINGS,
        "next.config.js": "module.exports = {}\n",
        "pages/api/a.ts": HANDLER,
        "pages/api/b.ts": HANDLER,
    }
    builder.release("1.0.0", old, prefix="v")
    builder.delete("pages/api/a.ts").delete("pages/api/b.ts")
    builder.release("1.1.0", {"app/api/a/route.ts": ROUTE}, prefix="v")
    out, notes = tmp_path / "a.json", tmp_path / "notes.md"
    args = ["generate", "--repo", str(builder.path), "--to", "v1.1.0", "--out", str(out)]
    run([*args, "--notes", str(notes)])
    rest = json.loads(out.read_text())["api"]["rest"]
    assert rest["breaking"] is True and rest["breakingCount"] == 1
    assert rest["changes"][0].startswith("ANY /api/b removed: served by pages/api/b.ts:1")
    assert "ANY /api/b removed" in notes.read_text()
    capsys.readouterr()
    check = ["check-pr", "--repo", str(builder.path), "--base", "v1.0.0", "--head", "v1.1.0"]
    assert run([*check, "--format", "sarif"]) == 1
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    removed = [r for r in results if r["ruleId"] == "route-removed"]
    assert len(removed) == 1 and removed[0]["level"] == "error"
    location = removed[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "pages/api/b.ts"
