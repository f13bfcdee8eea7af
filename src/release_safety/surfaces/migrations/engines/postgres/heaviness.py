"""A migration file's tables and heaviness flags, with the transaction rule.

Flags concern tables that existed before the migration. locksTable is true when a table holds a
lock of SHARE or stronger while work proportional to its rows runs on it, in the same statement
or a later one of the same transaction (locks are kept to commit), when LOCK TABLE takes such a
lock (to hold it to commit), and when one is held while the transaction waits (pg_sleep). A file
runs as one transaction unless it is marked non-transactional or holds a statement that cannot
run inside one (CONCURRENTLY, VACUUM); explicit BEGIN / COMMIT are honoured either way.
"""

from __future__ import annotations

from release_safety.common.value import HashableValue
from release_safety.surfaces.migrations.budget import Budget
from release_safety.surfaces.migrations.engines.postgres.altertable import at_commit
from release_safety.surfaces.migrations.engines.postgres.classify import classify
from release_safety.surfaces.migrations.engines.postgres.context import Context
from release_safety.surfaces.migrations.engines.postgres.facts import (
    WEAKEST,
    Issue,
    Lock,
    StatementFacts,
)
from release_safety.surfaces.migrations.engines.postgres.grammar import (
    SYNTAX_END,
    SYNTAX_ERROR,
    passing,
)
from release_safety.surfaces.migrations.rules.ids import RuleId
from release_safety.surfaces.migrations.schema.model import Column
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement
from release_safety.surfaces.migrations.sql.tokens import tokenize

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Final, Literal

    from release_safety.surfaces.annotations import Parsed

    TriState = bool | Literal["unknown"]


class LineIssue(HashableValue):
    """A rule hit on one line of the file; `hint` the way out written for it (None: the
    rule's safe alternative)."""

    FIELDS = ("rule", "line", "message", "hint")

    rule: Final[str]
    line: Final[int]
    message: Final[str]
    hint: Final[str | None]

    def __init__(self, rule: str, line: int, message: str, hint: str | None = None) -> None:
        self.rule = rule
        self.line = line
        self.message = message
        self.hint = hint


class HeavyLock(HashableValue):
    """A table that existed before the file, locked against traffic (SHARE or stronger) while
    a statement rewrites or reads every one of its rows, or locked by LOCK TABLE (`held`:
    "lock"), or held while the transaction waits (`held`: "wait", pg_sleep): the locksTable
    fact, per table and statement (each such statement can be acknowledged on its own)."""

    FIELDS = ("table", "line", "lock", "rewrites", "held")

    table: Final[str]
    line: Final[int]
    lock: Final[Lock]
    rewrites: Final[bool]
    held: Final[str]

    def __init__(
        self, table: str, line: int, lock: Lock, rewrites: bool, held: str = "work"
    ) -> None:
        self.table = table
        self.line = line
        self.lock = lock
        self.rewrites = rewrites
        self.held = held


class FileAnalysis:
    """What one migration file does, independent of its path."""

    tables: list[str]
    locks: TriState
    rewrites: TriState
    scans: TriState
    issues: list[LineIssue]
    heavy: list[HeavyLock]
    created: frozenset[str]
    statement_lines: tuple[int, ...]
    acknowledgements: tuple[Parsed, ...]

    def __init__(
        self,
        tables: list[str] | None = None,
        locks: TriState = False,
        rewrites: TriState = False,
        scans: TriState = False,
        issues: list[LineIssue] | None = None,
        heavy: list[HeavyLock] | None = None,
        created: frozenset[str] = frozenset(),
        statement_lines: tuple[int, ...] = (),
        acknowledgements: tuple[Parsed, ...] = (),
    ) -> None:
        self.tables = [] if tables is None else tables
        self.locks = locks
        self.rewrites = rewrites
        self.scans = scans
        self.issues = [] if issues is None else issues
        self.heavy = [] if heavy is None else heavy
        self.created = created
        self.statement_lines = statement_lines
        self.acknowledgements = acknowledgements

    def with_acknowledgements(self, found: tuple[Parsed, ...]) -> FileAnalysis:
        return FileAnalysis(
            self.tables,
            self.locks,
            self.rewrites,
            self.scans,
            self.issues,
            self.heavy,
            self.created,
            self.statement_lines,
            found,
        )

    def letters(self) -> str:
        """The flags that are true, as `l`, `r`, `s` (the catalogue's notation)."""
        values = (self.locks, self.rewrites, self.scans)
        return "".join(k for k, v in zip("lrs", values, strict=True) if v is True)


