"""Fixtures of the action tests: a fake runner and a service repository with an origin."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from action_runner import INIT_SQL, Runner, git, openapi

from release_safety.git.builder import RepoBuilder


@pytest.fixture
def runner(tmp_path: Path) -> Callable[[Path], Runner]:
    def make(workspace: Path) -> Runner:
        return Runner(tmp_path / "runner", workspace)

    return make


@pytest.fixture
def service(make_repo: Callable[[str], RepoBuilder], tmp_path: Path) -> RepoBuilder:
    """A service at release v1.0.0, pushed to a bare `origin` beside it."""
    repo = make_repo("service")
    repo.release(
        "1.0.0",
        {
            "migrations/001_init.sql": INIT_SQL,
            "openapi.json": openapi(["id", "email", "legacy_id"]),
            "README.md": "# service\n",
        },
        prefix="v",
    )
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    repo.git("remote", "add", "origin", str(origin))
    repo.git("push", "-q", "origin", "main", "--tags")
    return repo
