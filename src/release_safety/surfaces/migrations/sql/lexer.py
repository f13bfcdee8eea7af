"""PostgreSQL text as the tokens DDL classification reads, without loading sqlglot.

The tokens are those sqlglot's PostgreSQL tokenizer (sqlglot 30, the tokenizer the parser
reads) gives, as classification used to convert them; `tests/surfaces/migrations/test_lexer.py`
compares the two on every SQL text of the suite, the benchmark's files and generated text:

- whitespace (`str.isspace`) and comments are skipped: `--` to the end of the line, `/* */`
  and `{# #}` nested as sqlglot nests them;
- a word is a run of anything but whitespace and the single-character tokens below (`$`
  may follow its first character); its kind is `word` when it starts with a letter or `_`,
  else `punct`. The multi-word keywords sqlglot reads as one token (`PRIMARY KEY`, `GROUP
  BY`...) are one word each, in capitals, each spanning the whole keyword;
- a number starts with a digit: digits, one `.`, one exponent `e` with one sign before a
  digit, in sqlglot's order (`1e5+3` is one number); `0x...`/`0b...` is a hex/bit string
  when it is one, else an identifier;
- strings: `'..'` with `''`, `E'..'` with backslash escapes decoded, `B'..'`, `X'..'`
  (checked to be binary/hex), `N'..'`, `U&'..'`, and `$tag$..$tag$` (a `$` whose tag is
  digits, holds a space or runs to the end is a parameter, punctuation);
- `"quoted"` identifiers, unquoted, with `""` read as `"`;
- operators: the longest of sqlglot's multi-character operators (`::`, `->>`, `@>`...),
  else one character.

sqlglot keeps the rest of a command (`LOCK`, `VACUUM`, `EXECUTE`...) as one raw string that
classification tokenized again; reading it directly gives the same tokens, except where that
second pass misfired (the test names both cases: one hid `EXECUTE '...' ;` and `LOCK ... ;`
written with a space before the semicolon in PL/pgSQL bodies). Text sqlglot cannot tokenize
raises `TokenError` with sqlglot's message, which classification reports.
"""

from __future__ import annotations

import re

from release_safety.common.value import HashableValue

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Final, Literal

    Kind = Literal["word", "ident", "string", "number", "punct"]


class Tok(HashableValue):
    """A token: `text` the source text (unquoted), `start` and `end` its first and last
    offsets, `up` the keyword form of a word ("" for other kinds), `key` what a grammar
    matches: `up` for a word, the text of punctuation, "" for literals and identifiers.
    (Not a NamedTuple: compiled, a native class is built in a third of the time and read
    in half.)"""

    FIELDS = ("kind", "text", "start", "end", "up", "key")

    kind: Final[Kind]
    text: Final[str]
    start: Final[int]
    end: Final[int]
    up: Final[str]
    key: Final[str]

    def __init__(
        self, kind: Kind, text: str, start: int, end: int, up: str = "", key: str = ""
    ) -> None:
        self.kind = kind
        self.text = text
        self.start = start
        self.end = end
        self.up = up
        self.key = key


class TokenError(ValueError):
    """Text the tokenizer cannot read; the message is sqlglot's (the text around where it
    stopped)."""

    def __init__(self, sql: str, current: int) -> None:
        context = sql[max(current - 50, 0) : min(current + 50, len(sql) - 1)]
        super().__init__(f"Error tokenizing '{context}'")


