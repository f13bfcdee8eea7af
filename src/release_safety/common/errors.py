"""Errors that end a command, each with the exit code the conventions give it.

Exit codes: 0 success or safe; 1 the check ran and the answer is unsafe or unknown;
2 bad usage or bad input; 3 could not check (I/O, network, unreadable repository, a closed
standard output); 141 the reader of standard output has gone (`cli.main.BROKEN_PIPE`).
"""

from __future__ import annotations


class ReleaseSafetyError(Exception):
    """A failure the CLI reports as one line and a non-zero exit code."""

    exit_code = 3
    kind = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InputError(ReleaseSafetyError):
    """Bad usage or bad input: a malformed file, version, setting or argument."""

    exit_code = 2
    kind = "input"


class CheckError(ReleaseSafetyError):
    """The check could not run: I/O, network, an unreadable repository."""

    exit_code = 3
    kind = "io"


def output_refused(exc: OSError) -> CheckError:
    """Standard output refused the answer (`>/dev/full`): `cannot write`, as a file `--out`
    names that refuses it."""
    return CheckError(f"standard output: cannot write: {exc.strerror or exc}")
