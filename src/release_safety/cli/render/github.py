"""GitHub renderings of the pull-request gate: workflow-command annotations, the sticky comment.

GitHub shows at most 10 error, 10 warning and 10 notice annotations per step; the rest are
listed in the job summary (`overflow_section`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from release_safety.cli.render.annotations import Annotation, gate_shown
from release_safety.contract.model import DeclaredBreak
from release_safety.contract.reports import SURFACES, Finding
from release_safety.release.pullrequest import Covered, GateResult

MARKER = "<!-- release-safety:pr-gate -->"
ANNOTATION_CAP = 10
ROW_CAP = 50
COMMENT_LIMIT = 60_000
"""GitHub refuses comment bodies over 65,536 characters; leave room for the tail."""

SURFACE_TITLES = {
    "migrations": "Database migrations",
    "rest": "REST API",
    "mcp": "MCP tools",
    "config": "Configuration",
    "deployment": "Deployment",
    "declarations": "Declarations",
    "overrides": "Upgrade overrides",
    "settings": "Settings",
    "release": "Release",
}


def gate_annotations(result: GateResult) -> tuple[list[Annotation], list[Annotation]]:
    """The annotations GitHub will show, and those over its per-step caps."""
    wanted = [Annotation.of(s) for s in gate_shown(result)]
    shown: list[Annotation] = []
    overflow: list[Annotation] = []
    counts: dict[str, int] = {}
    for a in wanted:
        counts[a.level] = counts.get(a.level, 0) + 1
        (shown if counts[a.level] <= ANNOTATION_CAP else overflow).append(a)
    return shown, overflow


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def _where(f: Finding | DeclaredBreak) -> str:
    if f.file is None:
        return "–"
    return f"`{_cell(f.file)}:{f.line}`" if f.line else f"`{_cell(f.file)}`"


def headline(result: GateResult) -> str:
    """One plain-language sentence saying whether the pull request may merge, and why."""
    narrowing = [f for f in result.uncovered if f.surface == "settings"]
    if len(narrowing) == len(result.uncovered) and narrowing:
        n = len(narrowing)
        return (
            f"⛔ This pull request narrows what release-safety checks ({n} settings"
            f" change{'s' if n > 1 else ''}) without declaring it: a break could go unseen."
        )
    if result.uncovered:
        n = len(result.uncovered) - len(narrowing)
        return (
            f"⛔ This pull request brings {n} undeclared breaking change{'s' if n > 1 else ''}:"
            " servers of the previous release, still running during a rolling update, would"
            " break."
        )
    if result.problems:
        n = len(result.problems)
        return (
            f"⛔ {n} declaration{'s are' if n > 1 else ' is'} malformed or hollow: operators"
            " cannot read what breaks."
        )
    if result.covered or result.declared:
        return (
            "✅ This pull request declares its breaking changes: it may merge, and the release"
            " that ships it will need the Recreate strategy."
        )
    if result.warnings and not result.passed:
        return (
            f"⛔ UNKNOWN fails this gate (--fail-on unknown): {_unproven(result.warnings)}; make "
            "each one provable (the hint of each says how), or declare it."
        )
    if result.warnings:
        return (
            f"⚠️ UNKNOWN: no undeclared break found, but {_unproven(result.warnings)}: the pull"
            " request may merge, and the release that ships it cannot be proven safe to roll."
        )
    return "✅ No breaking change found: this pull request keeps rolling updates safe."


def _unproven(warnings: Sequence[Finding]) -> str:
    """The unknown findings the gate's outcome rests on, counted by rule."""
    counts = Counter(f.rule for f in warnings)
    rules = ", ".join(f"{rule} ×{n}" if n > 1 else rule for rule, n in sorted(counts.items()))
    n = len(warnings)
    return f"{n} finding{'s' if n > 1 else ''} could not be proven either way ({rules})"


def _table(rows: Sequence[tuple[str, str, str, str, str]]) -> list[str]:
    lines = ["| | rule | where | what | declared by |", "| --- | --- | --- | --- | --- |"]
    for mark, rule, where, what, cover in rows[:ROW_CAP]:
        lines.append(f"| {mark} | `{rule}` | {where} | {_cell(what)} | {_cell(cover)} |")
    if len(rows) > ROW_CAP:
        lines.append(f"| | | | … and {len(rows) - ROW_CAP} more | |")
    return lines


def _rows(result: GateResult, surface: str) -> list[tuple[str, str, str, str, str]]:
    covered: dict[Finding, Covered] = {c.finding: c for c in result.covered}
    rows: list[tuple[str, str, str, str, str]] = []
    for f in sorted([*result.uncovered, *covered], key=Finding.sort_key):
        if f.surface != surface:
            continue
        if f in covered:
            d = covered[f].declaration
            rows.append(("✅", f.rule, _where(f), f.message, f"{_where(d)}: {d.reason}"))
        else:
            rows.append(("⛔", f.rule, _where(f), f.message, "**not declared**"))
    for f in result.problems:
        if f.surface == surface:
            rows.append(("⛔", f.rule, _where(f), f.message, "fix the declaration"))
    for f in result.warnings:
        if f.surface == surface:
            rows.append(("⚠️", f.rule, _where(f), f.message, "not proven either way"))
    return rows


