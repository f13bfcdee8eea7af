"""Renderings of a release's analysis for people: Markdown notes and summaries."""


def word(value: object) -> str:
    """A value in text output as JSON spells it: `true` / `false` for booleans (never Python's
    `True`), anything else as it reads (`unknown`, a number)."""
    return str(value).lower() if isinstance(value, bool) else str(value)
