"""What the process that splits the files ahead of a long lint also finds with no schema: the
grammar's checks each statement passes (`grammar.prechecked`, taken as known while it is
classified: `passing`) and the statements of a DO block's body (`plpgsql.ahead`). The same
analyses as found in place, refusals included, and what was found ahead is not found again."""

from __future__ import annotations

import pytest

from release_safety.surfaces.migrations.engines.postgres import grammar, plpgsql
from release_safety.surfaces.migrations.engines.postgres.context import Context
from release_safety.surfaces.migrations.engines.postgres.heaviness import analyse_extracted
from release_safety.surfaces.migrations.lint import Linter, split_file
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.sql.lexer import tokenize
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

FILES = [
    "CREATE TABLE t (id bigserial PRIMARY KEY, name text NOT NULL DEFAULT 'x', "
    "CONSTRAINT t_name CHECK (name <> ''), LIKE other);\n"
    "CREATE UNIQUE INDEX t_name_idx ON t (name);\nCREATE INDEX CONCURRENTLY t_i ON t (id);\n",
    "ALTER TABLE t ADD COLUMN a int NOT NULL DEFAULT 0, ADD IF NOT EXISTS b text, "
    "ADD CONSTRAINT t_a CHECK (a > 0) NOT VALID, DROP COLUMN IF EXISTS c;\n"
    "ALTER TABLE IF EXISTS ONLY public.t ALTER COLUMN a TYPE bigint, RENAME COLUMN b TO d;\n",
    # refused by the grammar: the first action passes, the second is a syntax error
    "ALTER TABLE t ADD COLUMN a int, ADD COLUMN b text NOT DEFAULT 1;\n",
    "ALTER TABLE t ALTER COLUMN a SET NOT;\nCREATE TABLE u (id int PRIMARY);\n",
    "CREATE INDEX ON;\nALTER TABLE t DROP COLUMN;\n",
    "DO $$ BEGIN\n  IF NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'k') THEN\n"
    "    CREATE TYPE k AS ENUM ('x');\n  END IF;\n  UPDATE t SET a = 1;\nEND $$;\n",
    "DO $$ BEGIN EXECUTE 'DROP TABLE ' || 't'; END $$;\n",  # built at run time: unknown
    "DO $$ BEGIN IF true THEN ALTER TABLE t ADD COLUMN z int; $$;\n",  # END IF missing
    "DO LANGUAGE plperl $$ 1 $$;\n",  # not read
]


def _lint(texts: list[str], ahead: bool) -> list[object]:
    """Each file's analysis, split as the lint splits it: ahead (with the checks it passes)
    or in place (without)."""
    linter = Linter(Reading())
    out: list[object] = []
    for k, text in enumerate(texts):
        split = split_file(text, f"db/{k:03d}.sql", "sql", Reading())
        assert isinstance(split, Extracted)
        if not ahead:
            for statement in split.statements:
                statement.checked, statement.bodies = (), None
        analysis = linter.lint(f"db/{k:03d}.sql", text, "sql", "postgres", split)
        out.append((analysis.tables, analysis.locks, analysis.rewrites, analysis.scans))
        out.append([(i.rule, i.line, i.message, i.hint) for i in analysis.issues])
    return out


def test_checks_found_ahead_give_the_analyses_checked_in_place() -> None:
    assert _lint(FILES, ahead=True) == _lint(FILES, ahead=False)
    refused = _lint(FILES[2:3], ahead=True)[1]
    assert isinstance(refused, list)
    assert [issue[2] for issue in refused] == [
        'syntax error at or near "DEFAULT" (line 1, column 55): PostgreSQL refuses this statement'
    ]


