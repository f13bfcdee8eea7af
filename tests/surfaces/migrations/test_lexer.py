"""Our lexer against sqlglot's PostgreSQL tokenizer, as classification converted its tokens.

The reference below is the conversion `tokens.tokenize` did before the lexer (issue 14/18):
sqlglot's tokens as `Tok`s, multi-word keywords split into words that each span the keyword,
and the rest of a command (LOCK, VACUUM, EXECUTE...), which sqlglot keeps as one raw string,
tokenized again. The lexer must give the same tokens, or the same error message (which a
statement's `could not parse` finding quotes), on every SQL text of the migration tests, on the
benchmark's generated files and on generated text.

One difference is deliberate: the reference's second pass over a command's rest misfired, and
the lexer does not copy it; there it gives what sqlglot's tokenizer gives without command rests
(`_direct`), which is what the second pass meant:
- sqlglot ends a rest at the whitespace before a `;` (or at trailing whitespace), and then the
  rest's offsets no longer matched the text, so it stayed one raw `string`. Classification
  strips statements and splits them at `;`, but a PL/pgSQL body is tokenized whole: `EXECUTE
  '...' ;` or `LOCK TABLE t IN ... MODE ;` written with a space before the semicolon became
  one string, and the statement was missed without a word
  (`test_a_command_with_a_space_before_its_semicolon_is_read`);
- a string literal after a command keyword that starts no command (`x DO ''`) was taken for a
  rest when the source ends with its text: `''` vanished.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import sys
from collections.abc import Iterable
from itertools import pairwise
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlglot.dialects.postgres import Postgres
from sqlglot.errors import TokenError as SqlglotTokenError
from sqlglot.tokenizer_core import TokenType

from release_safety.surfaces.migrations.engines.postgres import plpgsql
from release_safety.surfaces.migrations.engines.postgres.classify import classify
from release_safety.surfaces.migrations.engines.postgres.columns import Unclassified
from release_safety.surfaces.migrations.engines.postgres.context import Context
from release_safety.surfaces.migrations.engines.postgres.facts import Lock
from release_safety.surfaces.migrations.rules.ids import RuleId
from release_safety.surfaces.migrations.sql import lexer
from release_safety.surfaces.migrations.sql.lexer import Tok, TokenError, tokenize
from release_safety.surfaces.migrations.sql.sqlfile import split_sql

if TYPE_CHECKING:
    from release_safety.surfaces.migrations.sql.lexer import Kind

TESTS = Path(__file__).parent
ROOT = TESTS.parents[2]

_STRINGS = {
    TokenType.STRING,
    TokenType.HEREDOC_STRING,
    TokenType.BYTE_STRING,
    TokenType.NATIONAL_STRING,
    TokenType.RAW_STRING,
    TokenType.BIT_STRING,
    TokenType.HEX_STRING,
    TokenType.UNICODE_STRING,
}
_KINDS: dict[TokenType, Kind] = {
    **dict.fromkeys(_STRINGS, "string"),
    TokenType.IDENTIFIER: "ident",
    TokenType.NUMBER: "number",
}
_COMMANDS = {*Postgres.Tokenizer.COMMANDS, TokenType.COMMAND}
_TOKENIZER = Postgres.Tokenizer(dialect=Postgres())


class _NoCommands(Postgres.Tokenizer):
    COMMANDS: set[TokenType] = set()  # noqa: RUF012  # sqlglot's class attribute


_DIRECT = _NoCommands(dialect=Postgres())


def _convert(token_type: TokenType, text: str, start: int, end: int) -> list[Tok]:
    kind = _KINDS.get(token_type)
    if kind is None:
        first = text[:1]
        kind = "word" if first.isalpha() or first == "_" else "punct"
    if kind == "word" and " " in text:
        return [lexer._tok("word", w, start, end) for w in text.split()]
    return [lexer._tok(kind, text, start, end)]


def reference(sql: str, offset: int = 0) -> list[Tok]:
    """`tokens.tokenize` before the lexer: sqlglot's tokenizer and the conversion."""
    out: list[Tok] = []
    command = False  # the previous token is a command keyword
    for token in _TOKENIZER.tokenize(sql):
        text, end = token.text, token.end
        if command and token.token_type in _STRINGS:
            at = end + 1 - len(text)
            if at >= 0 and sql[at : end + 1] == text:
                out.extend(reference(text, offset + at))
                command = token.token_type in _COMMANDS
                continue
        command = token.token_type in _COMMANDS
        out.extend(_convert(token.token_type, text, token.start + offset, end + offset))
    return out


