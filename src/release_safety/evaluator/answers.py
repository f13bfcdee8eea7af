"""Finished history answers, kept while they cannot change.

A history answer depends on its query, its scope (project and caller), the data and the clock.
The data changes only inside `Store.writing()`, which moves `Store.generation` on; the clock
enters only through the window edges (now - 30 days ... now - 5 minutes, now), each compared
with creation times. An answer is therefore kept with the generation it was computed at and the
span of clocks over which no creation time of the scope crosses an edge (`steady_span`), and
reused only inside both: it is the answer that would be computed again, byte for byte. Access
is checked before an answer is looked up, on every request.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import NamedTuple

KEPT = 256  # answers kept at most; the oldest goes first
KEPT_BYTES = 16 << 20  # and their bodies' size at most


class Answer(NamedTuple):
    generation: int
    low: int  # first clock it holds for
    high: int  # first clock it no longer holds for
    body: bytes


class Answers:
    """Answers by key, each valid for one generation of the data and a span of clocks."""

    def __init__(self) -> None:
        self._kept: dict[Hashable, Answer] = {}
        self._size = 0

    def get(self, key: Hashable, generation: int, now: int) -> bytes | None:
        """The kept answer for `key` if it still holds at this generation and clock."""
        found = self._kept.get(key)
        if found is None or found.generation != generation or not found.low <= now < found.high:
            return None
        return found.body

    def put(self, key: Hashable, answer: Answer) -> None:
        """Keep an answer, forgetting the oldest ones past KEPT or KEPT_BYTES."""
        self._forget(key)
        if len(answer.body) > KEPT_BYTES:
            return
        while len(self._kept) >= KEPT or self._size + len(answer.body) > KEPT_BYTES:
            self._forget(next(iter(self._kept)))
        self._kept[key] = answer
        self._size += len(answer.body)

    def _forget(self, key: Hashable) -> None:
        found = self._kept.pop(key, None)
        if found is not None:
            self._size -= len(found.body)
