"""Bounds on the work one migration file may cost: beyond them it is `unknown`, with the
bound it crossed, never a hang or a crash.

- a file over MAX_FILE_CHARS characters is not read at all;
- a file of more than MAX_STATEMENTS statements is not classified;
- a statement over MAX_STATEMENT_CHARS characters, nested more than MAX_NESTING parentheses
  deep, or MAX_BRACKET_NESTING square brackets deep (sqlglot's parse of nested `ARRAY[` takes
  twice as long per level), is not classified (the statement is unknown, the rest of the file
  is read);
- a file whose classification takes more than MAX_CPU_SECONDS of CPU time stops there (a safety
  net for inputs the other bounds let through; the only bound that depends on the machine).
"""

from __future__ import annotations

import time

from release_safety.common.value import HashableValue

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Final

MAX_FILE_CHARS = 2_000_000
MAX_STATEMENTS = 20_000
MAX_STATEMENT_CHARS = 100_000
MAX_NESTING = 256
MAX_BRACKET_NESTING = 8
MAX_CPU_SECONDS = 30.0


class OverBudget(Exception):
    """A file beyond a bound: what was exceeded."""


class Budget(HashableValue):
    """The CPU deadline of one file's classification, and the wall-clock time before which it
    cannot have passed (`after`): the classification runs in one thread, which spends no more
    CPU time than the wall clock shows, and reading the wall clock costs no system call where
    reading the CPU clock does (several microseconds while another process runs)."""

    FIELDS = ("deadline", "after")

    deadline: Final[float]
    after: Final[float]

    def __init__(self, deadline: float, after: float = 0.0) -> None:
        self.deadline = deadline
        self.after = after

    @staticmethod
    def check_size(text: str) -> None:
        if len(text) > MAX_FILE_CHARS:
            raise OverBudget(
                f"{len(text):,} characters, more than the {MAX_FILE_CHARS:,} a migration may have"
            )

    @staticmethod
    def check_count(statements: int) -> None:
        if statements > MAX_STATEMENTS:
            raise OverBudget(
                f"{statements:,} statements, more than the {MAX_STATEMENTS:,} a migration may have"
            )

    @classmethod
    def start(cls) -> Budget:
        return cls(time.process_time() + MAX_CPU_SECONDS, time.perf_counter() + MAX_CPU_SECONDS)

    def check(self) -> None:
        if time.perf_counter() > self.after and time.process_time() > self.deadline:
            raise OverBudget(f"classifying it took more than {MAX_CPU_SECONDS:.0f} s of CPU time")
