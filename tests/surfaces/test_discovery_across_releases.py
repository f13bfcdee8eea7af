"""What discovery finds at consecutive releases is carried over through each diff: it must be
what a look at each whole tree finds (a memory snapshot of the same paths, never carried)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.git.snapshot import MemorySnapshot
from release_safety.surfaces.discovery import matching

GLOBS = (
    "**/openapi.yaml",  # a literal name, also a folder's name below
    "**/*.sql",
    "db/**",
    "**/migrations/*.sql",
    "**/vendor/*.sql",  # names a folder that is skipped otherwise
    "*.md",
)


def test_globs_carried_across_consecutive_releases_match_a_fresh_look(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    builder = make_repo("service")
    commits = [
        builder.release(
            "1.0.0",
            {
                "openapi.yaml": "a",
                "db/migrations/1.sql": "1",
                "vendor/x.sql": "v",
                "README.md": "r",
            },
        )
    ]
    builder.write("api/openapi.yaml/part.yaml", "folder named like the document")
    builder.write("db/migrations/2.sql", "2").write("vendor/y.sql", "v2").delete("README.md")
    commits.append(builder.release("1.1.0"))
    builder.delete("openapi.yaml").write("db/migrations/1.sql", "1 changed")
    builder.move("db/migrations/2.sql", "db/old/2.sql")
    (builder.path / "CHANGES.md").symlink_to("db/old/2.sql")  # a link is no file
    commits.append(builder.release("1.2.0"))
    builder.write("README.md", "back").write("db/3.sql", "3")
    commits.append(builder.release("1.3.0"))
    carried, listed = GitRepo(builder.path), GitRepo(builder.path)

    def whole(commit: str) -> MemorySnapshot:
        return MemorySnapshot(dict.fromkeys(listed.tree(commit), ""))

    try:
        for old, new in itertools.pairwise(commits):
            before, after = carried.snapshot(old), carried.snapshot(new)
            carried.start_diff(old, new)
            for glob in GLOBS:
                assert matching(before, glob) == matching(whole(old), glob), (old, glob)
                assert matching(after, glob) == matching(whole(new), glob), (new, glob)
        last = carried.snapshot(commits[-1])
        assert matching(last, "**/*.sql") == ["db/3.sql", "db/migrations/1.sql", "db/old/2.sql"]
        assert matching(last, "**/openapi.yaml") == ["api/openapi.yaml/part.yaml"]
    finally:
        carried.close()
        listed.close()
