# ruff: noqa: E501
"""Each class of issue 14, a named test on the suite's PostgreSQL and on a real repository.

The previous release's migrations build the fixture schema (`pgprobe.FIXTURE_SQL`, then the
`earlier` migrations); the release adds one migration. PostgreSQL runs it on that schema and
shows its flags; the migrations surface replays the previous release's files, analyses the new
one, and the verdict of the release follows (the other surfaces checked and quiet).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest
from pgprobe import FIXTURE_SQL, Probe

from release_safety.contract.reports import SURFACES, MigrationsReport, SurfaceReport
from release_safety.git.repository import GitSnapshot
from release_safety.release.verdict import decide
from release_safety.settings.model import MigrationSettings, Settings
from release_safety.surfaces.migrations.analyse import analyse
from release_safety.surfaces.migrations.lint import lint_texts
from release_safety.surfaces.migrations.reading import Reading

Pair = Callable[[dict[str, str | None], dict[str, str | None]], tuple[GitSnapshot, GitSnapshot]]


@dataclass(frozen=True)
class Judged:
    postgres: str
    static: str
    verdict: bool | str
    rules: frozenset[str]
    report: MigrationsReport


def _letters(locks: object, rewrites: object, scans: object) -> str:
    values = (locks, rewrites, scans)
    letters = "".join(k for k, v in zip("lrs", values, strict=True) if v is True)
    return letters + ("?" if "unknown" in values else "")


def verdict_of(report: SurfaceReport) -> bool | str:
    """The release's verdict when every other surface is checked and has nothing to say."""
    others = [SurfaceReport(surface=s, checked=True) for s in SURFACES if s != report.surface]
    return decide([report, *others]).rolling_update_safe


def judge(
    release_pair: Pair,
    probe: Probe,
    migration: str,
    *,
    earlier: Sequence[str] = (),
    settings: Settings | None = None,
    session: str = "",
) -> Judged:
    """The migration judged by PostgreSQL (after `session`, the server's own settings) and
    by the analysis of a release that adds it."""
    old_files: dict[str, str | None] = {"db/migrations/0001_schema.sql": FIXTURE_SQL}
    for n, sql in enumerate(earlier, start=2):
        old_files[f"db/migrations/{n:04d}_earlier.sql"] = sql
    old, new = release_pair(old_files, {"db/migrations/0100_change.sql": migration})
    report = analyse(old, new, settings or Settings())
    (analysed,) = report.files
    heaviness = analysed.heaviness
    measured = probe.run(session + migration, setup="\n".join(f"{s};" for s in earlier))
    return Judged(
        measured.letters(),
        _letters(heaviness.locksTable, heaviness.rewritesTable, heaviness.scansTable),
        verdict_of(report),
        frozenset(f.rule for f in report.findings),
        report,
    )


def test_the_replay_reads_the_previous_release_and_says_so(release_pair: Pair) -> None:
    old, new = release_pair(
        {"db/migrations/0001_schema.sql": FIXTURE_SQL},
        {"db/migrations/0002_x.sql": "ALTER TABLE users ADD COLUMN x text"},
    )
    report = analyse(old, new, Settings())
    assert report.coverage.old == {
        "db/migrations/0001_schema.sql": old.blob_id("db/migrations/0001_schema.sql")
    }
    assert verdict_of(report) is True


def test_drop_default_breaks_old_inserts_only_when_the_column_is_not_null(
    release_pair: Pair, probe: Probe
) -> None:
    not_null = judge(release_pair, probe, "ALTER TABLE users ALTER COLUMN created_at DROP DEFAULT")
    assert not_null.postgres == not_null.static == ""
    assert not_null.verdict is False and "drop-default-not-null-column" in not_null.rules
    nullable = judge(release_pair, probe, "ALTER TABLE contacts ALTER COLUMN note DROP DEFAULT")
    assert nullable.postgres == nullable.static == ""
    assert nullable.verdict is True and "drop-default" in nullable.rules