def _tri(value: bool, unknown: bool) -> TriState:
    return True if value else "unknown" if unknown else False


def _commits(classified: list[tuple[int, StatementFacts]], one_transaction: bool) -> list[int]:
    """For each statement, the index of the last statement of its transaction: the file's
    (explicit BEGIN / COMMIT honoured), or the statement's own outside one."""
    groups: list[int] = []
    group, explicit = 0, False
    for _, facts in classified:
        if facts.transaction is not None:
            explicit = facts.transaction == "begin"
            group += 1
        elif not one_transaction and not explicit:
            group += 1
        groups.append(group)
        if facts.transaction is not None:
            group += 1
    last: dict[int, int] = {}
    for k, g in enumerate(groups):
        last[g] = k
    return [last[g] for g in groups]


def _unknown(line: int, column: int, reason: str) -> LineIssue:
    """A statement of unknown effect; a syntax error says where, as PostgreSQL would."""
    if not reason.startswith((SYNTAX_ERROR, SYNTAX_END)):
        hint = (
            f"Write what the statement at line {line} does as plain SQL ({reason}), or accept "
            "it above the statement: `-- release-safety: acknowledge(migration-statement-"
            "unknown): <what it does and why it is safe>`."
        )
        return LineIssue(RuleId.MIGRATION_STATEMENT_UNKNOWN, line, reason, hint)
    return LineIssue(
        RuleId.MIGRATION_STATEMENT_UNKNOWN,
        line,
        f"{reason} (line {line}, column {column}): PostgreSQL refuses this statement",
        f"Correct the statement at line {line}, column {column}: PostgreSQL would stop the "
        "migration there.",
    )


def _refused(statement: Statement, near: int) -> LineIssue:
    """A syntax error past a statement's first word, at the token PostgreSQL names: the first
    from offset `near`, else what ends the statement (its `;`, or the end of the file)."""
    sql = statement.sql or ""
    toks = statement.toks if statement.toks is not None else tokenize(sql)
    tok = next((t for t in toks if t.start >= near), None)
    at = tok.start if tok is not None else len(sql)
    if tok is not None:
        reason = f'{SYNTAX_ERROR} "{sql[tok.start : tok.end + 1]}"'
    elif statement.terminated:
        reason = f'{SYNTAX_ERROR} ";"'
    else:
        reason = SYNTAX_END
    newline = sql.rfind("\n", 0, at)
    line = statement.line + sql.count("\n", 0, at)
    column = at - newline if newline >= 0 else statement.column + at
    return _unknown(line, column, reason)


def _timeout_hint(line: int, lock: Lock, table: str) -> str:
    return (
        f"SET lock_timeout = '5s'; before line {line}, so the {lock.label} lock on {table} "
        "gives up instead of queueing every query behind it; retry the migration on timeout."
    )


