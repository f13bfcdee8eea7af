"""A forked child's end and errors as its parent says and raises them (common/child.py)."""

from __future__ import annotations

import os
import signal

from release_safety.common.child import ended, travels


class _Unpicklable(Exception):
    """An error whose constructor needs what pickle does not give back."""

    def __init__(self, path: str, *, line: int) -> None:
        super().__init__(f"{path}:{line}")


def test_an_error_travels_only_when_it_comes_back_from_a_pickle() -> None:
    assert travels(ValueError("bad input"))
    assert not travels(_Unpicklable("a.sql", line=3))


def test_how_a_child_ended_in_words() -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(9)
    _, status = os.waitpid(pid, 0)
    assert ended(status) == "exit code 9"
    pid = os.fork()
    if pid == 0:
        os.kill(os.getpid(), signal.SIGKILL)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert ended(status) == "killed by SIGKILL"
