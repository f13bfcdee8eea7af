"""The static flags beside the observed ones (pure): per file and table, and the findings where
they part.

A table PostgreSQL locked, rewrote or scanned while the file's static flag is `false` is
`static-missed` (breaking); a file flag the static analysis set `true` that no table showed is
`static-heavier` (advisory). A static `unknown` is neither: it already makes the release
unsafe. A file that could not run is `unverified` with the reason, never agreement; so is a
scan or lock flag on a table the seeding left empty (its work depends on its size).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from release_safety.contract.model import Heaviness
from release_safety.contract.reports import Finding
from release_safety.contract.verification import (
    FileVerification,
    LockSpan,
    Observed,
    StatementRun,
    TableVerification,
)
from release_safety.verify import observe
from release_safety.verify.plan import FileRun
from release_safety.verify.rules import STATIC_HEAVIER, STATIC_MISSED, UNVERIFIED

_FLAGS = (
    ("locksTable", "locks", "held a lock blocking traffic on it while working on its rows"),
    ("rewritesTable", "rewrites", "rewrote it"),
    ("scansTable", "scans", "read or changed every row of it"),
)


def _first_line(sql: str) -> str:
    line = sql.strip().splitlines()[0] if sql.strip() else ""
    return line if len(line) <= 120 else line[:117] + "..."


def statement_model(run: observe.StatementRun) -> StatementRun:
    return StatementRun(
        line=run.line,
        sql=_first_line(run.sql),
        startMs=round(run.start_ms, 1),
        endMs=round(run.end_ms, 1),
        outsideTransaction=run.outside_transaction,
        locks=[
            LockSpan(table=table, mode=effect.lock, heldMs=effect.held_ms)
            for table, effect in sorted(run.tables.items())
            if effect.lock
        ],
        error=run.error,
    )


def fold(runs: Sequence[observe.StatementRun]) -> dict[str, tuple[observe.TableEffect, int]]:
    """Per table, what the file did to it, with the line of the first statement that did."""
    tables: dict[str, tuple[observe.TableEffect, int]] = {}
    for run in runs:
        for table, effect in run.tables.items():
            folded, line = tables.setdefault(table, (observe.TableEffect(), run.line))
            heavier = (effect.locks, effect.rewrites, effect.scans)
            if any(heavier) and not any((folded.locks, folded.rewrites, folded.scans)):
                line = run.line
            folded.fold(effect)
            tables[table] = (folded, line)
    return tables


def _observed(effect: observe.TableEffect) -> Observed:
    return Observed(
        locksTable=effect.locks,
        rewritesTable=effect.rewrites,
        scansTable=effect.scans,
        lockHeldMs=effect.held_ms,
        lock=effect.lock,
        readBlocked=effect.read_blocked,
        writeBlocked=effect.write_blocked,
    )


def compare_file(
    file: FileRun,
    database: str,
    runs: Sequence[observe.StatementRun],
    unverified: str | None,
    empty: Mapping[str, str],
    rows: int,
) -> tuple[FileVerification, list[Finding]]:
    """One file's verification and its findings. `empty`: tables the seeding left empty, with
    why; `rows`: how many rows each seeded table held."""
    findings: list[Finding] = []
    failed = next((r for r in runs if r.error), None)
    if unverified is None and failed is not None:
        unverified = f"line {failed.line}: PostgreSQL refused it: {failed.error}"
    statements = [statement_model(r) for r in runs]
    if unverified is not None:
        line = failed.line if failed is not None else None
        findings.append(
            UNVERIFIED.finding(
                "migrations",
                f"not verified on PostgreSQL: {unverified}",
                file.path,
                line,
                hint=UNVERIFIED.safe,
            )
        )
        verification = FileVerification(
            file=file.path,
            database=database,
            static=file.static,
            observed=None,
            unverified=unverified,
            tables=[],
            statements=statements,
        )
        return verification, findings
    tables = fold(runs)
    observed = Heaviness(
        locksTable=any(e.locks for e, _ in tables.values()),
        rewritesTable=any(e.rewrites for e, _ in tables.values()),
        scansTable=any(e.scans for e, _ in tables.values()),
    )
    static = file.static
    named = {t.rpartition(".")[2] for t in file.tables}
    rows_of = f"{rows:,} rows"
    for table, (effect, line) in sorted(tables.items()):
        for name, attribute, did in _FLAGS:
            if not getattr(effect, attribute) or static is None:
                continue
            if getattr(static, name) is False:
                held = f", lock held {effect.held_ms:.0f} ms" if effect.held_ms else ""
                findings.append(
                    STATIC_MISSED.finding(
                        "migrations",
                        f"PostgreSQL {did} ({table}, {effect.lock or 'no lock'}{held}, "
                        f"{rows_of}) but the static analysis set {name} false: the release is "
                        "not safe, and the static rule that read this statement is wrong",
                        file.path,
                        line,
                        hint=STATIC_MISSED.safe,
                    )
                )
    if static is not None:
        for name, attribute, _ in _FLAGS:
            if getattr(static, name) is True and not getattr(observed, name):
                sizes = [t for t in named if t in empty]
                if sizes and attribute != "rewrites":
                    findings.append(
                        UNVERIFIED.finding(
                            "migrations",
                            f"{name} not verified: {', '.join(sorted(sizes))} could not be "
                            f"seeded ({empty[sorted(sizes)[0]]})",
                            file.path,
                            hint=UNVERIFIED.safe,
                        )
                    )
                    continue
                findings.append(
                    STATIC_HEAVIER.finding(
                        "migrations",
                        f"the static analysis set {name} true; on PostgreSQL with {rows_of} "
                        "seeded, no table showed it",
                        file.path,
                    )
                )
    verification = FileVerification(
        file=file.path,
        database=database,
        static=static,
        observed=observed,
        unverified=None,
        tables=[
            TableVerification(
                table=table,
                static=static if table in named or not named else None,
                observed=_observed(effect),
            )
            for table, (effect, _) in sorted(tables.items())
        ],
        statements=statements,
    )
    return verification, findings


def agree(files: Sequence[FileVerification]) -> bool:
    """Every file ran, and its observed flags are its static ones (a static `unknown` agrees
    with either answer: it claims nothing)."""
    for file in files:
        if file.observed is None or file.static is None:
            return False
        for name, _, _ in _FLAGS:
            said = getattr(file.static, name)
            if said != "unknown" and said != getattr(file.observed, name):
                return False
    return True
