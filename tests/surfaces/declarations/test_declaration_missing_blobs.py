"""A clone that lacks a blob (a partial mirror leaves out a repository's largest files, mealie's
`tests/data/migrations/recipekeeper.zip`): the declarations surface reads only files that can
hold an annotation, a comment line, so a missing archive does not stop it; a missing file that
could hold one still does (never judged without being read)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.common.errors import CheckError
from release_safety.contract.reports import DeclarationsReport
from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.settings.model import Settings
from release_safety.surfaces import declarations
from release_safety.surfaces.comments import holds_comments

ANNOTATED = "# release-safety: breaking removes the FOO_MODE variable read by old workers\n"
ARCHIVE = b"PK\x03\x04\x00\x00# release-safety: breaking not a comment\n\x00" * 4


def _judged_without(make_repo: Callable[[str], RepoBuilder], lost: str) -> DeclarationsReport:
    """v1.1.0 adds an archive and an annotated file; the object of `lost` is then removed from
    the repository, as a partial clone lacks it (the files are new to this test: a blob
    scanned before is remembered, not read)."""
    builder = make_repo("repo")
    builder.write("README.md", "# service\n")
    builder.release("1.0.0", prefix="v")
    builder.write("tests/data/recipes.zip", ARCHIVE + lost.encode())
    builder.write("app/settings.py", f"{ANNOTATED}# {lost}\n")
    builder.release("1.1.0", prefix="v")
    repo = GitRepo(builder.path)
    try:
        old, new = repo.snapshot("v1.0.0"), repo.snapshot("v1.1.0")
        blob = new.blob_id(lost)
        assert blob is not None
        (builder.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
        return declarations.analyse(old, new, Settings())
    finally:
        repo.close()


def test_a_missing_archive_is_not_read(make_repo: Callable[[str], RepoBuilder]) -> None:
    report = _judged_without(make_repo, "tests/data/recipes.zip")
    assert report.checked is True
    assert [(d.file, d.line) for d in report.declared] == [("app/settings.py", 1)]


def test_a_missing_file_that_can_hold_an_annotation_stops_the_surface(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    with pytest.raises(CheckError, match="git does not have it"):
        _judged_without(make_repo, "app/settings.py")


def test_binary_formats_hold_no_comment() -> None:
    assert not holds_comments("tests/data/migrations/recipekeeper.zip")
    assert not holds_comments("web/static/Logo.PNG")
    for path in ("app/settings.py", "Dockerfile", ".env", "db/schema.sql", "data/dump.dat"):
        assert holds_comments(path), path
