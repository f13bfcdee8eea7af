"""Batches written to SQLite by a thread of their own while the caller prepares the next.

SQLite releases the GIL while it steps a statement, so inserting a batch of runs (and adding
their trigrams to the full-text index) overlaps the Python work of reading, checking and
deriving the next batch, on another core. Batches are written in the order given; the first
error is raised to the caller at its next call, or when the writer is closed.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

DEPTH = 2  # batches waiting at most: the reader waits rather than holding more


class BatchWriter:
    """`executemany` of each batch (or `execute` of a statement), in order, on a thread of its
    own."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._batches: queue.Queue[tuple[str, Sequence[Any] | None] | None] = queue.Queue(DEPTH)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="evaluator-load", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (batch := self._batches.get()) is not None:
            if self._error is None:
                sql, rows = batch
                try:
                    if rows is None:
                        self._conn.execute(sql)
                    else:
                        self._conn.executemany(sql, rows)
                except BaseException as exc:  # raised again in the caller's thread
                    self._error = exc

    def write(self, sql: str, rows: Sequence[Any]) -> None:
        """Queue a batch; `rows` must not be changed afterwards."""
        self._raise()
        self._batches.put((sql, rows))

    def execute(self, sql: str) -> None:
        """Queue one statement without parameters."""
        self._raise()
        self._batches.put((sql, None))

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
