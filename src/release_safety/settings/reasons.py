"""Hollow reasons: a declared break, an acknowledgement or a declared-absent surface must say
something about what it is and for whom.

A reason is hollow when, with whitespace collapsed, it

- is shorter than `MIN_REASON_LENGTH` characters or is a single word;
- starts with a placeholder word (`todo`, `tbd`, `fixme`, `xxx`, `wip`, `placeholder`...);
- contains a template slot such as `<reason>`, `<operator-facing reason>`, `{reason}` or
  `[describe what breaks]`;
- has fewer than two content words once filler words ("this", "is", "a", "breaking", "change",
  "see", "pr", "details"...), ticket references (`#123`, `ABC-123`) and links are left out
  (so "This is a breaking change, see PR #123" is hollow).
"""

from __future__ import annotations

import re

MIN_REASON_LENGTH = 24

PLACEHOLDER_WORDS = frozenset(
    {"todo", "tbd", "tba", "tbc", "fixme", "xxx", "wip", "placeholder", "lorem", "n/a", "na"}
)
_FILLER = """
    a an the this that these those it its is are was were be been will would may might can
    could should must to of in on at by for from with and or but not no yes as so
    breaking break breaks broke change changes changed release releases update updated
    see pr prs pull request ticket issue issues jira link below above details detail info
    more description reason reasons placeholder todo tbd fixme wip n/a na none something
    stuff thing things etc misc various some please here there fix fixes fixed new old
"""
FILLER_WORDS = frozenset(_FILLER.split())
_SLOT_WORDS = r"reason|description|describe|explain|fill|todo|tbd|placeholder|what|why|who"
_SLOT = re.compile(rf"[<{{\[][^<>{{}}\[\]]*\b(?:{_SLOT_WORDS})\b[^<>{{}}\[\]]*[>}}\]]", re.I)
_REFERENCE = re.compile(r"https?://\S+|#\d+|\b[A-Z][A-Z0-9]+-\d+\b")
_WORD = re.compile(r"[A-Za-z0-9][\w./:-]*[A-Za-z0-9]|[A-Za-z0-9]")


def normalise(reason: str) -> str:
    """Whitespace collapsed, ends trimmed."""
    return " ".join(reason.split())


def hollow_reason(reason: str) -> str | None:
    """Why a reason is hollow, or None when it says something."""
    text = normalise(reason)
    if len(text) < MIN_REASON_LENGTH:
        return f"shorter than {MIN_REASON_LENGTH} characters"
    if " " not in text:
        return "a single word"
    first = text.split(" ", 1)[0].lower().strip(":;,.!-()[]")
    if first in PLACEHOLDER_WORDS:
        return f"starts with the placeholder {first!r}"
    if _SLOT.search(text):
        return "contains a template placeholder"
    words = [w.lower() for w in _WORD.findall(_REFERENCE.sub(" ", text))]
    content = [w for w in words if w not in FILLER_WORDS]
    if len(content) < 2:
        return "says nothing about what breaks or for whom"
    return None