_SINGLE = "()[]{}&^:,.-=><%!|+;/\\*~?@#'`\"$"
_S = re.escape(_SINGLE)
_W = re.escape(_SINGLE.replace("$", ""))  # `$` continues a word
# sqlglot's operators of more than one character, longest first
_OPERATORS = sorted(
    "<<->> #>> ->> -|- <-> <=> ?:: {%+ {%- {{+ {{- +%} -%} +}} -}} ||/ ~~~ ~~* != #- #> %} && "  # noqa: SIM905
    "&< &> -> :: := <= <> <@ == => >= ?& ?? ?| @> @? @@ ^@ {% |/ |> || ~* ~~".split(),
    key=len,
    reverse=True,
)
_MULTI_WORD = (
    "CHARACTER VARYING",
    "CHAR VARYING",
    "CLUSTER BY",
    "CONNECT BY",
    "DISTRIBUTE BY",
    "DOUBLE PRECISION",
    "FOREIGN KEY",
    "GROUP BY",
    "GROUPING SETS",
    "ORDER BY",
    "PARTITION BY",
    "PARTITIONED BY",
    "PRIMARY KEY",
    "SIMILAR TO",
    "SORT BY",
    "SQL SECURITY",
)
_MULTI_WORDS: Final = frozenset(tuple(key.split()) for key in (*_MULTI_WORD, "USER -DEFINED"))
_MULTI_FIRST: Final = frozenset(first for first, _ in _MULTI_WORDS)
# the rest of a multi-word keyword, one token (sqlglot's trie walk) when whitespace, a
# single-character token or the end follows it; USER-DEFINED whatever follows
_NEXT_WORD: Final = re.compile(rf"\s+([A-Za-z]+)(?=[\s{_S}]|\Z)|(-[Dd][Ee][Ff][Ii][Nn][Ee][Dd])")
# each operator's first character -> the operators it starts, longest first: `_scan` reads an
# operator where `_TOKEN` finds punctuation (no token it tries first starts as an operator does:
# `--`, `/*`, `{#` are none), which compiles `_TOKEN` in a third less time than an alternative
# of each operator
_OPERATORS_AT: Final = {
    first: tuple(op for op in _OPERATORS if op[0] == first)
    for first in {op[0] for op in _OPERATORS}
}
_DIGITS_TAIL = r"(?:[+-](?=[0-9])[0-9]*)"
# One token after whitespace; alternatives are tried in order: `sep` first (the commonest
# punctuation, which nothing else starts with), `punct` (an operator's first character too).
_TOKEN: Final = re.compile(
    rf"""\s*(?:
    (?P<sep>[(),;])
    |(?P<str>[nNbBxXeE]?'|[uU]&')
    |(?P<word>[A-Za-z_][^\s{_W}]*)
    |(?P<line>--[^\n\r]*)
    |(?P<block>/\*|\{{\#)
    |(?P<radix>0[xXbB][^\s{_S}]*)
    |(?P<num>[0-9]+(?:
        \.[0-9]*(?:[eE][0-9]*{_DIGITS_TAIL}?)?
        |[eE][0-9]*(?:\.[0-9]*{_DIGITS_TAIL}?|{_DIGITS_TAIL}(?:\.[0-9]*)?)?
    )?)
    |(?P<dollar>\$)
    |(?P<ident>")
    |(?P<punct>[{_S}])
    |(?P<other>[^\s{_S}0-9][^\s{_W}]*)
    )""",
    re.VERBOSE,
)
# a number right after a parameter (`@`, `$`) takes no decimal point
_NUMBER_AFTER_PARAMETER = re.compile(rf"[0-9]+(?:[eE][0-9]*{_DIGITS_TAIL}?)?")
# a quoted body up to its closing quote: `''` (`""`) is one quote
_QUOTED_BODY = {q: re.compile(f"(?:[^{q}]+|{q}{q})*+") for q in "'\""}
_STRING_BASE = {"B": 2, "X": 16}
_QUOTE = frozenset("'")
_E_ESCAPES = frozenset("'\\")
_IDENT_ESCAPES = frozenset('"')


def _tok(kind: Kind, text: str, start: int, end: int) -> Tok:
    """A Tok of this kind, with its keyword form and grammar key."""
    if kind == "word":
        up = text.upper()
        return Tok(kind, text, start, end, up, up)
    return Tok(kind, text, start, end, "", text if kind == "punct" else "")


def tokenize(sql: str, offset: int = 0) -> list[Tok]:
    """Tokens of `sql`, offsets shifted by `offset`; raises TokenError where sqlglot does."""
    return _scan(sql, offset, None)


def split_tokens(sql: str) -> list[tuple[int, int, list[Tok]]]:
    """The script's statements as the tokens between `;` tokens: each one's first offset, the
    offset of the `;` that ends it (or the end of `sql`) and its tokens, offsets from its
    first (as `tokenize` gives them for its text). Raises TokenError as `tokenize`."""
    statements: list[tuple[int, int, list[Tok]]] = []
    _scan(sql, 0, statements)
    return statements


