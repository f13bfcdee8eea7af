"""How a value is spelt in text output: as JSON spells it (apart from `jsonio`, so that a text
lint loads no `json`)."""

from __future__ import annotations


def word(value: object) -> str:
    """A value in text output as JSON spells it: `true` / `false` for booleans (never Python's
    `True`), anything else as it reads (`unknown`, a number)."""
    return str(value).lower() if isinstance(value, bool) else str(value)