def _direct(sql: str) -> list[Tok]:
    """sqlglot's tokens with no command rests, converted."""
    return [
        tok
        for token in _DIRECT.tokenize(sql)
        for tok in _convert(token.token_type, token.text, token.start, token.end)
    ]


def astuple(tok: Tok) -> tuple[object, ...]:
    """A token's fields, in order."""
    return (tok.kind, tok.text, tok.start, tok.end, tok.up, tok.key)


def _outcome(tokenizer: object, sql: str) -> tuple[str, object]:
    try:
        return "tokens", [astuple(t) for t in tokenizer(sql)]  # type: ignore[operator]
    except (TokenError, SqlglotTokenError) as exc:
        return "error", str(exc)


def _reruns_a_rest(sql: str) -> bool:
    """The reference's second pass applies: a string right after a command keyword."""
    toks = _TOKENIZER.tokenize(sql)
    return any(a.token_type in _COMMANDS and b.token_type in _STRINGS for a, b in pairwise(toks))


def assert_same(sql: str) -> None:
    ours = _outcome(tokenize, sql)
    expected = _outcome(reference, sql)
    if ours != expected and _reruns_a_rest(sql):
        expected = _outcome(_direct, sql)  # the deliberate difference (module docstring)
    assert ours == expected, sql


def _test_sql() -> list[str]:
    """Every string constant of the migration tests (the corpus, the classification and
    hostile-input cases...), each file's statements, and the strings inside them (bodies)."""
    texts: set[str] = set()
    for path in sorted(TESTS.glob("*.py")):
        if path.name == "test_lexer.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                texts.add(node.value)
    return sorted(_expand(texts))


def _expand(texts: set[str]) -> set[str]:
    out = set(texts)
    for text in texts:
        try:
            statements = [s.sql for s in split_sql(text) if s.sql]
        except ValueError:
            continue
        out.update(statements)
        for sql in statements:
            with contextlib.suppress(TokenError):
                out.update(t.text for t in tokenize(sql) if t.kind == "string")
    return out


TEST_SQL = _test_sql()


def test_the_test_sql_is_the_suites() -> None:
    assert len(TEST_SQL) > 1000
    assert any("CREATE TABLE IF NOT EXISTS audit_log" in t for t in TEST_SQL)


def test_same_tokens_as_sqlglot_on_the_suites_sql() -> None:
    for sql in TEST_SQL:
        assert_same(sql)


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_migrations", ROOT / "bench/bench_migrations.py"
    )
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    sys.modules["bench_migrations"] = bench
    spec.loader.exec_module(bench)
    return bench


def test_same_tokens_as_sqlglot_on_the_benchmarks_files(tmp_path: Path) -> None:
    texts = {path.read_text() for path in _bench().generate(tmp_path, 2000)}
    assert len(texts) > 1000
    for sql in sorted(_expand(texts)):
        assert_same(sql)


