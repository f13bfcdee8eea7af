"""Splitting SQL files into statements, and template substitution."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.sql import sqlfile
from release_safety.surfaces.migrations.sql.sqlfile import extract_sql, split_sql, substitute


def test_split_respects_quotes_comments_and_dollar_bodies() -> None:
    text = (
        "-- leading comment; not a statement\n"
        "BEGIN;\n"
        "/* a /* nested */ ; comment */ CREATE TABLE \"a;b\" (x text DEFAULT 'it''s;');\n"
        "DO $$ BEGIN PERFORM 1; END $$;\n"
        "CREATE FUNCTION f() RETURNS text AS $body$ SELECT ';' $body$ LANGUAGE sql;\n"
        "SELECT E'\\';', $1;\n"
        "COMMIT;"
    )
    statements = split_sql(text)
    assert [s.line for s in statements] == [2, 3, 4, 5, 6, 7]
    assert statements[1].sql == "CREATE TABLE \"a;b\" (x text DEFAULT 'it''s;')"
    assert statements[2].sql == "DO $$ BEGIN PERFORM 1; END $$"
    assert str(statements[3].sql).endswith("LANGUAGE sql")
    assert statements[4].sql == "SELECT E'\\';', $1"
    assert statements[-1].sql == "COMMIT"


def test_begin_atomic_bodies_keep_their_semicolons() -> None:
    text = (
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql\n"
        "BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 END; END;\n"
        "SELECT 2;"
    )
    statements = split_sql(text)
    assert len(statements) == 2
    assert str(statements[0].sql).endswith("END")
    assert statements[1].line == 3


def test_atomic_body_after_a_long_signature_and_operators_in_statements() -> None:
    text = (
        "CREATE OR REPLACE FUNCTION app.f(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE\n"
        "BEGIN ATOMIC SELECT a - 1; SELECT b / 2 - -a; END;\n"
        "CREATE TABLE t (a int CHECK (a / 2 > -1), b text DEFAULT 'x;y');\n"
        "CREATE INDEX i ON t (a) WHERE a - 1 > 0 /* ; */; SELECT 1 -- ;\n;"
    )
    statements = split_sql(text)
    assert [s.line for s in statements] == [1, 3, 4, 4]
    assert str(statements[0].sql).endswith("SELECT b / 2 - -a; END")
    assert statements[1].sql == "CREATE TABLE t (a int CHECK (a / 2 > -1), b text DEFAULT 'x;y')"
    assert statements[2].sql == "CREATE INDEX i ON t (a) WHERE a - 1 > 0 /* ; */"
    assert statements[3].sql == "SELECT 1 -- ;"


@pytest.mark.parametrize("text", ["SELECT 'open", "SELECT $$ open", "/* open", 'SELECT "open'])
def test_unterminated_text_is_an_error(text: str) -> None:
    with pytest.raises(ValueError):
        split_sql(text)


def test_placeholders_then_template_default() -> None:
    reading = Reading(placeholders={"${schema}": "app"}, template_default="tenant")
    text = 'ALTER TABLE ${schema}.a ADD x int;\nALTER TABLE {{ index .Options "Namespace" }}.b\n'
    assert substitute(text, reading) == ("ALTER TABLE app.a ADD x int;\nALTER TABLE tenant.b\n")


def test_multiline_template_keeps_line_numbers() -> None:
    extracted = extract_sql("SELECT 1;\n{{ if .X\n}}ALTER TABLE t ADD c int;", Reading())
    assert [s.line for s in extracted.statements] == [1, 2]
    assert extracted.transactional


_FRAGMENTS = st.sampled_from(
    [
        "x",
        "'a;b'",
        "'it''s; fine'",
        '"odd;name"',
        "$$ body; with ; semicolons $$",
        "$tag$ a $$ b; $tag$",
        "/* c; /* nested; */ */",
        "E'\\\\'';'",
        "$1",
        "(1, 2)",
        "a.b",
        "a - b / c",
        "x::int",
        "fe'no escape ;'",
    ]
)


@given(st.lists(st.lists(_FRAGMENTS, min_size=1, max_size=6), min_size=1, max_size=6))
def test_split_returns_the_statements_it_was_given(parts: list[list[str]]) -> None:
    statements = ["SELECT " + " ".join(fragments) for fragments in parts]
    text = "\n-- comment ; here\n".join(s + ";" for s in statements)
    split = split_sql(text)
    assert [s.sql for s in split] == statements
    assert [s.line for s in split] == [1 + 2 * k for k in range(len(statements))]


# What `_INSIDE` skipped before it read comments and quoted text itself: one character at a
# time up to anything the splitter acts on (a pattern's text, as `_INSIDE` is).
_CHARACTERWISE = r"(?:[^;'\"$/\-]|-(?!-)|/(?!\*))*"
_PIECES = st.sampled_from(
    [
        *("'", "''", "'''", '"', '""', "\\", "\\'", "E", "e", "E'", "x'", "'a'", "'it''s'"),
        *("E'a\\'b'", "'a''\\'", "--", "-- c\n", "-", "/", "/*", "*/", "$", "$$", "$a$", ";"),
        *("\n", " ", "a", "b1", "CREATE", "FUNCTION", "BEGIN", "ATOMIC", "END", "CASE", "UPDATE"),
    ]
)


def _outcome(text: str) -> object:
    try:
        return split_sql(text)
    except ValueError as exc:
        return str(exc)


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES, max_size=24))
def test_the_inside_run_splits_as_reading_characterwise(parts: list[str]) -> None:
    """Reading comments and quoted text inside a statement in one run splits as reading it a
    character at a time did (an E'' string with a backslash is left to the character loop)."""
    text = "UPDATE " + "".join(parts)
    fast = _outcome(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sqlfile, "_INSIDE", _CHARACTERWISE)
        assert _outcome(text) == fast
