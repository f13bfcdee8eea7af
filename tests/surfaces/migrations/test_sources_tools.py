"""Each SQL-file migration tool read as it runs, on real git releases, with the default
discovery (no settings) and with the tool named: which files run forward (never a down or
rollback part), in which order, and on which database engine."""

from __future__ import annotations

import json
from collections.abc import Callable

from release_safety.contract.reports import MigrationsReport
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import Settings, parse_settings
from release_safety.surfaces.migrations.analyse import analyse
from release_safety.surfaces.migrations.find.engine import ASSUMED

Files = dict[str, str | None]
Pair = Callable[[Files, Files], tuple[Snapshot, Snapshot]]
INIT = "CREATE TABLE users (id int PRIMARY KEY, email text, name text);\n"
DROP = "ALTER TABLE users DROP COLUMN name;\n"
RESTORE = "ALTER TABLE users ADD COLUMN name text;\n"
INDEX = "CREATE INDEX CONCURRENTLY users_email ON users (email);\n"


def settings(toml: str) -> Settings:
    parsed = parse_settings(toml, ".release-safety.toml") if toml else Settings()
    assert parsed is not None
    return parsed


def judged(release_pair: Pair, old: Files, new: Files, toml: str = "") -> MigrationsReport:
    before, after = release_pair(old, new)
    return analyse(before, after, settings(toml))


def breaking(report: MigrationsReport) -> list[tuple[str, str | None, int | None]]:
    return sorted((f.rule, f.file, f.line) for f in report.breaking())


# --- diesel ---------------------------------------------------------------------------------

DIESEL_OLD: Files = {
    "diesel.toml": '[print_schema]\nfile = "src/schema.rs"\n',
    "migrations/2020-01-01-000000_init/up.sql": INIT,
    "migrations/2020-01-01-000000_init/down.sql": "DROP TABLE users;\n",
}


def test_diesel_a_dropped_column_is_false_at_up_sql(release_pair: Pair) -> None:
    report = judged(
        release_pair,
        DIESEL_OLD,
        {
            "migrations/2021-02-01-000000_drop_name/up.sql": "\n" + DROP,
            "migrations/2021-02-01-000000_drop_name/down.sql": RESTORE,
        },
    )
    assert breaking(report) == [("drop-column", "migrations/2021-02-01-000000_drop_name/up.sql", 2)]
    assert [f.name for f in report.files] == ["up.sql"]


def test_diesel_a_destructive_down_sql_never_runs_forward(release_pair: Pair) -> None:
    report = judged(
        release_pair,
        DIESEL_OLD,
        {
            "migrations/2021-02-01-000000_index/up.sql": INDEX,
            "migrations/2021-02-01-000000_index/down.sql": "DROP INDEX users_email;\n"
            "DROP TABLE users;\n",
        },
        '[[migrations.sources]]\npath = "migrations"\nformat = "diesel"\n',
    )
    assert report.breaking() == [] and report.unknown() == []
    assert len(report.files) == 1


def test_diesel_folders_run_by_name_before_their_down_parts(release_pair: Pair) -> None:
    """The column the later folder drops was added by the earlier one: replayed in folder
    order (up.sql only), the drop is of a known column."""
    report = judged(
        release_pair,
        DIESEL_OLD,
        {
            "migrations/2021-03-01-000000_drop/up.sql": "ALTER TABLE users DROP COLUMN note;\n",
            "migrations/2021-03-01-000000_drop/down.sql": "ALTER TABLE users ADD note text;\n",
            "migrations/2021-02-01-000000_note/up.sql": "ALTER TABLE users ADD note text;\n",
            "migrations/2021-02-01-000000_note/down.sql": "ALTER TABLE users DROP note;\n",
        },
    )
    assert report.breaking() == [] and report.unknown() == []  # note was added by this release


def test_diesel_a_deleted_down_sql_is_not_a_deleted_migration(release_pair: Pair) -> None:
    report = judged(release_pair, DIESEL_OLD, {"migrations/2020-01-01-000000_init/down.sql": None})
    assert report.findings == []


# --- prisma ---------------------------------------------------------------------------------


def _prisma(root: str, provider: str) -> Files:
    return {f"{root}/migration_lock.toml": f'provider = "{provider}"\n'}


