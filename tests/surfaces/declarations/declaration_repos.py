"""Two tagged releases in a real git repository, read back as snapshots (`release_pair`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from release_safety.contract.reports import DeclarationsReport
from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo, GitSnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces import declarations


@dataclass
class Pair:
    old: GitSnapshot
    new: GitSnapshot

    def analyse(self, settings: Settings | None = None) -> DeclarationsReport:
        return declarations.analyse(self.old, self.new, settings or Settings())


Files = Mapping[str, str | bytes]
PairBuilder = Callable[..., Pair]


def release_pair_fixture(make_repo: Callable[[str], RepoBuilder]) -> Iterator[PairBuilder]:
    """`release_pair(before, after, delete=(), move=())`: tag 1.0.0, change, tag 1.1.0."""
    repos: list[GitRepo] = []

    def build(
        before: Files,
        after: Files | None = None,
        delete: Sequence[str] = (),
        move: Sequence[tuple[str, str]] = (),
    ) -> Pair:
        builder = make_repo(f"repo{len(repos)}")
        builder.write("README.md", "# service\n")
        for path, text in before.items():
            builder.write(path, text)
        builder.release("1.0.0", prefix="v")
        for old, new in move:
            builder.move(old, new)
        for path in delete:
            builder.delete(path)
        for path, text in (after or {}).items():
            builder.write(path, text)
        builder.release("1.1.0", prefix="v")
        repo = GitRepo(builder.path)
        repos.append(repo)
        return Pair(repo.snapshot("v1.0.0"), repo.snapshot("v1.1.0"))

    yield build
    for repo in repos:
        repo.close()