def _scan(sql: str, offset: int, statements: list[tuple[int, int, list[Tok]]] | None) -> list[Tok]:
    """The tokens of `sql`, or, given `statements`, the tokens of each statement appended to
    it (`split_tokens`)."""
    out: list[Tok] = []
    append = out.append
    match = _TOKEN.match
    pos = 0
    first = statements is not None  # the next token starts a statement: offsets from it
    begin = 0
    while (m := match(sql, pos)) is not None:
        group = m.lastgroup
        # every alternative is one named group, ending where the match ends
        start, pos = m.span(group)  # type: ignore[arg-type]
        if first and group != "line" and group != "block":
            if group == "sep" and sql[start] == ";":
                continue
            first = False
            begin, offset = start, -start
        if group == "word":
            text = sql[start:pos]
            up = text.upper()
            if up in _MULTI_FIRST and text.isascii() and (after := _NEXT_WORD.match(sql, pos)):
                second = after.group(after.lastindex).upper()  # type: ignore[arg-type]
                if (up, second) in _MULTI_WORDS:
                    pos = after.end()
                    for word in (up + second,) if second[0] == "-" else (up, second):
                        append(Tok("word", word, start + offset, pos - 1 + offset, word, word))
                    continue
            append(Tok("word", text, start + offset, pos - 1 + offset, up, up))
        elif group == "sep" or group == "punct":
            if group == "punct" and (operators := _OPERATORS_AT.get(sql[start])) is not None:
                pos = next((start + len(op) for op in operators if sql.startswith(op, start)), pos)
            text = sql[start:pos]
            if text == ";" and statements is not None:
                statements.append((begin, start, out))
                out = []
                append = out.append
                first = True
                continue
            append(Tok("punct", text, start + offset, pos - 1 + offset, "", text))
        elif group == "line":
            continue
        elif group == "num":
            if "." in sql[start:pos] and out and _after_parameter(out[-1]):
                pos = _NUMBER_AFTER_PARAMETER.match(sql, start).end()  # type: ignore[union-attr]
            append(_tok("number", sql[start:pos], start + offset, pos - 1 + offset))
        elif group == "str":
            text, pos = _string(sql, start, pos)
            append(_tok("string", text, start + offset, pos - 1 + offset))
        elif group == "ident":
            if pos >= len(sql):
                raise TokenError(sql, pos + 1)
            if (end := _closing(sql, pos, '"')) < len(sql):
                text = sql[pos:end].replace('""', '"')
            else:
                text, end = _extract(sql, pos, '"', _IDENT_ESCAPES)  # raises as sqlglot
            pos = end + 1
            append(_tok("ident", text, start + offset, end + offset))
        elif group == "dollar":
            (kind, text), pos = _dollar(sql, start)
            append(_tok(kind, text, start + offset, pos - 1 + offset))
        elif group == "block":
            pos = _block_comment(sql, start)
        elif group == "radix":
            text = sql[start:pos]
            try:
                int(text, 16 if text[1] in "xX" else 2)
                append(_tok("string", text[2:], start + offset, pos - 1 + offset))
            except ValueError:
                append(_tok("ident", text, start + offset, pos - 1 + offset))
        else:  # other: a word that starts with other than an ASCII letter
            text = sql[start:pos]
            kind = "word" if text[0].isalpha() or text[0] == "_" else "punct"
            append(_tok(kind, text, start + offset, pos - 1 + offset))
    if statements is not None and out:
        statements.append((begin, len(sql), out))
    return out


def joined(source: str, parts: list[list[Tok]], prefix: str = "") -> tuple[str, list[Tok] | None]:
    """`prefix` and the source text of the non-empty `parts` (tokens of `source`) joined by
    spaces, with the tokens `tokenize` gives for that text, taken from the parts' own; None
    instead where a part might read differently there: a number first (after a parameter it
    takes no decimal point), a `$` parameter (read up to the next `$`), a keyword that could
    join the first word after the space (`DOUBLE` `PRECISION`), a part that starts or ends
    inside a multi-word keyword (whose words both span it). Where each part starts and ends,
    its tokens do (`tests/surfaces/migrations/test_lexer.py` checks it on every body)."""
    parts = [part for part in parts if part]
    texts = [source[part[0].start : part[-1].end + 1] for part in parts]
    sql = prefix + " ".join(texts)
    toks = tokenize(prefix) if prefix else []
    at = len(prefix)
    for part, text in zip(parts, texts, strict=True):
        first, last = part[0], part[-1]
        if (
            first.kind == "number"
            or (toks and toks[-1].up in _MULTI_FIRST)
            or (first.kind == "word" and not text.startswith(first.text))
            or (last.kind == "word" and not text.endswith(last.text))
        ):
            return sql, None
        delta = at - part[0].start
        for tok in part:
            if tok.kind == "punct" and tok.text[0] == "$":
                return sql, None
            start, end = tok.start + delta, tok.end + delta
            toks.append(Tok(tok.kind, tok.text, start, end, tok.up, tok.key))
        at += len(text) + 1
    return sql, toks