def test_prisma_mysql_drop_column_is_false_and_says_mysql(release_pair: Pair) -> None:
    root = "prisma/migrations"
    report = judged(
        release_pair,
        {
            **_prisma(root, "mysql"),
            f"{root}/20210101000000_init/migration.sql": "CREATE TABLE `users` (`id` INT NOT NULL, "
            "`name` VARCHAR(191) NOT NULL, PRIMARY KEY (`id`));\n",
        },
        {f"{root}/20210201000000_drop/migration.sql": "ALTER TABLE `users` DROP COLUMN `name`;\n"},
    )
    (finding,) = report.breaking()
    assert (finding.rule, finding.file, finding.line) == (
        "drop-column",
        f"{root}/20210201000000_drop/migration.sql",
        1,
    )
    assert "(MySQL)" in finding.message
    assert report.unknown() == []
    assert any("MySQL" in line and "migration_lock.toml" in line for line in report.coverage.tried)


def test_prisma_postgres_and_mysql_side_by_side_keep_their_schemas(release_pair: Pair) -> None:
    """The MySQL folders are not replayed into the PostgreSQL schema, and no PostgreSQL lock
    rule judges them."""
    pg, my = "prisma/postgres/migrations", "prisma/mysql/migrations"
    report = judged(
        release_pair,
        {
            **_prisma(pg, "postgresql"),
            **_prisma(my, "mysql"),
            f"{pg}/20210101000000_init/migration.sql": INIT,
            f"{my}/20210101000000_init/migration.sql": "CREATE TABLE `users` (`id` INT NOT NULL, "
            "`email` VARCHAR(191) NULL, PRIMARY KEY (`id`));\n",
        },
        {
            f"{pg}/20210201000000_idx/migration.sql": "CREATE INDEX i ON users (email);\n",
            f"{my}/20210201000000_idx/migration.sql": "CREATE INDEX `i` ON `users`(`email`);\n",
        },
    )
    by_file = {(f.rule, f.file) for f in report.findings}
    assert ("blocking-table-lock", f"{pg}/20210201000000_idx/migration.sql") in by_file
    assert not [f for f in report.findings if f.file and f.file.startswith(my)]
    heavy = {f.name: f.heaviness for f in report.files}
    assert len(heavy) == 1  # both are migration.sql: one per database, the MySQL one in place
    assert [f.heaviness.scansTable for f in report.files] == [True, True]
    assert [f.heaviness.locksTable for f in report.files] == [True, False]


def test_prisma_a_hand_written_down_sql_never_runs(release_pair: Pair) -> None:
    root = "prisma/migrations"
    report = judged(
        release_pair,
        {**_prisma(root, "postgresql"), f"{root}/20210101000000_init/migration.sql": INIT},
        {
            f"{root}/20210201000000_idx/migration.sql": INDEX,
            f"{root}/20210201000000_idx/down.sql": "DROP TABLE users;\n",
        },
    )
    assert report.breaking() == [] and report.unknown() == []


# --- sqlx -----------------------------------------------------------------------------------

SQLX = '[[migrations.sources]]\npath = "migrations"\nformat = "sqlx"\n'


def test_sqlx_reversible_down_never_runs_and_versions_order(release_pair: Pair) -> None:
    old: Files = {
        "migrations/1_init.up.sql": INIT,
        "migrations/1_init.down.sql": "DROP TABLE users;",
    }
    quiet = judged(
        release_pair,
        old,
        {"migrations/2_idx.up.sql": INDEX, "migrations/2_idx.down.sql": "DROP TABLE users;\n"},
        SQLX,
    )
    assert quiet.breaking() == [] and quiet.unknown() == []
    fires = judged(
        release_pair,
        old,
        {
            "migrations/10_drop.up.sql": "ALTER TABLE users DROP COLUMN note;\n",
            "migrations/9_note.up.sql": "ALTER TABLE users ADD note text;\n",
            "migrations/11_drop_name.sql": DROP,
        },
        SQLX,
    )
    assert [f.name for f in fires.files] == ["9_note.up.sql", "10_drop.up.sql", "11_drop_name.sql"]
    assert breaking(fires) == [("drop-column", "migrations/11_drop_name.sql", 1)]


# --- drizzle --------------------------------------------------------------------------------


def _journal(*tags: str, dialect: str = "postgresql") -> str:
    entries = [{"idx": i, "tag": tag, "when": 1700000000000 + i} for i, tag in enumerate(tags)]
    return json.dumps({"version": "7", "dialect": dialect, "entries": entries})


def test_drizzle_runs_its_journal_and_splits_at_breakpoints(release_pair: Pair) -> None:
    old: Files = {
        "drizzle/0000_init.sql": INIT,
        "drizzle/meta/_journal.json": _journal("0000_init"),
    }
    report = judged(
        release_pair,
        old,
        {
            "drizzle/0001_drop.sql": "CREATE TABLE t (id int);\n--> statement-breakpoint\n" + DROP,
            "drizzle/0002_unjournaled.sql": "DROP TABLE users;\n",
            "drizzle/meta/_journal.json": _journal("0000_init", "0001_drop"),
        },
    )
    assert breaking(report) == [("drop-column", "drizzle/0001_drop.sql", 3)]
    assert [f.name for f in report.files] == ["0001_drop.sql"]


