"""Static classification details that do not need a server: versions, names, unknowns."""

from __future__ import annotations

import pytest
from enginefixtures import on_engine
from hypothesis import given
from hypothesis import strategies as st
from pgprobe import FIXTURE_SQL

from release_safety.contract.reports import RULES
from release_safety.surfaces.migrations.engines.postgres.heaviness import FileAnalysis
from release_safety.surfaces.migrations.lint import analyse_text, schema_of
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.rules.catalogue import CATALOGUE

HISTORY = schema_of(FIXTURE_SQL, Reading())


def lint(sql: str, version: int = 15, *, history: bool = True) -> FileAnalysis:
    """The analysis of `sql` run on the fixture schema (or on an unknown one)."""
    reading = Reading(postgres_version=version)
    return analyse_text(sql, "m.sql", "sql", reading, history=HISTORY if history else None)


def rules(analysis: FileAnalysis) -> set[str]:
    return {issue.rule for issue in analysis.issues}


def test_constant_default_rewrites_only_before_postgres_11() -> None:
    sql = "ALTER TABLE users ADD COLUMN active boolean NOT NULL DEFAULT true"
    assert lint(sql, 15).rewrites is False
    assert lint(sql, 10).rewrites is True
    assert "table-rewrite" in rules(lint(sql, 10))


def test_set_not_null_skips_scan_with_validated_check_from_postgres_12() -> None:
    sql = (
        "ALTER TABLE users ADD CONSTRAINT nn CHECK (email IS NOT NULL) NOT VALID;\nCOMMIT;\n"
        "ALTER TABLE users VALIDATE CONSTRAINT nn;\nCOMMIT;\n"
        "ALTER TABLE users ALTER COLUMN email SET NOT NULL"
    )
    modern, old = lint(sql, 15), lint(sql, 11)
    assert (modern.locks, old.locks) == (False, True)
    # the CHECK already rejects old code's NULLs: the break is reported once, where it starts
    for analysis in (modern, old):
        assert [i.line for i in analysis.issues if i.rule == "set-not-null"] == [1]


def test_names_are_normalised() -> None:
    sql = (
        "ALTER TABLE public.users ADD c int;\n"
        'ALTER TABLE "App"."Orders" ADD c int;\nALTER TABLE app.items ADD c int'
    )
    assert lint(sql).tables == ["App.Orders", "app.items", "users"]


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("DO $$ BEGIN EXECUTE 'DROP TABLE ' || name; END $$", "run time"),
        ("SELECT backfill()", "backfill"),
        ("ALTER TABLE users ADD COLUMN x int DEFAULT my_func()", "my_func"),
        ("REINDEX INDEX no_such_index", "not known"),
        ("VACUUM", "every table"),
        ("FROBNICATE users", 'syntax error at or near "FROBNICATE"'),
    ],
)
def test_unclassifiable_statements_are_unknown(sql: str, reason: str) -> None:
    analysis = lint("ALTER TABLE users ADD COLUMN a text;\n" + sql)
    assert (analysis.locks, analysis.rewrites, analysis.scans) == ("unknown",) * 3
    unknown = [i for i in analysis.issues if i.rule == "migration-statement-unknown"]
    assert unknown and unknown[0].line == 2 and reason in unknown[0].message


def test_true_wins_over_unknown() -> None:
    analysis = lint("CREATE INDEX i ON users (a);\nSELECT mystery()")
    assert (analysis.locks, analysis.rewrites, analysis.scans) == (True, "unknown", True)


def test_unparseable_file_is_unknown() -> None:
    analysis = lint("ALTER TABLE users ADD COLUMN note text DEFAULT 'open;")
    assert analysis.locks == "unknown"
    assert rules(analysis) == {"migration-unparseable"}


def test_tables_created_in_the_migration_are_not_heavy_nor_breaking() -> None:
    analysis = lint(
        "CREATE TABLE t (id int, a text);\nINSERT INTO t VALUES (1, 'x');\n"
        "CREATE INDEX t_a ON t (a);\nALTER TABLE t ALTER COLUMN a SET NOT NULL;\n"
        "ALTER TABLE t DROP COLUMN a;\nALTER TABLE t RENAME TO t2"
    )
    assert (analysis.locks, analysis.rewrites, analysis.scans) == (False, False, False)
    assert not {"drop-column", "rename-table", "set-not-null"} & rules(analysis)


def test_compatibility_rules() -> None:
    sql = (
        "ALTER TABLE users RENAME COLUMN name TO b;\nDROP TABLE old;\n"
        "ALTER TYPE mood RENAME VALUE 'a' TO 'b';\n"
        "REVOKE SELECT ON users FROM app;\nALTER TABLE users ALTER COLUMN status TYPE int;\n"
        "ALTER TABLE users ALTER COLUMN age TYPE bigint;\nALTER TABLE users SET SCHEMA x"
    )
    found = rules(lint(sql))
    expected = {"rename-column", "drop-table", "rename-enum-value", "revoke-privileges"}
    assert expected | {"change-column-type", "set-schema"} <= found
    type_changes = [i for i in lint(sql).issues if i.rule == "change-column-type"]
    assert [i.line for i in type_changes] == [5]