@pytest.mark.parametrize(
    ("sql", "checks"),
    [
        ("ALTER TABLE t ADD COLUMN a int, DROP COLUMN b", ["action", "column", "action"]),
        ("ALTER TABLE t ADD COLUMN a int NOT DEFAULT 1", ["action"]),  # the column is refused
        ("ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0)", ["action"]),  # no column to check
        ("CREATE TABLE t (id int, name text, PRIMARY KEY (id))", ["column", "column"]),
        ("CREATE UNIQUE INDEX i ON t (a)", ["index"]),
        ("CREATE INDEX ON", []),
        ("UPDATE t SET a = 1", []),
    ],
)
def test_prechecked_names_the_slices_that_pass(sql: str, checks: list[str]) -> None:
    toks = tokenize(sql)
    found = grammar.prechecked(toks)
    assert [check for _, _, check in found] == checks
    for first, last, check in found:
        part = toks[first : last + 1]
        {"column": grammar.check_column, "action": grammar.check_action}.get(
            check, grammar.check_index
        )(part)  # passes


# What was found ahead is taken as found: a fact made up here (a check passed that does not,
# a body read otherwise) shows it is not found again (compiled or not: no call is counted).
REFUSED = "ALTER TABLE t ADD COLUMN a int NOT DEFAULT 1"
COLUMN = (5, 9, "column")  # `a int NOT DEFAULT 1`, which the grammar refuses


def _syntax_errors(statement: Statement) -> list[str]:
    analysis = analyse_extracted(Extracted([statement]), Context())
    return [i.message for i in analysis.issues if "syntax error" in i.message]


def test_a_check_known_to_pass_is_not_run_again() -> None:
    toks = tokenize(REFUSED)
    assert grammar.prechecked(toks) == ((3, 9, "action"),)  # the column is refused
    assert _syntax_errors(Statement(REFUSED, 1, toks=toks, checked=grammar.prechecked(toks)))
    assert not _syntax_errors(Statement(REFUSED, 1, toks=toks, checked=(COLUMN,)))
    # nothing is left known for the next statement: the same slice is checked again
    with pytest.raises(grammar.ColumnSyntax):
        grammar.check_column(toks[5:])


def test_tokens_of_another_statement_are_checked_even_at_the_same_offsets() -> None:
    toks = tokenize(REFUSED)
    grammar.passing(toks, (COLUMN,))
    try:
        grammar.check_column(toks[5:])  # known: not checked
        with pytest.raises(grammar.ColumnSyntax):  # equal offsets, other tokens: checked
            grammar.check_column(tokenize(REFUSED)[5:])
    finally:
        grammar.passing([], ())


def test_a_do_blocks_body_read_ahead_is_not_read_again() -> None:
    text = FILES[5]
    split = split_file(text, "db/001.sql", "sql", Reading())
    assert isinstance(split, Extracted) and split.statements[0].toks is not None
    toks = split.statements[0].toks
    assert split.statements[0].bodies == plpgsql.ahead(toks)
    (body,) = (t.text for t in toks if t.kind == "string")
    assert [sql for sql, _, _ in plpgsql.ahead(toks)[body]] == [
        "SELECT NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'k')",
        "CREATE TYPE k AS ENUM ('x')",
        "UPDATE t SET a = 1",
    ]
    analysis = Linter(Reading()).lint("db/001.sql", text, "sql", "postgres", split)
    assert analysis.tables == ["t"]
    split.statements[0].bodies = {body: [("UPDATE other SET a = 1", None, 0)]}  # made up
    analysis = Linter(Reading()).lint("db/001.sql", text, "sql", "postgres", split)
    assert analysis.tables == ["other"]


@pytest.mark.parametrize("text", FILES[6:])
def test_a_body_that_is_not_read_ahead_is_read_where_it_is_classified(text: str) -> None:
    split = split_file(text, "db/001.sql", "sql", Reading())
    assert isinstance(split, Extracted) and split.statements[0].toks is not None
    # the unknown EXECUTE is read (its statement is unknown there); the others are not
    assert bool(split.statements[0].bodies) is (text == FILES[6])