def test_primary_key_on_a_nullable_column_is_a_break_and_a_scan(
    release_pair: Pair, probe: Probe
) -> None:
    direct = judge(release_pair, probe, "ALTER TABLE staging ADD PRIMARY KEY (id)")
    assert direct.postgres == direct.static == "ls"
    assert direct.verdict is False and "add-primary-key-nullable-column" in direct.rules
    using = judge(
        release_pair,
        probe,
        "ALTER TABLE staging ADD PRIMARY KEY USING INDEX staging_id_idx",
        earlier=["CREATE UNIQUE INDEX staging_id_idx ON staging (id)"],
    )
    assert using.postgres == using.static == "ls"  # the implicit SET NOT NULL reads every row
    assert using.verdict is False and "add-primary-key-nullable-column" in using.rules
    not_null = judge(
        release_pair,
        probe,
        "ALTER TABLE staging ADD PRIMARY KEY USING INDEX staging_id_idx",
        earlier=[
            "ALTER TABLE staging ALTER COLUMN id SET NOT NULL",
            "CREATE UNIQUE INDEX staging_id_idx ON staging (id)",
        ],
    )
    assert not_null.postgres == not_null.static == ""
    assert not_null.verdict is True


def test_drop_identity_removes_the_default_old_inserts_rely_on(
    release_pair: Pair, probe: Probe
) -> None:
    judged = judge(release_pair, probe, "ALTER TABLE contacts ALTER COLUMN id DROP IDENTITY")
    assert judged.postgres == judged.static == ""
    assert judged.verdict is False and "drop-identity" in judged.rules


def test_alter_domain_scans_and_restricts_every_table_with_a_column_of_it(
    release_pair: Pair, probe: Probe
) -> None:
    not_null = judge(release_pair, probe, "ALTER DOMAIN label SET NOT NULL")
    assert not_null.postgres == not_null.static == "ls"
    assert not_null.report.files[0].tables == ["contacts"]
    assert not_null.verdict is False and {"set-not-null", "blocking-table-lock"} <= not_null.rules
    check = judge(
        release_pair,
        probe,
        "ALTER DOMAIN email_address ADD CONSTRAINT short CHECK (length(VALUE) < 99)",
    )
    assert check.postgres == check.static == "ls"
    assert check.verdict is False and "blocking-table-lock" in check.rules
    not_valid = judge(
        release_pair,
        probe,
        "ALTER DOMAIN email_address ADD CONSTRAINT short CHECK (length(VALUE) < 99) NOT VALID",
    )
    assert not_valid.postgres == not_valid.static == ""
    assert not_valid.verdict is True


def test_drop_index_and_reindex_index_lock_the_index_table(
    release_pair: Pair, probe: Probe
) -> None:
    dropped = judge(release_pair, probe, "SET lock_timeout = '2s';\nDROP INDEX orders_user_id_idx")
    assert dropped.postgres == dropped.static == ""
    assert dropped.report.files[0].tables == ["orders"]
    assert dropped.verdict is True
    rebuilt = judge(release_pair, probe, "REINDEX INDEX orders_user_id_idx")
    assert rebuilt.postgres == rebuilt.static == "ls"
    assert rebuilt.report.files[0].tables == ["orders"]
    assert rebuilt.verdict is False and "blocking-table-lock" in rebuilt.rules


def test_validating_a_foreign_key_locks_and_reads_the_referenced_table(
    release_pair: Pair, probe: Probe
) -> None:
    judged = judge(
        release_pair,
        probe,
        "ALTER TABLE orders VALIDATE CONSTRAINT orders_user_fk",
        earlier=[
            "ALTER TABLE orders ADD CONSTRAINT orders_user_fk FOREIGN KEY (user_id) "
            "REFERENCES users (id) NOT VALID"
        ],
    )
    assert judged.postgres == judged.static == "s"
    assert judged.report.files[0].tables == ["orders", "users"]
    assert judged.verdict is True


def test_create_table_references_locks_the_referenced_table(
    release_pair: Pair, probe: Probe
) -> None:
    judged = judge(
        release_pair,
        probe,
        "CREATE TABLE notes (id bigint PRIMARY KEY, user_id bigint REFERENCES users)",
    )
    assert judged.postgres == judged.static == ""
    assert judged.report.files[0].tables == ["notes", "users"]
    assert "lock-timeout-missing" in judged.rules and judged.verdict is True