def test_not_valid_then_validate_is_compatible() -> None:
    sql = (
        "ALTER TABLE orders ADD CONSTRAINT fk FOREIGN KEY (user_id) REFERENCES users NOT VALID;\n"
        "COMMIT;\nALTER TABLE orders VALIDATE CONSTRAINT fk"
    )
    analysis = lint(sql)
    assert not [i for i in analysis.issues if RULES[i.rule].severity == "breaking"]
    assert analysis.tables == ["orders", "users"]


def test_lock_timeout_advice_only_without_a_timeout() -> None:
    assert "lock-timeout-missing" in rules(lint("ALTER TABLE users ADD COLUMN a text"))
    quiet = lint("SET lock_timeout = '2s';\nALTER TABLE users ADD COLUMN a text")
    assert "lock-timeout-missing" not in rules(quiet)


def test_concurrently_makes_each_statement_its_own_transaction() -> None:
    sql = "ALTER TABLE users ADD COLUMN a text;\nCREATE INDEX CONCURRENTLY i ON users (a)"
    assert lint(sql).locks is False
    assert lint(sql.replace(" CONCURRENTLY", "")).locks is True


def test_catalogue_is_complete_and_registered() -> None:
    ids = [entry.id for entry in CATALOGUE]
    assert len(ids) == len(set(ids))
    for entry in CATALOGUE:
        rule = RULES[entry.id]
        assert rule.title and rule.why and rule.unsafe and rule.safe, entry.id
    used = {
        issue.rule
        for entry in CATALOGUE
        for example in entry.examples
        for issue in lint(example.sql).issues
    }
    assert used <= set(ids)


@pytest.mark.parametrize(
    "example",
    [e for entry in CATALOGUE for e in entry.examples if not e.pg],
    ids=lambda e: e.sql[:40],
)
def test_examples_without_server_agree_with_the_catalogue(example: object) -> None:
    from release_safety.surfaces.migrations.rules.catalogue import Example

    assert isinstance(example, Example)
    analysis = (
        lint(example.sql)
        if example.engine == "postgres"
        else on_engine(example.sql, example.engine)
    )
    if example.heavy == "unknown":
        assert "unknown" in (analysis.locks, analysis.rewrites, analysis.scans)
    else:
        assert analysis.letters() == example.heavy
        assert analysis.tables == list(example.tables)


def test_rules_page_is_generated_from_the_catalogue() -> None:
    from pathlib import Path

    from release_safety.surfaces.migrations.rules.markdown import render

    page = Path(__file__).resolve().parents[3] / "docs" / "migration-rules.md"
    assert page.read_text(encoding="utf-8") == render()


_SOUP = (
    "ALTER TABLE ADD DROP COLUMN CONSTRAINT FOREIGN KEY REFERENCES CHECK NOT NULL VALID "
    "CREATE INDEX ON UNIQUE PRIMARY LOCK IN MODE SET DEFAULT TYPE USING RENAME TO VIEW AS "
    "SELECT FROM WHERE UPDATE DELETE INSERT INTO DO $$ BEGIN END IF THEN ; ( ) , . users x 'v' 1"
)
_WORDS = st.sampled_from(_SOUP.split())


@given(st.lists(_WORDS, max_size=14))
def test_any_token_soup_is_classified_or_unknown_never_a_crash(words: list[str]) -> None:
    analysis = lint(" ".join(words))
    for flag in (analysis.locks, analysis.rewrites, analysis.scans):
        assert flag in (True, False, "unknown")


def test_a_table_renamed_in_the_release_is_judged_under_its_old_name() -> None:
    sql = (
        "ALTER TABLE staging RENAME TO imports;\n"
        "ALTER TABLE imports RENAME COLUMN kind TO category;\n"
        "ALTER TABLE imports ALTER COLUMN category TYPE varchar(5)"
    )
    found = rules(lint(sql))
    assert "schema-fact-unknown" not in found
    assert {"rename-table", "rename-column", "change-column-type"} <= found


def test_without_history_the_facts_the_schema_decides_are_unknown() -> None:
    analysis = lint("ALTER TABLE users ALTER COLUMN email SET NOT NULL", history=False)
    assert (analysis.locks, analysis.scans) == ("unknown", "unknown")
    assert "schema-fact-unknown" in rules(analysis)
    assert "schema-fact-unknown" not in rules(
        lint("ALTER TABLE users ALTER COLUMN email SET NOT NULL")
    )
