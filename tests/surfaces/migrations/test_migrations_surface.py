"""The surface entry point on real git repositories: discovery, memoisation, findings."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import CatFile, GitRepo
from release_safety.git.snapshot import READ_AHEAD, MemorySnapshot
from release_safety.settings.model import Settings, parse_settings
from release_safety.surfaces.migrations.analyse import analyse

lint_module = importlib.import_module("release_safety.surfaces.migrations.lint")


def test_added_migrations_get_tables_heaviness_and_findings(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    repo = make_repo("svc")
    repo.write("db/migrations/001_init.sql", "CREATE TABLE users (id int, email text);\n")
    old = repo.commit("init")
    repo.write(
        "db/migrations/002_index.sql",
        "-- add an index\nCREATE INDEX users_email ON users (email);\n",
    )
    repo.write(
        "ee/migrations/003_drop.sql",
        "SET lock_timeout = '1s';\nALTER TABLE users DROP COLUMN email;\n",
    )
    new = repo.commit("more")
    git = GitRepo(repo.path)
    report = analyse(git.snapshot(old), git.snapshot(new), Settings())
    assert [(f.name, f.edition, f.tables) for f in report.files] == [
        ("002_index.sql", "core", ["users"]),
        ("003_drop.sql", "ee", ["users"]),
    ]
    index, drop = report.files
    assert (index.heaviness.locksTable, index.heaviness.scansTable) == (True, True)
    assert (drop.heaviness.locksTable, drop.heaviness.rewritesTable) == (False, False)
    breaking = report.breaking()
    assert [(f.rule, f.file, f.line) for f in breaking] == [
        ("blocking-table-lock", "db/migrations/002_index.sql", 2),
        ("drop-column", "ee/migrations/003_drop.sql", 2),
    ]
    advisory = {(f.rule, f.line) for f in report.advisories()}
    assert ("create-index-non-concurrently", 2) in advisory
    assert report.unknown() == []


def test_edited_shipped_migration_and_unknown_statement() -> None:
    old = MemorySnapshot({"migrations/001.sql": "CREATE TABLE a (id int);"})
    new = MemorySnapshot(
        {
            "migrations/001.sql": "CREATE TABLE a (id bigint);",
            "migrations/002.sql": "SELECT run_backfill();",
        }
    )
    report = analyse(old, new, Settings())
    assert {f.rule for f in report.unknown()} == {
        "shipped-migration-edited",
        "migration-statement-unknown",
    }
    (only,) = report.files
    assert only.heaviness.locksTable == "unknown"


def test_a_migration_written_in_code_is_unknown(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    """goose runs `<version>_name.go` beside its SQL files and Flyway `V<n>__name.java`: a
    release adding one is not weighed from its SQL alone, nor is code registering a migration
    anywhere (`goose.AddMigration`). Helpers, tests, type declarations and numbered files
    outside a migrations folder that register none are not migrations. A TypeORM name is read
    as TypeORM's (`frameworks/typeorm.py`): this one holds no migration class, so unknown."""
    repo = make_repo("svc")
    repo.write("db/migrations/001_init.sql", "CREATE TABLE users (id int, email text);\n")
    old = repo.commit("init")
    backfill = "package migrations\n\nfunc init() { goose.AddMigration(up, down) }\n"
    helper = "package migrations\n\nfunc helper() {}\n"
    for path in (
        "db/migrations/002_backfill.go",
        "db/migrations/V3__Backfill.java",
        "db/migrations/1588102412422-Init.ts",
        "cmd/tools/registered.go",
    ):
        repo.write(path, backfill)
    for path in (
        "db/migrations/helpers.go",
        "db/migrations/002_backfill_test.go",
        "db/migrations/004_types.d.ts",
        "db/migrations/README.md",
        "cmd/tools/005_seed.go",
    ):
        repo.write(path, helper)
    new = repo.commit("a backfill in Go")
    git = GitRepo(repo.path)
    report = analyse(git.snapshot(old), git.snapshot(new), Settings())
    assert [(f.rule, f.severity, f.file, f.line) for f in report.unknown()] == [
        ("migration-not-read", "unknown", "cmd/tools/registered.go", 3),
        ("migration-not-read", "unknown", "db/migrations/002_backfill.go", 1),
        ("migration-statement-unknown", "unknown", "db/migrations/1588102412422-Init.ts", 1),
        ("migration-not-read", "unknown", "db/migrations/V3__Backfill.java", 1),
    ]
    assert [f.name for f in report.files] == ["1588102412422-Init.ts"]
    repo.write("db/migrations/002_backfill.go", backfill + "// batched\n")
    edited = repo.commit("the shipped one edited")
    report = analyse(git.snapshot(new), git.snapshot(edited), Settings())
    assert [(f.rule, f.file) for f in report.unknown()] == [
        ("shipped-migration-edited", "db/migrations/002_backfill.go")
    ]


