"""The cursor's reads (`tokens.Cursor`: accept, skip_parens, name; `split_top`) against
their plain definitions (kept here: the cursor's were rewritten for speed, issue 14), on the
tokens of every SQL text of the suite and the benchmark's files: every read at every
position."""

from __future__ import annotations

from pathlib import Path

from test_lexer import TEST_SQL
from test_simpledata import _generate

from release_safety.surfaces.migrations.sql.lexer import Tok, TokenError
from release_safety.surfaces.migrations.sql.tokens import Cursor, normalise, split_top, tokenize


def _accept(toks: list[Tok], i: int, words: tuple[str, ...]) -> int | None:
    """Where the cursor stands after accepting `words` at `i`, or None."""
    if i + len(words) > len(toks):
        return None
    if all(toks[i + k].key == word for k, word in enumerate(words)):
        return i + len(words)
    return None


def _skip_parens(toks: list[Tok], i: int) -> tuple[list[Tok], int]:
    if i >= len(toks) or toks[i].key != "(":
        return [], i
    depth, start = 0, i
    while i < len(toks):
        depth += toks[i].key == "("
        depth -= toks[i].key == ")"
        i += 1
        if depth == 0:
            break
    return toks[start + 1 : i - 1], i


def _name(toks: list[Tok], i: int) -> tuple[str | None, int]:
    parts: list[str] = []
    while i < len(toks) and toks[i].kind in ("word", "ident"):
        parts.append(toks[i].text.lower() if toks[i].kind == "word" else toks[i].text)
        i += 1
        if i >= len(toks) or toks[i].key != ".":
            break
        i += 1
    return (normalise(parts) if parts else None), i


def _split_top(toks: list[Tok], sep: str = ",") -> list[list[Tok]]:
    groups: list[list[Tok]] = [[]]
    depth = 0
    for tok in toks:
        if tok.kind == "punct" and tok.text in ("(", "["):
            depth += 1
        elif tok.kind == "punct" and tok.text in (")", "]"):
            depth -= 1
        if depth == 0 and tok.kind == "punct" and tok.text == sep:
            groups.append([])
        else:
            groups[-1].append(tok)
    return [g for g in groups if g]


def _reads_alike(toks: list[Tok]) -> None:
    keys = [t.key for t in toks]
    sequences = {(), ("IF", "EXISTS"), ("IF", "NOT", "EXISTS"), ("(",), (";",), ("ALTER",)}
    sequences |= {tuple(keys[k : k + size]) for k in range(len(keys)) for size in (1, 2, 3)}
    for sep in (",", "(", ")", "AND", "=", "["):
        assert split_top(toks, sep) == _split_top(toks, sep)
    for i in range(len(toks) + 1):
        for words in sequences:
            cur = Cursor(toks)
            cur.i = i
            expected = _accept(toks, i, words)
            assert cur.accept(*words) == (expected is not None)
            assert cur.i == (i if expected is None else expected)
        cur = Cursor(toks)
        cur.i = i
        inner = cur.skip_parens()
        assert (inner, cur.i) == _skip_parens(toks, i)
        cur.i = i
        name = cur.name()
        assert (name, cur.i) == _name(toks, i)


def _check(texts: list[str]) -> int:
    read = 0
    for sql in texts:
        try:
            toks = tokenize(sql)
        except TokenError:
            continue
        _reads_alike(toks)
        read += 1
    return read


def test_cursor_reads_as_defined_on_the_suites_sql() -> None:
    assert _check([t for t in TEST_SQL if len(t) < 2000]) > 1000


def test_cursor_reads_as_defined_on_the_benchmarks_files(tmp_path: Path) -> None:
    assert _check(sorted({p.read_text() for p in _generate(tmp_path, 300)})) > 250
