"""Simple data statements read from their tokens (`simpledata`) against sqlglot's syntax tree
(`classify._references`): wherever the token reader answers, sqlglot parses the statement and
gives the same tables, writes and pinned columns. Checked on every SQL text of the suite (and
the queries PL/pgSQL bodies in them run), the benchmark's generated files, and generated
statements of the grammar and around it."""

from __future__ import annotations

import contextlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlglot.dialects.postgres import Postgres
from test_lexer import TEST_SQL

from release_safety.surfaces.migrations.engines.postgres import plpgsql
from release_safety.surfaces.migrations.engines.postgres.classify import _references
from release_safety.surfaces.migrations.engines.postgres.columns import Unclassified
from release_safety.surfaces.migrations.sql.lexer import TokenError, tokenize
from release_safety.surfaces.migrations.sql.simpledata import RESERVED, Reference, references
from release_safety.surfaces.migrations.sql.sqlfile import split_sql

ROOT = Path(__file__).parent.parent.parent.parent


def _generate(folder: Path, count: int) -> list[Path]:
    """The benchmark's generated migration files."""
    spec = importlib.util.spec_from_file_location("bench_gen", ROOT / "bench/bench_migrations.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench.generate(folder, count)  # type: ignore[no-any-return]


def _read_both(sql: str) -> int:
    """Compare both readings of `sql` and of each query after one of its `AS` (as CREATE ...
    AS reads it); the number of texts the token reader answered."""
    try:
        toks = tokenize(sql)
    except TokenError:
        return 0
    answered = 0
    starts = [0] + [k + 1 for k, t in enumerate(toks) if t.up == "AS" and k + 1 < len(toks)]
    for start in starts:
        simple = references(sql, toks[start:])
        if simple is None:
            continue
        answered += 1
        text = sql[toks[start].start : toks[-1].end + 1] if start else sql
        assert _references(text) == simple, text
    return answered


def _with_units(texts: set[str]) -> set[str]:
    """The texts, their statements and the queries the PL/pgSQL bodies among them run."""
    out = set(texts)
    for text in texts:
        with contextlib.suppress(ValueError):
            out.update(s.sql for s in split_sql(text) if s.sql)
    for text in list(out):
        with contextlib.suppress(Unclassified, TokenError, IndexError):
            out.update(sql for sql, _, _ in plpgsql._units(text))
    return out


def test_same_references_as_sqlglot_on_the_suites_sql() -> None:
    answered = sum(_read_both(sql) for sql in sorted(_with_units(set(TEST_SQL))))
    assert answered > 30


def test_same_references_as_sqlglot_on_the_benchmarks_files(tmp_path: Path) -> None:
    texts = {path.read_text() for path in _generate(tmp_path, 2000)}
    answered = sum(_read_both(sql) for sql in sorted(_with_units(texts)))
    assert answered > 100


def test_the_benchmarks_files_are_linted_without_sqlglot(tmp_path: Path) -> None:
    """Every data statement of the benchmark's files is of the grammar: sqlglot is never
    loaded (it costs more than the rest of the lint of a small file)."""
    paths = [str(p) for p in _generate(tmp_path, 300)]
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from release_safety.surfaces.migrations.lint import lint_texts\n"
        "from release_safety.surfaces.migrations.reading import Reading\n"
        "lint_texts([(p, Path(p).read_text(), 'sql') for p in sys.argv[1:]], Reading())\n"
        "print('sqlglot' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", script, *paths], capture_output=True, text=True)
    assert run.stdout.strip() == "False", run.stderr


