"""What a forked child's end and errors are to its parent: one wording and one test for the
lint's read-ahead (`cli/lintahead.py`) and a release's surface judged beside the others
(`release/beside.py`)."""

from __future__ import annotations

import os
import pickle
import signal


def ended(status: int) -> str:
    """How a child ended (`os.waitpid`'s status), in words."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"killed by {name}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"


def travels(exc: BaseException) -> bool:
    """Whether `exc` comes back from a pickle, to be raised by the parent as it was raised."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # any failure to travel
        return False
    return True
