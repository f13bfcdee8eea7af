"""sqlglot's PostgreSQL tokenizer, wrapped in a cursor that DDL classification reads from, and
its parser for the statements that need a tree (both built once)."""

from __future__ import annotations

import logging
from functools import cache
from typing import TYPE_CHECKING, Literal, NamedTuple

from sqlglot import exp
from sqlglot.dialects.postgres import Postgres
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokenizer_core import TokenType

if TYPE_CHECKING:
    from sqlglot.parser import Parser

Kind = Literal["word", "ident", "string", "number", "punct"]
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
_TOKENIZER = Postgres.Tokenizer(dialect=Postgres())


class Tok(NamedTuple):
    """A token: `text` the source text (unquoted), `start` and `end` its first and last
    offsets, `up` the keyword form of a word ("" for other kinds), `key` what a grammar
    matches: `up` for a word, the text of punctuation, "" for literals and identifiers."""

    kind: Kind
    text: str
    start: int
    end: int
    up: str = ""
    key: str = ""


def _tok(kind: Kind, text: str, start: int, end: int) -> Tok:
    """A Tok built without the argument handling of its generated `__new__`."""
    if kind == "word":
        up = text.upper()
        return tuple.__new__(Tok, (kind, text, start, end, up, up))
    return tuple.__new__(Tok, (kind, text, start, end, "", text if kind == "punct" else ""))


_KINDS: dict[TokenType, Kind] = {
    **dict.fromkeys(_STRINGS, "string"),
    TokenType.IDENTIFIER: "ident",
    TokenType.NUMBER: "number",
}
_COMMANDS = {*Postgres.Tokenizer.COMMANDS, TokenType.COMMAND}


def tokenize(sql: str, offset: int = 0) -> list[Tok]:
    """Tokens of one statement; multi-word keywords (`PRIMARY KEY`) become one word each.

    sqlglot keeps the text after a command keyword (LOCK, VACUUM, REFRESH, EXECUTE...) as one
    raw string; that text is tokenized in turn. Raises sqlglot's TokenError on text it cannot
    tokenize.
    """
    out: list[Tok] = []
    command = False  # the previous token is a command keyword
    for token in _TOKENIZER.tokenize(sql):
        text = token.text
        kind = _KINDS.get(token.token_type)
        if kind is None:
            first = text[:1]
            kind = "word" if first.isalpha() or first == "_" else "punct"
        end = token.end
        # the rest of a command (LOCK, VACUUM, EXECUTE...) as sqlglot keeps it: raw text
        if command and kind == "string":
            at = end + 1 - len(text)
            if at >= 0 and sql[at : end + 1] == text:
                out.extend(tokenize(text, offset + at))
                command = token.token_type in _COMMANDS
                continue
        command = token.token_type in _COMMANDS
        start, end = token.start + offset, end + offset
        if kind == "word" and " " in text:
            out.extend(_tok("word", w, start, end) for w in text.split())
        else:
            out.append(_tok(kind, text, start, end))
    return out


@cache
def _parser() -> Parser:
    logging.getLogger("sqlglot").setLevel(logging.CRITICAL)
    return Postgres().parser()


def parse_one(sql: str) -> exp.Expr:
    """`sqlglot.parse_one(sql, read="postgres")` with one tokenizer and parser for every
    statement (sqlglot builds both anew per call). Raises sqlglot's ParseError or TokenError."""
    result = _parser().parse(_TOKENIZER.tokenize(sql), sql)
    if not result or result[0] is None:
        raise ParseError(f"No expression was parsed from '{sql}'")
    return exp.Block(expressions=result) if len(result) > 1 else result[0]


class Cursor:
    """A position in a token list with the small reads a DDL grammar needs."""

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
        if len(toks) - i < len(words):
            return False
        for k, word in enumerate(words):
            if toks[i + k].key != word:
                return False
        self.i += len(words)
        return True

    def skip_optional(self, *sequences: tuple[str, ...]) -> None:
        for seq in sequences:
            self.accept(*seq)

    def name(self) -> str | None:
        """A possibly qualified name, normalised (see `normalise`), or None."""
        parts: list[str] = []
        while not self.at_end():
            tok = self.toks[self.i]
            if tok.kind not in ("word", "ident"):
                break
            parts.append(tok.text if tok.kind == "ident" else tok.text.lower())
            self.i += 1
            if self.peek() != ".":
                break
            self.i += 1
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
        if self.peek() != "(":
            return []
        depth = 0
        start = self.i
        while not self.at_end():
            text = self.peek()
            depth += text == "("
            depth -= text == ")"
            self.i += 1
            if depth == 0:
                break
        return self.toks[start + 1 : self.i - 1]

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


def words(toks: list[Tok]) -> list[str]:
    return [t.up for t in toks if t.kind == "word"]
