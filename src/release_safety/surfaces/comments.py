"""Comments of a source file, in whatever comment syntax its language has.

A small lexer per language family: it knows the line-comment leaders, the block-comment pairs
and the string delimiters (so a marker inside a string literal is not a comment). Files of an
unknown type fall back to whole-line comments only (`--`, `#`, `//`, `;`, `%`, `/*`, `<!--`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Syntax:
    """How one language family writes comments and strings."""

    name: str
    line: tuple[str, ...] = ()
    block: tuple[tuple[str, str], ...] = ()
    strings: tuple[str, ...] = ()
    multiline: tuple[str, ...] = ()
    """The string delimiters whose strings may span lines; other strings end at a newline."""
    escapes: bool = True
    leader_after_space: bool = False
    """A comment opener counts only at the start of a line or after whitespace (`#` in shell)."""
    quote_after_word: bool = True
    """False: a quote right after a letter or digit is an apostrophe (`don't` in YAML)."""


@dataclass(frozen=True)
class CommentLine:
    """One line of a comment: its 1-based line, the column its text starts at, the text."""

    line: int
    column: int
    text: str


@dataclass(frozen=True)
class Comment:
    """A line comment (one line) or a block comment (one or more lines)."""

    kind: str
    opener: str
    own_line: bool
    lines: tuple[CommentLine, ...]


C_LIKE = Syntax("c", line=("//",), block=(("/*", "*/"),), strings=('"', "'", "`"), multiline=("`",))
RUST = Syntax("rust", line=("//",), block=(("/*", "*/"),), strings=('"',))
SQL = Syntax("sql", line=("--",), block=(("/*", "*/"),), strings=("'", '"'), escapes=False)
PYTHON = Syntax("python", line=("#",), strings=('"""', "'''", '"', "'"), multiline=('"""', "'''"))
HASH = Syntax(
    "hash", line=("#",), strings=('"', "'"), leader_after_space=True, quote_after_word=False
)
MARKUP = Syntax("markup", block=(("<!--", "-->"),))
MARKDOWN = Syntax(
    "markdown",
    block=(("<!--", "-->"),),
    strings=("```", "~~~", "`"),
    multiline=("```", "~~~"),
    escapes=False,
)
"""Code fences and code spans are text shown, not comments."""
CSS = Syntax("css", block=(("/*", "*/"),), strings=('"', "'"))
LUA = Syntax("lua", line=("--",), block=(("--[[", "]]"),), strings=('"', "'"))
HASKELL = Syntax("haskell", line=("--",), block=(("{-", "-}"),), strings=('"',))
SEMICOLON = Syntax("semicolon", line=(";", "#"), strings=('"',), leader_after_space=True)
PERCENT = Syntax("percent", line=("%",), strings=('"',))
PHP = Syntax("php", line=("//", "#"), block=(("/*", "*/"),), strings=('"', "'"))
COMPONENT = Syntax(
    "component", line=("//",), block=(("<!--", "-->"), ("/*", "*/")), leader_after_space=True
)
GENERIC = Syntax("generic")
"""Unknown file types: only whole-line comments count."""

_BY_SUFFIX: dict[str, Syntax] = {}
for _syntax, _suffixes in (
    (
        C_LIKE,
        "ts tsx mts cts js jsx mjs cjs go java kt kts scala c h cc cpp cxx hpp hh cs swift dart "
        "proto groovy gradle json5 jsonc scss less sol zig m mm fs fsx v",
    ),
    (RUST, "rs"),
    (SQL, "sql psql pgsql ddl"),
    (PYTHON, "py pyi pyw"),
    (
        HASH,
        "sh bash zsh fish ksh rb pl pm r yaml yml toml tf tfvars hcl conf cfg properties env "
        "ex exs nim ps1 cmake mk coffee cr jl nix tcl awk sed",
    ),
    (MARKUP, "html htm xhtml xml svg xsl xslt plist"),
    (MARKDOWN, "md markdown mdx"),
    (CSS, "css"),
    (LUA, "lua"),
    (HASKELL, "hs lhs elm purs"),
    (SEMICOLON, "ini clj cljs cljc edn lisp el scm rkt asm s"),
    (PERCENT, "tex sty erl hrl"),
    (PHP, "php"),
    (COMPONENT, "vue svelte astro"),
):
    for _suffix in _suffixes.split():
        _BY_SUFFIX[_suffix] = _syntax

_BY_NAME = {
    "dockerfile": HASH,
    "makefile": HASH,
    "gnumakefile": HASH,
    "gemfile": HASH,
    "rakefile": HASH,
    "procfile": HASH,
    "justfile": HASH,
    "brewfile": HASH,
    "vagrantfile": HASH,
    "jenkinsfile": C_LIKE,
}


_BINARY = (
    "zip gz tgz bz2 xz zst lz4 7z rar tar jar war ear whl egg apk deb rpm dmg iso "
    "png jpg jpeg gif webp bmp ico icns tif tiff avif heic psd xcf "
    "woff woff2 ttf otf eot "
    "mp3 mp4 m4a m4v wav ogg oga opus flac aac webm mov avi mkv "
    "pdf doc docx xls xlsx ppt pptx odt ods odp epub "
    "sqlite sqlite3 db mdb parquet avro npy npz pkl pickle "
    "pyc pyo class o obj a so dylib dll exe lib wasm"
)
BINARY_SUFFIXES = frozenset(_BINARY.split())
"""Suffixes of binary formats (archives, images, fonts, media, office documents, databases,
compiled code): a file so named has no comment lines to read."""