def _unblock(result: GateResult) -> list[str]:
    hints = sorted({f.hint for f in result.uncovered if f.hint})
    lines = [
        "### How to unblock",
        "",
        "1. **Redesign the change as expand/contract** (preferred): keep the old shape while any"
        " supported release still uses it (add the new column, field or variable first; remove"
        " the old one in a later release). The release stays safe to roll.",
    ]
    lines += [f"   - {_cell(h)}" for h in hints[:ROW_CAP]]
    lines += [
        "2. **Or declare the break** in this pull request, in a comment of the file that"
        " breaks (`-- release-safety: breaking <what breaks and for whom>` in SQL, `#` or `//`"
        " elsewhere; add `(required-stop)` when every upgrade must pass through this release),"
        " or as a new entry of `release-safety.declarations.json` where no comment can live."
        " The consequence is for operators: the release is not safe to roll, **they must use"
        " the Recreate strategy** (stop, change tag, start).",
    ]
    if result.problems:
        lines.append(
            "3. **Fix the malformed or hollow declarations**: follow the grammar and say what"
            " breaks and for whom."
        )
    return lines


def _brings(result: GateResult, settings: Sequence[Finding]) -> list[str]:
    """What the pull request accepts or changes besides its breaks: acknowledgements, the
    overrides it adds or removes, its settings changes."""
    lines: list[str] = []
    if result.acknowledged:
        lines += [
            "### Acknowledged in this pull request",
            "",
            "| rule | where | finding | reason |",
            "| --- | --- | --- | --- |",
        ]
        for f in result.acknowledged[:ROW_CAP]:
            reason = (f.acknowledged or "").split(": ", 1)[-1]
            lines.append(f"| `{f.rule}` | {_where(f)} | {_cell(f.message)} | {_cell(reason)} |")
        lines.append("")
    changed = [("added", f) for f in result.overrides_added]
    changed += [("⛔ removed", f) for f in result.overrides_removed]
    if changed:
        lines += ["### Upgrade overrides in this pull request", ""]
        lines += [f"- {how}: {_where(f)} {_cell(f.message)}" for how, f in changed[:ROW_CAP]]
        lines.append("")
    # the narrowings are in the settings table above; the changes that only add are here
    shown = [f for f in settings if f.severity == "advisory" and not f.acknowledged]
    if shown:
        lines += ["### Settings changed in this pull request", ""]
        lines += [f"- ℹ️ {_where(f)} `{f.rule}`: {_cell(f.message)}" for f in shown[:ROW_CAP]]
        lines.append("")
    return lines


def comment_body(result: GateResult, base: str, head: str, settings: Sequence[Finding] = ()) -> str:
    """The sticky comment: marker, headline, a table per surface, what the pull request
    accepts or changes (`settings`: its settings changes), how to unblock."""
    lines = [MARKER, f"## {headline(result)}", ""]
    lines.append(f"Checked `{base[:12]}`..`{head[:12]}` (merge base to head) with every surface.")
    if result.not_checked:
        names = ", ".join(SURFACE_TITLES[s] for s in result.not_checked)
        lines.append(f"Not checked: {names}.")
    lines.append("")
    for surface in (*SURFACES, "release"):
        rows = _rows(result, surface)
        if rows:
            lines += [f"### {SURFACE_TITLES[surface]}", "", *_table(rows), ""]
    if result.declared:
        lines += ["### Declared in this pull request", ""]
        for d in result.declared[:ROW_CAP]:
            stop = " (required stop)" if d.requiredStop else ""
            lines.append(f"- {_where(d)}{stop}: {_cell(d.reason)}")
        lines.append("")
    lines += _brings(result, settings)
    if not result.passed:
        lines += [*_unblock(result), ""]
    body = "\n".join(lines).rstrip("\n") + "\n"
    if len(body) > COMMENT_LIMIT:
        body = body[:COMMENT_LIMIT] + "\n\n… cut to GitHub's size limit: see the job summary.\n"
    return body


def overflow_section(overflow: Sequence[Annotation]) -> str:
    """The annotations GitHub would not show, as a Markdown list for the job summary."""
    if not overflow:
        return ""
    lines = [f"### Not shown as annotations ({len(overflow)})", ""]
    for a in overflow:
        f = a.finding
        lines.append(f"- **{a.level}** {_where(f)} `{f.rule}`: {_cell(f.message)}")
    return "\n".join(lines) + "\n"
