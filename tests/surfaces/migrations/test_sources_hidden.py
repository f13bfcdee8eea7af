"""Migrations the tool cannot see are never none (issue 35 class 1): a migration whose name or
folder differs from the search only by case (`Migrations/`, `.UP.SQL`) or by a control character
(a newline), a symlink or a submodule where migrations are looked for, is a migration no source
reads, `unknown`."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.analyse import analyse

Pair = Callable[[dict[str, str | None], dict[str, str | None]], tuple[Snapshot, Snapshot]]
INIT = "CREATE TABLE users (id int, email text);\n"
DROP = "ALTER TABLE users DROP COLUMN email;\n"


@pytest.mark.parametrize(
    "path", ["migrations/0002_drop.UP.SQL", "Migrations/0002_drop.sql", "db/MIGRATIONS/2.Sql"]
)
def test_a_migration_named_in_another_case_is_not_read_and_says_so(
    release_pair: Pair, path: str
) -> None:
    before, after = release_pair({"migrations/0001_init.sql": INIT}, {path: DROP})
    report = analyse(before, after, Settings())
    (finding,) = report.unknown()
    assert (finding.rule, finding.file, finding.line) == ("migration-not-read", path, 1)
    assert finding.hint is not None and "(?i)" in finding.hint
    assert [gap.file for gap in report.coverage.unmodelled] == [path]


def test_a_lower_case_migration_is_read_as_before(release_pair: Pair) -> None:
    before, after = release_pair({"migrations/0001_init.sql": INIT}, {"migrations/0002.sql": DROP})
    report = analyse(before, after, Settings())
    assert not report.unknown()
    assert [f.rule for f in report.breaking()] == ["drop-column"]


@pytest.mark.parametrize(
    ("path", "plain"),
    [
        ("migrations/0002_drop\n.sql", "migrations/0002_drop.sql"),
        ("migrations/0002_drop.sql\n", "migrations/0002_drop.sql"),
        ("migrations\n/0002_drop.sql", "migrations/0002_drop.sql"),
        ("migrations/0002\x1b_drop.SQL", "migrations/0002_drop.SQL"),
    ],
)
def test_a_migration_named_with_a_control_character_is_not_read_and_says_so(
    release_pair: Pair, path: str, plain: str
) -> None:
    before, after = release_pair({"migrations/0001_init.sql": INIT}, {path: DROP})
    report = analyse(before, after, Settings())
    (finding,) = report.unknown()
    assert (finding.rule, finding.file, finding.line) == ("migration-not-read", path, 1)
    assert finding.hint is not None and f"rename it to {plain!r}" in finding.hint
    assert finding.message.startswith(f"{path!r} added: ") and "\n" not in finding.message
    assert [gap.file for gap in report.coverage.unmodelled] == [path]


def test_a_migration_named_with_a_tab_is_read(release_pair: Pair) -> None:
    """A pattern's `.` matches a tab (and a carriage return): such a name is read as written."""
    path = "migrations/0002\tdrop.sql"
    before, after = release_pair({"migrations/0001_init.sql": INIT}, {path: DROP})
    report = analyse(before, after, Settings())
    assert not report.unknown()
    assert [(f.rule, f.file) for f in report.breaking()] == [("drop-column", path)]


def linked_release(make_repo: Callable[[str], RepoBuilder], link: Callable[[Path], None]) -> dict:
    """1.0.0 creates a table; 1.1.0 brings `link` (a symlink or a submodule) where migrations
    are looked for, beside a DROP the link points at. The release's artifact."""
    builder = make_repo("service")
    builder.release("1.0.0", {"migrations/0001_init.sql": INIT})
    builder.write("elsewhere/drop.sql", DROP)
    link(builder.path)
    builder.release("1.1.0")
    repo = str(builder.path)
    out = builder.path / "artifact.json"
    evidence = builder.path / "evidence.json"
    assert (
        run(
            [
                "generate",
                "--repo",
                repo,
                "--to",
                "1.1.0",
                "--out",
                str(out),
                "--evidence",
                str(evidence),
            ]
        )
        == 0
    )
    return json.loads(evidence.read_text())


def test_a_symlinked_migration_is_not_read_and_says_so(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    def link(root: Path) -> None:
        os.symlink("../elsewhere/drop.sql", root / "migrations" / "0002_drop.sql")

    evidence = linked_release(make_repo, link)
    found = [(f["rule"], f["file"]) for f in evidence["findings"] if f["surface"] == "migrations"]
    assert ("migration-not-read", "migrations/0002_drop.sql") in found


def test_a_submodule_where_migrations_are_looked_for_is_not_read_and_says_so(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    def link(root: Path) -> None:  # a repository inside: `git add` records it as a gitlink
        inner = RepoBuilder(root / "db" / "migrations")
        inner.write("0002_drop.sql", DROP)
        inner.commit("a migration git stores elsewhere")

    evidence = linked_release(make_repo, link)
    found = [(f["rule"], f["file"]) for f in evidence["findings"] if f["surface"] == "migrations"]
    assert ("migration-not-read", "db/migrations") in found