def analyse_extracted(
    extracted: Extracted, ctx: Context, budget: Budget | None = None
) -> FileAnalysis:
    """Classify every statement in order against `ctx` (whose schema each statement changes)
    and fold them into the file's facts. Raises OverBudget past the file's bounds (`budget`:
    the CPU time's, else one started here, where a statement follows another: the time is
    checked between statements)."""
    statements = extracted.statements
    Budget.check_count(len(statements))
    if budget is None and len(statements) > 1:
        budget = Budget.start()
    classified: list[tuple[int, StatementFacts]] = []
    created: set[str] = set()
    one_transaction = extracted.transactional
    # the columns whose issues are judged as their transaction commits, after each statement
    watched: dict[tuple[str, str], None] = {}
    states: list[dict[tuple[str, str], Column | None]] = []
    for k, statement in enumerate(statements):
        if k and budget is not None:  # the first starts as the budget does
            budget.check()
        if statement.sql is None:
            reason = statement.reason or "statement text not determined"
            ctx.schema.lose_everything(reason)
            facts = StatementFacts(unknown=reason)
        else:
            if statement.bodies is not None or ctx.bodies:  # read ahead: its DO block's body
                ctx.bodies = statement.bodies or {}
            checked = statement.checked  # found ahead: the grammar's checks it passes
            if checked:
                passing(statement.toks or [], checked)
                try:
                    facts = classify(statement.sql, ctx, statement.toks)
                finally:
                    passing([], ())
            else:
                facts = classify(statement.sql, ctx, statement.toks)
            one_transaction = one_transaction and not facts.outside_transaction
            for table, fact in facts.tables.items():
                if fact.created:
                    created.add(table)
        classified.append((statement.line, facts))
        for raised in facts.issues:
            if raised.column is not None:
                watched[raised.column] = None
        states.append({w: ctx.schema.column(*w) for w in watched} if watched else {})
    commits = _commits(classified, one_transaction)
    lines = [s.line for s in statements]
    result = FileAnalysis(statement_lines=tuple(lines if len(lines) < 2 else sorted(set(lines))))
    locks = rewrites = scans = lock_timeout = False
    maybe_locks = maybe_rewrites = maybe_scans = False
    explicit = False
    held: dict[str, Lock] = {}
    warned_queue = False
    tables: set[str] = set()
    for k, (line, facts) in enumerate(classified):
        if facts.unknown is not None:
            maybe_locks = maybe_rewrites = maybe_scans = True
            if facts.syntax_near is not None:
                result.issues.append(_refused(statements[k], facts.syntax_near))
            else:
                result.issues.append(_unknown(line, statements[k].column, facts.unknown))
            continue
        if facts.transaction is not None:
            held.clear()
            explicit = facts.transaction == "begin"
            continue
        lock_timeout |= facts.sets_lock_timeout
        if facts.outside_transaction and (explicit or extracted.wrapped):
            where = "after BEGIN" if explicit else "in the transaction its tool wraps the file in"
            result.issues.append(
                LineIssue(
                    RuleId.CANNOT_RUN_IN_TRANSACTION,
                    line,
                    f"this statement cannot run in a transaction block, and runs {where}: "
                    "the migration fails",
                    f"Remove the BEGIN before line {line} (or COMMIT before it), so the "
                    "statement runs on its own."
                    if explicit
                    else f"Move the statement at line {line} to a migration of its own that its "
                    "tool runs outside a transaction (the tool's no-transaction marker for "
                    "that file).",
                )
            )
        if not one_transaction and not explicit:
            held.clear()
        if facts.unnamed_lock is not None and not lock_timeout and not warned_queue:
            warned_queue = True
            result.issues.append(
                LineIssue(
                    RuleId.LOCK_TIMEOUT_MISSING,
                    line,
                    f"{facts.unnamed_lock.label} lock requested without lock_timeout",
                    _timeout_hint(line, facts.unnamed_lock, "the tables it locks"),
                )
            )
        for raised in facts.issues:
            judged: Issue | None = raised
            if raised.column is not None:
                judged = at_commit(raised, states[commits[k]].get(raised.column))
            if judged is not None:
                result.issues.append(
                    LineIssue(judged.rule, line + judged.line, judged.message, judged.hint)
                )
        for table, fact in facts.tables.items():
            tables.add(table)
            if table in created:
                continue
            lock = held.get(table, WEAKEST)
            if fact.lock is not None and fact.lock > lock:
                held[table] = lock = fact.lock
            strong = lock.blocks_traffic
            work = fact.work
            rewrites |= fact.rewrites
            scans |= work
            maybe_rewrites |= fact.maybe_rewrites
            maybe_work = fact.maybe_work
            maybe_scans |= maybe_work
            maybe_locks |= strong and maybe_work
            if strong and facts.explicit_lock and not work:  # held to commit, on purpose
                locks = True
                result.heavy.append(HeavyLock(table, line, lock, False, "lock"))
            if strong and work:
                locks = True
                result.heavy.append(HeavyLock(table, line + fact.work_line, lock, fact.rewrites))
                if fact.lock is None or not fact.lock.blocks_traffic:
                    result.issues.append(
                        LineIssue(
                            RuleId.LOCK_HELD_DURING_WORK,
                            line,
                            f"{table} stays locked ({lock.label}) while this statement "
                            "reads or changes every row",
                            f"COMMIT before line {line}, so the {lock.label} lock an earlier "
                            f"statement took on {table} is released before this one reads "
                            "or changes every row (or move it to a migration of its own).",
                        )
                    )
            if strong and not lock_timeout and not warned_queue and not work:
                warned_queue = True
                result.issues.append(
                    LineIssue(
                        RuleId.LOCK_TIMEOUT_MISSING,
                        line,
                        f"{lock.label} lock on {table} requested without lock_timeout",
                        _timeout_hint(line, lock, table),
                    )
                )
        for table, lock in held.items() if facts.waits else ():
            if lock.blocks_traffic:
                locks = True
                result.heavy.append(HeavyLock(table, line, lock, False, "wait"))
    result.tables = sorted(t for t in tables if t != "?")
    result.created = frozenset(created)
    result.locks = _tri(locks, maybe_locks)
    result.rewrites = _tri(rewrites, maybe_rewrites)
    result.scans = _tri(scans, maybe_scans)
    return result
