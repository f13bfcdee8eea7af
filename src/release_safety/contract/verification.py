"""What `verify-migrations` publishes (`--format json`, and the evidence file's `verification`
with `generate --verify`): per migration file and table, the static flags beside what
PostgreSQL did, with the lock hold times and each statement's timeline."""

from __future__ import annotations

from typing import Literal

from pydantic import StrictBool, StrictInt

from release_safety.contract.model import AnyVersion, Closed, Heaviness
from release_safety.contract.reports import Finding


class Observed(Closed):
    """What PostgreSQL did to one table that existed before the release (the artifact's
    heaviness names), and what it meant for traffic."""

    locksTable: StrictBool
    rewritesTable: StrictBool
    scansTable: StrictBool
    lockHeldMs: float
    """How long a lock blocking reads or writes (SHARE or stronger) was held, to commit;
    0 when none was taken."""
    lock: str | None
    """The strongest lock mode taken (`ACCESS EXCLUSIVE`), None when none."""
    readBlocked: StrictBool | None
    writeBlocked: StrictBool | None
    """Whether a second session's read / write waited behind it (None: not tried)."""


class TableVerification(Closed):
    table: str
    static: Heaviness | None
    """The file's static flags (the artifact's granularity); None when the static analysis
    did not name the table."""
    observed: Observed


class LockSpan(Closed):
    table: str
    mode: str
    heldMs: float


class StatementRun(Closed):
    """One statement as it ran: its line, the first line of its SQL, when (ms from the first
    observed statement) and the locks it held on pre-existing tables."""

    line: StrictInt
    sql: str
    startMs: float
    endMs: float
    outsideTransaction: StrictBool
    locks: list[LockSpan]
    error: str | None


class FileVerification(Closed):
    file: str
    database: str
    static: Heaviness | None
    observed: Heaviness | None
    """The file's flags as PostgreSQL showed them; None when it could not run here."""
    unverified: str | None
    """Why the file could not be observed (an error, a statement only known at run time, an
    earlier migration that failed), None when it was."""
    tables: list[TableVerification]
    statements: list[StatementRun]


class Verification(Closed):
    """One release's migrations run on a real PostgreSQL."""

    version: AnyVersion
    previousVersion: AnyVersion | None
    fromRef: str | None
    toRef: str
    postgresMajor: StrictInt
    server: Literal["throwaway", "scratch", "given"]
    rows: StrictInt
    seeded: dict[str, StrictInt]
    seedFailed: dict[str, str]
    replayProblems: list[str]
    agree: StrictBool
    """True when every observed file's flags are what the static analysis said."""
    files: list[FileVerification]
    findings: list[Finding]
