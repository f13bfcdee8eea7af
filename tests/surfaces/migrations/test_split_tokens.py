"""A file split by the lexer's `;` tokens (`sqlfile._statements`) against the splitter and
the lexer run apart (`split_sql`, then `tokenize` on each statement): the same statements,
lines and tokens, or the splitter's own answer where the text holds what the two read
differently. Checked on every SQL text of the suite, the benchmark's files and generated
text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_lexer import FRAGMENTS, TEST_SQL
from test_simpledata import _generate

from release_safety.surfaces.migrations.budget import MAX_STATEMENT_CHARS
from release_safety.surfaces.migrations.sql.lexer import TokenError, split_tokens, tokenize
from release_safety.surfaces.migrations.sql.sqlfile import _statements, split_sql


def _apart(text: str) -> object:
    """What splitting, then tokenizing each statement gives (or the splitter's error)."""
    try:
        statements = split_sql(text)
    except ValueError as exc:
        return str(exc)
    out = []
    for statement in statements:
        try:
            toks: object = tokenize(statement.sql or "")
        except TokenError as exc:
            toks = str(exc)
        out.append((statement.sql, statement.line, toks))
    return out


def _at_once(text: str) -> tuple[object, bool]:
    """The same from `_statements`, and whether the lexer split the text."""
    try:
        statements = _statements(text)
    except ValueError as exc:
        return str(exc), False
    out = []
    for statement in statements:
        toks: object = statement.toks
        if toks is None:
            try:
                toks = tokenize(statement.sql or "")
            except TokenError as exc:
                toks = str(exc)
        out.append((statement.sql, statement.line, toks))
    return out, any(s.toks is not None for s in statements)


def _same(text: str) -> bool:
    found, lexed = _at_once(text)
    assert found == _apart(text), text
    return lexed


def test_same_statements_on_the_suites_sql() -> None:
    assert sum(_same(text) for text in TEST_SQL) > 500


def test_same_statements_on_the_benchmarks_files(tmp_path: Path) -> None:
    texts = sorted({path.read_text() for path in _generate(tmp_path, 2000)})
    assert sum(_same(text) for text in texts) > 1500


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([*FRAGMENTS, "ALTER TABLE t", ";", " ;\n", "atomic"]), max_size=16))
def test_same_statements_on_generated_text(parts: list[str]) -> None:
    _same("".join(parts))


_BODY = st.lists(
    st.sampled_from([*FRAGMENTS, ";", "atomic", "BEGIN ATOMIC", "atom\u0131c"]), max_size=8
)
_QUOTE = st.sampled_from(["$$", "$a$", "$_x1$", "$fn$", "$a;b$", "$1$", "$\u00e9$", "$ $"])


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from([*FRAGMENTS, "DO ", "AS ", ";", " ;\n", "atomic"])
        | st.tuples(_QUOTE, _BODY, st.booleans()).map(
            lambda q: f"{q[0]}{''.join(q[1])}{q[0] if q[2] else ''}"
        ),
        max_size=10,
    )
)
def test_same_statements_on_generated_text_with_dollar_quotes(parts: list[str]) -> None:
    """Dollar-quoted bodies holding anything, among fragments, closed or not."""
    _same("".join(parts))


@pytest.mark.parametrize(
    "text",
    [
        "DO $$ BEGIN IF x THEN SELECT 1; END IF; END $$;\nALTER TABLE t ADD c int;",
        "CREATE FUNCTION f() RETURNS text AS $fn$ SELECT 'a' || E'\\n' /* ; */ $fn$ LANGUAGE sql;",
        "DO $$ BEGIN ATOMIC; {# $$; SELECT $a$ | $a$;",
        "SELECT $$a$$$$b$$, 1; SELECT 2",
    ],
)
def test_dollar_quoted_text_is_split_by_the_lexer(text: str) -> None:
    """Whatever a dollar quote holds, both read it whole; the rest decides."""
    assert _same(text)
    assert all(s.toks is not None for s in _statements(text))


@pytest.mark.parametrize(
    "text",
    [
        "DO $$ x $$; SELECT $1;",  # a parameter
        "SELECT '$$'; SELECT 1 |/* c; */ 2;",  # a `$` in a string, a guarded construct outside
        "DO $$ x $$; SELECT a #-- c; x\n;",
        "SELECT $a-b$ ; $a-b$;",  # a tag the splitter does not read
        "SELECT x$$ ; $$;",  # a `$` inside a word
        "DO $$ x $$; CREATE FUNCTION f() BEGIN ATOMIC SELECT 1; END;",
    ],
)
def test_text_around_dollar_quotes_is_checked(text: str) -> None:
    _same(text)
    assert all(s.toks is None for s in _statements(text))


def test_the_lexer_splits_at_semicolon_tokens_only() -> None:
    text = "-- first\nALTER TABLE t ADD c text; ;\n UPDATE t SET c = 'a;b' -- x;\n;SELECT 1"
    statements = _statements(text)
    assert [(s.sql, s.line) for s in statements] == [
        ("ALTER TABLE t ADD c text", 2),
        ("UPDATE t SET c = 'a;b' -- x;", 3),
        ("SELECT 1", 4),
    ]
    assert all(s.toks == tokenize(s.sql or "") for s in statements)
    assert [t.text for t in statements[1].toks or []] == ["UPDATE", "t", "SET", "c", "=", "a;b"]


@pytest.mark.parametrize(
    "text",
    [
        "SELECT $a;b$ x $a;b$;",  # a dollar quote the splitter does not read as one
        "SELECT a #-- c; x\n;",  # the operator #- takes the comment's first -
        "SELECT a -|-- c; x\n;",
        "SELECT a |/* c; */ 1;",  # the operator |/ takes the comment's /
        "SELECT 1 {# c; #};",  # a comment for sqlglot only
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;",
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOM\u0131C SELECT 1; END;",
    ],
)
def test_text_the_two_read_differently_is_split_by_the_splitter(text: str) -> None:
    lexed = [text[start:end].strip() for start, end, _ in split_tokens(text)]
    split = [s.sql for s in split_sql(text)]
    assert lexed != split
    assert [s.sql for s in _statements(text)] == split


def test_a_text_longer_than_a_statement_may_be_is_split_by_the_splitter() -> None:
    """The lexer's pass over a whole file costs no more than tokenizing one statement: a
    longer file is split first, and each statement tokenized within the file's bounds."""
    text = "ALTER TABLE t ADD c text;\n" * (MAX_STATEMENT_CHARS // 20)
    assert len(text) > MAX_STATEMENT_CHARS
    statements = _statements(text)
    assert len(statements) == MAX_STATEMENT_CHARS // 20
    assert all(s.toks is None for s in statements)
    assert all(s.toks is not None for s in _statements(text[:MAX_STATEMENT_CHARS]))
