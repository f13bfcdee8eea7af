"""Migration sources on real git releases: the search for migrations stays on beside explicit
sources, each tool's naming and order, and sources of different databases kept apart."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.common.errors import InputError
from release_safety.contract.reports import MigrationsReport
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import Settings, parse_settings
from release_safety.surfaces.migrations.analyse import analyse

Pair = Callable[[dict[str, str | None], dict[str, str | None]], tuple[Snapshot, Snapshot]]
INIT = "CREATE TABLE users (id int, email text);\n"


def settings(toml: str) -> Settings:
    parsed = parse_settings(toml, ".release-safety.toml")
    assert parsed is not None
    return parsed


def judged(
    release_pair: Pair, old: dict[str, str | None], new: dict[str, str | None], toml: str
) -> MigrationsReport:
    before, after = release_pair(old, new)
    return analyse(before, after, settings(toml))


def rules(report: MigrationsReport) -> list[tuple[str, str, str | None]]:
    return sorted((f.rule, f.severity, f.file) for f in report.findings)


SQL_SOURCE = '[[migrations.sources]]\npath = "db/sql"\nformat = "sql"\n'
GO_DROP = (
    'package gomigrations\n\nimport "github.com/pressly/goose/v3"\n\n'
    "func init() { goose.AddMigrationContext(up, down) }\n"
)


def test_a_go_migration_beside_the_configured_sql_folder_is_not_read(release_pair: Pair) -> None:
    """Explicit sources say where SQL is read, not where migrations are looked for."""
    report = judged(
        release_pair,
        {"db/sql/001_init.sql": INIT},
        {"db/gomigrations/002_drop_email.go": GO_DROP},
        SQL_SOURCE,
    )
    (finding,) = report.unknown()
    assert (finding.rule, finding.file, finding.line) == (
        "migration-not-read",
        "db/gomigrations/002_drop_email.go",
        5,
    )
    assert finding.hint is not None and "[[migrations.exclude]]" in finding.hint
    assert [g.file for g in report.coverage.unmodelled] == ["db/gomigrations/002_drop_email.go"]


def test_a_sql_migration_in_a_folder_no_source_reads_names_the_source_to_add(
    release_pair: Pair,
) -> None:
    report = judged(
        release_pair,
        {"db/sql/001_init.sql": INIT},
        {"tenant/migrations/2_x.up.sql": "ALTER TABLE t DROP COLUMN c;\n"},
        SQL_SOURCE,
    )
    (finding,) = report.unknown()
    assert finding.rule == "migration-not-read"
    assert finding.hint is not None
    assert "path = 'tenant/migrations'" in finding.hint
    assert "format = 'golang-migrate'" in finding.hint


def test_an_exclusion_with_a_reason_covers_the_file(release_pair: Pair) -> None:
    toml = (
        SQL_SOURCE + '[[migrations.exclude]]\npath = "db/gomigrations"\n'
        'reason = "these run against the analytics warehouse, not the service database"\n'
    )
    report = judged(
        release_pair,
        {"db/sql/001_init.sql": INIT},
        {"db/gomigrations/002_drop_email.go": GO_DROP},
        toml,
    )
    assert report.unknown() == []
    assert any("db/gomigrations/002_drop_email.go" in line for line in report.coverage.tried)


def test_an_exclusion_without_a_reason_is_refused() -> None:
    with pytest.raises(InputError, match="reason"):
        settings('[[migrations.exclude]]\npath = "x"\n')


def test_a_wrong_format_names_the_valid_ones() -> None:
    with pytest.raises(InputError) as raised:
        settings('[[migrations.sources]]\npath = "db"\nformat = "fizz"\n')
    message = str(raised.value)
    assert "valid: sql, golang-migrate, goose, popx, dbmate, flyway, sqitch, knex" in message
    assert "\n" not in message.strip()


def test_versions_run_as_numbers_not_strings(release_pair: Pair) -> None:
    """`00010-x.sql` runs after `0002-y.sql`: the column it drops exists, so the drop is judged
    as a drop of a column old code reads, not of an unknown column."""
    report = judged(
        release_pair,
        {"db/sql/0001-init.sql": INIT, "db/sql/0002-note.sql": "ALTER TABLE users ADD note text;"},
        {"db/sql/00010-drop.sql": "ALTER TABLE users DROP COLUMN note;\n"},
        SQL_SOURCE,
    )
    assert [(f.rule, f.severity) for f in report.breaking()] == [("drop-column", "breaking")]
    order = judged(
        release_pair,
        {"db/sql/0001-init.sql": INIT},
        {
            "db/sql/00010-drop.sql": "ALTER TABLE users DROP COLUMN note;\n",
            "db/sql/0002-note.sql": "ALTER TABLE users ADD note text;\n",
        },
        SQL_SOURCE,
    )
    assert [f.name for f in order.files] == ["0002-note.sql", "00010-drop.sql"]


POPX = '[[migrations.sources]]\npath = "persistence/migrations"\nformat = "popx"\n'


def test_popx_reads_the_postgres_file_else_the_generic_one(release_pair: Pair) -> None:
    folder = "persistence/migrations"
    report = judged(
        release_pair,
        {f"{folder}/20200101000000_init.up.sql": INIT},
        {
            f"{folder}/20210101000000_drop.postgres.up.sql": "ALTER TABLE users DROP email;\n",
            f"{folder}/20210101000000_drop.up.sql": "ALTER TABLE users RENAME email TO e;\n",
            f"{folder}/20210101000000_drop.mysql.up.sql": "ALTER TABLE users DROP KEY x;\n",
            f"{folder}/20210101000000_drop.sqlite3.up.sql": "PRAGMA foreign_keys=off;\n",
            f"{folder}/20210101000000_drop.cockroach.up.sql": "ALTER TABLE users DROP email;\n",
            f"{folder}/20210101000000_drop.postgres.down.sql": "ALTER TABLE users ADD e text;\n",
            f"{folder}/20210102000000_idx.up.sql": "CREATE INDEX i ON users (id);\n",
        },
        POPX,
    )
    assert [f.name for f in report.files] == [
        "20210101000000_drop.postgres.up.sql",
        "20210102000000_idx.up.sql",
    ]
    assert {f.rule for f in report.breaking()} >= {"drop-column"}
    assert "rename-column" not in {f.rule for f in report.findings}
    (line,) = report.coverage.tried
    assert line.endswith(": 3 read, 0 not run by its tool, 5 in its folders skipped by pattern")
    assert report.unknown() == []


def test_popx_skips_the_dialect_synonyms_pop_gives_other_databases(release_pair: Pair) -> None:
    folder = "persistence/migrations"
    drop = "ALTER TABLE users RENAME TO u; DROP TABLE u;\n"
    report = judged(
        release_pair,
        {f"{folder}/20200101000000_init.up.sql": INIT},
        {
            f"{folder}/20210101000000_a.sqlite.up.sql": drop,
            f"{folder}/20210101000000_a.crdb.up.sql": drop,
            f"{folder}/20210101000000_a.cockroachdb.up.sql": drop,
            f"{folder}/20210101000000_a.postgresql.up.sql": "ALTER TABLE users ADD b text;\n",
            f"{folder}/20210101000000_a.up.sql": drop,
        },
        POPX,
    )
    assert [f.name for f in report.files] == ["20210101000000_a.postgresql.up.sql"]
    assert report.breaking() == [] and report.unknown() == []


def test_discovery_alone_reads_one_dialect_and_skips_vendored_stubs(release_pair: Pair) -> None:
    folder = "persistence/sql/migrations"
    report = judged(
        release_pair,
        {f"{folder}/20200101000000_init.up.sql": INIT},
        {
            f"{folder}/20210101000000_a.postgres.up.sql": "ALTER TABLE users ADD b text;\n",
            f"{folder}/20210101000000_a.mysql.up.sql": "ALTER TABLE users ADD b VARCHAR(2);\n",
            f"{folder}/20210101000000_a.up.sql": "ALTER TABLE users DROP email;\n",
            "vendor/github.com/ory/x/popx/stub/migrations/1_x.up.sql": "SELECT weird();\n",
            "oryx/popx/stub/migrations/transactional/1_x.up.sql": "SELECT weird();\n",
        },
        "",
    )
    assert [f.name for f in report.files] == ["20210101000000_a.postgres.up.sql"]
    assert report.breaking() == [] and report.unknown() == []


def test_popx_autocommit_runs_outside_a_transaction(release_pair: Pair) -> None:
    """In a transaction, CREATE INDEX CONCURRENTLY fails; a `.autocommit` file is not in one."""
    folder = "persistence/migrations"
    index = "CREATE INDEX CONCURRENTLY users_email ON users (email);\n"
    plain = judged(
        release_pair,
        {f"{folder}/20200101000000_init.up.sql": INIT},
        {f"{folder}/20210101000000_idx.up.sql": index},
        POPX,
    )
    auto = judged(
        release_pair,
        {f"{folder}/20200101000000_init.up.sql": INIT},
        {f"{folder}/20210101000000_idx.autocommit.up.sql": index},
        POPX,
    )
    assert [f.name for f in auto.files] == ["20210101000000_idx.autocommit.up.sql"]
    assert auto.breaking() == [] and auto.unknown() == []
    assert [f.name for f in plain.files] == ["20210101000000_idx.up.sql"]


def test_golang_migrate_reads_up_files_only(release_pair: Pair) -> None:
    source = '[[migrations.sources]]\npath = "migrations"\nformat = "golang-migrate"\n'
    report = judged(
        release_pair,
        {"migrations/1_init.up.sql": INIT, "migrations/1_init.down.sql": "DROP TABLE users;"},
        {
            "migrations/10_drop.up.sql": "ALTER TABLE users DROP email;\n",
            "migrations/10_drop.down.sql": "ALTER TABLE users ADD email text;\n",
            "migrations/2_idx.up.sql": "ALTER TABLE users ADD note text;\n",
        },
        source,
    )
    assert [f.name for f in report.files] == ["2_idx.up.sql", "10_drop.up.sql"]
    assert [f.rule for f in report.breaking()] == ["drop-column"]


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("goose", "-- +goose Up\n{sql}-- +goose Down\nDROP TABLE users;\n"),
        ("dbmate", "-- migrate:up\n{sql}\n-- migrate:down\nDROP TABLE users;\n"),
    ],
)
def test_goose_and_dbmate_read_the_up_section(release_pair: Pair, fmt: str, text: str) -> None:
    source = f'[[migrations.sources]]\npath = "db"\nformat = "{fmt}"\n'
    report = judged(
        release_pair,
        {"db/20240101000000_init.sql": text.format(sql=INIT)},
        {"db/20240102000000_drop.sql": text.format(sql="ALTER TABLE users DROP email;\n")},
        source,
    )
    assert [(f.rule, f.line) for f in report.breaking()] == [("drop-column", 2)]


def test_goose_no_transaction(release_pair: Pair) -> None:
    source = '[[migrations.sources]]\npath = "db"\nformat = "goose"\n'
    index = (
        "-- +goose NO TRANSACTION\n-- +goose Up\nCREATE INDEX CONCURRENTLY i ON users (email);\n"
    )
    report = judged(
        release_pair,
        {"db/1_init.sql": "-- +goose Up\n" + INIT},
        {"db/2_idx.sql": index},
        source,
    )
    assert report.breaking() == [] and report.unknown() == []


def test_flyway_versions_then_repeatables(release_pair: Pair) -> None:
    source = '[[migrations.sources]]\npath = "db"\nformat = "flyway"\n'
    report = judged(
        release_pair,
        {"db/V1__init.sql": INIT},
        {
            "db/R__views.sql": "CREATE OR REPLACE VIEW v AS SELECT id FROM users;\n",
            "db/V1_10__drop.sql": "ALTER TABLE users DROP email;\n",
            "db/V1_2__note.sql": "ALTER TABLE users ADD note text;\n",
            "db/U1_2__note.sql": "ALTER TABLE users DROP note;\n",
        },
        source,
    )
    assert [f.name for f in report.files] == ["V1_2__note.sql", "V1_10__drop.sql", "R__views.sql"]


def test_sqitch_runs_deploy_scripts_in_plan_order(release_pair: Pair) -> None:
    source = '[[migrations.sources]]\npath = "db/deploy"\nformat = "sqitch"\n'
    plan = "%syntax-version=1.0.0\n%project=svc\n\nusers 2024-01-01T00:00:00Z a <a@x>\n"
    newer = (
        plan
        + "zz_note [users] 2024-01-02T00:00:00Z a <a@x>\naa_drop 2024-01-03T00:00:00Z a <a@x>\n"
    )
    report = judged(
        release_pair,
        {"db/sqitch.plan": plan, "db/deploy/users.sql": INIT},
        {
            "db/sqitch.plan": newer,
            "db/deploy/zz_note.sql": "ALTER TABLE users ADD note text;\n",
            "db/deploy/aa_drop.sql": "ALTER TABLE users DROP note;\n",
            "db/revert/aa_drop.sql": "ALTER TABLE users ADD note text;\n",
        },
        source,
    )
    assert [f.name for f in report.files] == ["zz_note.sql", "aa_drop.sql"]


def test_sources_of_different_databases_replay_separate_schemas(release_pair: Pair) -> None:
    """A table created in the tenant database and dropped by the shared source in one release:
    merged into one schema, the drop would be of a table the release itself created (quiet);
    judged on the shared database alone, it drops a table the release did not create there."""
    toml = (
        '[[migrations.sources]]\npath = "db/tenant"\ndatabase = "tenant"\n'
        '[[migrations.sources]]\npath = "db/shared"\ndatabase = "shared"\n'
    )
    old = {"db/tenant/001_init.sql": INIT, "db/shared/001_init.sql": "CREATE TABLE orgs (id int);"}
    new: dict[str, str | None] = {
        "db/tenant/002_audit.sql": "CREATE TABLE audit (id int);\n",
        "db/shared/003_drop.sql": "DROP TABLE audit;\n",
    }
    separate = judged(release_pair, old, new, toml)
    merged = judged(
        release_pair,
        old,
        new,
        toml.replace('database = "tenant"', "").replace('database = "shared"', ""),
    )
    assert [f.rule for f in separate.breaking()] == ["drop-table"]
    assert [f.rule for f in merged.breaking()] == []


def test_the_held_counts_follow_from_the_tree_before_as_counted_afresh(tmp_path: Path) -> None:
    """Consecutive releases: each tree's count of unread files in a source's folders follows
    from the previous tree's and the paths that differ, and equals a count over every file,
    whatever changed: a file added, deleted or changed in a folder, a file the sources read
    that stops being read (and one that starts) without changing."""
    from release_safety.git.builder import RepoBuilder
    from release_safety.git.repository import GitRepo
    from release_safety.settings.model import MigrationSource
    from release_safety.surfaces.migrations import analyse as surface

    builder = RepoBuilder(tmp_path / "repo")
    read = {"db/sql/001.sql": 0, "db/sql/002.sql": 0}
    steps: list[tuple[dict[str, str | None], dict[str, int]]] = [
        ({"db/sql/001.sql": INIT, "db/sql/002.sql": INIT, "db/sql/notes.txt": "x"}, read),
        ({"db/sql/down/001.sql": "x", "app/main.go": "package main\n"}, read),
        ({"db/sql/notes.txt": None, "db/sql/more.txt": "y"}, read),
        ({"db/sql/down/001.sql": "changed"}, {"db/sql/001.sql": 0}),  # 002 no longer read
        ({"README.md": "z"}, {**read, "db/sql/down/001.sql": 0}),  # a file starts being read
        ({"db/sql/002.sql": None}, {"db/sql/001.sql": 0, "db/sql/down/001.sql": 0}),
    ]
    commits = []
    for i, (files, _) in enumerate(steps):
        for path, text in files.items():
            builder.delete(path) if text is None else builder.write(path, text)
        commits.append(builder.commit(f"release {i}"))
    sources = (MigrationSource(path="db/sql"), MigrationSource(path="app"))
    repo = GitRepo(builder.path)
    try:
        counted = []
        for i, (_, matched) in enumerate(steps):
            if i:
                repo.start_diff(commits[i - 1], commits[i])
            new = repo.snapshot(commits[i])
            base = new.changed_from()
            assert i == 0 or (base is not None and (base[0], sources) in surface._HELD_COUNTS)
            counted.append(surface._held_counts(new, sources, matched))
            assert counted[-1] == surface._counted(new, sources, matched)[2]
    finally:
        repo.close()
    assert counted == [[1, 0], [2, 1], [2, 1], [3, 1], [1, 1], [1, 1]]
