"""Work run beside this process's own, in a forked child, on the machine's second core: one
release's surfaces are independent of each other, so a release judges some of them in a child
while it judges the others (`release/generate.run_surfaces`).

The child is forked after the imports, so it starts at once with every module and every memo
this process holds; it sends its answer back pickled through a pipe and ends with `os._exit`
(no cleanup of what it inherited: the parent's git processes and files stay the parent's).
A fork is taken only where it is safe and pays (`possible`): on Linux, with two cores to run
on, from a process with no second thread (a thread holding a lock at the fork would leave it
held in the child: BuildKit's Dockerfile parser starts Go's runtime threads when loaded, so
after it is loaded nothing is forked).
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Generic, TypeVar

from release_safety.common.child import ended, travels

T = TypeVar("T")


class Died(Exception):
    """The child ended without an answer (killed, or out of memory)."""


def possible() -> bool:
    """True when a child may be forked here: Linux, two cores or more for this process, one
    thread."""
    if sys.platform != "linux" or not hasattr(os, "fork"):
        return False
    if len(os.sched_getaffinity(0)) < 2:
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


class Beside(Generic[T]):
    """`work()` run in a forked child, its value (or the exception it raised) taken with
    `result`; `in_child` runs in the child first (its own git readers)."""

    def __init__(self, work: Callable[[], T], in_child: Callable[[], None]) -> None:
        sys.stdout.flush()  # nothing buffered here is written twice by the child
        sys.stderr.flush()
        # The collector leaves the objects both processes share alone until the answer is in:
        # its passes would write to every page of them, and each write copies the page.
        gc.freeze()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read)
            _answer(write, work, in_child)
        os.close(write)
        self._pid: int | None = pid
        self._read: int | None = read

    def result(self) -> T:
        """The work's value; the exception it raised, raised here; `Died` when the child
        ended without an answer."""
        read, self._read = self._read, None  # closed with the stream, whatever happens
        assert read is not None
        with os.fdopen(read, "rb") as stream:
            payload = stream.read()
        status = self._reap()
        gc.unfreeze()
        try:
            ok, value = pickle.loads(payload)
        except (pickle.UnpicklingError, EOFError, ValueError) as exc:
            raise Died(ended(status)) from exc
        if ok:
            return value  # type: ignore[no-any-return]
        raise value

    def cancel(self) -> None:
        """Stop the child and reap it (the parent stopped before asking its answer)."""
        if self._pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGKILL)
        self._reap()
        gc.unfreeze()
        if self._read is not None:
            os.close(self._read)
            self._read = None

    def _reap(self) -> int:
        assert self._pid is not None
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        return status


def _answer(write: int, work: Callable[[], object], in_child: Callable[[], None]) -> None:
    """In the child: the pickled (True, value) or (False, exception) written to the pipe, then
    the end of the process, whatever happens."""
    try:
        try:
            in_child()
            payload = pickle.dumps((True, work()))
        except BaseException as exc:  # handed to the parent, which raises it (by name, when
            # it does not come back from a pickle)
            sent = exc if travels(exc) else RuntimeError(f"{type(exc).__name__}: {exc}")
            payload = pickle.dumps((False, sent))
        with os.fdopen(write, "wb") as out:
            out.write(payload)
    finally:
        os._exit(0)