def holds_comments(path: str) -> bool:
    """False for a file whose suffix names a binary format: no comment can be written in it,
    so nothing need read it to look for one."""
    name = path.rsplit("/", 1)[-1].lower()
    return "." not in name.lstrip(".") or name.rsplit(".", 1)[-1] not in BINARY_SUFFIXES


def syntax_for(path: str) -> Syntax:
    """The comment syntax of a path, from its name or suffix; `GENERIC` when unknown."""
    name = path.rsplit("/", 1)[-1].lower()
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name.startswith(".env") or name.endswith(".env"):
        return HASH
    if name.startswith("dockerfile") or name.endswith(".dockerfile"):
        return HASH
    suffix = name.rsplit(".", 1)[-1] if "." in name.lstrip(".") else ""
    return _BY_SUFFIX.get(suffix, GENERIC)


_GENERIC_LINE = re.compile(r"^(?P<indent>[ \t]*)(?P<opener><!--|/\*|--|//|#|;|%)(?P<body>.*)$")
_GENERIC_CLOSERS = ("-->", "*/")
_PATTERNS: dict[str, re.Pattern[str]] = {}


def _pattern(syntax: Syntax) -> re.Pattern[str]:
    """One alternation of every opener of the syntax, longest first within each kind."""
    cached = _PATTERNS.get(syntax.name)
    if cached is None:
        tokens = [o for o, _ in syntax.block] + list(syntax.line) + list(syntax.strings)
        tokens.sort(key=len, reverse=True)
        cached = re.compile("|".join(re.escape(t) for t in tokens))
        _PATTERNS[syntax.name] = cached
    return cached


class _Text:
    """Offsets to 1-based lines and columns."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def column(self, offset: int) -> int:
        return offset - self.starts[self.line(offset) - 1] + 1

    def own_line(self, offset: int) -> bool:
        start = self.starts[self.line(offset) - 1]
        return self.text[start:offset].strip() == ""


def _lines_of(source: _Text, start: int, end: int) -> tuple[CommentLine, ...]:
    """Split `text[start:end]` into comment lines with their lines and columns."""
    lines: list[CommentLine] = []
    offset = start
    for piece in source.text[start:end].split("\n"):
        lines.append(CommentLine(source.line(offset), source.column(offset), piece.rstrip("\r")))
        offset += len(piece) + 1
    return tuple(lines)


@cache
def _string_pattern(quote: str, escapes: bool, multiline: bool) -> re.Pattern[str]:
    """The rest of a string literal opened by `quote`, its closing quote included if present."""
    first = re.escape(quote[0])
    excluded = first + ("\\\\" if escapes else "") + ("" if multiline else "\\n")
    parts = [f"[^{excluded}]"]
    if escapes:
        parts.append(r"\\[\s\S]")
    if len(quote) > 1:
        parts.append(f"(?!{re.escape(quote)}){first}")
    return re.compile(f"(?:{'|'.join(parts)})*(?:{re.escape(quote)})?")


def _string_end(text: str, start: int, quote: str, syntax: Syntax) -> int:
    """The offset just past the string that opens at `start`; one-line quotes end at a newline."""
    pattern = _string_pattern(quote, syntax.escapes, quote in syntax.multiline)
    match = pattern.match(text, start + len(quote))
    return match.end() if match else len(text)


def comments(text: str, syntax: Syntax) -> list[Comment]:
    """Every comment of the text, in order."""
    if syntax is GENERIC:
        return _generic_comments(text)
    source = _Text(text)
    pattern = _pattern(syntax)
    blocks = dict(syntax.block)
    found: list[Comment] = []
    i = 0
    while True:
        match = pattern.search(text, i)
        if match is None:
            return found
        token, at = match.group(), match.start()
        is_comment = token in blocks or token in syntax.line
        if is_comment and syntax.leader_after_space and at > 0 and not text[at - 1].isspace():
            i = at + len(token)
            continue
        if token in blocks:
            close = text.find(blocks[token], at + len(token))
            end = len(text) if close < 0 else close
            lines = _lines_of(source, at + len(token), end)
            found.append(Comment("block", token, source.own_line(at), lines))
            i = end + (0 if close < 0 else len(blocks[token]))
        elif token in syntax.line:
            close = text.find("\n", at)
            end = len(text) if close < 0 else close
            lines = _lines_of(source, at + len(token), end)
            found.append(Comment("line", token, source.own_line(at), lines))
            i = end
        elif not syntax.quote_after_word and at > 0 and text[at - 1].isalnum():
            i = at + len(token)
        else:
            i = _string_end(text, at, token, syntax)


def _generic_comments(text: str) -> list[Comment]:
    found: list[Comment] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        match = _GENERIC_LINE.match(raw.rstrip("\r"))
        if match is None:
            continue
        body = match["body"]
        for closer in _GENERIC_CLOSERS:
            if body.rstrip().endswith(closer):
                body = body.rstrip()[: -len(closer)]
        column = len(match["indent"]) + len(match["opener"]) + 1
        line = CommentLine(number, column, body)
        found.append(Comment("line", match["opener"], True, (line,)))
    return found