def test_reads_the_grammar() -> None:
    sql = "UPDATE public.users SET note = 'x', n = 2 WHERE id = 5 AND \"Org\" = 'a'"
    assert references(sql, tokenize(sql)) == [
        Reference("users", "UPDATE", frozenset({"id", "org"}))
    ]
    sql = "SELECT NOT EXISTS (SELECT 1 FROM s.t WHERE a IS NOT NULL)"
    assert references(sql, tokenize(sql)) == [Reference("s.t", None, frozenset())]
    sql = "DELETE FROM t"
    assert references(sql, tokenize(sql)) == [Reference("t", "DELETE", None)]
    for other in (
        "UPDATE t SET a = 1 WHERE a = 1 OR b = 2",  # OR
        "UPDATE t SET a = now()",  # a call
        "SELECT a FROM t x",  # an alias
        "SELECT a FROM t JOIN u ON true",
        "DELETE FROM t WHERE date = 1",  # a keyword as a name
        "UPDATE t SET a = E'x'",  # not a plain string
        "SELECT a FROM t WHERE a = 1;",
    ):
        assert references(other, tokenize(other)) is None, other


def test_the_reserved_words_are_sqlglots() -> None:
    """A sqlglot upgrade that reads more words as keywords fails here."""
    tokenizer, parser = Postgres.Tokenizer, Postgres.Parser
    words = {k for k in tokenizer.KEYWORDS if re.fullmatch(r"[A-Z_][A-Z0-9_]*", k)}
    assert words | set(parser.NO_PAREN_FUNCTION_PARSERS) == RESERVED


_NAMES = ["t", "users", "id", "note", "org_id", '"Mixed"', '"a b"', "public.t", "s.t"]
_NAMES += ["key", "name", "date", "current_date", "status", "x$y", "type", "value", "_1"]
_LITERALS = ["1", "1.5", "1e3", "'x'", "'it''s'", "E'x'", "$$x$$", "B'1'", "0xFF", "-1"]
_LITERALS += ["NULL", "TRUE", "FALSE", "DEFAULT", "now()", "a::int", "(1)"]
_COMPARE = ["=", "<>", "!=", "<", ">", "<=", ">=", "==", "~", "LIKE", "IS", "IN"]

_operand = st.sampled_from(_NAMES + _LITERALS)
_comparison = st.one_of(
    st.tuples(_operand, st.sampled_from(_COMPARE), _operand).map(" ".join),
    st.tuples(_operand, st.sampled_from(["IS NULL", "IS NOT NULL", "IS TRUE"])).map(" ".join),
)
_where = st.one_of(
    st.just(""),
    st.lists(_comparison, min_size=1, max_size=3).flatmap(
        lambda parts: st.sampled_from([" AND ", " OR ", " and "]).map(
            lambda joint: " WHERE " + joint.join(parts)
        )
    ),
)
_items = st.lists(st.sampled_from([*_NAMES, *_LITERALS, "*"]), min_size=1, max_size=3).map(
    ", ".join
)
_select = st.builds(
    lambda items, name, where, tail: (
        f"SELECT {items}{f' FROM {name}' if name else ''}{where}" + tail
    ),
    _items,
    st.sampled_from(["", *_NAMES]),
    _where,
    st.sampled_from(["", "", " x", " LIMIT 1", ";", " JOIN u ON true", ", u"]),
)
_statement = st.one_of(
    st.builds(
        lambda name, sets, where: f"UPDATE {name} SET {sets}{where}",
        st.sampled_from(_NAMES),
        st.lists(st.tuples(st.sampled_from(_NAMES), _operand), min_size=1, max_size=2).map(
            lambda pairs: ", ".join(f"{c} = {v}" for c, v in pairs)
        ),
        _where,
    ),
    st.builds(lambda name, where: f"DELETE FROM {name}{where}", st.sampled_from(_NAMES), _where),
    _select,
    st.builds(
        lambda negated, inner: f"SELECT {negated}EXISTS ({inner})",
        st.sampled_from(["", "NOT "]),
        _select,
    ),
    st.builds(lambda q: f"CREATE VIEW v AS {q}", _select),
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_statement)
def test_same_references_as_sqlglot_on_generated_statements(sql: str) -> None:
    _read_both(sql)
