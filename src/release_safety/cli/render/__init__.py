"""Renderings of a release's analysis for people: Markdown notes and summaries."""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from release_safety.contract.finding import Finding

VERDICT_WORDS = {"true": "SAFE", "false": "UNSAFE", "unknown": "UNKNOWN"}
"""A verdict as text outputs say it, by its JSON spelling (`word`)."""
REASONS_SHOWN = 3
"""Reasons a one-line summary spells out; the evidence lists every one."""


def reasons_text(reasons: Sequence[Finding], more: str = "") -> str:
    """The first REASONS_SHOWN distinct messages of a verdict's reasons, `; `-joined, then how
    many more there are (`more`: where they are listed)."""
    texts = list(dict.fromkeys(f.message for f in reasons))
    rest = len(texts) - REASONS_SHOWN
    tail = f"; and {rest} more{more}" if rest > 0 else ""
    return "; ".join(texts[:REASONS_SHOWN]) + tail
