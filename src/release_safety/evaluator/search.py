"""What a computed search reads, in memory: the runs' searched texts and their filter keys.

A run is searched over six texts (lowercased when stored). Runs repeat their texts (the SQL a
chart compiles to, an explore's field definitions, a dashboard's name), and texts repeat their
lines (SQL written from a template), so each distinct text is kept once with the key records of
the runs that hold it, one block per scope (`Keys`; end to end, so a text's runs of one scope
are read from one place in memory, and a search never reads another scope's), and each
distinct line of those texts once with the texts that hold it (2,031 lines, 45 kB, for the
benchmark's 120,000 runs). A needle without a newline is looked up by its trigrams: the
lines holding its rarest one (each line is listed once under every trigram it holds) are
tested with `in`. One under three characters is found by scanning the distinct lines, kept end
to end in one string, each followed by a newline (C speed), each hit naming the one line it
lies in. A needle with a newline is looked up by its longest newline-free piece, and every
candidate text is then tested whole. Either way the answer is exact: the runs whose texts hold
the needle, nothing more (a match never spans two texts, since texts are never joined to one
another).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import chain
from operator import itemgetter
from struct import Struct
from typing import Any

from release_safety.common.errors import CheckError
from release_safety.evaluator.counts import exact_sums


class Texts:
    """The distinct searched texts, their distinct lines, and which runs hold them."""

    def __init__(self) -> None:
        self._text_ids: dict[str, int] = {}
        self._texts: list[str] = []
        # the key records of the runs holding each text, by scope << 32 | text id
        self._blocks: dict[int, bytearray] = {}
        self._line_ids: dict[str, int] = {}
        self._holders: list[array[int]] = []  # text ids of the texts holding each line
        self._lines: list[str] = []
        self._grams: dict[str, array[int]] = {}  # the ids of the lines holding each trigram
        self._joined = ""  # the first _scanned lines, each followed by "\n"
        self._starts = array("q", [0])  # where line i starts in _joined is _starts[i]

    def add(self, texts: Iterable[str], record: bytes) -> None:
        """Index the searched texts of one run, given its key record (empty texts hold no
        needle)."""
        ids, blocks = self._text_ids, self._blocks
        scope = _SCOPE_OF(record)[0] << 32
        for text in set(texts):
            if text:
                text_id = ids.get(text)
                key = scope | (self._new_text(text) if text_id is None else text_id)
                block = blocks.get(key)
                if block is None:
                    blocks[key] = bytearray(record)
                else:
                    block += record

    def _new_text(self, text: str) -> int:
        """Keep a text not seen before, and its lines."""
        found = self._text_ids[text] = len(self._texts)
        self._texts.append(text)
        for line in set(text.split("\n")):
            line_id = self._line_ids.get(line)
            if line_id is None:
                line_id = self._line_ids[line] = len(self._lines)
                self._lines.append(line)
                self._holders.append(array("I"))
                for gram in {line[i : i + 3] for i in range(len(line) - 2)}:
                    lines = self._grams.get(gram)
                    if lines is None:
                        lines = self._grams[gram] = array("I")
                    lines.append(line_id)
            self._holders[line_id].append(found)
        return found

    def _scan(self) -> tuple[str, array[int]]:
        """The joined lines, brought up to date with lines added since the last scan."""
        if len(self._starts) <= len(self._lines):
            new = self._lines[len(self._starts) - 1 :]
            end = self._starts[-1]
            for line in new:
                end += len(line) + 1
                self._starts.append(end)
            self._joined += "".join(chain.from_iterable((line, "\n") for line in new))
        return self._joined, self._starts

    def _lines_holding(self, piece: str) -> list[int]:
        """The ids of the lines that hold `piece` (which has no newline, and is not empty)."""
        if len(piece) >= 3:
            grams = self._grams
            rarest = min([grams.get(piece[i : i + 3], ()) for i in range(len(piece) - 2)], key=len)
            lines = self._lines
            return [line for line in rarest if piece in lines[line]]
        joined, starts = self._scan()
        found = []
        at = joined.find(piece)
        while at >= 0:
            line = bisect_right(starts, at) - 1
            found.append(line)
            at = joined.find(piece, starts[line + 1])
        return found

    def runs_holding(self, needle: str, scope: int) -> list[bytearray]:
        """The key records of the runs of a scope one of whose texts holds `needle` (not
        empty), one block per matching text (a run holding two such texts is in two blocks):
        other scopes' records are never read."""
        texts: Iterable[int]
        if "\n" not in needle:
            lines = self._lines_holding(needle)
            # one line's holders are distinct texts; a text may hold several such lines
            texts = self._holders[lines[0]] if len(lines) == 1 else self._holding(lines)
        else:
            longest = max(needle.split("\n"), key=len)
            if longest:
                texts = self._holding(self._lines_holding(longest))
            else:  # newlines only: any text of more lines than that
                texts = range(len(self._texts))
            texts = [t for t in texts if needle in self._texts[t]]
        blocks = map(self._blocks.get, map((scope << 32).__or__, texts))
        return [block for block in blocks if block is not None]

    def _holding(self, lines: Iterable[int]) -> set[int]:
        """The ids of the texts holding any of these lines."""
        return set(chain.from_iterable(map(self._holders.__getitem__, lines)))


