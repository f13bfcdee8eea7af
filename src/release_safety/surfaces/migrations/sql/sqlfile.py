"""SQL migration files: template substitution, then a split into statements with their lines.

The splitter is a lexer, not a pattern match: it skips quoted strings ('...', E'...'), quoted
identifiers, dollar-quoted bodies ($$...$$, $tag$...$tag$), line and nested block comments, and
the semicolons inside `BEGIN ATOMIC ... END` function bodies. Transaction control statements
(BEGIN, COMMIT, ...) stay in the list: classification turns them into transaction boundaries.
A file the splitter and classification's lexer read alike is split at the lexer's `;` tokens
instead, in the one pass that also gives each statement its tokens (`_statements`).
"""

from __future__ import annotations

import re

from release_safety.common.textcase import lower
from release_safety.surfaces.migrations.budget import MAX_STATEMENT_CHARS
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.sql import liquibase
from release_safety.surfaces.migrations.sql.lexer import Tok, TokenError, split_tokens
from release_safety.surfaces.migrations.sql.sections import up_section
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

_TEMPLATE = re.compile(r"\{\{.*?\}\}", re.DOTALL)
# The splitter's patterns, down to `_QUOTED`, are compiled where `split_sql` first runs (`re`
# keeps them): a file the lexer splits, as most are (`_statements`), needs none of them.
# Lexer tokens: a run of word characters, or a run of text without anything the lexer acts on.
_WORD = r"\w+"
_PLAIN = r"[^\w\s;'\"$/\-]+"
_SPACE = r"\s+"
_LINE_COMMENT = r"--[^\n\r]*"
# Inside a statement whose words no longer matter, everything up to what the lexer acts on,
# line comments and quoted text without a backslash (read alike with or without E) included;
# a quote stops it where the quoted text, read greedily, does not end (see `_QUOTED`).
_INSIDE = r"""(?:[^;'"$/\-]+|-(?!-)|/(?!\*)|--[^\n\r]*|'(?:[^'\\]|'')*+'|"(?:[^"]|"")*+")*"""
# What the lexer (sqlglot's reading) and the splitter may read differently: dollar quotes,
# backslash escapes, `{#` comments, operators that end in `-` before a `--` or in `/` before a
# `/*` (`#-`, `-|-`, `|/`), nested comments
# (`/*`), and BEGIN ATOMIC bodies (whose `;` the splitter keeps: any `atomic`, `ı` being a
# word character the splitter upper-cases to `I`). A `;` token elsewhere is a split. One
# character class is sought many times faster than an alternation, so `/*` and `atomic` are
# sought apart (`_reads_alike`).
_LEXER_DIFFERS = re.compile(r"[$\\{#|]")
# A dollar quote both read alike: `$$` or a tag of ASCII letters, digits and `_` (see
# `_dollar_tag`); text inside one is skipped by both, whatever it holds.
_DOLLAR_OPENER = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$")
_COMMENT_MARK = r"/\*|\*/"
_ROUTINE = frozenset({"FUNCTION", "PROCEDURE"})
_QUOTED = {
    ("'", False): r"'(?:[^']|'')*'",
    ("'", True): r"(?s)'(?:[^'\\]|\\.|'')*'",
    ('"', False): r'"(?:[^"]|"")*"',
}


def substitute(text: str, settings: Reading) -> str:
    """Apply the configured placeholders, then turn any remaining `{{ ... }}` into the default.

    Line breaks inside a template are kept so statement line numbers stay true.
    """
    for placeholder, value in settings.placeholders.items():
        text = text.replace(placeholder, value)
    return _TEMPLATE.sub(lambda m: settings.template_default + "\n" * m.group(0).count("\n"), text)


def _dollar_tag(text: str, i: int) -> str | None:
    """The dollar-quote opener at `i` (`$$` or `$tag$`), or None (`$1` is a parameter)."""
    j = i + 1
    while j < len(text) and (text[j].isalnum() or text[j] == "_"):
        j += 1
    if j < len(text) and text[j] == "$" and not text[i + 1 : i + 2].isdigit():
        return text[i : j + 1]
    return None