FRAGMENTS = [
    *("'", "''", '"', '""', "$", "$$", "$a$", "$1", "$_x$", "E'", "e'", "B'", "X'", "N'", "U&'"),
    *("'it''s'", "E'\\''", "'x'", '"Mixed""Case"', "$$ body $$", "$fn$ x $fn$", "b'101'"),
    *("\\", "\\\\", "\\n", "\\t", "\\x41", "\\xC3\\xA9", "\\101", "\\u00e9", "\\uD83D\\uDE00"),
    *("\\U0001F600", "\\q", "0x", "0b", "0xFF", "0b12", "0x1g", "1", "42", "1.5", ".5", "1."),
    *("1e", "1e3", "1.5e3", "1e-3", "1e+", "1e5+3", "1::int", "e3", "_1", "--", "-- c\n"),
    *("/*", "*/", "/* c */", "/* a /* b */ c */", "{#", "#}", "\n", " ", "\t", "\r", "\u00a0"),
    *("\x1c", "::", "->", "->>", "#>", "#>>", "@", "@>", "<@", "=>", ":=", "<>", "!=", ">=", "<="),
    *("||", "<=>", "<<->>", "<->", "-|-", "?::", "??", "?|", "~~*", "~", "{%", "%}", "{{+", "-}}"),
    *("`", "[", "]", "(", ")", ",", ";", ".", "-", "+", "*", "/", "%", "^", "&", "|", "#", "?"),
    *("a", "x$y", "é", "²", "ſ", "€", "ı", "K", "t1", "users", "note", "PRIMARY", "KEY"),
    *("primary key", "PRIMARY\n  KEY", "FOREIGN KEY", "GROUP BY", "ORDER  BY", "DOUBLE PRECISION"),
    *("CHAR VARYING", "character varying", "SIMILAR TO", "USER-DEFINED", "user-definedx"),
    *("VACUUM", "EXECUTE", "DO", "LOCK", "SHOW", "DECLARE", "BEGIN", "REFRESH", "RENAME", "FETCH"),
    *("SELECT", "ALTER TABLE", "ADD COLUMN", "CREATE INDEX", "SET", "UPDATE", "WHERE", "int"),
]


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=14))
def test_same_tokens_as_sqlglot_on_generated_text(parts: list[str]) -> None:
    assert_same("".join(parts))


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 'unterminated",
        "SELECT 'ends in a doubled quote''",
        "SELECT '",
        'SELECT "unterminated',
        "SELECT $$ no end",
        "SELECT $tag$ x $tag",
        "SELECT $",
        "SELECT $a$",
        "SELECT $$ab''",
        "SELECT E'x\\",
        "SELECT B'12'",
        "SELECT X'fg'",
        "SELECT 1 /* open",
        "SELECT 1 /* a /* b */",
        "SELECT {# x",
        "x" * 80 + " 'unterminated " + "y" * 80,
    ],
)
def test_refuses_what_sqlglot_refuses_with_its_message(sql: str) -> None:
    with pytest.raises(SqlglotTokenError) as theirs:
        reference(sql)
    with pytest.raises(TokenError) as ours:
        tokenize(sql)
    assert str(ours.value) == str(theirs.value)


def test_an_untokenizable_statement_is_unknown_with_sqlglots_message() -> None:
    sql = "ALTER TABLE users ADD COLUMN note text DEFAULT 'open"
    with pytest.raises(SqlglotTokenError) as theirs:
        reference(sql)
    assert classify(sql, Context()).unknown == f"could not parse: {theirs.value}"
    assert (
        str(theirs.value) == "Error tokenizing 'TER TABLE users ADD COLUMN note text DEFAULT 'ope'"
    )


def test_a_command_with_a_space_before_its_semicolon_is_read() -> None:
    """Before the lexer, these two statements of a DO block were one raw string each and were
    missed: no table, no finding."""
    body = (
        "BEGIN EXECUTE 'ALTER TABLE users ADD COLUMN note text NOT NULL' ;\n"
        "LOCK TABLE orders IN ACCESS EXCLUSIVE MODE ;\nEND"
    )
    assert [t.text for t in reference(body)][:3] == [
        "BEGIN",
        "EXECUTE",
        "'ALTER TABLE users ADD COLUMN note text NOT NULL'",
    ]
    facts = classify(f"DO $$ {body} $$", Context())
    assert facts.unknown is None
    assert {name: fact.lock for name, fact in facts.tables.items()} == {
        "users": Lock.ACCESS_EXCLUSIVE,
        "orders": Lock.ACCESS_EXCLUSIVE,
    }
    assert [issue.rule for issue in facts.issues] == [RuleId.ADD_NOT_NULL_COLUMN_WITHOUT_DEFAULT]


def _units_read_as_their_text(bodies: Iterable[str]) -> int:
    """Each statement a PL/pgSQL body runs that carries the body's tokens (`lexer.joined`)
    carries what `tokenize` gives for its text; the number that carry them."""
    carried = 0
    for body in bodies:
        try:
            units = plpgsql._units(body)
        except (Unclassified, TokenError, IndexError, ValueError):  # what classify catches
            continue
        for sql, toks, _ in units:
            if toks is not None:
                assert toks == tokenize(sql), (body, sql)
                carried += 1
    return carried


def test_body_statements_carry_their_own_tokens_in_the_suites_sql() -> None:
    assert _units_read_as_their_text(TEST_SQL) > 20