def test_partition_of_and_attach_partition_lock_the_parent_and_read_its_default_partition(
    release_pair: Pair, probe: Probe
) -> None:
    plain = judge(
        release_pair,
        probe,
        "CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01')",
    )
    assert plain.postgres == plain.static == ""
    assert plain.report.files[0].tables == ["events", "events_2026"] and plain.verdict is True
    with_default = judge(
        release_pair,
        probe,
        "CREATE TABLE logs_2030 PARTITION OF logs FOR VALUES FROM ('2030-01-01') TO ('2031-01-01')",
    )
    assert with_default.postgres == with_default.static == "ls"
    assert with_default.verdict is False and "blocking-table-lock" in with_default.rules
    attached = judge(
        release_pair,
        probe,
        "ALTER TABLE logs ATTACH PARTITION logs_2031 FOR VALUES FROM ('2031-01-01') TO ('2032-01-01')",
        earlier=["CREATE TABLE logs_2031 (id bigint, at date)"],
    )
    assert attached.postgres == attached.static == "ls"
    assert attached.verdict is False


def test_adding_an_identity_column_rewrites(release_pair: Pair, probe: Probe) -> None:
    judged = judge(
        release_pair,
        probe,
        "ALTER TABLE users ADD COLUMN n bigint GENERATED BY DEFAULT AS IDENTITY",
    )
    assert judged.postgres == judged.static == "lrs"
    assert judged.verdict is False and "table-rewrite" in judged.rules


def test_a_column_of_a_domain_with_constraints_rewrites_and_scans(
    release_pair: Pair, probe: Probe
) -> None:
    checked = judge(release_pair, probe, "ALTER TABLE users ADD COLUMN contact email_address")
    assert checked.postgres == checked.static == "lrs" and checked.verdict is False
    plain = judge(
        release_pair, probe, "SET lock_timeout = '2s';\nALTER TABLE users ADD COLUMN topic label"
    )
    assert plain.postgres == plain.static == "" and plain.verdict is True


@pytest.mark.parametrize(
    ("session", "setting", "expected"),
    [
        ("", "UTC", "ls"),
        ("SET TimeZone = 'Europe/Paris';\n", "UTC", "lrs"),
        ("SET timezone TO 'Etc/UTC';\n", "Europe/Paris", "ls"),
        ("SET TIME ZONE 'America/New_York';\n", "UTC", "lrs"),
    ],
)
def test_timestamp_to_timestamptz_rewrites_unless_the_session_is_utc_and_rebuilds_indexes(
    release_pair: Pair, probe: Probe, session: str, setting: str, expected: str
) -> None:
    settings = Settings(migrations=MigrationSettings(server_timezone=setting))
    judged = judge(
        release_pair,
        probe,
        session + "ALTER TABLE contacts ALTER COLUMN seen TYPE timestamptz",
        settings=settings,
    )
    assert judged.postgres == judged.static == expected
    assert judged.verdict is False and "change-column-type" not in judged.rules


def test_the_server_time_zone_setting_is_what_the_migration_runs_with(
    release_pair: Pair, probe: Probe
) -> None:
    settings = Settings(migrations=MigrationSettings(server_timezone="Europe/Paris"))
    judged = judge(
        release_pair,
        probe,
        "ALTER TABLE contacts ALTER COLUMN seen TYPE timestamptz",
        settings=settings,
        session="SET TimeZone = 'Europe/Paris';\n",
    )
    assert judged.postgres == judged.static == "lrs"


@pytest.mark.parametrize(
    ("change", "expected", "verdict"),
    [
        ("ALTER TABLE users ALTER COLUMN name TYPE varchar(100)", "", True),
        ("ALTER TABLE users ALTER COLUMN name TYPE text", "", True),
        ("ALTER TABLE contacts ALTER COLUMN phone TYPE varchar", "", True),
        ("ALTER TABLE orders ALTER COLUMN amount TYPE numeric(14,2)", "", True),
        ("ALTER TABLE orders ALTER COLUMN amount TYPE numeric", "", True),
        ("ALTER TABLE orders ALTER COLUMN amount TYPE numeric(14,3)", "lrs", False),
        ("ALTER TABLE users ALTER COLUMN name TYPE varchar(20)", "lrs", False),
        ("ALTER TABLE users ALTER COLUMN age TYPE bigint", "lrs", False),
        ("ALTER TABLE users ALTER COLUMN email TYPE varchar(320)", "error", None),
    ],
)
def test_type_changes_follow_the_binary_coercible_table(
    release_pair: Pair, probe: Probe, change: str, expected: str, verdict: bool | None
) -> None:
    if expected == "error":  # a view depends on users.email: PostgreSQL refuses the change
        with pytest.raises(Exception, match="view"):
            judge(release_pair, probe, change)
        return
    judged = judge(release_pair, probe, "SET lock_timeout = '2s';\n" + change)
    assert judged.postgres == judged.static == expected
    assert judged.verdict is verdict


