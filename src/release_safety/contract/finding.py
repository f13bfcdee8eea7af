"""One finding and the rule that produces it, without pydantic (so `lint-migrations` starts
fast); `findings` adds the surface reports, which pydantic validates, findings included.

A finding says what was seen (rule id, severity, file, line, message) and how to do it safely
(hint). Severity decides the verdict:

- ``breaking``: a proven break for the previous release's running code or its clients;
- ``unknown``: something could not be proven either way (unparseable file, dynamic SQL, ...);
- ``advisory``: worth knowing, never changes the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal

Severity = Literal["breaking", "unknown", "advisory"]
Surface = Literal[
    "migrations", "rest", "mcp", "config", "deployment", "declarations", "overrides", "settings"
]
SURFACES: tuple[Surface, ...] = (
    "migrations",
    "rest",
    "mcp",
    "config",
    "deployment",
    "declarations",
    "overrides",
    "settings",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One observation with its place in the repository and a rule id."""

    # pydantic reads this where a finding is a model's field (a report read back refuses keys
    # a finding does not have).
    # (and a published schema, the evidence's, requires every key a finding always writes)
    __pydantic_config__: ClassVar[dict[str, object]] = {
        "extra": "forbid",
        "json_schema_serialization_defaults_required": True,
    }

    rule: str
    severity: Severity
    surface: Surface | Literal["release"]
    file: str | None = None
    line: int | None = None
    message: str
    hint: str | None = None
    acknowledged: str | None = None
    """Where and why a maintainer accepted the finding (`file:line: reason`); it is then an
    advisory whatever its rule's severity."""

    def place(self) -> str | None:
        """Where it is, for text: `file:line`, the file alone when no line is known (never a
        made-up line), None without a file."""
        if self.file is None:
            return None
        return self.file if self.line is None else f"{self.file}:{self.line}"

    def sort_key(self) -> tuple[str, str, int, str, str]:
        return (self.surface, self.file or "", self.line or 0, self.rule, self.message)

    def to_dict(self, *, omit_none: bool = False) -> dict[str, Any]:
        """The finding as JSON data, in field order (without the fields that are None when
        `omit_none`)."""
        return {
            name: value
            for name in _FIELDS
            if (value := getattr(self, name)) is not None or not omit_none
        }


_FIELDS = tuple(f.name for f in fields(Finding))


@dataclass(frozen=True)
class Rule:
    """A rule is data plus the code that applies it: id, title, why, unsafe and safe examples."""

    id: str
    surface: Surface | Literal["all", "release"]
    severity: Severity
    title: str
    why: str
    unsafe: str = ""
    safe: str = ""

    def finding(
        self,
        surface: Surface,
        message: str,
        file: str | None = None,
        line: int | None = None,
        hint: str | None = None,
    ) -> Finding:
        """A finding of this rule; the hint is the rule's safe alternative unless given."""
        return Finding(
            rule=self.id,
            severity=self.severity,
            surface=surface,
            file=file,
            line=line,
            message=message,
            hint=hint or self.safe or None,
        )


RULES: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    """Add a rule to the catalogue; ids are unique across every surface."""
    if rule.id in RULES and RULES[rule.id] != rule:
        raise ValueError(f"rule id {rule.id!r} registered twice")
    RULES[rule.id] = rule
    return rule
