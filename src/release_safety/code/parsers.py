"""One tree-sitter grammar per language, one parser per grammar for the process.

Languages are named as the readers name their files: `ts`, `tsx`, `js` (JavaScript, also JSX),
`go`, `rust`, `ruby` and `elixir`. Python is read with the standard library's `ast` instead
(`code/pysource.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial

import tree_sitter_elixir
import tree_sitter_go
import tree_sitter_javascript
import tree_sitter_ruby
import tree_sitter_rust
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser, Tree

from release_safety.code.memo import Memo

_GRAMMARS: dict[str, Callable[[], object]] = {
    "ts": tree_sitter_typescript.language_typescript,
    "tsx": tree_sitter_typescript.language_tsx,
    "js": tree_sitter_javascript.language,
    "go": tree_sitter_go.language,
    "rust": tree_sitter_rust.language,
    "ruby": tree_sitter_ruby.language,
    "elixir": tree_sitter_elixir.language,
}

LANGUAGES = frozenset(_GRAMMARS)


@cache
def language(name: str) -> Language:
    """The grammar of `name` (KeyError for a language not in LANGUAGES)."""
    return Language(_GRAMMARS[name]())


@cache
def parser(name: str) -> Parser:
    """The parser of `name`, made once."""
    return Parser(language(name))


_TREES: Memo[tuple[str, bytes], Tree] = Memo(4096)
"""Syntax trees per (language, source): the readers of one ref (config, routes) read many of
the same files, and each is parsed once for all of them."""


def tree(name: str, source: bytes) -> Tree:
    """The syntax tree of `source` in language `name`, kept for the next reader."""
    return _TREES.get((name, source), partial(parser(name).parse, source))


def parse(name: str, source: bytes) -> Node:
    """The root of `source`'s syntax tree in language `name` (check `root.has_error`)."""
    return parser(name).parse(source).root_node


def script_dialect(path: str) -> str:
    """The language of a JavaScript or TypeScript file by its name (`js`, `tsx` or `ts`)."""
    if path.endswith((".js", ".cjs", ".mjs", ".jsx")):
        return "js"
    return "tsx" if path.endswith(".tsx") else "ts"
