"""Inline acknowledgements: a maintainer accepts a migration rule's finding, with a reason.

    -- release-safety: acknowledge(blocking-table-lock): feature_flags holds one row per flag
    CREATE INDEX feature_flags_name_idx ON feature_flags (name);

The comment (any comment syntax of the file: `--` and `/* */` in SQL, `//` in knex files)
acknowledges the findings of the named rules on the first statement that starts at or after
its line. An acknowledged finding is kept, as an advisory that quotes the reason, so the evidence
and the notes say what was accepted and why; nothing is dropped silently. The reason must say
something (the hollow-reason rules of declared breaks). An acknowledgement that is malformed,
names an unknown rule or gives a hollow reason acknowledges nothing and is an unknown finding;
one that matches no finding is an advisory. The peers' forms are the model: squawk's
`-- squawk-ignore rule`, Atlas's `--atlas:nolint`, eugene's `-- eugene: ignore`; this one always
carries a reason.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from functools import cache

from release_safety.contract.finding import RULES, Finding
from release_safety.surfaces.migrations.rules.ids import RuleId
from release_safety.surfaces.migrations.rules.registered import (
    ACKNOWLEDGEMENT_INVALID,
    ACKNOWLEDGEMENT_UNUSED,
)

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from release_safety.surfaces.annotations import Parsed

UNACKNOWLEDGEABLE = frozenset(
    {
        RuleId.MIGRATION_UNPARSEABLE,
        RuleId.MIGRATION_OVER_BUDGET,
        RuleId.MIGRATION_NOT_READ,
        ACKNOWLEDGEMENT_INVALID.id,
        ACKNOWLEDGEMENT_UNUSED.id,
    }
)
"""Rules no acknowledgement can accept: a file nothing is known about, and these rules' own."""


@cache
def _migration_rules() -> frozenset[str]:
    return frozenset(rule_id for rule_id, rule in RULES.items() if rule.surface == "migrations")


def _problem(path: str, line: int, message: str, hint: str) -> Finding:
    return ACKNOWLEDGEMENT_INVALID.finding("migrations", message, path, line, hint)


def _invalid(
    attempt: Parsed, path: str, known: frozenset[str], here: Sequence[str]
) -> Finding | None:
    """Why an acknowledgement cannot be applied, as a finding; None when it can. `here`: the
    rules of the findings on the statement after it, which the way out names."""
    from release_safety.surfaces.annotations import Annotation

    rules = ", ".join(here) or "<rule>"
    form = f"`-- release-safety: acknowledge({rules}): <why it is safe on this statement>`"
    if not isinstance(attempt, Annotation):
        message = f"malformed acknowledgement: {attempt.problem}"
        return _problem(path, attempt.line, message, f"Write it as {form}.")
    unknown = [r for r in attempt.rules if r not in known or r in UNACKNOWLEDGEABLE]
    if unknown:
        names = ", ".join(repr(r) for r in unknown)
        message = f"acknowledgement names no migration rule: {names}"
        found = f" (the next statement's findings: {', '.join(here)})" if here else ""
        hint = f"Name the rule of the finding it accepts{found}: {form}."
        return _problem(path, attempt.line, message, hint)
    from release_safety.settings.reasons import hollow_reason  # only a file that acknowledges

    hollow = hollow_reason(attempt.reason)
    if hollow:
        message = f"acknowledgement reason is hollow: {hollow}"
        hint = (
            f"Say in words why acknowledge({', '.join(attempt.rules)}) is safe on this "
            "statement (the table's size, who reads it while it runs)."
        )
        return _problem(path, attempt.line, message, hint)
    return None


def _on_statement(
    findings: Sequence[Finding], statement_lines: Sequence[int], line: int
) -> list[int]:
    """The indexes of the findings on the statement that starts after `line`: on its first
    line, or on a line within (a DO block's)."""
    at = bisect_left(statement_lines, line)
    if at >= len(statement_lines):
        return []
    target = statement_lines[at]
    end = statement_lines[at + 1] if at + 1 < len(statement_lines) else None
    return [
        i
        for i, f in enumerate(findings)
        if f.line is not None and target <= f.line and (end is None or f.line < end)
    ]


def acknowledge(
    findings: Sequence[Finding],
    attempts: Sequence[Parsed],
    statement_lines: Sequence[int],
    path: str,
) -> list[Finding]:
    """The file's findings with its acknowledgements applied, plus findings about them.

    `attempts` are the file's annotation attempts (only those of kind `acknowledge` count);
    `statement_lines` the sorted first lines of its statements.
    """
    if not attempts:
        return list(findings)
    # loaded only here: the declarations surface is a large import most files never need
    from release_safety.surfaces.annotations import ACKNOWLEDGE, Annotation

    known = _migration_rules()
    out = list(findings)
    extra: list[Finding] = []
    for attempt in (a for a in attempts if a.kind == ACKNOWLEDGE):
        near = _on_statement(out, statement_lines, attempt.line)
        here = list(dict.fromkeys(out[i].rule for i in near))
        problem = _invalid(attempt, path, known, here)
        if problem is not None:
            extra.append(problem)
            continue
        assert isinstance(attempt, Annotation)
        hits = [i for i in near if out[i].rule in attempt.rules]
        where = f"{path}:{attempt.line}: {attempt.reason}"
        for i in hits:
            out[i] = out[i].replace(
                severity="advisory",
                message=f"{out[i].message} (acknowledged at {where})",
                acknowledged=where,
            )
        if not hits:
            rules = ", ".join(attempt.rules)
            message = f"acknowledgement of {rules} matches no finding on the statement after it"
            hint = (
                f"Name the next statement's rules instead (acknowledge({', '.join(here)}))"
                if here
                else "The statement after it has no finding: remove it"
            ) + f", or move it right above the statement whose {rules} finding it accepts."
            extra.append(
                ACKNOWLEDGEMENT_UNUSED.finding("migrations", message, path, attempt.line, hint)
            )
    return [*out, *extra]