def _after_parameter(tok: Tok) -> bool:
    """sqlglot reads `@` and a `$` that opens no string as parameters."""
    return tok.kind == "punct" and (tok.text == "@" or tok.text[0] == "$")


def _closing(sql: str, body: int, quote: str) -> int:
    """The offset of the quote that closes a body starting at `body` (a doubled quote is one
    quote of the text), or the end of `sql`."""
    return _QUOTED_BODY[quote].match(sql, body).end()  # type: ignore[union-attr]  # may be ""


def _string(sql: str, start: int, body: int) -> tuple[str, int]:
    """The text of the string whose opening quote ends before `body`, and the offset after
    its closing quote."""
    if body >= len(sql):
        raise TokenError(sql, body + 1)
    prefix = sql[start].upper()
    escaped = prefix == "E"
    end = sql.find("'", body)
    if end != -1 and sql[end + 1 : end + 2] != "'" and not (escaped and "\\" in sql[body:end]):
        text = sql[body:end]
    elif not escaped and (end := _closing(sql, body, "'")) < len(sql):
        text = sql[body:end].replace("''", "'")
    else:
        text, end = _extract(sql, body, "'", _E_ESCAPES if escaped else _QUOTE)
    base = _STRING_BASE.get(prefix)
    if base and text:
        try:
            int(text, base)
        except ValueError:
            raise TokenError(sql, end + 1) from None
    return text, end + 1


def _dollar(sql: str, start: int) -> tuple[tuple[Kind, str], int]:
    """A `$`: a dollar-quoted string, or a parameter; the token and the offset after it."""
    n = len(sql)
    if start + 1 >= n:
        raise TokenError(sql, start + 2)
    if sql[start + 1] == "$":
        tag, at = "", start + 1
    else:
        at = sql.find("$", start + 1)
        if at != -1 and "\\" not in sql[start + 1 : at]:
            tag = sql[start + 1 : at]
        else:
            tag, at = _extract(sql, start + 1, "$", _QUOTE, raw=True, unmatched=True)
        ended = at + 1 >= n
        if ended or tag.isdigit() or any(c.isspace() for c in tag):
            after = at + 1 - (not ended) - len(tag)
            return ("punct", sql[start:after]), after
    if at + 1 >= n:
        raise TokenError(sql, at + 2)
    delimiter = f"${tag}$"
    end = sql.find(delimiter, at + 1)
    if end != -1:
        return ("string", sql[at + 1 : end]), end + len(delimiter)
    _extract(sql, at + 1, delimiter, _QUOTE, raw=True)  # raises as sqlglot does
    raise AssertionError("unreachable")  # pragma: no cover


def _block_comment(sql: str, start: int) -> int:
    """The offset after the (nested) comment opened at `start` (`/*` or `{#`)."""
    n = len(sql)
    opening = sql[start : start + 2]
    closing = "*/" if opening == "/*" else "#}"
    p = start + 2
    if p >= n:
        raise TokenError(sql, p + 1)
    depth = 1
    while p + 1 < n:
        if sql[p : p + 2] == closing:
            depth -= 1
            if not depth:
                return p + 2
        p = _advance(sql, p)
        if p + 1 < n and sql[p : p + 2] == opening:
            p += 2
            if p >= n:
                raise TokenError(sql, p + 1)
            depth += 1
    raise TokenError(sql, p + 2)


def _advance(sql: str, p: int) -> int:
    """sqlglot's step: the next character, then to the end of a run of letters and digits."""
    p += 1
    if sql[p].isalnum():
        n = len(sql)
        while p + 1 < n and sql[p + 1].isalnum():
            p += 1
    return p