def test_drizzle_sqlite_is_judged_as_sqlite(release_pair: Pair) -> None:
    old: Files = {
        "drizzle/0000_init.sql": "CREATE TABLE `users` (`id` integer PRIMARY KEY, `name` text);\n",
        "drizzle/meta/_journal.json": _journal("0000_init", dialect="sqlite"),
    }
    report = judged(
        release_pair,
        old,
        {
            "drizzle/0001_idx.sql": "CREATE INDEX `users_name` ON `users` (`name`);\n",
            "drizzle/meta/_journal.json": _journal("0000_init", "0001_idx", dialect="sqlite"),
        },
    )
    assert report.breaking() == []
    (unknown,) = report.unknown()
    assert unknown.rule == "engine-heaviness-unknown" and "(SQLite)" in unknown.message


# --- Atlas ----------------------------------------------------------------------------------


def test_atlas_runs_by_name_and_reads_its_dialect(release_pair: Pair) -> None:
    old: Files = {
        "atlas.hcl": 'env "local" {\n  dev = "docker://mysql/8/dev"\n}\n',
        "migrations/atlas.sum": "h1:x=\n20210101000000_init.sql h1:y=\n",
        "migrations/20210101000000_init.sql": "CREATE TABLE users (id INT, name VARCHAR(10));\n",
    }
    report = judged(
        release_pair,
        old,
        {
            "migrations/20210201000000_widen.sql": "ALTER TABLE users MODIFY name VARCHAR(20);\n",
            "migrations/20210301000000_narrow.sql": "ALTER TABLE users MODIFY name VARCHAR(5);\n",
            "migrations/atlas.sum": "h1:z=\n20210101000000_init.sql h1:y=\n",
        },
    )
    assert breaking(report) == [
        ("change-column-type", "migrations/20210301000000_narrow.sql", 1),
        ("mysql-blocks-writes", "migrations/20210301000000_narrow.sql", 1),
    ]


# --- Liquibase formatted SQL ----------------------------------------------------------------

LIQUIBASE_OLD: Files = {
    "db/migrations/001_init.sql": "--liquibase formatted sql\n--changeset alice:1\n" + INIT
}


def test_liquibase_rollback_never_runs_forward(release_pair: Pair) -> None:
    quiet = judged(
        release_pair,
        LIQUIBASE_OLD,
        {
            "db/migrations/002_idx.sql": "--liquibase formatted sql\n"
            "--changeset alice:2 runInTransaction:false\n"
            + INDEX
            + "--rollback DROP TABLE users;\n",
        },
    )
    assert quiet.breaking() == [] and quiet.unknown() == []
    fires = judged(
        release_pair,
        LIQUIBASE_OLD,
        {
            "db/migrations/002_drop.sql": "--liquibase formatted sql\n--changeset alice:2\n"
            + DROP
            + "--rollback "
            + RESTORE,
        },
    )
    assert breaking(fires) == [("drop-column", "db/migrations/002_drop.sql", 3)]


# --- engines by folder name -----------------------------------------------------------------


def test_clickhouse_beside_postgres_is_its_own_database(release_pair: Pair) -> None:
    """The ClickHouse folder is judged as ClickHouse: a materialized view writing TO a table
    is no PostgreSQL lock, and a dropped column is breaking with heaviness unknown."""
    ch = "db/migrations/clickhouse"
    old: Files = {
        "db/migrations/postgres/001_init.sql": INIT,
        f"{ch}/001_events.sql": "CREATE TABLE events (id UInt64, a String, b String) "
        "ENGINE = MergeTree ORDER BY id;\n",
    }
    quiet = judged(
        release_pair,
        old,
        {
            f"{ch}/002_mv.sql": "CREATE TABLE agg (a String, n UInt64) ENGINE = SummingMergeTree "
            "ORDER BY a;\n\nCREATE MATERIALIZED VIEW mv TO agg AS\nSELECT a, count() AS n "
            "FROM events GROUP BY a;\n"
        },
    )
    assert quiet.findings == []
    fires = judged(release_pair, old, {f"{ch}/002_drop.sql": "ALTER TABLE events DROP COLUMN b;\n"})
    assert breaking(fires) == [("drop-column", f"{ch}/002_drop.sql", 1)]
    assert [f.rule for f in fires.unknown()] == ["engine-heaviness-unknown"]
    assert "blocking-table-lock" not in {f.rule for f in fires.findings}
    assert any("ClickHouse (the folder name 'clickhouse')" in line for line in fires.coverage.tried)