def _skip_quoted(text: str, i: int, quote: str, backslash: bool) -> int:
    """Index after the closing quote of the string starting at `i`."""
    match = re.compile(_QUOTED[(quote, backslash)]).match(text, i)
    if match is None:
        raise ValueError(f"unterminated {quote}-quoted text")
    return match.end()


def _skip_block_comment(text: str, i: int) -> int:
    depth = 0
    for mark in re.compile(_COMMENT_MARK).finditer(text, i):
        depth += 1 if mark.group() == "/*" else -1
        if depth == 0:
            return mark.end()
    raise ValueError("unterminated /* comment")


def _tracks_words(words: list[str]) -> bool:
    """Whether the statement's words still matter: its first one, then the first five of a
    CREATE, then every word of a function or procedure (its body may be `BEGIN ATOMIC`)."""
    if not words:
        return True
    if words[0] != "CREATE":
        return False
    return len(words) < 5 or not _ROUTINE.isdisjoint(words[:5])


def split_sql(text: str) -> list[Statement]:
    """Statements of a SQL script with the 1-based line of each statement's first token.

    Raises ValueError for unterminated quotes, dollar quotes or comments.
    """
    statements: list[Statement] = []
    start: int | None = None
    words: list[str] = []  # leading words of the current statement, and atomic body depth
    depth = 0
    i = 0
    n = len(text)
    line, counted = 1, 0  # the line number at offset `counted`
    inside, space_run, line_comment = (
        re.compile(_INSIDE),
        re.compile(_SPACE),
        re.compile(_LINE_COMMENT),
    )
    word_run, plain_run = re.compile(_WORD), re.compile(_PLAIN)

    def flush(end: int) -> None:
        nonlocal start, depth, line, counted
        if start is not None:
            sql = text[start:end].strip()
            if sql:
                line += text.count("\n", counted, start)
                counted = start
                column = _column(text, start)
                ended = text.startswith(";", end)
                statements.append(Statement(sql, line, column=column, terminated=ended))
        start = None
        words.clear()
        depth = 0

    while i < n:
        if start is not None and not _tracks_words(words):
            # inside a statement whose words no longer matter: skip to what the lexer acts on
            i = inside.match(text, i).end()  # type: ignore[union-attr]  # matches ""
            if i >= n:
                break
        c = text[i]
        if c.isspace():
            space = space_run.match(text, i)
            i = space.end() if space else i + 1
            continue
        if text.startswith("--", i):  # to the end of the line: `\n` or `\r`, as PostgreSQL reads
            i = line_comment.match(text, i).end()  # type: ignore[union-attr]  # matches "--"
            continue
        if text.startswith("/*", i):
            i = _skip_block_comment(text, i)
            continue
        if c == ";":
            if depth == 0:
                flush(i)
            i += 1
            continue
        if start is None:
            start = i
        if c == "'":
            escaped = i > 0 and text[i - 1] in "eE" and (i < 2 or not text[i - 2].isalnum())
            i = _skip_quoted(text, i, "'", backslash=escaped)
        elif c == '"':
            i = _skip_quoted(text, i, '"', backslash=False)
        elif c == "$" and (tag := _dollar_tag(text, i)) is not None:
            end = text.find(tag, i + len(tag))
            if end < 0:
                raise ValueError(f"unterminated dollar quote {tag}")
            i = end + len(tag)
        elif c.isalnum() or c == "_":
            match = word_run.match(text, i)
            end = match.end() if match else i + 1
            if _tracks_words(words):
                depth = _atomic_depth(words, text[i:end].upper(), depth)
            i = end
        else:
            match = plain_run.match(text, i)
            i = match.end() if match else i + 1
    flush(n)
    return statements


