"""A surface's judgement of deltas: its rules, what it finds neutral on purpose, its docs page.

Like oasdiff's `checker/` beside `diff/`: the diff says what changed, a catalogue says what that
means. A delta matches the first rule (or neutral entry) of its direction and kind whose
condition holds; a delta nothing matches is `delta-not-judged`, of severity unknown: a kind the
rules forgot fails closed, never open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from release_safety.contract.finding import Finding, Rule, register
from release_safety.contract.kinds import Severity, Surface
from release_safety.surfaces.jsonschema.delta import (
    ACCEPTS_FEWER,
    ACCEPTS_MORE,
    Delta,
    Direction,
    Kind,
)

Side = Literal["request", "response", "operation", "api", "any"]
Say = Callable[[Delta[Any]], str]
When = Callable[[Delta[Any]], bool]


def always(delta: Delta[Any]) -> bool:
    """The condition of an entry that judges every delta of its kinds."""
    return True


@dataclass(frozen=True)
class DeltaRule:
    """One check: the deltas it judges (direction, kinds, condition) and how it words them."""

    id: str
    level: Severity
    direction: Side
    kinds: tuple[Enum, ...]
    title: str
    why: str
    unsafe: str
    safe: str
    say: Say
    when: When = always


@dataclass(frozen=True)
class Neutral:
    """Deltas that are reported by no rule, on purpose, and why."""

    direction: Side
    kinds: tuple[Enum, ...]
    why: str
    when: When = always


# Neutral for every surface: inputs may widen and outputs may narrow.
DIRECTIONAL = (
    Neutral(
        "request", ACCEPTS_MORE, "A request that accepts more still accepts what clients send."
    ),
    Neutral(
        "response",
        ACCEPTS_FEWER,
        "A response that promises more (sends fewer kinds of values) breaks no reader.",
    ),
    Neutral(
        "any",
        (Kind.OPEN_ENUM_WIDENED,),
        "The enum is declared open (`x-extensible-enum`, or beside a free-string branch).",
    ),
    Neutral(
        "any",
        (Kind.TUPLE_ITEM_ADDED,),
        "A new position at the end of a tuple: shorter arrays stay valid unless `minItems`"
        " grows, which is judged on its own.",
    ),
)

NOT_JUDGED = DeltaRule(
    "delta-not-judged",
    "unknown",
    "any",
    (),
    "A change no rule judges",
    "The diff found a change that no rule of the surface judges and that is not listed as"
    " neutral: it cannot be proven safe.",
    "a kind of change added to the diff without a rule",
    "Declare the break if it is one; the rule catalogue needs an entry for it.",
    lambda d: f"{d.kind.value} in the {d.direction} is judged by no rule",
)


def _register(rule: DeltaRule, surface: Surface | Literal["all"]) -> Rule:
    """The rule in the shared catalogue (`release-safety rules`, findings)."""
    return register(
        Rule(rule.id, surface, rule.level, rule.title, rule.why, rule.unsafe, rule.safe)
    )


NOT_JUDGED_RULE = _register(NOT_JUDGED, "all")


class Catalogue:
    """The rules and neutral entries of one surface, registered in the shared rule list."""

    def __init__(
        self,
        surface: Surface,
        rules: Sequence[DeltaRule],
        neutral: Sequence[Neutral],
        ways_out: Mapping[str, str] | None = None,
    ) -> None:
        self.ways_out = dict(ways_out or {})
        """Per rule id, the way out as a template of the case's `{subject}` (the property,
        parameter, operation or tool it happened to); the rule's `safe` text is the docs'."""
        self.rules = tuple(rules)
        self.neutral = tuple(neutral)
        self.by_key: dict[tuple[str, Enum], list[DeltaRule | Neutral]] = {}
        entries: list[DeltaRule | Neutral] = [*self.rules, *self.neutral]
        for entry in entries:
            for kind in entry.kinds:
                self.by_key.setdefault((entry.direction, kind), []).append(entry)
        self.surface = surface
        self.registered = {NOT_JUDGED.id: NOT_JUDGED_RULE}
        self.registered.update((r.id, _register(r, surface)) for r in self.rules)

    def finding(
        self, rule: DeltaRule, message: str, file: str, line: int, subject: str | None = None
    ) -> Finding:
        """A finding of one of the catalogue's rules; its hint written for `subject` (what the
        change happened to) where the rule has a way out for it."""
        way_out = self.ways_out.get(rule.id)
        hint = way_out.format(subject=subject) if way_out and subject else None
        return self.registered[rule.id].finding(self.surface, message, file, line, hint)

    def judge(self, delta: Delta[Any]) -> DeltaRule | None:
        """The rule a delta breaks or informs about; None when neutral on purpose."""
        for key in ((delta.direction, delta.kind), ("any", delta.kind)):
            for entry in self.by_key.get(key, ()):
                if entry.when(delta):
                    return entry if isinstance(entry, DeltaRule) else None
        return NOT_JUDGED

    def judged(self, direction: Direction, kind: Enum) -> bool:
        """Some rule or neutral entry is declared for the kind in that direction."""
        return (direction, kind) in self.by_key or ("any", kind) in self.by_key

    def render(self, title: str, intro: str, extra: Iterable[Rule]) -> str:
        """The Markdown page of the catalogue, with `extra` (rules not about deltas)."""
        lines = [f"# {title}", "", intro.strip(), ""]
        lines += ["| id | level | direction | judges | title |", "| --- | --- | --- | --- | --- |"]
        for r in self.rules:
            kinds = ", ".join(f"`{k.value}`" for k in r.kinds)
            lines.append(f"| `{r.id}` | {r.level} | {r.direction} | {kinds} | {_cell(r.title)} |")
        others = [*extra, NOT_JUDGED_RULE]
        lines += [f"| `{r.id}` | {r.severity} | any | — | {_cell(r.title)} |" for r in others]
        for r in self.rules:
            lines += ["", f"## `{r.id}`", "", f"Level: {r.level}. Direction: {r.direction}."]
            lines += ["", r.why, "", f"- Unsafe: {r.unsafe}", f"- Safe: {r.safe}"]
        for rule in others:
            lines += ["", f"## `{rule.id}`", "", f"Level: {rule.severity}.", "", rule.why]
            lines += ["", f"- Unsafe: {rule.unsafe}", f"- Safe: {rule.safe}"]
        lines += ["", "## Neutral on purpose", "", "| direction | changes | why |"]
        lines.append("| --- | --- | --- |")
        for n in self.neutral:
            kinds = ", ".join(f"`{k.value}`" for k in n.kinds)
            lines.append(f"| {n.direction} | {kinds} | {_cell(n.why)} |")
        return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