def test_a_dialect_setting_names_the_engine(release_pair: Pair) -> None:
    toml = '[[migrations.sources]]\npath = "db/migrations"\ndialect = "sqlite"\n'
    report = judged(
        release_pair,
        {"db/migrations/001_init.sql": INIT},
        {"db/migrations/002_idx.sql": "CREATE INDEX users_email ON users (email);\n"},
        toml,
    )
    assert [f.rule for f in report.findings] == ["engine-heaviness-unknown"]
    assert "(SQLite)" in report.findings[0].message


# --- one source per root, for init ----------------------------------------------------------


def test_each_root_is_one_source_with_its_tool_and_engine() -> None:
    from release_safety.git.snapshot import MemorySnapshot
    from release_safety.surfaces.migrations.find.roots import migration_roots

    tree = MemorySnapshot(
        {
            **DIESEL_OLD,
            "migrations/2021-01-01-000000_b/up.sql": DROP,
            "migrations/2021-01-01-000000_b/down.sql": RESTORE,
            **_prisma("web/prisma/migrations", "mysql"),
            "web/prisma/migrations/20210101000000_init/migration.sql": INIT,
            "drizzle/0000_init.sql": INIT,
            "drizzle/meta/_journal.json": _journal("0000_init", dialect="sqlite"),
            "db/migrations/20210101_init.sql": "-- +goose Up\n" + INIT,
        }
    )
    roots = {root.source.path: root for root in migration_roots(tree)}
    assert {path: (r.source.format, r.source.dialect) for path, r in roots.items()} == {
        "migrations": ("diesel", None),
        "web/prisma/migrations": ("prisma", "mysql"),
        "drizzle": ("drizzle", "sqlite"),
        "db/migrations": ("goose", None),
    }
    assert roots["migrations"].files == [
        "migrations/2020-01-01-000000_init/up.sql",
        "migrations/2021-01-01-000000_b/up.sql",
    ]
    assert (
        "MySQL: web/prisma/migrations/migration_lock.toml provider"
        in roots["web/prisma/migrations"].why()
    )


def test_the_tool_config_names_the_engine() -> None:
    from release_safety.git.snapshot import MemorySnapshot
    from release_safety.surfaces.migrations.find.roots import migration_roots

    tree = MemorySnapshot(
        {
            "api/Cargo.toml": '[dependencies]\ndiesel = { version = "2", features = ["mysql", '
            '"chrono"] }\n',
            "api/migrations/2020-01-01-000000_init/up.sql": INIT,
            "web/drizzle.config.ts": 'export default defineConfig({ dialect: "mysql" });\n',
            "web/drizzle/0000_init.sql": INIT,
            "web/drizzle/meta/_journal.json": json.dumps(
                {"entries": [{"idx": 0, "tag": "0000_init"}]}
            ),
            "tools/Cargo.toml": '[dependencies]\nsqlx = { features = ["sqlite", "postgres"] }\n',
            "tools/migrations/1_init.sql": INIT,
        }
    )
    said = {r.source.path: (r.source.dialect, r.engine.said_by) for r in migration_roots(tree)}
    assert said == {
        "api/migrations": ("mysql", "api/Cargo.toml features"),
        "web/drizzle": ("mysql", "web/drizzle.config.ts dialect"),
        "tools/migrations": (None, ASSUMED),  # two engines: the dependency does not say which
    }


# --- Liquibase changelogs -------------------------------------------------------------------

CHANGELOG = "src/main/resources/db/changelog"
MASTER_OLD = "databaseChangeLog:\n  - include:\n      file: db/changelog/changes/001-init.yaml\n"
INIT_YAML = (
    "databaseChangeLog:\n"
    "  - changeSet:\n      id: 1\n      author: alice\n      changes:\n"
    "        - sql:\n            sql: |\n"
    "              CREATE TABLE users (id int PRIMARY KEY, email text, name text);\n"
)


def _liquibase(*more: str) -> str:
    return MASTER_OLD + "".join(
        f"  - include:\n      file: {name}\n      relativeToChangelogFile: true\n" for name in more
    )


def _xml(body: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<databaseChangeLog xmlns="http://www.liquibase.org/xml/ns/dbchangelog">\n'
        f"{body}</databaseChangeLog>\n"
    )


LIQUIBASE_TREE: Files = {
    f"{CHANGELOG}/db.changelog-master.yaml": MASTER_OLD,
    f"{CHANGELOG}/changes/001-init.yaml": INIT_YAML,
}


