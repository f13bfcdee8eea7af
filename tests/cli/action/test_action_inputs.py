"""The Action's inputs named for what they mean in each mode (`from`/`to` kept as deprecated
aliases in pr and backfill), the SARIF upload, one verdict output, and the cache key per
architecture, run through the composite's steps on real repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from action_runner import ACTION, Runner
from test_pr_mode import DROP, MIGRATION, pull_request

from release_safety.git.builder import RepoBuilder
from sarif_ingest import github_accepts


def _sarif_accepted(path: Path) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    github_accepts(log)
    return log


def test_upload_sarif_writes_the_gates_log_for_the_upload_step(
    service: RepoBuilder, runner: Callable[[Path], Runner]
) -> None:
    event = pull_request(service, {MIGRATION: DROP})
    result = runner(service.path).composite({"mode": "pr", "upload-sarif": "true"}, event=event)
    assert result.code == 1
    log = _sarif_accepted(Path(result.outputs["sarif-path"]))
    assert log["runs"][0]["automationDetails"]["id"] == "release-safety/check-pr/"
    upload = next(s for s in ACTION["runs"]["steps"] if "upload-sarif" in s.get("uses", ""))
    assert upload["with"]["sarif_file"] == "${{ steps.run.outputs.sarif-path }}"
    assert "!cancelled()" in upload["if"]  # uploaded when the gate fails the run step too
    assert "inputs.upload-sarif == 'true'" in upload["if"]


def test_sarif_is_off_by_default(service: RepoBuilder, runner: Callable[[Path], Runner]) -> None:
    event = pull_request(service, {MIGRATION: DROP})
    result = runner(service.path).composite({"mode": "pr", "comment": "false"}, event=event)
    assert result.code == 1 and "sarif-path" not in result.outputs
    assert ACTION["inputs"]["upload-sarif"]["default"] == "false"


def test_pr_refs_are_base_and_head_and_from_to_still_work_with_a_warning(
    service: RepoBuilder, runner: Callable[[Path], Runner]
) -> None:
    pull_request(service, {MIGRATION: DROP})
    refs = {"base": "main", "head": "feature"}
    named = runner(service.path).composite({"mode": "pr", "comment": "false", **refs})
    assert named.code == 1 and named.outputs["gate"] == "fail"
    assert not [w for w in named.annotations("warning") if "deprecated" in w]
    old = {"from": "main", "to": "feature"}
    aliased = runner(service.path).composite({"mode": "pr", "comment": "false", **old})
    assert aliased.code == 1 and aliased.outputs["gate"] == "fail"
    warnings = [w for w in aliased.annotations("warning") if "deprecated" in w]
    assert "input from is deprecated in pr mode: use base" in warnings[0]
    assert "input to is deprecated in pr mode: use head" in warnings[1]


def test_one_verdict_output_and_the_duplicate_marked_deprecated() -> None:
    outputs = ACTION["outputs"]
    assert outputs["rolling-update-safe"]["description"].startswith("Deprecated")
    assert "verdict" in outputs["strategy"]["description"]
    docs = (Path(__file__).parents[3] / "docs" / "action.md").read_text(encoding="utf-8")
    assert "deprecated" in next(
        line for line in docs.splitlines() if line.startswith("| `rolling-update-safe` |")
    )


def test_the_cache_key_holds_the_architecture(
    service: RepoBuilder, runner: Callable[[Path], Runner]
) -> None:
    run = runner(service.path)
    assert run.composite({"mode": "upgrade-check"}).code == 2  # from and to missing
    assert "-Linux-X64-3.11.7-" in run.steps["prep"]["key"]
    docs = (Path(__file__).parents[3] / "docs" / "action.md").read_text(encoding="utf-8")
    assert "## Supported runners" in docs
