"""A long lint's files read and split into statements by a second process, ahead of the lint.

The lint classifies its files in order, each on the schema the ones before it built, so one
process does that; reading a file and splitting it into statements (`lint.split_file`: the
lexer) needs no schema. For a chain of `cli.lint.AHEAD_FROM` files or more, with a second
core to run on, a child forked once the lint's modules are loaded reads and splits them in
order and hands them over through a pipe in batches, packed (`statements.pack`: plain tuples,
which pickle in a fifth of the objects' time, a text once a batch), while this process
classifies those already handed over: the second core (CI runners, pre-commit on a laptop)
takes that part of the work. It also finds what else classification would otherwise find
with no schema (`lint.split_file`): the grammar's checks each statement passes
(`grammar.prechecked`) and the statements of a DO block's body (`plpgsql.ahead`), which the
lint takes as found. Fewer files are read in this process: a fork and the packing would cost
more than they save.

What comes through is what this process would have read: the same document, format and
statements, or the same error, raised as the lint reaches that file. The lint without a child
reads every file before it lints any, so when the lint fails first (on an earlier file), a
file that could not be read is still the error reported. A child that dies or sends what
cannot be read is a one-line CheckError; nothing is printed before the lint ends, so there is
never half an output.
"""

from __future__ import annotations

import os
import pickle
from typing import IO, TYPE_CHECKING, Any

from release_safety.common.child import ended, travels
from release_safety.common.errors import CheckError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from types import TracebackType

    from release_safety.cli.inputs import Document
    from release_safety.surfaces.migrations.lint import Format
    from release_safety.surfaces.migrations.reading import Reading
    from release_safety.surfaces.migrations.sql.statements import Extracted

    Read = Callable[[str], tuple[Document, str, Format]]
    """How a file named on the command line is read: its document, text and format (or the
    error reading it raises)."""
    Prepared = tuple[Document, str, Format, Extracted | str]
    """A file as the lint takes it: read, and split (or why it cannot be)."""

_FIRST = 4
"""Files in the first message: the lint waits for it, so it is sent as soon as a few files are
split (the lint's first wait: about 6 ms for 32 files, under 2 ms for 4); each message after it
holds twice as many, up to `_BATCH`, so the child keeps ahead of the lint from the start."""
_BATCH = 32
"""Files per message at most: each costs one write and one read of the pipe."""


class ReadAhead:
    """The files of a chain, read and split in order by a forked child; a context manager
    (leaving it ends the child), iterated once."""

    def __init__(self, names: Sequence[str], reading: Reading, read: Read) -> None:
        self.names = names
        receive, send = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns, never runs the parent's exit handlers
            os.close(receive)
            code = 1
            try:
                with os.fdopen(send, "wb") as out:
                    _send(out, names, reading, read)
                code = 0
            finally:
                os._exit(code)
        os.close(send)
        self.pipe: IO[bytes] = os.fdopen(receive, "rb")
        self.batch: list[Any] = []
        """What the child sent that the lint has not taken yet, the next item last."""
        self.ended = False
        self.status = 0

    def __enter__(self) -> ReadAhead:
        return self

    def __iter__(self) -> Iterator[Prepared]:
        from release_safety.surfaces.migrations.sql.statements import unpack

        for _ in self.names:
            if not self.batch:
                self.batch = self._receive()
                self.batch.reverse()  # taken from the end
            item = self.batch.pop()
            if item[0] != "file":
                self.ended = item[1] == "read"  # nothing unread is left to raise
                raise item[2]
            _, document, fmt, split = item
            text = document.data.decode("utf-8", errors="replace")
            yield document, text, fmt, split if isinstance(split, str) else unpack(split)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        try:
            if isinstance(error, Exception) and not self.ended:
                unread = self._unread()
                if unread is not None:
                    raise unread
        finally:
            self._end()

    def _receive(self) -> list[Any]:
        """The next batch the child sent; CheckError when it has ended without sending it."""
        try:
            batch: list[Any] = pickle.load(self.pipe)
        except Exception:  # EOF, or bytes that are no batch: the child stopped mid-way
            raise CheckError(
                f"the process reading the migration files ahead stopped ({self._end()})"
            ) from None
        return batch

    def _unread(self) -> Exception | None:
        """The first file of the rest that could not be read, if any (the lint failed first)."""
        while True:
            for item in reversed(self.batch):
                if item[0] == "error" and item[1] == "read":
                    return item[2]  # type: ignore[no-any-return]
            try:
                self.batch = pickle.load(self.pipe)
            except Exception:
                return None
            self.batch.reverse()

    def _end(self) -> str:
        """Stop reading the child (a write it has left fails), wait for it to end, and say
        how it ended."""
        self.pipe.close()
        if self.pid:
            _, self.status = os.waitpid(self.pid, 0)
            self.pid = 0
        return ended(self.status)


def _sent(exc: Exception) -> Exception:
    """`exc`, or, when it does not come back from a pickle, a CheckError naming it."""
    return exc if travels(exc) else CheckError(f"unexpected {type(exc).__name__}: {exc}")


def _send(out: IO[bytes], names: Sequence[str], reading: Reading, read: Read) -> None:
    """The child's work: each file read and split, in order, sent in batches. At the first
    error it sends that error and stops; an error splitting a file is followed by the first
    later file that cannot be read, if one is (what the lint raises first, without a child)."""
    from release_safety.surfaces.migrations.lint import split_file
    from release_safety.surfaces.migrations.sql.statements import pack

    strings: dict[str, str] = {}
    batch: list[tuple[object, ...]] = []
    size = _FIRST
    failed = ""
    for name in names:
        try:
            document, text, fmt = read(name)
        except Exception as exc:
            batch.append(("error", "read", _sent(exc)))
            break
        if failed:
            continue
        try:
            split = split_file(text, document.shown, fmt, reading)
        except Exception as exc:
            batch.append(("error", "split", _sent(exc)))
            failed = "split"
            continue
        packed = split if isinstance(split, str) else pack(split, strings)
        batch.append(("file", document, fmt, packed))
        if len(batch) >= size:
            pickle.dump(batch, out, pickle.HIGHEST_PROTOCOL)
            out.flush()
            batch, size = [], min(2 * size, _BATCH)
    if batch:
        pickle.dump(batch, out, pickle.HIGHEST_PROTOCOL)