GOOSE = "-- +goose Up\nALTER TABLE users ADD COLUMN note text;\n-- +goose Down\nSELECT 1;\n"


@pytest.mark.parametrize(
    ("before", "after", "text", "kept"),
    [
        # goose, golang-migrate and dbmate key applied migrations by version: not run again
        ("migrations/20240101_add_note.sql", "migrations/20240101_add_a_note.sql", GOOSE, True),
        (
            "migrations/7_note.up.sql",
            "migrations/7_a_note.up.sql",
            "ALTER TABLE users ADD COLUMN n text;",
            True,
        ),
        (
            "migrations/7_note.sql",
            "migrations/7_a.sql",
            "-- migrate:up\nSELECT 1;\n-- migrate:down\n",
            True,
        ),
        # a new version runs again; plain SQL and sql-migrate files may be keyed by name
        ("migrations/20240101_add_note.sql", "migrations/20240102_add_note.sql", GOOSE, False),
        (
            "migrations/7_note.sql",
            "migrations/7_a_note.sql",
            "ALTER TABLE users ADD COLUMN n text;",
            False,
        ),
        ("migrations/7_note.sql", "migrations/7_a.sql", "-- +migrate Up\nSELECT 1;\n", False),
    ],
)
def test_a_migration_renamed_keeping_its_version(
    before: str, after: str, text: str, kept: bool
) -> None:
    base = {"migrations/1_init.sql": "CREATE TABLE users (id int);"}
    old = MemorySnapshot({**base, before: text})
    report = analyse(old, MemorySnapshot({**base, after: text}), Settings())
    moved = [(f.rule, f.file) for f in report.unknown()], [f.name for f in report.files]
    if kept:
        assert moved == ([], [])
    else:
        assert moved == ([("shipped-migration-deleted", before)], [after.rpartition("/")[2]])
    edited = analyse(old, MemorySnapshot({**base, after: text + "\n"}), Settings())
    assert ("shipped-migration-deleted", before) in [(f.rule, f.file) for f in edited.unknown()]


def test_templates_are_substituted_from_settings() -> None:
    settings = parse_settings('[migrations]\ntemplate_default = "tenant"\n', ".release-safety.toml")
    new = MemorySnapshot(
        {"migrations/001.sql": 'ALTER TABLE {{ index .Options "Namespace" }}.users ADD c int;'}
    )
    report = analyse(None, new, settings)
    assert report.files[0].tables == ["tenant.users"]