@pytest.mark.parametrize(
    ("change", "fits"),
    [
        ("ALTER TABLE users ALTER COLUMN age TYPE text", False),
        ("ALTER TABLE contacts ALTER COLUMN phone TYPE int USING phone::int", False),
        ("ALTER TABLE orders ALTER COLUMN user_id TYPE int", False),
        ("ALTER TABLE users ALTER COLUMN name TYPE varchar(20)", False),
        ("ALTER TABLE users ALTER COLUMN age TYPE bigint", True),
        ("ALTER TABLE users ALTER COLUMN mood TYPE text", True),
        ("ALTER TABLE users ALTER COLUMN name TYPE varchar(200)", True),
    ],
)
def test_a_type_change_breaks_old_code_whose_values_no_longer_fit(
    release_pair: Pair, probe: Probe, change: str, fits: bool
) -> None:
    judged = judge(release_pair, probe, change)
    assert judged.postgres == judged.static
    assert ("change-column-type" in judged.rules) is not fits
    if not fits:
        assert judged.verdict is False


def test_enable_row_level_security_is_a_break(release_pair: Pair, probe: Probe) -> None:
    judged = judge(release_pair, probe, "ALTER TABLE users ENABLE ROW LEVEL SECURITY")
    assert judged.postgres == judged.static == ""
    assert judged.verdict is False and "enable-row-level-security" in judged.rules


def test_a_check_added_with_set_not_null_in_one_statement_is_a_break(
    release_pair: Pair, probe: Probe
) -> None:
    judged = judge(
        release_pair,
        probe,
        "ALTER TABLE users ADD CONSTRAINT users_email_nn CHECK (email IS NOT NULL), "
        "ALTER COLUMN email SET NOT NULL",
    )
    assert judged.postgres == judged.static == "ls"
    assert judged.verdict is False and "set-not-null" in judged.rules


def test_not_valid_validate_set_not_null_is_safe_only_when_old_code_never_writes_null(
    release_pair: Pair, probe: Probe
) -> None:
    check = "ALTER TABLE users ADD CONSTRAINT users_email_nn CHECK (email IS NOT NULL) NOT VALID"
    finish = (
        "ALTER TABLE users VALIDATE CONSTRAINT users_email_nn;\nCOMMIT;\n"
        "ALTER TABLE users ALTER COLUMN email SET NOT NULL"
    )
    in_one_release = judge(release_pair, probe, f"{check};\nCOMMIT;\n{finish}")
    assert in_one_release.postgres == in_one_release.static == "s"
    assert in_one_release.verdict is False and "set-not-null" in in_one_release.rules
    after_a_release = judge(release_pair, probe, finish, earlier=[check])
    assert after_a_release.postgres == after_a_release.static == "s"
    assert after_a_release.verdict is True


def test_do_blocks_with_static_control_flow_are_classified(
    release_pair: Pair, probe: Probe
) -> None:
    guarded = judge(
        release_pair,
        probe,
        "DO $$\nBEGIN\n  IF EXISTS (SELECT 1 FROM staging WHERE id = -1) THEN\n    RETURN;\n"
        "  END IF;\n  IF (SELECT count(*) FROM orders WHERE id = 7) > 0 THEN\n"
        "    INSERT INTO staging (id, kind) VALUES (0, 'seen');\n  END IF;\n"
        "  EXECUTE 'CREATE INDEX staging_kind_idx ON staging (kind)';\nEND $$",
    )
    assert guarded.postgres == guarded.static == "ls"
    assert guarded.verdict is False and "blocking-table-lock" in guarded.rules
    looped = judge(
        release_pair,
        probe,
        "DO $$\nDECLARE r RECORD;\nBEGIN\n  FOR r IN SELECT id FROM orders WHERE amount > 400 LOOP\n"
        "    UPDATE orders SET note = 'big' WHERE id = r.id;\n  END LOOP;\nEND $$",
    )
    assert looped.postgres == looped.static == "s"
    assert looped.verdict is True
    dynamic = judge(
        release_pair,
        probe,
        "DO $$ BEGIN EXECUTE format('CREATE INDEX %I ON staging (kind)', 'kind_idx'); END $$",
    )
    assert dynamic.static == "?" and dynamic.verdict == "unknown"


