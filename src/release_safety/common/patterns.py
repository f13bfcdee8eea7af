"""Regular expressions from settings, compiled with RE2: matching takes time linear in the text
whatever the pattern, so a catastrophic-backtracking `tag_pattern`, migrations `pattern` or
`exclude` (or a glob of many `**`) cannot hang a run.

RE2 syntax is Python's without backreferences and lookaround; `\\d`, `\\w` and `\\s` are ASCII
(`\\pL`, `\\pN` name Unicode letters and digits). A pattern RE2 cannot compile is refused with
the reason, never matched by another engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Protocol, cast

REMEMBERED = 1 << 16
"""Answers of `fullmatches` a pattern keeps (the same paths are asked about in every release)."""


class Match(Protocol):
    def __getitem__(self, group: int | str) -> str | None: ...


class Pattern:
    """A compiled RE2 pattern. `fullmatches` remembers its answers: RE2's Python binding costs
    microseconds a call, and discovery asks about every path of every release's tree.

    `prefix` and `pieces` are text every full match holds, at the start and in this order
    after it (a glob's literal parts: `src/**/*.go` needs `src` then `.go`): a text without
    them is refused before RE2 is asked. `any_line` says the pattern fully matches every text
    that does not start with a line break (`(?:.)(?s:.*)`, a glob naming every file): RE2 is
    not asked at all."""

    def __init__(
        self, regex: Any, prefix: str = "", pieces: tuple[str, ...] = (), any_line: bool = False
    ) -> None:
        self._regex = regex
        self.groupindex: Mapping[str, int] = regex.groupindex
        self._answers: dict[str, bool] = {}
        self._prefix = prefix
        self._pieces = pieces
        self._any_line = any_line

    def match(self, text: str) -> Match | None:
        """The match at the start of `text` (groups by name or number), or None."""
        return cast("Match | None", self._regex.match(text))

    def fullmatches(self, text: str) -> bool:
        """True when the whole of `text` matches."""
        if self._any_line:
            return text[:1] not in ("", "\n")
        answer = self._answers.get(text)
        if answer is None:
            if len(self._answers) >= REMEMBERED:
                self._answers.clear()
            answer = self._answers[text] = (
                self._holds_pieces(text) and self._regex.fullmatch(text) is not None
            )
        return answer

    def _holds_pieces(self, text: str) -> bool:
        """True when `text` starts with the prefix and holds the pieces in order after it."""
        if not text.startswith(self._prefix):
            return False
        at = len(self._prefix)
        for piece in self._pieces:
            at = text.find(piece, at)
            if at < 0:
                return False
            at += len(piece)
        return True


ANY_LINE = "(?:.)(?s:.*)"
"""A pattern fully matching every text that does not start with a line break (what a glob
naming every file, `**`, becomes): `Pattern.fullmatches` answers it without RE2."""


@lru_cache(maxsize=512)
def compile_pattern(pattern: str, prefix: str = "", pieces: tuple[str, ...] = ()) -> Pattern:
    """The compiled pattern (`prefix` and `pieces`: text every full match holds, see
    `Pattern`); ValueError says why RE2 refuses it. The pattern `ANY_LINE` is answered
    without RE2."""
    import re2  # type: ignore[import-untyped]  # deferred: commands that match no pattern

    options = re2.Options()
    options.log_errors = False  # the error is raised with its reason; RE2 need not print it
    try:
        compiled = re2.compile(pattern, options=options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", errors="replace")
        raise ValueError(
            f"not a valid regular expression (RE2 syntax, no backreferences or lookaround): "
            f"{reason}"
        ) from exc
    any_line = pattern == ANY_LINE and not (prefix or pieces)
    return Pattern(compiled, prefix, pieces, any_line)