def test_each_blob_is_read_once_and_a_release_replays_only_what_is_new(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file is split once per blob id; the schema a release leaves is the next release's
    starting point, so a backfill replays each migration once."""
    calls: list[str] = []
    original = lint_module.extract

    def counting(text: str, path: str, *rest: object) -> object:
        calls.append(path)
        return original(text, path, *rest)

    monkeypatch.setattr(lint_module, "extract", counting)
    body = "ALTER TABLE memo_once ADD COLUMN z int;"
    v1 = MemorySnapshot({"migrations/a.sql": "CREATE TABLE memo_once (id int);"}, ref="v1")
    v2 = MemorySnapshot({**{p: v1.read(p) for p in v1.paths()}, "migrations/b.sql": body}, ref="v2")
    v3 = MemorySnapshot(
        {**{p: v2.read(p) for p in v2.paths()}, "migrations/c.sql": body.replace("z", "y")},
        ref="v3",
    )
    first = analyse(v1, v2, Settings())
    second = analyse(v1, v2, Settings())
    third = analyse(v2, v3, Settings())
    assert sorted(calls) == ["migrations/a.sql", "migrations/b.sql", "migrations/c.sql"]
    assert [f.tables for f in first.files] == [["memo_once"]]
    assert first == second
    assert third.coverage.old == {p: v2.blob_id(p) for p in v2.paths()}


def test_knex_constants_imported_from_the_repository_are_resolved() -> None:
    migration = "packages/backend/src/database/migrations/20240101120000_add_flag.ts"
    new = MemorySnapshot(
        {
            "packages/backend/src/database/entities/users.ts": (
                "export const UsersTableName = 'users';\n"
            ),
            migration: (
                "import { Knex } from 'knex';\n"
                "import { UsersTableName } from '../entities/users';\n"
                "export async function up(knex: Knex): Promise<void> {\n"
                "  await knex.schema.alterTable(UsersTableName, (t) => {\n"
                "    t.dropColumn('legacy_flag');\n"
                "  });\n"
                "}\n"
            ),
        }
    )
    report = analyse(None, new, Settings())
    assert report.files[0].tables == ["users"]
    assert any(f.severity == "breaking" and f.line == 5 for f in report.findings)


def test_a_release_of_many_migrations_reads_them_in_few_round_trips(
    make_repo: Callable[[str], RepoBuilder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,200 new migrations (and 1,200 replayed): git is asked for their texts in batches of
    `READ_AHEAD`, not once per file (issue 35 class 9: 100,000 new migrations > 600 s)."""
    repo = make_repo("many")
    count = 1200
    for i in range(count):
        repo.write(f"db/migrations/{i:05d}_t.sql", f"CREATE TABLE t{i} (id int);\n")
    old = repo.commit("old")
    for i in range(count, 2 * count):
        repo.write(f"db/migrations/{i:05d}_c.sql", f"ALTER TABLE t{i - count} ADD c text;\n")
    new = repo.commit("new")
    stream = CatFile.stream
    asked: list[int] = []

    def counted(self: CatFile, names: Sequence[str]) -> Iterator[Any]:
        asked.append(len(names))
        return stream(self, names)

    monkeypatch.setattr(CatFile, "stream", counted)
    git = GitRepo(repo.path)
    report = analyse(git.snapshot(old), git.snapshot(new), Settings())
    assert len(report.files) == count and report.checked
    assert sum(asked) >= 2 * count  # every text was read, in few requests
    assert len(asked) <= 2 * (count // READ_AHEAD + 1) + 2, asked


def test_a_release_adding_no_migration_replays_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """The earlier migrations are replayed to judge the added ones against their schema: a
    release that adds none to a database replays nothing for it, and reports the same."""
    surface = importlib.import_module("release_safety.surfaces.migrations.analyse")
    replayed: list[list[str]] = []
    real = surface.replay

    def counted(snapshot: Any, paths: Sequence[Any], reading: Any) -> Any:
        replayed.append([queued.path for queued in paths])
        return real(snapshot, paths, reading)

    monkeypatch.setattr(surface, "replay", counted)
    files = {"migrations/001.sql": "CREATE TABLE a (id int);", "src/app.py": "x = 1\n"}
    old = MemorySnapshot(files)
    same = analyse(old, MemorySnapshot({**files, "src/app.py": "x = 2\n"}), Settings())
    assert replayed == []
    assert same.checked and same.files == [] and same.findings == []
    assert same.coverage.old == {"migrations/001.sql": old.blob_id("migrations/001.sql")}
    added = {**files, "migrations/002.sql": "ALTER TABLE a DROP COLUMN id;"}
    report = analyse(old, MemorySnapshot(added), Settings())
    assert replayed == [["migrations/001.sql"]]
    assert [(f.rule, f.file) for f in report.breaking()] == [("drop-column", "migrations/002.sql")]
