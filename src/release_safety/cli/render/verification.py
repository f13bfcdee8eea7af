"""`verify-migrations` as text and as Markdown (with a Mermaid timeline of the locks each
statement held, which GitHub renders in a pull-request comment)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from release_safety.contract.model import Heaviness
from release_safety.contract.reports import Finding
from release_safety.contract.verification import FileVerification, Verification

_LETTERS = (("locksTable", "l"), ("rewritesTable", "r"), ("scansTable", "s"))


def letters(flags: Heaviness | None) -> str:
    """`l-s` for locks and scans; `?` for an unknown flag; `n/a` for none."""
    if flags is None:
        return "n/a"
    out = []
    for name, letter in _LETTERS:
        value = getattr(flags, name)
        out.append(letter if value is True else "?" if value == "unknown" else "-")
    return "".join(out)


def _blocked(value: bool | None) -> str:
    return "-" if value is None else "blocked" if value else "free"


def headline(v: Verification) -> str:
    server = {
        "throwaway": "a throwaway server",
        "scratch": "a scratch database",
        "given": "the given database",
    }[v.server]
    since = f" (from {v.previousVersion or v.fromRef})" if v.fromRef else ""
    if not v.files:
        return f"{v.version}{since}: the release adds no migration, nothing was run"
    return (
        f"{v.version}{since}: {len(v.files)} migration(s) run on PostgreSQL {v.postgresMajor} "
        f"({server}), {v.rows:,} rows seeded per touched table"
    )


def summary(v: Verification) -> str:
    counts: dict[str, int] = {}
    for f in v.findings:
        counts[f.rule] = counts.get(f.rule, 0) + 1
    if not v.files:
        return "nothing to verify: the release adds no migration"
    said = ", ".join(f"{n} {rule}" for rule, n in sorted(counts.items()))
    verdict = "static and observed agree" if v.agree else "static and observed differ"
    return f"{verdict}" + (f" ({said})" if said else "")


def _rows(file: FileVerification) -> list[list[str]]:
    rows = []
    for t in file.tables:
        o = t.observed
        rows.append(
            [
                t.table,
                letters(t.static),
                letters(
                    Heaviness(
                        locksTable=o.locksTable,
                        rewritesTable=o.rewritesTable,
                        scansTable=o.scansTable,
                    )
                ),
                o.lock or "-",
                f"{o.lockHeldMs:.0f} ms" if o.lockHeldMs else "-",
                _blocked(o.readBlocked),
                _blocked(o.writeBlocked),
            ]
        )
    return rows


_HEAD = ["table", "static", "observed", "strongest lock", "blocking lock held", "read", "write"]


def text(v: Verification) -> str:
    """The report for a terminal: per file, each table's static and observed flags (`lrs`:
    locks, rewrites, scans), its lock and hold time, a second session's read and write."""
    lines = [headline(v), ""]
    for file in v.files:
        state = f"static {letters(file.static)}, observed {letters(file.observed)}"
        lines.append(f"{file.file}: {state}")
        if file.unverified:
            lines.append(f"  unverified: {file.unverified}")
        rows = _rows(file)
        if rows:
            widths = [max(len(r[i]) for r in [_HEAD, *rows]) for i in range(len(_HEAD))]
            for row in [_HEAD, *rows]:
                lines.append(
                    "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
                )
        lines.append("")
    for problem in v.replayProblems:
        lines.append(f"replay: {problem}")
    for seedless, why in v.seedFailed.items():
        lines.append(f"seeding: {seedless} left empty: {why}")
    lines.extend(_finding_line(f) for f in v.findings)
    lines.append(summary(v))
    return "\n".join(lines) + "\n"


def _finding_line(f: Finding) -> str:
    place = f.place() or "-"
    return f"{place}: {f.severity}: {f.rule}: {f.message}"


_UNSAFE_NAME = re.compile(r"[:#;\n]")


def _name(text: str) -> str:
    return _UNSAFE_NAME.sub(" ", text).strip()


def timeline(v: Verification) -> str:
    """A Mermaid gantt chart: per file, a bar for each statement and, for each lock blocking
    traffic it took, a bar from the statement to the commit (milliseconds)."""
    lines = [
        "```mermaid",
        "gantt",
        f"  title Locks held by {_name(v.version)} (PostgreSQL {v.postgresMajor}, {v.rows:,} rows)",
        "  dateFormat x",
        "  axisFormat %S.%L s",
    ]
    for file in v.files:
        if not file.statements:
            continue
        lines.append(f"  section {_name(file.file.rpartition('/')[2])}")
        shown: set[tuple[str, int]] = set()
        for s in file.statements:
            start = int(s.startMs)
            end = max(int(s.endMs), start + 1)
            tag = "crit, " if s.error else ""
            lines.append(f"  line {s.line} {_name(s.sql)[:40]} :{tag}{start}, {end}")
            for lock in s.locks:
                held_end = start + max(int(lock.heldMs), 1)
                if lock.heldMs and lock.mode in _BLOCKING and (lock.table, held_end) not in shown:
                    shown.add((lock.table, held_end))
                    lines.append(f"  {_name(lock.table)} {lock.mode} :crit, {start}, {held_end}")
    lines.append("```")
    return "\n".join(lines)


_BLOCKING = {"SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(v: Verification) -> str:
    """The report as Markdown: the headline, one table per file, the findings, the timeline."""
    out = ["### Migrations verified on PostgreSQL", "", headline(v) + ".", ""]
    for file in v.files:
        out.append(
            f"**`{file.file}`**: static `{letters(file.static)}`, observed "
            f"`{letters(file.observed)}`"
        )
        out.append("")
        if file.unverified:
            out.extend([f"Unverified: {_cell(file.unverified)}", ""])
        rows = _rows(file)
        if rows:
            out.append("| " + " | ".join(_HEAD) + " |")
            out.append("|" + "---|" * len(_HEAD))
            out.extend("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows)
            out.append("")
    if v.findings:
        out.extend(_finding_items(v.findings))
        out.append("")
    out.extend([summary(v) + ".", "", timeline(v), ""])
    out.append(
        "Flags: `l` locks a table against traffic while working on its rows, `r` rewrites it, "
        "`s` reads or changes every row; `?` unknown. Times are measured on the seeded rows, "
        "not extrapolated."
    )
    return "\n".join(out) + "\n"


def _finding_items(findings: Sequence[Finding]) -> list[str]:
    return [
        f"- **{f.severity}** `{f.rule}` {('`' + (f.place() or '') + '` ') if f.file else ''}"
        f"{_cell(f.message)}"
        for f in findings
    ]


def hold_times(v: Verification) -> list[str]:
    """One line per table a lock blocking traffic was held on, for the release notes."""
    lines = []
    for file in v.files:
        for t in file.tables:
            if t.observed.lockHeldMs:
                lines.append(
                    f"- `{file.file}`: {t.table} held {t.observed.lock} "
                    f"{t.observed.lockHeldMs:.0f} ms ({v.rows:,} rows, PostgreSQL "
                    f"{v.postgresMajor})"
                )
    return lines


def verification_notes(v: Verification) -> str:
    """The notes' section of `generate --verify`: what PostgreSQL showed, the hold times."""
    lines = ["", "### Migrations run on PostgreSQL", "", headline(v) + ".", ""]
    lines.extend(hold_times(v) or ["- No lock blocking reads or writes was held."])
    lines.extend(
        ["", summary(v) + ". Times are measured on the seeded rows, not extrapolated.", ""]
    )
    return "\n".join(lines)
