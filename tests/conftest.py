"""Shared fixtures: real git repositories built in `tmp_path`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.repobuilder import RepoBuilder


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[[str], RepoBuilder]:
    """Build a new git repository under `tmp_path` (one per name)."""

    def build(name: str = "repo") -> RepoBuilder:
        return RepoBuilder(tmp_path / name)

    return build
