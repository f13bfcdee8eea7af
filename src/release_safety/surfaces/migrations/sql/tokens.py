"""Tokens of a statement (our lexer) in a cursor that DDL classification reads from, and
sqlglot's parser for the statements that need a tree (loaded on first use, built once)."""

from __future__ import annotations

from functools import cache

from release_safety.common.textcase import lower
from release_safety.surfaces.migrations.sql.lexer import Tok, TokenError, tokenize

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from sqlglot import exp
    from sqlglot.parser import Parser
    from sqlglot.tokens import Tokenizer

__all__ = [
    "Cursor",
    "Tok",
    "TokenError",
    "normalise",
    "parse_one",
    "split_top",
    "tokenize",
    "words",
]


@cache
def _sqlglot() -> tuple[Tokenizer, Parser]:
    import logging

    from sqlglot.dialects.postgres import Postgres

    logging.getLogger("sqlglot").setLevel(logging.CRITICAL)
    return Postgres.Tokenizer(dialect=Postgres()), Postgres().parser()


def parse_one(sql: str) -> exp.Expr:
    """`sqlglot.parse_one(sql, read="postgres")` with one tokenizer and parser for every
    statement (sqlglot builds both anew per call). Raises sqlglot's ParseError or TokenError."""
    from sqlglot import exp
    from sqlglot.errors import ParseError

    tokenizer, parser = _sqlglot()
    result = parser.parse(tokenizer.tokenize(sql), sql)
    if not result or result[0] is None:
        raise ParseError(f"No expression was parsed from '{sql}'")
    return exp.Block(expressions=result) if len(result) > 1 else result[0]


class Cursor:
    """A position in a token list with the small reads a DDL grammar needs."""

    __slots__ = ("i", "toks")

    def __init__(self, toks: list[Tok]) -> None:
        self.toks = toks
        self.i = 0

    def at_end(self) -> bool:
        return self.i >= len(self.toks)

    def peek(self, offset: int = 0) -> str:
        """The keyword form of the word at the cursor (+offset), or the punctuation text."""
        j = self.i + offset
        return self.toks[j].key if j < len(self.toks) else ""

    def accept(self, *words: str) -> bool:
        """Consume the exact keyword sequence if it is next."""
        i, toks = self.i, self.toks
        if len(words) == 1:  # most calls
            if i < len(toks) and toks[i].key == words[0]:
                self.i = i + 1
                return True
            return False
        end = i + len(words)
        if end > len(toks):
            return False
        for k, word in enumerate(words, i):
            if toks[k].key != word:
                return False
        self.i = end
        return True

    def skip_optional(self, *sequences: tuple[str, ...]) -> None:
        """Consume each keyword sequence that comes next, in the order given (`accept`)."""
        toks = self.toks
        n = len(toks)
        for seq in sequences:
            i = self.i
            if i < n and toks[i].key == seq[0]:  # else no sequence of it is next
                self.accept(*seq)

    def name(self) -> str | None:
        """A possibly qualified name, normalised (see `normalise`), or None."""
        toks, i, n = self.toks, self.i, len(self.toks)
        if i < n and (i + 1 == n or toks[i + 1].key != "."):  # one part, most names
            tok = toks[i]
            if tok.kind == "word":
                self.i = i + 1
                return lower(tok.text)
            if tok.kind == "ident":
                self.i = i + 1
                return tok.text
            return None
        parts: list[str] = []
        while i < n:
            tok = toks[i]
            if tok.kind == "word":
                parts.append(lower(tok.text))
            elif tok.kind == "ident":
                parts.append(tok.text)
            else:
                break
            i += 1
            if i >= n or toks[i].key != ".":
                break
            i += 1
        self.i = i
        return normalise(parts) if parts else None

    def names(self) -> list[str]:
        """A comma-separated list of names (stops at the first non-name)."""
        out: list[str] = []
        while (name := self.name()) is not None:
            out.append(name)
            self.accept("*")
            if not self.accept(","):
                break
        return out

    def skip_parens(self) -> list[Tok]:
        """Consume a parenthesised group at the cursor and return its inner tokens."""
        toks, i = self.toks, self.i
        n = len(toks)
        if i >= n or toks[i].key != "(":
            return []
        depth = 0
        start = i
        while i < n:
            key = toks[i].key
            if key == "(":
                depth += 1
            elif key == ")":
                depth -= 1
            i += 1
            if depth == 0:
                break
        self.i = i
        return toks[start + 1 : i - 1]

    def rest(self) -> list[Tok]:
        out = self.toks[self.i :]
        self.i = len(self.toks)
        return out


def normalise(parts: list[str]) -> str:
    """`public.t` and `t` are `t`; other schemas stay qualified; quoted names keep their case."""
    if len(parts) > 1 and parts[-2] == "public":
        return parts[-1]
    return ".".join(parts[-2:])


def split_top(toks: list[Tok], sep: str = ",") -> list[list[Tok]]:
    """Split tokens at separators outside parentheses and brackets."""
    groups: list[list[Tok]] = []
    start = depth = 0  # the current group's first token; brackets open around the next
    for k, tok in enumerate(toks):
        key = tok.key  # a punctuation token's text; no other token's is punctuation
        if key == "(" or key == "[":
            depth += 1
        elif key == ")" or key == "]":
            depth -= 1
        if key == sep and depth == 0 and tok.kind == "punct":
            if k > start:
                groups.append(toks[start:k])
            start = k + 1
    if start < len(toks):
        groups.append(toks[start:])
    return groups


def words(toks: list[Tok]) -> list[str]:
    return [t.up for t in toks if t.kind == "word"]
