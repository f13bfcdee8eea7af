"""The evidence file (`generate --evidence`) on a real repository: valid against its published
schema, and complete lists or a count of what was left out."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from release_safety.cli.main import run
from release_safety.contract.reports import COVERAGE_LISTED
from release_safety.contract.schemas import validate_document
from release_safety.git.builder import RepoBuilder

SETTINGS = """\
[rest]
absent = "the service has no HTTP API; it is a queue worker"
[mcp]
absent = "the service exposes no MCP tools to agents"
[deployment]
absent = "operators run the workers from their own manifests; the project ships none"
[migrations]
absent = "the workers keep no database of their own, only a queue"
[config]
sources = ["workers/*/.env.example"]
"""


def test_coverage_past_the_listed_files_says_how_many_were_left_out(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    builder = make_repo("workers")
    count = COVERAGE_LISTED + 3
    files = {f"workers/w{i:03}/.env.example": f"W{i}_URL=amqp://queue\n" for i in range(count)}
    builder.release("1.0.0", {".release-safety.toml": SETTINGS, **files}, prefix="v")
    builder.release("1.1.0", {"README.md": "docs\n"}, prefix="v")
    evidence = tmp_path / "evidence.json"
    args = ["generate", "--repo", str(builder.path), "--to", "v1.1.0", "--out", "-"]
    assert run([*args, "--evidence", str(evidence)]) == 0
    document = json.loads(evidence.read_text())
    assert validate_document(document, "evidence") == "evidence"
    (config,) = [s for s in document["surfaces"] if s["surface"] == "config"]
    coverage = config["coverage"]
    for side in ("old", "new"):
        assert len(coverage[side]) == COVERAGE_LISTED
        assert coverage["unlisted"][side] == count - COVERAGE_LISTED  # listed + left out = all
    assert sorted(coverage["new"]) == sorted(files)[:COVERAGE_LISTED]