def test_history_that_cannot_be_replayed_makes_the_facts_it_decides_unknown(
    release_pair: Pair,
) -> None:
    old, new = release_pair(
        {
            "db/migrations/0001_schema.sql": FIXTURE_SQL,
            "db/migrations/0002_broken.sql": "ALTER TABLE users ADD COLUMN note text DEFAULT 'x",
        },
        {
            "db/migrations/0003_default.sql": "ALTER TABLE users ALTER COLUMN created_at DROP DEFAULT"
        },
    )
    report = analyse(old, new, Settings())
    assert verdict_of(report) == "unknown"
    (fact,) = [f for f in report.findings if f.rule == "schema-fact-unknown"]
    assert "0002_broken.sql" in fact.message


def test_a_statement_of_unknown_effect_on_a_table_created_after_the_history_was_lost() -> None:
    """On an unknown schema (`lint-migrations`, or after an unreadable file) a table created
    since is known again, until a statement that could not be read names it: `c` may be NOT
    NULL by then, so dropping its default is unknown, not the advisory of a nullable column."""
    create = "CREATE TABLE t (id int, c int DEFAULT 0)"
    unread = "ALTER TABLE t FROBNICATE c"
    drop = "SET lock_timeout = '1s';\nALTER TABLE t ALTER COLUMN c DROP DEFAULT"
    reading = Reading()
    files = [("1.sql", create, "sql"), ("2.sql", unread, "sql"), ("3.sql", drop, "sql")]
    _, read, dropped = lint_texts(files, reading)
    assert [i.rule for i in read.issues] == ["migration-statement-unknown"]
    assert [(i.rule, i.line) for i in dropped.issues] == [("schema-fact-unknown", 2)]
    assert "ALTER TABLE action FROBNICATE not recognised" in dropped.issues[0].message
    _, known = lint_texts([("1.sql", create, "sql"), ("3.sql", drop, "sql")], reading)
    assert [i.rule for i in known.issues] == ["drop-default"]


def test_a_table_renamed_in_a_linted_file_keeps_what_the_earlier_files_said(probe: Probe) -> None:
    """`lint-migrations` starts on an unknown schema; a table an earlier file created stays
    known under its new name (harbor's 0004 renames `replication_target` to `registry`, then
    changes its columns' types)."""
    create = "CREATE TABLE target (id int, url varchar(64), port int)"
    change = (
        "ALTER TABLE target RENAME TO registry;\n"
        "ALTER TABLE registry ALTER COLUMN url TYPE varchar(256);\n"
        "ALTER TABLE registry ALTER COLUMN port TYPE bigint;\n"
    )
    reading = Reading(postgres_version=probe.major)
    _, analysed = lint_texts([("1.sql", create, "sql"), ("2.sql", change, "sql")], reading)
    measured = probe.run(change, setup=f"{create};\nINSERT INTO target VALUES (1, 'u', 80);")
    assert measured.letters() == "lrs"
    flags = (analysed.locks, analysed.rewrites, analysed.scans)
    assert _letters(*flags) == measured.letters()
    widening = lint_texts(
        [("1.sql", create, "sql"), ("2.sql", change.rsplit("ALTER", 1)[0], "sql")], reading
    )[1]
    assert (widening.rewrites, widening.locks) == (False, False)


def test_a_data_change_by_a_non_unique_index_reads_every_row_it_may_match(
    release_pair: Pair, probe: Probe
) -> None:
    """Only a unique key proves a WHERE reads few rows: an index on `provider` does not
    (supabase/auth's backfill of `identities`, where every row has the provider it names)."""
    earlier = [
        "CREATE TABLE identities (id bigint PRIMARY KEY, provider text NOT NULL, seen date)",
        "CREATE INDEX identities_provider_idx ON identities (provider)",
        "INSERT INTO identities SELECT i, 'email', NULL FROM generate_series(1, 500) i",
    ]
    by_provider = "UPDATE identities SET seen = '2022-11-25' WHERE provider = 'email'"
    broad = judge(release_pair, probe, by_provider, earlier=earlier)
    assert broad.postgres == broad.static == "s"
    by_key = "UPDATE identities SET seen = '2022-11-25' WHERE id = 7 AND provider = 'email'"
    narrow = judge(release_pair, probe, by_key, earlier=earlier)
    assert narrow.postgres == narrow.static == ""
