"""A release that moves its migrations folder (`git mv migrations db/sql`, issue 35 class 1):
the moved files are the shipped migrations where they now are. Where no source reads the new
folder, each of its files is `migration-not-read` with the source entry to add; where one does,
what the release adds there is judged against the schema the moved ones built."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

INIT = "CREATE TABLE users (id int, email text);\n"
NOTE = "ALTER TABLE users ADD COLUMN note text;\n"
DROP = "ALTER TABLE users DROP COLUMN email;\n"
SOURCE = '[[migrations.sources]]\npath = "{}"\nformat = "sql"\n'

Found = list[tuple[str, str, str | None]]


def moved_release(
    make_repo: Callable[[str], RepoBuilder],
    before: str | None,
    after: str | None,
    added: dict[str, str],
    name: str = "service",
    shipped: dict[str, str] | None = None,
) -> list[dict[str, object]]:
    """1.0.0 ships two migrations in migrations/ (with `before` as settings); 1.1.0 moves the
    folder to db/sql with `git mv`, adds `added` and takes `after` as settings. The migrations
    and settings findings of the release's evidence."""
    builder = make_repo(name)
    files = {"migrations/0001_init.sql": INIT, "migrations/0002_note.sql": NOTE, **(shipped or {})}
    builder.release("1.0.0", {**files, **({".release-safety.toml": before} if before else {})})
    (builder.path / "db").mkdir()
    builder.git("mv", "migrations", "db/sql")
    for path, text in added.items():
        builder.write(path, text)
    if after is not None:
        builder.write(".release-safety.toml", after)
    builder.release("1.1.0")
    out, evidence = builder.path / "artifact.json", builder.path / "evidence.json"
    args = ["--repo", str(builder.path), "--to", "1.1.0", "--out", str(out)]
    assert run(["generate", *args, "--evidence", str(evidence)]) == 0
    found: list[dict[str, object]] = json.loads(evidence.read_text())["findings"]
    return [f for f in found if f["surface"] in ("migrations", "settings")]


def rules(findings: list[dict[str, object]]) -> set[tuple[object, object]]:
    return {(f["rule"], f["file"]) for f in findings if f["severity"] != "advisory"}


def test_a_moved_folder_no_source_reads_is_not_read_with_the_source_to_add(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    found = moved_release(make_repo, None, None, {"db/sql/0003_drop.sql": DROP})
    moved = ["db/sql/0001_init.sql", "db/sql/0002_note.sql", "db/sql/0003_drop.sql"]
    assert rules(found) == {("migration-not-read", path) for path in moved}
    first = next(f for f in found if f["file"] == moved[0])
    assert "the shipped migration migrations/0001_init.sql moved to db/sql" in str(first["message"])
    hint = str(first["hint"])
    entry = hint.split("[[migrations.sources]] with ", 1)[1].split(" so ", 1)[0]
    source = tomllib.loads(f"source = {{{entry}}}")["source"]
    assert (source["path"], source["format"]) == ("db/sql", "sql")
    # The entry the way out names, as the release's settings: the DROP is judged.
    lines = "".join(f"{key} = {json.dumps(value)}\n" for key, value in source.items())
    settings = f"[[migrations.sources]]\n{lines}"
    judged = moved_release(make_repo, None, settings, {"db/sql/0003_drop.sql": DROP}, "followed")
    migrations = {(r, f) for r, f in rules(judged) if not str(f).startswith(".")}
    assert migrations == {("drop-column", "db/sql/0003_drop.sql")}


def test_a_moved_folder_the_settings_follow_is_the_shipped_migrations(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    """The moved files are neither added (the table is not this release's) nor deleted, and
    the source that followed them narrows nothing (it was settings-narrowed, unknown)."""
    before, after = SOURCE.format("migrations"), SOURCE.format("db/sql")
    found = moved_release(make_repo, before, after, {"db/sql/0003_drop.sql": DROP})
    assert rules(found) == {("drop-column", "db/sql/0003_drop.sql")}
    quiet = moved_release(make_repo, before, after, {}, "quiet")
    assert not [f for f in quiet if f["surface"] == "migrations"]
    assert [(f["rule"], f["severity"]) for f in quiet] == [("settings-changed", "advisory")] * 2
    moved = next(f for f in quiet if "no longer reads" in str(f["message"]))
    assert "what it read is read where it moved" in str(moved["message"])


def test_a_source_that_follows_no_moved_migration_still_narrows(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    """The settings now read another folder than the one the migrations moved to."""
    before, after = SOURCE.format("migrations"), SOURCE.format("db/other")
    found = moved_release(make_repo, before, after, {"db/other/0001_seed.sql": NOTE})
    assert ("settings-narrowed", ".release-safety.toml") in rules(found)


def test_a_moved_code_migration_is_still_a_shipped_one_deleted(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    """A Go migration moved where no source or search reads it: its tool's folder is not known,
    so it is the shipped migration deleted, as before, never nothing."""
    go = {"migrations/20240101000000_backfill.go": "package migrations\n"}
    found = moved_release(make_repo, None, None, {}, shipped=go)
    assert ("shipped-migration-deleted", "migrations/20240101000000_backfill.go") in rules(found)
