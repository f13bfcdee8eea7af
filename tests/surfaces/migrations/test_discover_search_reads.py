"""The search for migrations no source reads, as a backfill asks it release after release: what
it finds in a code file is kept per blob, but a file's name still counts (the same text named
for migrations is one, named otherwise is not), and the files it reads are read in one round
trip, an unreadable blob still named as its own file's error."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.common.errors import CheckError
from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.find.discover import discover

SCHEMA_GO = """package store

import "database/sql"

func Setup(db *sql.DB) error {
\t_, err := db.Exec(`CREATE TABLE sessions_%s (id bigint)`)
\treturn err
}
"""


def _unread(files: dict[str, str]) -> list[tuple[str, int | None]]:
    old = MemorySnapshot({"README.md": "# service\n"}, ref="v1.0.0")
    new = MemorySnapshot({"README.md": "# service\n", **files}, ref="v1.1.0")
    found = discover(old, new, Settings())
    return [(f.file, f.line) for f in found.findings if f.rule == "migration-not-read"]


NAMES = ("internal/store/setup.go", "internal/store/migrations.go")


@pytest.mark.parametrize("first", NAMES)
def test_the_same_blob_is_judged_by_its_name_too(first: str) -> None:
    text = SCHEMA_GO % first.replace("/", "_").replace(".", "_")  # a blob new to this test
    other = next(p for p in NAMES if p != first)
    for path in (first, other):  # the second asks about a blob the first one kept
        expected = [(path, 6)] if path.endswith("migrations.go") else []
        assert _unread({path: text}) == expected, path


def test_a_file_named_otherwise_holding_the_text_of_a_migration_file_is_quiet() -> None:
    text = SCHEMA_GO % "quiet"
    assert _unread({"internal/store/migrations.go": text}) == [("internal/store/migrations.go", 6)]
    assert _unread({"internal/store/queries.go": text}) == []


def _released(make_repo: Callable[[str], RepoBuilder], added: dict[str, str]) -> RepoBuilder:
    """v1.0.0 with a README, then v1.1.0 adding `added`."""
    builder = make_repo("repo")
    builder.release("1.0.0", {"README.md": "# service\n"}, prefix="v")
    builder.release("1.1.0", added, prefix="v")
    return builder


def test_an_unreadable_blob_is_the_error_of_its_own_file(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    added = {"a/first.go": "package a\n\n// first, readable\n"}
    builder = _released(make_repo, {**added, "b/second.go": "package b\n\n// second, lost\n"})
    repo = GitRepo(builder.path)
    try:
        old, new = repo.snapshot("v1.0.0"), repo.snapshot("v1.1.0")
        blob = new.blob_id("b/second.go")
        assert blob is not None
        (builder.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
        with pytest.raises(CheckError, match=r"^b/second\.go at v1\.1\.0: .*git does not have it"):
            discover(old, new, Settings())
    finally:
        repo.close()


def test_readable_files_read_together_are_each_searched(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    added = {f"pkg{i}/plain.go": f"package pkg{i}\n" for i in range(3)}
    builder = _released(make_repo, {**added, "pkg1/migrations.go": SCHEMA_GO % "together"})
    repo = GitRepo(builder.path)
    try:
        found = discover(repo.snapshot("v1.0.0"), repo.snapshot("v1.1.0"), Settings())
    finally:
        repo.close()
    assert [(f.file, f.line) for f in found.findings] == [("pkg1/migrations.go", 6)]
