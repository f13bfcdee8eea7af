"""What the tests of the framework readers share: a service whose only surface is its
migrations, released twice in a real git repository and judged by the real CLI, and the
statements of a fixture's captured SQL."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder
from release_safety.surfaces.migrations.sql.sqlfile import split_sql

ABSENT = (
    '[mcp]\nabsent = "the service exposes no MCP server to agents"\n'
    '[rest]\nabsent = "the service has no HTTP API of its own"\n'
    '[config]\nabsent = "configuration lives in the database, edited in the UI"\n'
    '[deployment]\nabsent = "operators run it from their own manifests; none ship"\n'
)
"""The settings of every surface but the migrations: absent, with their reasons."""


def judged(
    make_repo: Callable[[str], RepoBuilder],
    tmp_path: Path,
    name: str,
    first: dict[str, str],
    then: dict[str, str],
) -> dict[str, Any]:
    """The evidence `generate` writes for release 1.1.0 (`then`) after 1.0.0 (`first`)."""
    repo = make_repo(name)
    repo.release("1.0.0", first)
    repo.release("1.1.0", then)
    evidence = tmp_path / f"{name}.evidence.json"
    args = ["generate", "--repo", str(repo.path), "--to", "1.1.0"]
    run([*args, "--out", str(tmp_path / f"{name}.json"), "--evidence", str(evidence)])
    found: dict[str, Any] = json.loads(evidence.read_text())
    return found


def captured(path: Path) -> list[str]:
    """The statements of a fixture's SQL, as the framework sent them."""
    return [s.sql for s in split_sql(path.read_text()) if s.sql]
