"""`[rules] off = ["rule-id", ...]`: rules `lint-migrations` and `check-pr` do not report.

A release never loosens with them: `generate` and `backfill` weigh every rule as before, and
the settings surface (`surfaces/settingsdiff.py`) reports each rule turned off as an advisory
`rule-turned-off` finding, so the verdict a release gets is the one it would get without the
table. A single verdict-relevant finding is
acknowledged inline, with a reason, in the migration itself. The rules that guard the settings
and the release (`settings-narrowed`, `surface-not-checked`, ...) cannot be turned off.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from release_safety.common.errors import InputError
from release_safety.contract.finding import RULES, Rule

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from release_safety.contract.reports import SurfaceReport

_FIXED = ("settings", "release", "all")
"""Surfaces whose rules guard the checking itself: never turned off."""


def catalogue() -> dict[str, Rule]:
    """Every rule of every surface (importing `generate` registers them all)."""
    import release_safety.release.generate  # noqa: F401

    return RULES


def known(ids: Iterable[str]) -> dict[str, Rule]:
    """The registry to look these ids up in: the whole catalogue is loaded only when one of them
    is not registered yet."""
    return RULES if RULES.keys() >= set(ids) else catalogue()


def rules_off(ids: Iterable[str], where: str) -> frozenset[str]:
    """The rule ids, checked: an unknown id, or a rule that guards the checking, is bad input."""
    ids = tuple(ids)
    rules = known(ids)
    for rule_id in ids:
        rule = rules.get(rule_id)
        if rule is None:
            raise InputError(
                f"{where}: unknown rule {rule_id!r} (`release-safety rules` lists them)"
            )
        if rule.surface in _FIXED:
            raise InputError(f"{where}: rule {rule_id!r} guards the checking; it cannot be off")
    return frozenset(ids)


def without(reports: Sequence[SurfaceReport], off: frozenset[str]) -> list[SurfaceReport]:
    """The reports without the findings of the rules turned off."""
    return [
        r.model_copy(update={"findings": [f for f in r.findings if f.rule not in off]})
        for r in reports
    ]