def test_liquibase_xml_sql_change_is_read_and_its_rollback_never_runs(release_pair: Pair) -> None:
    drop = _xml(
        '  <changeSet id="2" author="bob">\n'
        "    <sql>ALTER TABLE users DROP COLUMN name</sql>\n"
        "    <rollback><sql>ALTER TABLE users ADD COLUMN name text</sql></rollback>\n"
        "  </changeSet>\n"
    )
    fires = judged(
        release_pair,
        LIQUIBASE_TREE,
        {
            f"{CHANGELOG}/db.changelog-master.yaml": _liquibase("changes/002-drop.xml"),
            f"{CHANGELOG}/changes/002-drop.xml": drop,
        },
    )
    assert breaking(fires) == [("drop-column", f"{CHANGELOG}/changes/002-drop.xml", 4)]
    index = _xml(
        '  <changeSet id="2" author="bob" runInTransaction="false">\n'
        "    <sql>CREATE INDEX CONCURRENTLY users_email ON users (email)</sql>\n"
        "    <rollback><sql>DROP TABLE users</sql></rollback>\n"
        "  </changeSet>\n"
    )
    quiet = judged(
        release_pair,
        LIQUIBASE_TREE,
        {
            f"{CHANGELOG}/db.changelog-master.yaml": _liquibase("changes/002-index.xml"),
            f"{CHANGELOG}/changes/002-index.xml": index,
        },
    )
    assert quiet.breaking() == [] and quiet.unknown() == []


def test_liquibase_runs_its_includes_in_order_and_not_what_none_includes(
    release_pair: Pair,
) -> None:
    """The master includes z-create (a new table) before a-index (an index on it): in that
    order the index is on a table the release created; the unincluded file never runs."""
    create = "--liquibase formatted sql\n--changeset bob:2\nCREATE TABLE teams (id int, n text);\n"
    index = "--liquibase formatted sql\n--changeset bob:3\nCREATE INDEX teams_n ON teams (n);\n"
    report = judged(
        release_pair,
        LIQUIBASE_TREE,
        {
            f"{CHANGELOG}/db.changelog-master.yaml": _liquibase(
                "changes/z-create.sql", "changes/a-index.sql"
            ),
            f"{CHANGELOG}/changes/z-create.sql": create,
            f"{CHANGELOG}/changes/a-index.sql": index,
            f"{CHANGELOG}/changes/999-forgotten.sql": "--liquibase formatted sql\n"
            "--changeset bob:9\nDROP TABLE users;\n",
        },
    )
    assert report.breaking() == [] and report.unknown() == []
    assert [f.name for f in report.files] == [
        "db.changelog-master.yaml",
        "z-create.sql",
        "a-index.sql",
    ]


def test_liquibase_other_change_types_are_unknown_at_their_line(release_pair: Pair) -> None:
    change = (
        "databaseChangeLog:\n  - changeSet:\n      id: 2\n      author: bob\n      changes:\n"
        "        - dropColumn:\n            tableName: users\n            columnName: name\n"
    )
    report = judged(
        release_pair,
        LIQUIBASE_TREE,
        {
            f"{CHANGELOG}/db.changelog-master.yaml": _liquibase("changes/002-drop.yaml"),
            f"{CHANGELOG}/changes/002-drop.yaml": change,
        },
    )
    (unknown,) = report.unknown()
    assert (unknown.file, unknown.line) == (f"{CHANGELOG}/changes/002-drop.yaml", 6)
    assert "dropColumn" in unknown.message


def test_a_changelog_gaining_changesets_is_judged_on_the_new_ones(release_pair: Pair) -> None:
    """Liquibase runs changesets: one appended to a shipped changelog is the release's
    migration; a shipped one changed is an edit, at its line."""
    path = "db/migrations/changelog.sql"
    shipped = "--liquibase formatted sql\n\n--changeset alice:1\n" + INIT
    index = "\n--changeset bob:2\nCREATE INDEX users_email ON users (email);\n"
    grown = judged(release_pair, {path: shipped}, {path: shipped + index})
    assert [(f.rule, f.file, f.line) for f in grown.findings if f.severity != "advisory"] == [
        ("blocking-table-lock", path, 7)
    ]
    drop = "\n--changeset bob:2\n" + DROP
    assert breaking(judged(release_pair, {path: shipped}, {path: shipped + drop})) == [
        ("drop-column", path, 7)
    ]
    edited = shipped.replace("name text", "name varchar(10)")
    (finding,) = judged(release_pair, {path: shipped}, {path: edited + index}).unknown()
    assert (finding.rule, finding.line) == ("shipped-migration-edited", 3)