def _atomic_depth(words: list[str], word: str, depth: int) -> int:
    """Track `CREATE FUNCTION ... BEGIN ATOMIC ... END` bodies, whose `;` do not end them.

    `words` keeps the statement's first five words and, last, the previous word.
    """
    previous = words[-1] if words else ""
    if len(words) < 6:
        words.append(word)
    else:
        words[-1] = word
    if words[0] != "CREATE" or _ROUTINE.isdisjoint(words[:5]):
        return depth
    if word == "ATOMIC" and previous == "BEGIN":
        return depth + 1
    if depth and word == "CASE":
        return depth + 1
    if depth and word == "END":
        return depth - 1
    return depth


def extract_sql(
    text: str, settings: Reading, *, autocommit: bool = False, wrapped: bool = False
) -> Extracted:
    """A SQL file's statements after template substitution, of its up section alone when it
    holds both directions (`sections`); the file runs in one transaction (the tools that apply
    SQL files send it as one script, goose and the like wrap it in one) unless its markers or
    its name (popx's `.autocommit`) say otherwise or classification finds a statement that
    cannot run inside one; `wrapped`: the tool wraps it in one for certain (diesel), so such a
    statement fails there."""
    if liquibase.formatted(text):  # each changeset its own transaction, as one here
        outside = autocommit or not liquibase.in_transaction(text)
        return Extracted(_statements(substitute(text, settings)), not outside)
    if (up := up_section(text)) is None:
        statements = _statements(substitute(text, settings))
        return Extracted(statements, not autocommit, wrapped and not autocommit)
    text, transactional = up
    return Extracted(_statements(substitute(text, settings)), transactional, transactional)


def statements_of(text: str, settings: Reading) -> list[Statement]:
    """A piece of SQL's statements after template substitution (a changelog's `sql` change)."""
    return _statements(substitute(text, settings))


def _statements(text: str) -> list[Statement]:
    """`split_sql(text)`, each statement with its tokens: read in one pass of the lexer when
    the two read the text's `;` alike (`_lexer_split`) and it is no longer than a statement
    may be (so the pass costs no more than tokenizing one), else split here and tokenized by
    classification, statement by statement within the file's bounds."""
    parts = _lexer_split(text) if len(text) <= MAX_STATEMENT_CHARS else None
    if parts is None:
        return split_sql(text)
    statements: list[Statement] = []
    line, counted = 1, 0
    for start, end, toks in parts:
        line += text.count("\n", counted, start)
        counted = start
        sql = text[start:end].strip()
        column = _column(text, start)
        ended = text.startswith(";", end)
        statements.append(Statement(sql, line, toks=toks, column=column, terminated=ended))
    return statements


def _column(text: str, start: int) -> int:
    """The 1-based column of the first character at or after `start` that is not a space."""
    while start < len(text) and text[start].isspace():
        start += 1
    return start - text.rfind("\n", 0, start)


def _lexer_split(text: str) -> list[tuple[int, int, list[Tok]]] | None:
    """The lexer's statements (`split_tokens`) when the splitter's are the same: the text
    holds nothing the two read differently, dollar-quoted text aside (`_outside_dollars`);
    else None."""
    dollars = "$" in text
    if not dollars and not _reads_alike(text):
        return None
    try:
        parts = split_tokens(text)
    except TokenError:
        return None
    if dollars and not _reads_alike(_outside_dollars(text, parts)):
        return None
    return parts


def _reads_alike(text: str) -> bool:
    """Whether `text` holds none of what the lexer and the splitter read differently (see
    `_LEXER_DIFFERS`)."""
    if _LEXER_DIFFERS.search(text) is not None or "/*" in text:
        return False
    lowered = lower(text)
    return "atomic" not in lowered and "atom\u0131c" not in lowered


def _outside_dollars(text: str, parts: list[tuple[int, int, list[Tok]]]) -> str:
    """`text` without the dollar-quoted strings the lexer read whose quote the splitter reads
    alike (`_DOLLAR_OPENER`): both skip such a string whole, so only the rest can differ."""
    kept: list[str] = []
    after = 0
    for begin, _, toks in parts:
        for tok in toks:
            at = begin + tok.start
            if tok.kind == "string" and text[at] == "$" and _DOLLAR_OPENER.match(text, at):
                kept.append(text[after:at])
                after = begin + tok.end + 1
    kept.append(text[after:])
    return "".join(kept)
