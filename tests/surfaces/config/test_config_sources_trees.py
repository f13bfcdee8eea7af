"""Which files the config entries read is asked tree after tree (a backfill), the entries'
exclusions kept per path: each tree's files are what reading that tree alone finds."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.settings.model import ConfigSource
from release_safety.surfaces.config.sources import matched_sources

SOURCES = (
    ConfigSource(path="src/**/*.go", exclude=("src/gen/**",)),
    ConfigSource(path="src/gen/settings.go"),
)


def test_each_tree_reads_its_own_files_with_the_exclusions_kept(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    builder = make_repo("repo")
    builder.write("src/app/main.go", "package app\n")
    builder.write("src/gen/settings.go", "package gen\n")
    builder.write("src/app/main_test.go", "package app\n")
    builder.release("1.0.0", prefix="v")
    builder.write("src/gen/more.go", "package gen\n")
    builder.write("src/app/more.go", "package app\n")
    builder.delete("src/app/main.go")
    builder.release("1.1.0", prefix="v")
    repo = GitRepo(builder.path)
    try:
        old, new = repo.snapshot("v1.0.0"), repo.snapshot("v1.1.0")
        first, second = matched_sources(old, SOURCES), matched_sources(new, SOURCES)
        assert first == {"src/app/main.go": SOURCES[0], "src/gen/settings.go": SOURCES[1]}
        assert second == {
            "src/app/more.go": SOURCES[0],
            "src/gen/settings.go": SOURCES[1],
        }
        assert matched_sources(old, SOURCES) == first  # asked again after the next tree
    finally:
        repo.close()
