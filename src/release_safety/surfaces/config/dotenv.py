"""Dotenv files (`.env.example`, `development.env`), read with python-dotenv's parser:
`KEY=value`, `export KEY=value`, quoted and multi-line quoted values, bare `KEY`, comments.

The parser is `dotenv.parser.parse_stream`, not the public `dotenv_values`: only the parser
gives each binding's line and says which line it could not parse (the public API returns the
values alone and logs a bad line as a warning), and a finding needs both.

An env file lists names; its values are examples, not defaults, unless the settings mark the
file as holding the defaults (`defaults = true`): then a value is the default, and an empty
value or a bare key means the variable has no default and must be set (required). A line
python-dotenv cannot parse makes the file unparseable.
"""

from __future__ import annotations

import io

from dotenv.parser import parse_stream

from release_safety.surfaces.config.reads import EnvRead, SourceError


def parse(text: str, defaults: bool = True) -> list[EnvRead]:
    """Every variable the file lists (with its value as default when `defaults`, as a compose
    file's `.env` holds them)."""
    reads: list[EnvRead] = []
    for binding in parse_stream(io.StringIO(text)):
        line = binding.original.line
        if binding.error:
            raise SourceError(f"line {line}: not a `KEY=value` line", line)
        if binding.key is None:
            continue
        if not defaults:
            reads.append(EnvRead(name=binding.key, line=line, listed=True))
            continue
        value = binding.value or None
        reads.append(EnvRead(name=binding.key, line=line, default=value, required=value is None))
    return reads
