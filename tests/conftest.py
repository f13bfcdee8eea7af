"""Shared fixtures: real git repositories built in `tmp_path`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from release_safety.common.cachedir import CACHE_DIR_ENV
from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo, GitSnapshot


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test gets its own cache folder: no test reads another's (or the user's) cache."""
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path_factory.mktemp("cache")))
    # Inside GitHub Actions the commands default to `--format github`; tests choose their own.
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[[str], RepoBuilder]:
    """Build a new git repository under `tmp_path` (one per name)."""

    def build(name: str = "repo") -> RepoBuilder:
        return RepoBuilder(tmp_path / name)

    return build


Files = dict[str, str | None]
Pair = Callable[[Files, Files], tuple[GitSnapshot, GitSnapshot]]


@pytest.fixture
def release_pair(make_repo: Callable[[str], RepoBuilder]) -> Iterator[Pair]:
    """`pair(old_files, new_files)`: tag v1.0.0 with the old files, then v1.0.1 with the new
    ones written over them (a `None` content deletes the file); the snapshots of both tags."""
    opened: list[GitRepo] = []

    def pair(old: Files, new: Files) -> tuple[GitSnapshot, GitSnapshot]:
        builder = make_repo(f"repo{len(opened)}")
        builder.write("README.md", "service\n")
        for path, text in old.items():
            if text is not None:
                builder.write(path, text)
        builder.release("1.0.0", prefix="v")
        for path, text in new.items():
            if text is None:
                builder.delete(path)
            else:
                builder.write(path, text)
        builder.release("1.0.1", prefix="v")
        repo = GitRepo(builder.path)
        opened.append(repo)
        return repo.snapshot("v1.0.0"), repo.snapshot("v1.0.1")

    yield pair
    for repo in opened:
        repo.close()
