"""Dotenv-style example files (`.env.example`): `KEY=value` lines, `export`, quotes, comments.

The value written in an example file is taken as the variable's default; an empty value
(`KEY=`) means the variable has no default and must be set (required). Commented-out lines are
not reads. Any other line makes the file unparseable.
"""

from __future__ import annotations

import re

from release_safety.surfaces.config.reads import EnvRead, SourceError

_LINE = re.compile(
    r"""(?:export\s+)?(?P<key>[A-Za-z_][A-Za-z0-9_.]*)\s*=\s*
    (?:"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>[^']*)'|(?P<raw>[^\s#'"].*?|))
    \s*(?:(?<=\s)\#.*)?""",
    re.VERBOSE,
)


def parse(text: str) -> list[EnvRead]:
    """Every variable the example file lists, with its example value as default."""
    reads: list[EnvRead] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        found = _LINE.fullmatch(line)
        if found is None:
            raise SourceError(f"line {number}: not a `KEY=value` line", number)
        value = next(
            (found[group] for group in ("dq", "sq", "raw") if found[group] is not None), ""
        )
        if found["dq"] is not None:
            value = re.sub(r"\\(.)", r"\1", value)
        quoted = found["dq"] is not None or found["sq"] is not None
        has_default = bool(value) or quoted
        reads.append(
            EnvRead(
                name=found["key"],
                line=number,
                default=value if has_default else None,
                required=not has_default,
            )
        )
    return reads
