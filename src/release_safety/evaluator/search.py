"""What a computed search reads, in memory: the runs' searched texts and their filter keys.

A run is searched over six texts (lowercased when stored). Runs repeat their texts (the SQL a
chart compiles to, an explore's field definitions, a dashboard's name), and texts repeat their
lines (SQL written from a template), so each distinct text is kept once with the key records of
the runs that hold it (`Keys`; end to end, so a text's runs are read from one place in memory),
and each distinct line of those texts once with the texts that hold it (2,031 lines, 45 kB, for
the benchmark's 120,000 runs). A needle without a newline is looked up by its trigrams: the
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

from release_safety.errors import CheckError


class Texts:
    """The distinct searched texts, their distinct lines, and which runs hold them."""

    def __init__(self) -> None:
        self._text_ids: dict[str, int] = {}
        self._texts: list[str] = []
        self._runs: list[bytearray] = []  # the key records of the runs holding each text
        self._line_ids: dict[str, int] = {}
        self._holders: list[array[int]] = []  # text ids of the texts holding each line
        self._lines: list[str] = []
        self._grams: dict[str, array[int]] = {}  # the ids of the lines holding each trigram
        self._joined = ""  # the first _scanned lines, each followed by "\n"
        self._starts = array("q", [0])  # where line i starts in _joined is _starts[i]

    def add(self, texts: Iterable[str], record: bytes) -> None:
        """Index the searched texts of one run, given its key record (empty texts hold no
        needle)."""
        ids, runs = self._text_ids, self._runs
        held = {ids[text] if text in ids else self._new_text(text) for text in texts if text}
        for text_id in held:
            runs[text_id] += record

    def _new_text(self, text: str) -> int:
        """Keep a text not seen before, and its lines."""
        found = self._text_ids[text] = len(self._texts)
        self._texts.append(text)
        self._runs.append(bytearray())
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

    def _lines_holding(self, piece: str) -> Iterable[int]:
        """The ids of the lines that hold `piece` (which has no newline, and is not empty)."""
        if len(piece) >= 3:
            grams = self._grams
            rarest = min((grams.get(piece[i : i + 3], ()) for i in range(len(piece) - 2)), key=len)
            lines = self._lines
            yield from (line for line in rarest if piece in lines[line])
            return
        joined, starts = self._scan()
        at = joined.find(piece)
        while at >= 0:
            line = bisect_right(starts, at) - 1
            yield line
            at = joined.find(piece, starts[line + 1])

    def runs_holding(self, needle: str) -> list[bytearray]:
        """The key records of the runs one of whose texts holds `needle` (not empty), one
        block per matching text (a run holding two such texts is in two blocks)."""
        pieces = needle.split("\n")
        longest = max(pieces, key=len)
        holders = self._holders
        if longest:
            texts = {t for line in self._lines_holding(longest) for t in holders[line]}
        else:  # newlines only: any text of more lines than that
            texts = set(range(len(self._texts)))
        if len(pieces) > 1:
            texts = {t for t in texts if needle in self._texts[t]}
        return [self._runs[text_id] for text_id in texts]


# row id, created, scope, the codes of trigger, language and status, the runtime as summed (0
# without one) and as sorted by (-1 without one: sorts those runs last)
RECORD = Struct("<IqIHHHdd")
ROW_ID, CREATED, SCOPE, TRIGGER, LANGUAGE, STATUS, RUNTIME, RUNTIME_KEY = range(8)


class Keys:
    """What a search filters, counts and sorts its matching runs by: a fixed-size record per
    run, read in blocks (`Texts`; a text's runs end to end, so few places in memory), unpacked
    in C and then read with C-level getters (`itemgetter`, `sort(key=...)`); and each run's uuid
    by row id (1, 2, ...), read only to order runs created at the same time."""

    def __init__(self) -> None:
        self._codes: dict[str, int] = {}
        self.uuid: list[str] = [""]

    def code(self, name: str) -> int:
        """The code of a trigger, language or status (-1 for a name no run has)."""
        return self._codes.get(name, -1)

    def record(self, row: Sequence[Any]) -> bytes:
        """The key record of the next row: (rowid, uuid, scope, created, trigger, language,
        status, runtime, ...) as stored."""
        rowid, uuid, scope, created, _, _, _, runtime = row[:8]
        if rowid != len(self.uuid):
            raise CheckError(f"run row {rowid} stored out of order (expected {len(self.uuid)})")
        self.uuid.append(uuid)
        codes = self._codes
        trigger, language, status = (codes.setdefault(name, len(codes)) for name in row[4:7])
        runtime = None if runtime is None else float(runtime)
        return RECORD.pack(
            rowid,
            created,
            scope,
            trigger,
            language,
            status,
            0.0 if runtime is None else runtime,
            -1.0 if runtime is None else runtime,
        )

    def select(
        self,
        blocks: Sequence[bytes | bytearray],
        scope: int,
        language: str | None,
        statuses: Sequence[str],
    ) -> list[tuple[Any, ...]]:
        """The records (fields at ROW_ID, CREATED, ...) of the runs of these blocks that are of a
        scope and pass the language and status filters, each once, newest first, then by uuid."""
        rows = [row for row in RECORD.iter_unpack(b"".join(blocks)) if row[SCOPE] == scope]
        if language is not None:
            code = self.code(language)
            rows = [row for row in rows if row[LANGUAGE] == code]
        if statuses:
            codes = {self.code(status) for status in statuses}
            rows = [row for row in rows if row[STATUS] in codes]
        if len(blocks) > 1 and len(set(map(itemgetter(ROW_ID), rows))) < len(rows):
            # a run holding two matching texts is in two blocks
            rows = list(dict(zip(map(itemgetter(ROW_ID), rows), rows, strict=True)).values())
        created = itemgetter(CREATED)
        rows.sort(key=created, reverse=True)
        if len(set(map(created, rows))) < len(rows):  # a uuid orders runs created together
            uuid = self.uuid
            rows.sort(key=lambda row: (-row[CREATED], uuid[row[ROW_ID]]))
        return rows