def test_body_statements_carry_their_own_tokens_in_the_benchmarks_files(tmp_path: Path) -> None:
    texts = {path.read_text() for path in _bench().generate(tmp_path, 2000)}
    assert _units_read_as_their_text(_expand(texts)) > 150


_PLPGSQL = [
    *("BEGIN ", "END; ", "IF ", " THEN ", "ELSIF ", "ELSE ", "END IF; ", "LOOP ", "END LOOP; "),
    *("FOR r IN ", "WHILE ", "PERFORM ", "RETURN ", "RETURN QUERY ", "EXECUTE ", "x := ", " = "),
    *("SELECT ", " INTO ", "STRICT ", " FROM t", " WHERE ", "a", "b.c", "f(", ")", "(", ", ", ";"),
    *("1", "1.5", ".5", "@", "@ ", "$1", "$a$", "$$", "double", " precision", "char ", "varying"),
    *("DOUBLE", " PRECISION", " INTO DOUBLE PRECISION ", "INTO double", "ORDER BY ", "KEY "),
    *("user", "-defined", "E'\\n'", "'x'", "''", "x -- c\n", "/* c */", "||", "::int", "<", "-"),
]


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PLPGSQL) | st.sampled_from(FRAGMENTS), max_size=24))
def test_body_statements_carry_their_own_tokens_in_generated_bodies(parts: list[str]) -> None:
    _units_read_as_their_text(["BEGIN " + "".join(parts) + " END"])


@pytest.mark.parametrize(
    ("body", "carried"),
    [
        ("BEGIN SELECT a INTO b FROM t; x := f(1); PERFORM g(); END", [True, True, True]),
        ("BEGIN SELECT @ INTO x 1.5; END", [False]),  # `@ 1.5` reads `1` `.5`
        ("BEGIN SELECT double INTO x precision FROM t; END", [False]),  # one keyword now
        ("BEGIN PERFORM f($1); SELECT $$a$$; END", [False, True]),  # `$1` reads ahead
    ],
)
def test_a_body_statement_carries_tokens_only_where_they_read_the_same(
    body: str, carried: list[bool]
) -> None:
    units = plpgsql._units(body)
    assert [toks is not None for _, toks, _ in units] == carried
    assert all(toks == tokenize(sql) for sql, toks, _ in units if toks is not None)


def test_multi_word_keywords_are_capital_words_spanning_the_keyword() -> None:
    assert [astuple(t)[:4] for t in tokenize("a primary\n key(b)", 10)] == [
        ("word", "a", 10, 10),
        ("word", "PRIMARY", 12, 23),
        ("word", "KEY", 12, 23),
        ("punct", "(", 24, 24),
        ("word", "b", 25, 25),
        ("punct", ")", 26, 26),
    ]
    assert tokenize("a primary\n key(b)", 10) == reference("a primary\n key(b)", 10)


def test_the_lexers_tables_are_sqlglots() -> None:
    """The operators, multi-word keywords, one-character tokens and escapes the lexer lists
    are those of sqlglot's PostgreSQL tokenizer (a sqlglot upgrade that changes them fails
    here)."""
    tokenizer = Postgres.Tokenizer
    trie_keys: set[str] = set()

    def walk(node: dict[object, object], prefix: str) -> None:
        for key, child in node.items():
            if key == 0:
                trie_keys.add(prefix)
            else:
                walk(child, prefix + str(key))  # type: ignore[arg-type]

    walk(tokenizer._KEYWORD_TRIE, "")
    starts = {
        *tokenizer._COMMENTS,
        *tokenizer._QUOTES,
        *(k.upper() for k in tokenizer._FORMAT_STRINGS),
    }
    words = {k for k in trie_keys if k[0].isalpha() and k not in starts}
    assert words == {*lexer._MULTI_WORD, "USER-DEFINED"}
    assert trie_keys - words - starts - {"~"} == set(lexer._OPERATORS)
    assert set(lexer._SINGLE) == set(tokenizer.SINGLE_TOKENS)
    assert {"$"} == tokenizer.VAR_SINGLE_TOKENS
    assert Postgres().UNESCAPED_SEQUENCES == lexer._UNESCAPED
    assert tokenizer.NUMERIC_ESCAPES == lexer._NUMERIC
    assert set(tokenizer._COMMENTS) == {"--", "/*", "{#"}
