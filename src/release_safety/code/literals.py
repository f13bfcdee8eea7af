"""The value model of the Ruby and Elixir readers: what a literal in code evaluates to.

str, int, float, bool, None (Ruby's nil, Elixir's nil), list and dict (a Ruby hash, an Elixir
map or keyword list) stand for themselves; `Symbol` is a Ruby symbol or an Elixir atom
(`:users`), `Proc` a Ruby block returning a literal; `code.jsvalues.Unknown` is a value known
only when the code runs, its reason naming the construct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Symbol:
    """`:name` in Ruby or Elixir."""

    name: str


@dataclass(frozen=True)
class Proc:
    """A Ruby block of one literal statement (`-> { "now()" }`): what it returns."""

    value: object


def name_of(value: object) -> str | None:
    """The name a symbol or string literal gives (`:users` and `"users"` name one table)."""
    if isinstance(value, Symbol):
        return value.name
    return value if isinstance(value, str) else None


_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "s": " ",
    "e": "\x1b",
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F ]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{1,2}|\n|[\s\S])")


def unescape(text: str) -> str:
    """A double-quoted Ruby or Elixir string's escapes (`\\n`, `\\t`, `\\u00e9`, `\\"`, ...)."""

    def one(match: re.Match[str]) -> str:
        body = match.group(1)
        if body.startswith("u{"):
            return "".join(chr(int(part, 16)) for part in body[2:-1].split())
        if body.startswith(("u", "x")) and len(body) > 1:
            return chr(int(body[1:], 16))
        if body == "\n":
            return ""
        return _ESCAPES.get(body, body)

    return _ESCAPE.sub(one, text)


def dedent(text: str) -> str:
    """Text with the common indentation of its non-blank lines removed (Ruby's `<<~`)."""
    lines = text.split("\n")
    widths = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
    cut = min(widths, default=0)
    return "\n".join(line[cut:] if line.strip() else line.lstrip(" \t") for line in lines)
