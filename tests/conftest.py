"""Shared fixtures: real git repositories built in `tmp_path`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cachedir import CACHE_DIR_ENV
from release_safety.repobuilder import RepoBuilder


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test gets its own cache folder: no test reads another's (or the user's) cache."""
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[[str], RepoBuilder]:
    """Build a new git repository under `tmp_path` (one per name)."""

    def build(name: str = "repo") -> RepoBuilder:
        return RepoBuilder(tmp_path / name)

    return build