# row id, created, scope, the codes of trigger, language and status, the runtime as summed (0
# without one) and as sorted by (-1 without one: sorts those runs last)
RECORD = Struct("<IqIHHHdd")
ROW_ID, CREATED, SCOPE, TRIGGER, LANGUAGE, STATUS, RUNTIME, RUNTIME_KEY = range(8)
_SCOPE_OF = Struct("<12xI").unpack_from  # a record's scope
_CREATED_OF = itemgetter(CREATED)
_ROW_ID_OF = itemgetter(ROW_ID)


class Keys:
    """What a search filters, counts and sorts its matching runs by: a fixed-size record per
    run, read in blocks (`Texts`; a text's runs of one scope end to end, so few places in
    memory), unpacked in C and then read with C-level getters (`itemgetter`, `sort(key=...)`);
    and each run's uuid by row id (1, 2, ...), read only to order runs created at the same
    time; and whether the runtimes recorded so far are all whole and small enough that any sum
    of them is exact (`whole_sums`: then a search's warehouse time adds its runs' runtimes
    without looking at them first)."""

    def __init__(self) -> None:
        self._codes: dict[str, int] = {}
        self.uuid: list[str] = [""]
        self._whole = True  # every runtime is a whole number
        self._largest = 0.0  # the largest runtime

    @property
    def whole_sums(self) -> bool:
        """Whether every sum of the runtimes of some runs is an exact float, whatever their
        order (so the runtimes need not be looked at)."""
        return self._whole and exact_sums(len(self.uuid) - 1, self._largest)

    def code(self, name: str) -> int:
        """The code of a trigger, language or status (-1 for a name no run has)."""
        return self._codes.get(name, -1)

    def record(self, row: Sequence[Any]) -> bytes:
        """The key record of the next row: (rowid, uuid, scope, created, trigger, language,
        status, runtime, ...) as stored."""
        rowid, uuid, scope, created, trigger, language, status, runtime = row[:8]
        if rowid != len(self.uuid):
            raise CheckError(f"run row {rowid} stored out of order (expected {len(self.uuid)})")
        self.uuid.append(uuid)
        codes = self._codes
        trigger = codes.setdefault(trigger, len(codes))
        language = codes.setdefault(language, len(codes))
        status = codes.setdefault(status, len(codes))
        if runtime is None:
            return RECORD.pack(rowid, created, scope, trigger, language, status, 0.0, -1.0)
        runtime = float(runtime)
        self._whole = self._whole and runtime.is_integer()
        self._largest = max(self._largest, abs(runtime))
        return RECORD.pack(rowid, created, scope, trigger, language, status, runtime, runtime)

    def select(
        self, blocks: Sequence[bytes | bytearray], language: str | None, statuses: Sequence[str]
    ) -> list[tuple[Any, ...]]:
        """The records (fields at ROW_ID, CREATED, ...) of the runs of these blocks that pass
        the language and status filters, each once, oldest first: the reverse of newest first,
        then by uuid."""
        rows = list(RECORD.iter_unpack(blocks[0] if len(blocks) == 1 else b"".join(blocks)))
        if language is not None:
            code = self.code(language)
            rows = [row for row in rows if row[LANGUAGE] == code]
        if statuses:
            codes = {self.code(status) for status in statuses}
            rows = [row for row in rows if row[STATUS] in codes]
        rows.sort(key=_CREATED_OF)
        if len(set(map(_CREATED_OF, rows))) < len(rows):
            # a run holding two matching texts is in two blocks (its records are equal)
            rows = list(dict(zip(map(_ROW_ID_OF, rows), rows, strict=True)).values())
            # and a uuid orders runs created together
            uuid = self.uuid
            rows.sort(key=lambda row: (-row[CREATED], uuid[row[ROW_ID]]))
            rows.reverse()
        return rows