def _extract(
    sql: str,
    p: int,
    delimiter: str,
    escapes: frozenset[str],
    raw: bool = False,
    unmatched: bool = False,
) -> tuple[str, int]:
    """sqlglot's reading of quoted text from `p` up to `delimiter`: the text and the offset of
    the delimiter's last character. Doubled quotes (and `\\` escapes of an E'' string) are
    decoded. At the end of the text without the delimiter, the text read so far if
    `unmatched`, else TokenError."""
    n = len(sql)
    size = len(delimiter)
    backslash = "\\" in escapes and not raw
    parts: list[str] = []
    while True:
        char = sql[p]
        peek = sql[p + 1] if p + 1 < n else ""
        if backslash and char == "\\":
            decoded, after = _numeric_escape(sql, p)
            if decoded:
                parts.append(decoded)
                p = after
                continue
            if p + 2 < n:  # a named escape (\n, \t...), or the character after the backslash
                parts.append(_UNESCAPED.get(char + peek, peek))
                p += 2
                continue
        escaped_delimiter = peek == delimiter or (size > 1 and peek == delimiter[0] == "'")
        if (
            char in escapes
            and (escaped_delimiter or peek in escapes)
            and (char != "'" or char == peek)
        ):
            parts.append(peek if escaped_delimiter and not raw else char + peek)
            if p + 2 >= n:
                raise TokenError(sql, p + 1)
            p += 2
            continue
        if sql[p : p + size] == delimiter:
            return "".join(parts), p + size - 1
        if p + 1 >= n:
            if unmatched:
                return "".join(parts) + char, p
            raise TokenError(sql, n)
        after = _advance(sql, p)
        parts.append(sql[p:after])
        p = after


_UNESCAPED = {
    "\\a": "a",
    "\\b": "\b",
    "\\f": "\f",
    "\\n": "\n",
    "\\r": "\r",
    "\\t": "\t",
    "\\v": "\v",
    "\\\\": "\\",
}
# escape letter: (base, fewest digits, most digits, largest value); octal is keyed by "0"
_NUMERIC = {"x": (16, 1, 2, 0xFF), "u": (16, 4, 4, 0xFFFF), "U": (16, 8, 8, 0x10FFFF)}
_NUMERIC["0"] = (8, 1, 3, 0o777)
_OCTAL = frozenset("01234567")
_DIGIT_VALUES = {c: int(c, 16) for c in "0123456789abcdefABCDEF"}


def _read_number(sql: str, start: int, spec: tuple[int, int, int, int]) -> tuple[int, int]:
    """The value of an escape's digits from `start` and the offset after them; -1 for too
    few digits."""
    base, fewest, most, largest = spec
    value, end, limit = 0, start, min(start + most, len(sql))
    while end < limit:
        digit = _DIGIT_VALUES.get(sql[end], 16)
        if digit >= base or value * base + digit > largest:
            break
        value = value * base + digit
        end += 1
    return (value, end) if end - start >= fewest else (-1, end)


def _spec(letter: str) -> tuple[int, int, int, int] | None:
    return _NUMERIC.get("0" if letter in _OCTAL else letter)


def _numeric_escape(sql: str, p: int) -> tuple[str, int]:
    """The character(s) a numeric escape at `p` (a backslash) encodes and the offset after it,
    or "" (octal and \\x escapes are bytes, consecutive ones decoded as UTF-8)."""
    n = len(sql)
    peek = sql[p + 1 : p + 2]
    spec = _spec(peek)
    if not spec:
        return "", p
    octal = peek in _OCTAL
    value, end = _read_number(sql, p + 1 if octal else p + 2, spec)
    is_byte = spec[0] == 8 or spec[3] <= 0xFF
    if is_byte and value >= 0:
        value &= 0xFF
    if 0xD800 <= value <= 0xDFFF:
        low, low_end = -1, end
        if value <= 0xDBFF and sql[end : end + 2] == "\\" + peek:
            low, low_end = _read_number(sql, end + 2, spec)
        if 0xDC00 <= low <= 0xDFFF:
            value, end = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00), low_end
        else:
            value = -1
    if is_byte and 0xC2 <= value <= 0xF4:
        run, run_end = bytearray([value]), end
        count = 2 if value < 0xE0 else 3 if value < 0xF0 else 4
        while len(run) < count and sql[run_end : run_end + 1] == "\\":
            byte, byte_end = _byte_escape(sql, run_end)
            if not 0x80 <= byte <= 0xBF:
                break
            run.append(byte)
            run_end = byte_end
        try:
            decoded = run.decode("utf-8")
        except UnicodeDecodeError:
            decoded = ""
        if decoded and run_end < n:
            return decoded, run_end
    if value >= 0 and end < n:
        return chr(value), end
    return "", p


def _byte_escape(sql: str, pos: int) -> tuple[int, int]:
    """The byte an escape at `pos` encodes (-1 for none) and the offset after it."""
    peek = sql[pos + 1 : pos + 2]
    spec = _spec(peek)
    if not spec or (spec[0] != 8 and spec[3] > 0xFF):
        return -1, pos
    value, end = _read_number(sql, pos + 1 if peek in _OCTAL else pos + 2, spec)
    return (value & 0xFF if value >= 0 else value), end
