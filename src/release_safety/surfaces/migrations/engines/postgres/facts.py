"""What one classified statement does to each table it touches, and the issues it raises."""

from __future__ import annotations

from enum import IntEnum

from release_safety.common.value import HashableValue

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Final


class Lock(IntEnum):
    """PostgreSQL's table lock modes, weakest first (the order of their conflicts)."""

    ACCESS_SHARE = 1
    ROW_SHARE = 2
    ROW_EXCLUSIVE = 3
    SHARE_UPDATE_EXCLUSIVE = 4
    SHARE = 5
    SHARE_ROW_EXCLUSIVE = 6
    EXCLUSIVE = 7
    ACCESS_EXCLUSIVE = 8

    @property
    def blocks_traffic(self) -> bool:
        """SHARE or stronger blocks writes (ACCESS EXCLUSIVE also blocks reads)."""
        return self >= _SHARE

    @property
    def label(self) -> str:
        return self.name.replace("_", " ")

    @classmethod
    def from_pg(cls, mode: str) -> Lock:
        """From pg_locks.mode (`AccessExclusiveLock`) or SQL words (`ACCESS EXCLUSIVE`)."""
        words = mode.removesuffix("Lock")
        key = "".join("_" + c if c.isupper() and i else c for i, c in enumerate(words))
        return cls[key.upper().replace(" ", "_").replace("__", "_")]


# A member read through its class costs five times a module global (EnumType's lookup): the
# hot paths use these.
WEAKEST = Lock.ACCESS_SHARE
_SHARE = Lock.SHARE


class TableFact:
    """One statement's effect on one table (or view, materialized view). `maybe_rewrites` and
    `maybe_scans` are work that depends on a schema fact the history does not tell."""

    table: str
    lock: Lock | None
    rewrites: bool
    scans: bool
    full_change: bool
    created: bool
    dropped: bool
    maybe_rewrites: bool
    maybe_scans: bool
    work_line: int
    """The lines from the statement's first to the one doing its work on the table (a DO
    block's statement), 0 for the first."""

    def __init__(
        self,
        table: str,
        lock: Lock | None = None,
        rewrites: bool = False,
        scans: bool = False,
        full_change: bool = False,
        created: bool = False,
        dropped: bool = False,
        maybe_rewrites: bool = False,
        maybe_scans: bool = False,
        work_line: int = 0,
    ) -> None:
        self.table = table
        self.lock = lock
        self.rewrites = rewrites
        self.scans = scans
        self.full_change = full_change
        self.created = created
        self.dropped = dropped
        self.maybe_rewrites = maybe_rewrites
        self.maybe_scans = maybe_scans
        self.work_line = work_line

    def merge(self, other: TableFact, line: int = 0) -> None:
        """Fold in another statement's effect; `line`: the lines from this statement's first
        to the other's (a DO block's statement), where the work is when this had none."""
        if not self.work and other.work:
            self.work_line = line + other.work_line
        if other.lock is not None and (self.lock is None or other.lock > self.lock):
            self.lock = other.lock
        self.rewrites |= other.rewrites
        self.scans |= other.scans or other.rewrites
        self.full_change |= other.full_change
        self.created |= other.created
        self.dropped |= other.dropped
        self.maybe_rewrites |= other.maybe_rewrites
        self.maybe_scans |= other.maybe_scans or other.maybe_rewrites

    @property
    def work(self) -> bool:
        """Work proportional to the table's rows."""
        return self.rewrites or self.scans or self.full_change

    @property
    def maybe_work(self) -> bool:
        """Work that may or may not happen: the schema does not say."""
        return not self.work and (self.maybe_rewrites or self.maybe_scans)


class Issue(HashableValue):
    """A rule hit by one statement: the rule id and what exactly was seen. `column` (table,
    column) marks a judgement of old code's compatibility with that column's nullability and
    default, made again on the column as its transaction commits it; `line` counts the lines
    of the statement before the one that raised it (a statement of a DO block); `hint` the way
    out written for this case (None: the rule's safe alternative)."""

    FIELDS = ("rule", "message", "column", "line", "hint")

    rule: Final[str]
    message: Final[str]
    column: Final[tuple[str, str] | None]
    line: Final[int]
    hint: Final[str | None]

    def __init__(
        self,
        rule: str,
        message: str,
        column: tuple[str, str] | None = None,
        line: int = 0,
        hint: str | None = None,
    ) -> None:
        self.rule = rule
        self.message = message
        self.column = column
        self.line = line
        self.hint = hint


class StatementFacts:
    """A classified statement; `unknown` holds the reason when it could not be classified.
    `transaction` is "begin" or "commit" for transaction control statements;
    `outside_transaction` a statement that cannot run inside a transaction block;
    `unnamed_lock` a lock on a table the text does not name (DROP INDEX); `waits` a statement
    that makes its transaction wait (pg_sleep), holding every lock it took; `explicit_lock`
    a LOCK TABLE, which takes its lock to hold it to commit; `syntax_near` a syntax error's
    place (`Unclassified.near`)."""

    tables: dict[str, TableFact]
    issues: list[Issue]
    unknown: str | None
    transaction: str | None
    outside_transaction: bool
    sets_lock_timeout: bool
    unnamed_lock: Lock | None
    waits: bool
    explicit_lock: bool
    syntax_near: int | None

    def __init__(
        self,
        tables: dict[str, TableFact] | None = None,
        issues: list[Issue] | None = None,
        unknown: str | None = None,
        transaction: str | None = None,
        outside_transaction: bool = False,
        sets_lock_timeout: bool = False,
        unnamed_lock: Lock | None = None,
        waits: bool = False,
        explicit_lock: bool = False,
        syntax_near: int | None = None,
    ) -> None:
        self.tables = {} if tables is None else tables
        self.issues = [] if issues is None else issues
        self.unknown = unknown
        self.transaction = transaction
        self.outside_transaction = outside_transaction
        self.sets_lock_timeout = sets_lock_timeout
        self.unnamed_lock = unnamed_lock
        self.waits = waits
        self.explicit_lock = explicit_lock
        self.syntax_near = syntax_near

    def touch(
        self,
        table: str,
        lock: Lock | None = None,
        *,
        rewrites: bool = False,
        scans: bool = False,
        full_change: bool = False,
        created: bool = False,
        dropped: bool = False,
        maybe_rewrites: bool = False,
        maybe_scans: bool = False,
    ) -> TableFact:
        """Record an effect on a table, merged with earlier effects of the same statement."""
        fact = TableFact(
            table, lock, rewrites, scans, full_change, created, dropped, maybe_rewrites, maybe_scans
        )
        if table in self.tables:
            self.tables[table].merge(fact)
            return self.tables[table]
        fact.scans = fact.scans or fact.rewrites
        fact.maybe_scans = fact.maybe_scans or fact.maybe_rewrites
        self.tables[table] = fact
        return fact

    def issue(
        self,
        rule: str,
        message: str,
        column: tuple[str, str] | None = None,
        *,
        hint: str | None = None,
    ) -> None:
        self.issues.append(Issue(rule, message, column, 0, hint))
