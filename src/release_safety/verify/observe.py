"""What PostgreSQL does, statement by statement: the locks a migration takes on relations that
existed before it, rewrites (relfilenode), rows scanned or validated, how long a lock that
blocks traffic was held, and whether a second session's read and write were blocked.

In a transaction, locks come from pg_locks of the migration's own backend after each statement
(kept to commit), rewrites from pg_class.relfilenode, scans from the backend's
pg_stat_xact_user_tables counters, and a second session tries a read and a write of each
table locked SHARE or stronger (`lock_timeout`: blocked or not). A statement that cannot run in
a transaction (CONCURRENTLY, VACUUM) is observed while it waits behind a SHARE UPDATE EXCLUSIVE
holder (every such statement asks for that lock or a stronger one), its scans from the flushed
cumulative statistics.

The locksTable fact is the artifact's: a table locked SHARE or stronger while work
proportional to its rows runs on it (the same statement or a later one of the transaction),
or by LOCK TABLE, or while the transaction waits (pg_sleep).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from release_safety.surfaces.migrations.engines.postgres.facts import Lock
from release_safety.verify.database import Connection, DatabaseError, Target, message_of

RELATIONS = """
SELECT c.oid::int, quote_ident(n.nspname) || '.' || quote_ident(c.relname), c.relname,
       c.relkind::text, coalesce(pg_partition_root(c.oid), c.oid)::int
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg_temp_%' AND c.relkind IN ('r', 'p', 'm', 'v', 'f')
"""
_STATS = """
SELECT relid::int, seq_scan, seq_tup_read, coalesce(idx_tup_fetch, 0), n_tup_upd + n_tup_del
FROM {view} WHERE relid = ANY(:oids)
"""
_LOCKS = """
SELECT relation::int, mode, granted FROM pg_locks
WHERE pid = :pid AND locktype = 'relation' AND relation IS NOT NULL
"""
_NEW_RELATIONS = """
SELECT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE l.pid = :pid AND l.locktype = 'relation' AND c.relkind IN ('r', 'p', 'm', 'v', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND NOT (c.oid = ANY(:oids))
"""
_FILENODES = (
    "SELECT oid::int, relfilenode::int, pg_relation_size(oid) FROM pg_class WHERE oid = ANY(:oids)"
)
_SERIAL = (
    "SET max_parallel_maintenance_workers = 0",
    "SET max_parallel_workers_per_gather = 0",
)
"""The migration runs without parallel workers: a worker's reads are counted in its own
statistics, not the backend's, and a full scan would go unseen."""
PROBE_TIMEOUT_MS = 50
"""How long the second session waits for a lock before it counts as blocked."""


@dataclass(frozen=True)
class Relation:
    oid: int
    qualified: str
    name: str
    kind: str
    root: int


def _mode(label: str) -> Lock:
    return Lock[label.replace(" ", "_")]


@dataclass
class TableEffect:
    """What one statement (or a file, folded) did to one pre-existing table."""

    lock: str | None = None
    """The strongest lock mode held on it (`ACCESS EXCLUSIVE`), None when none."""
    locks: bool = False
    rewrites: bool = False
    scans: bool = False
    held_ms: float = 0.0
    """How long a lock blocking reads or writes (SHARE or stronger) was held, to commit."""
    read_blocked: bool | None = None
    write_blocked: bool | None = None
    """Whether a second session's read / write waited (None: not tried)."""

    def fold(self, other: TableEffect) -> None:
        if other.lock and (self.lock is None or _mode(other.lock) > _mode(self.lock)):
            self.lock = other.lock
        self.locks |= other.locks
        self.rewrites |= other.rewrites
        self.scans |= other.scans
        self.held_ms = max(self.held_ms, other.held_ms)
        for name in ("read_blocked", "write_blocked"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if theirs is not None:
                setattr(self, name, bool(mine) or theirs)


@dataclass
class StatementRun:
    """One statement as it ran: when (ms from the start of the release's first migration),
    what it did per table, and the error that stopped it."""

    line: int
    sql: str
    start_ms: float = 0.0
    end_ms: float = 0.0
    tables: dict[str, TableEffect] = field(default_factory=dict)
    error: str | None = None
    outside_transaction: bool = False
    new_tables: set[str] = field(default_factory=set)
    """Relations it locked that did not exist before the release (created by it or an
    earlier migration of the release): touched, but not reported as heavy."""


def _upper_head(statement: str) -> str:
    return statement.split(None, 1)[0].upper() if statement.strip() else ""


def outside_transaction(sql: str) -> bool:
    """Whether PostgreSQL refuses the statement inside a transaction block."""
    upper = sql.upper()
    concurrently = "CONCURRENTLY" in upper and not upper.lstrip().startswith("REFRESH")
    return concurrently or upper.lstrip().startswith("VACUUM")


class Observer:
    """Runs statements on a database and observes them. `relations`: the ones that existed
    before the release (the only ones reported); `rows`: how many rows each table held."""

    def __init__(
        self,
        target: Target,
        clock: Callable[[], float] = time.monotonic,
        second_session: bool = True,
    ) -> None:
        self.target = target
        self.second_session = second_session
        self.conn = target.connect("release-safety verify (migration)")
        self.other = target.connect("release-safety verify (second session)")
        self.blocker = target.connect("release-safety verify (blocker)")
        self.clock = clock
        self.elapsed_ms = 0.0
        """The migration's own clock: the time its statements and commits took, without the
        observing between them (what a tool running the files would take)."""
        self.relations: dict[int, Relation] = {}
        self.rows: dict[int, int] = {}
        self.flush = self._has_flush()

    def close(self) -> None:
        for conn in (self.conn, self.other, self.blocker):
            try:
                conn.close()
            except Exception:  # already gone: nothing to close
                continue

    def _has_flush(self) -> bool:
        rows = self.conn.run(
            "SELECT count(*) FROM pg_proc WHERE proname = 'pg_stat_force_next_flush'"
        )
        return bool(rows[0][0])

    @staticmethod
    def pid(conn: Connection) -> int:
        return int(conn.run("SELECT pg_backend_pid()")[0][0])

    def now_ms(self) -> float:
        return self.clock() * 1000.0

    def advance(self, run: StatementRun, wall_start: float, wall_end: float) -> None:
        """Place `run` on the migration's clock: it took wall_end - wall_start."""
        run.start_ms = round(self.elapsed_ms, 1)
        self.elapsed_ms += wall_end - wall_start
        run.end_ms = round(self.elapsed_ms, 1)

    def snapshot(self) -> None:
        """Take the relations that exist now as the pre-existing ones, with their row counts."""
        for setting in _SERIAL:
            self.conn.run(setting)
        found = [Relation(*row) for row in self.conn.run(RELATIONS)]
        self.relations = {r.oid: r for r in found}
        self.rows = {}
        for r in found:
            if r.kind in "rm":
                self.rows[r.oid] = int(self.conn.run(f"SELECT count(*) FROM {r.qualified}")[0][0])
        self.elapsed_ms = 0.0

    # -- names ---------------------------------------------------------------------------

    def names(self, sql: str) -> dict[int, str]:
        """Each pre-existing relation's reported name: its partition root's unless the SQL
        names the partition itself."""
        words = {w.strip('(),;"').lower() for w in sql.split()}
        words |= {w.rpartition(".")[2] for w in words}
        return {
            oid: r.name if r.name.lower() in words else self.relations[r.root].name
            for oid, r in self.relations.items()
            if r.root in self.relations
        }

    # -- counters --------------------------------------------------------------------------

    def _stats(self, conn: Connection, view: str) -> dict[int, tuple[int, ...]]:
        rows = conn.run(_STATS.format(view=view), oids=list(self.relations))
        return {int(r[0]): tuple(int(v or 0) for v in r[1:]) for r in rows}

    def _filenodes(self, conn: Connection) -> dict[int, tuple[int, int]]:
        rows = conn.run(_FILENODES, oids=list(self.relations))
        return {int(r[0]): (int(r[1]), int(r[2])) for r in rows}

    @staticmethod
    def _rewritten(
        before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]]
    ) -> set[int]:
        return {
            oid
            for oid, (node, size) in after.items()
            if node and oid in before and node != before[oid][0] and size > 0
        }

    def _work(
        self,
        before: dict[int, tuple[int, ...]],
        after: dict[int, tuple[int, ...]],
        rewritten: set[int],
    ) -> set[int]:
        """Relations on which work proportional to their rows ran: a full scan, as many index
        fetches or changed rows as it holds, or a rewrite."""
        work: set[int] = set(rewritten)
        for oid, (seq, seq_read, idx_fetch, changed) in after.items():
            b_seq, b_read, b_fetch, b_changed = before.get(oid, (0, 0, 0, 0))
            n = self.rows.get(oid, 0)
            full = (seq_read - b_read, idx_fetch - b_fetch, changed - b_changed)
            if (n and any(d >= n for d in full)) or (not n and seq > b_seq):
                work.add(oid)
        return work

    # -- the second session ----------------------------------------------------------------

    def _blocked(self, qualified: str, statement: str) -> bool:
        other = self.other
        other.run("BEGIN")
        try:
            other.run(f"SET LOCAL lock_timeout = '{PROBE_TIMEOUT_MS}ms'")
            other.run(statement.format(table=qualified))
        except DatabaseError as exc:
            # a probe that cannot run on it (a view, say) is not blocked
            return "lock timeout" in message_of(exc)
        finally:
            other.run("ROLLBACK")
        return False

    def probe(self, relation: Relation, mode: Lock) -> tuple[bool | None, bool | None]:
        """Whether a second session's read and write of `relation` wait behind the lock held
        now (tried only for a lock that may block them: SHARE or stronger)."""
        if not mode.blocks_traffic:
            return False, False
        read = self._blocked(relation.qualified, "SELECT 1 FROM {table} LIMIT 1")
        if relation.kind not in "rp":
            return read, None
        return read, self._blocked(relation.qualified, "DELETE FROM {table} WHERE false")

    # -- running ---------------------------------------------------------------------------

    def run_transaction(self, statements: Sequence[tuple[int, str]]) -> list[StatementRun]:
        """Statements in one transaction (explicit BEGIN / COMMIT in them honoured), each
        observed; locks taken count as held to the commit. The transaction is rolled back
        at the first error (as the migration tool would)."""
        conn = self.conn
        runs: list[StatementRun] = []
        opened: list[StatementRun] = []  # runs whose locks the open transaction still holds
        first_strong: dict[str, tuple[float, Lock]] = {}
        strong: set[str] = set()
        conn.run("BEGIN")
        for line, statement in statements:
            head = _upper_head(statement)
            if head in ("COMMIT", "END"):
                self._close(opened, first_strong)
                opened, first_strong, strong = [], {}, set()
                conn.run("BEGIN")
                continue
            if head in ("BEGIN", "START"):
                continue
            names = self.names(statement)
            before = self._stats(conn, "pg_stat_xact_user_tables")
            nodes = self._filenodes(conn)
            run = StatementRun(line, statement)
            runs.append(run)
            wall = self.now_ms()
            try:
                conn.run(statement)
            except DatabaseError as exc:
                self.advance(run, wall, self.now_ms())
                run.error = message_of(exc)
                conn.run("ROLLBACK")
                return runs
            self.advance(run, wall, self.now_ms())
            after = self._stats(conn, "pg_stat_xact_user_tables")
            rewritten = self._rewritten(nodes, self._filenodes(conn))
            work = self._work(before, after, rewritten)
            pid = self.pid(conn)
            oids = list(self.relations)
            run.new_tables = {str(r[0]) for r in conn.run(_NEW_RELATIONS, pid=pid, oids=oids)}
            held = [
                (oid, Lock.from_pg(mode))
                for oid, mode, _ in conn.run(_LOCKS, pid=pid)
                if oid in names
            ]
            modes: dict[str, Lock] = {}
            for oid, mode in held:
                table = names[oid]
                modes[table] = max(mode, modes.get(table, mode))
            for table, mode in modes.items():
                if mode.blocks_traffic:
                    strong.add(table)
                    first_strong.setdefault(table, (run.start_ms, mode))
            worked = {names[oid] for oid in work if oid in names}
            waits = head == "LOCK" or "PG_SLEEP" in statement.upper()
            for table in sorted(set(modes) | worked):
                effect = run.tables.setdefault(table, TableEffect())
                effect.lock = modes[table].label if table in modes else None
                effect.rewrites = any(names.get(o) == table for o in rewritten)
                effect.scans = table in worked
                effect.locks = (table in worked and table in strong) or (waits and table in strong)
                relation = self._relation(table, names)
                if table in modes and relation is not None and self.second_session:
                    effect.read_blocked, effect.write_blocked = self.probe(relation, modes[table])
            opened.append(run)
        self._close(opened, first_strong)
        return runs

    def _relation(self, table: str, names: dict[int, str]) -> Relation | None:
        for oid, name in sorted(names.items()):
            if name == table and self.relations[oid].name == table:
                return self.relations[oid]
        return None

    def _close(
        self, opened: list[StatementRun], first_strong: dict[str, tuple[float, Lock]]
    ) -> None:
        """At commit: each lock blocking traffic was held from its statement to the commit,
        counted as the time the statements took (not the observing between them)."""
        wall = self.now_ms()
        self.conn.run("COMMIT")
        self.elapsed_ms += self.now_ms() - wall
        for table, (since, _) in first_strong.items():
            for run in opened:
                effect = run.tables.get(table)
                if effect is not None and effect.lock and run.start_ms >= since:
                    effect.held_ms = round(self.elapsed_ms - run.start_ms, 1)

    def run_outside(self, line: int, statement: str) -> StatementRun:
        """A statement that cannot run in a transaction: its locks seen while it waits behind
        a SHARE UPDATE EXCLUSIVE holder, its work in the flushed cumulative statistics."""
        names = self.names(statement)
        run = StatementRun(line, statement, outside_transaction=True)
        runner = self.target.connect("release-safety verify (migration, outside a transaction)")
        try:
            search_path = self.conn.run("SHOW search_path")[0][0]
            runner.run(f"SET search_path = {search_path}")
            for setting in _SERIAL:
                runner.run(setting)
            pid = self.pid(runner)
            before, nodes = self._flushed(runner)
            tables = [r.qualified for r in self.relations.values() if r.kind in "rp"]
            self.blocker.run("BEGIN")
            if tables:
                self.blocker.run(f"LOCK TABLE {', '.join(tables)} IN SHARE UPDATE EXCLUSIVE MODE")
            errors: list[BaseException] = []
            finished: list[float] = []

            def work() -> None:
                try:
                    runner.run(statement)
                    finished.append(self.now_ms())
                    if self.flush:
                        runner.run("SELECT pg_stat_force_next_flush()")
                except BaseException as exc:  # reported below
                    errors.append(exc)

            thread = threading.Thread(target=work, daemon=True)
            thread.start()
            locks = self._waiting_locks(pid, thread)
            released = self.now_ms()
            self.blocker.run("ROLLBACK")
            thread.join()
            self.advance(run, released, finished[0] if finished else self.now_ms())
            if errors:
                run.error = message_of(errors[0])
                return run
            after, nodes_after = self._flushed(runner, settle=True)
        finally:
            runner.close()
        rewritten = self._rewritten(nodes, nodes_after)
        work_done = self._work(before, after, rewritten)
        modes: dict[str, Lock] = {}
        for oid, mode in locks:
            if oid in names:
                table = names[oid]
                modes[table] = max(mode, modes.get(table, mode))
        worked = {names[oid] for oid in work_done if oid in names}
        for table in sorted(set(modes) | worked):
            effect = run.tables.setdefault(table, TableEffect())
            strongest = modes.get(table)
            effect.lock = strongest.label if strongest else None
            effect.rewrites = any(names.get(o) == table for o in rewritten)
            effect.scans = table in worked
            effect.locks = bool(strongest and strongest.blocks_traffic and table in worked)
            if strongest is not None:  # from the conflict table: a probe would meet the blocker
                effect.read_blocked = strongest == Lock.ACCESS_EXCLUSIVE
                effect.write_blocked = strongest.blocks_traffic
                if strongest.blocks_traffic:
                    effect.held_ms = round(run.end_ms - run.start_ms, 1)
        return run

    def _flushed(
        self, runner: Connection, settle: bool = False
    ) -> tuple[dict[int, tuple[int, ...]], dict[int, tuple[int, int]]]:
        if self.flush:
            runner.run("SELECT pg_stat_force_next_flush()")
            if settle:
                time.sleep(0.05)
        elif settle:  # before 15 the statistics reach the view within PGSTAT_STAT_INTERVAL
            time.sleep(0.6)
        self.other.run("SELECT pg_stat_clear_snapshot()")
        return self._stats(self.other, "pg_stat_user_tables"), self._filenodes(self.other)

    def _waiting_locks(self, pid: int, thread: threading.Thread) -> list[tuple[int, Lock]]:
        deadline = time.monotonic() + 30
        while thread.is_alive() and time.monotonic() < deadline:
            held = self.other.run(
                "SELECT relation::int, mode, granted FROM pg_locks WHERE pid = :pid", pid=pid
            )
            if any(not granted for _, _, granted in held):
                return [(int(r), Lock.from_pg(m)) for r, m, _ in held if r is not None]
            time.sleep(0.005)
        return []
