"""One release verified on PostgreSQL: per database, a workspace (a throwaway server's or a
given server's), the previous release replayed, the touched tables seeded, each new file run
and observed as its tool runs it, then compared with the static flags."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from release_safety.contract.reports import Finding
from release_safety.contract.verification import FileVerification, Verification
from release_safety.verify import DEFAULT_ROWS, observe
from release_safety.verify.compare import agree, compare_file
from release_safety.verify.database import Target, of_server, parse_url, workspace
from release_safety.verify.plan import Database, FileRun, Plan
from release_safety.verify.replay import replay
from release_safety.verify.rules import UNVERIFIED
from release_safety.verify.seed import seed
from release_safety.verify.server import terminable, throwaway_server


@dataclass(frozen=True)
class Where:
    """The server to verify on: a throwaway one (`postgres`: its major version) or the one a
    `--database-url` names."""

    database_url: str | None = None
    postgres: int | None = None


@contextlib.contextmanager
def server_target(where: Where) -> Iterator[tuple[Target, bool]]:
    """Where to connect, and whether it is a throwaway server; stopped and removed on exit,
    error, Ctrl-C or SIGTERM."""
    if where.database_url is not None:
        yield parse_url(where.database_url), False
        return
    with terminable(), throwaway_server(where.postgres) as server:
        yield of_server(server), True


def _observe_file(observer: observe.Observer, file: FileRun) -> list[observe.StatementRun]:
    if file.one_transaction:
        return observer.run_transaction(file.statements)
    runs: list[observe.StatementRun] = []
    for line, sql in file.statements:
        if observe.outside_transaction(sql):
            runs.append(observer.run_outside(line, sql))
        else:
            runs.extend(observer.run_transaction([(line, sql)]))
        if runs and runs[-1].error:
            break
    return runs


def _database(
    target: Target, name: str, database: Database, rows: int
) -> tuple[
    int,
    Literal["scratch", "given"],
    dict[str, int],
    dict[str, str],
    list[str],
    list[FileVerification],
    list[Finding],
]:
    """One database's files: replayed, seeded, observed and compared in a fresh workspace."""
    with workspace(target) as space:
        conn = space.target.connect()
        try:
            problems = replay(conn, database.tool, database.replay)
            touched = sorted({t for f in database.observe for t in f.tables})
            seeded = seed(conn, touched, rows)
        finally:
            conn.close()
        observer = observe.Observer(space.target)
        verified: list[FileVerification] = []
        findings: list[Finding] = []
        try:
            observer.snapshot()
            stopped: str | None = None
            for file in database.observe:
                runs: list[observe.StatementRun] = []
                reason = stopped or file.unrunnable
                if reason is None:
                    runs = _observe_file(observer, file)
                    failed = next((r for r in runs if r.error), None)
                    if failed is not None:  # the tool stops at the first failed migration
                        stopped = f"an earlier migration failed ({file.path}:{failed.line})"
                elif file.unrunnable is not None and stopped is None:
                    stopped = f"an earlier migration could not run ({file.path})"
                result, found = compare_file(file, name, runs, reason, seeded.failed, rows)
                verified.append(result)
                findings.extend(found)
        finally:
            observer.close()
        return space.major, space.how, seeded.rows, seeded.failed, problems, verified, findings


def verify_plan(plan: Plan, where: Where, rows: int = DEFAULT_ROWS) -> Verification:
    """Run the plan's files on PostgreSQL and compare them with the static flags."""
    release = plan.release
    files: list[FileVerification] = []
    findings: list[Finding] = []
    seeded: dict[str, int] = {}
    failed: dict[str, str] = {}
    problems: list[str] = []
    major = 0
    server: Literal["throwaway", "scratch", "given"] = "throwaway"
    if plan.databases:  # a release without migrations needs no server
        with server_target(where) as (target, throwaway):
            for name, database in sorted(plan.databases.items()):
                major, how, rows_in, empty, trouble, verified, found = _database(
                    target, name, database, rows
                )
                if not throwaway:
                    server = how
                seeded.update(rows_in)
                failed.update(empty)
                problems.extend(trouble)
                files.extend(verified)
                findings.extend(found)
    if problems:
        findings.append(
            UNVERIFIED.finding(
                "migrations",
                f"the previous release's schema was built with {len(problems)} migration(s) "
                f"that did not run: {problems[0]}",
                problems[0].split(":", 1)[0],
                hint=UNVERIFIED.safe,
            )
        )
    return Verification(
        version=release.version,
        previousVersion=release.previous_version,
        fromRef=release.from_ref,
        toRef=release.to_ref,
        postgresMajor=major,
        server=server,
        rows=rows,
        seeded=dict(sorted(seeded.items())),
        seedFailed=dict(sorted(failed.items())),
        replayProblems=problems,
        agree=agree(files) and not problems,
        files=files,
        findings=sorted(findings, key=Finding.sort_key),
    )
