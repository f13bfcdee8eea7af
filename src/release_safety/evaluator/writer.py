"""Batches written to SQLite by a thread of their own while the caller prepares the next.

SQLite releases the GIL while it steps a statement. A batch is one statement (a multi-row
VALUES), so inserting a batch of runs and adding their trigrams to the full-text index runs on
another core for its whole length while the caller reads, checks and derives the next batch
(`executemany` would take the GIL back at every row). Batches are written in the order given;
the first error is raised to the caller at its next call, or when the writer is closed.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from itertools import chain
from typing import Any, NamedTuple

DEPTH = 2  # batches waiting at most: the reader waits rather than holding more


class Insert(NamedTuple):
    """An INSERT of `width` values a row into `into` (a table, with its columns if named)."""

    into: str
    width: int

    @property
    def row(self) -> str:
        """The statement of one row."""
        return values_sql(self, 1)


@lru_cache(maxsize=32)
def values_sql(insert: Insert, count: int) -> str:
    """The statement of `count` rows."""
    row = f"({', '.join('?' * insert.width)})"
    return f"INSERT INTO {insert.into} VALUES {', '.join([row] * count)}"


def write_rows(conn: sqlite3.Connection, insert: Insert, rows: Sequence[Sequence[Any]]) -> None:
    """Insert rows with one statement (one step of SQLite, which holds no GIL meanwhile)."""
    conn.execute(values_sql(insert, len(rows)), list(chain.from_iterable(rows)))


class BatchWriter:
    """Each batch of rows (or statement) written, in order, on a thread of its own."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._batches: queue.Queue[tuple[str | Insert, Sequence[Any]] | None] = queue.Queue(DEPTH)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="evaluator-load", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (batch := self._batches.get()) is not None:
            if self._error is None:
                statement, rows = batch
                try:
                    if isinstance(statement, Insert):
                        write_rows(self._conn, statement, rows)
                    else:
                        self._conn.execute(statement)
                except BaseException as exc:  # raised again in the caller's thread
                    self._error = exc

    def write(self, insert: Insert, rows: Sequence[Sequence[Any]]) -> None:
        """Queue a batch of rows; `rows` must not be changed afterwards."""
        self._raise()
        if rows:
            self._batches.put((insert, rows))

    def execute(self, sql: str) -> None:
        """Queue one statement without parameters."""
        self._raise()
        self._batches.put((sql, ()))

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def _stop(self) -> None:
        self._batches.put(None)
        self._thread.join()


@contextmanager
def batch_writer(conn: sqlite3.Connection) -> Iterator[BatchWriter]:
    """A writer whose every batch is written when the block ends (its error raised then)."""
    writer = BatchWriter(conn)
    try:
        yield writer
    except BaseException:
        writer._stop()
        raise
    writer._stop()
    writer._raise()
