"""One finding and the rule that produces it, without pydantic (so `lint-migrations` starts
fast); `findings` adds the surface reports, which pydantic validates, findings included.

A finding says what was seen (rule id, severity, file, line, message) and how to do it safely
(hint). Severity decides the verdict:

- ``breaking``: a proven break for the previous release's running code or its clients;
- ``unknown``: something could not be proven either way (unparseable file, dynamic SQL, ...);
- ``advisory``: worth knowing, never changes the verdict.

`Finding` and `Rule` are plain classes, not dataclasses: importing `dataclasses` (and with it
`inspect`, `ast`, `dis`) would cost a one-file lint a third of its start. They are immutable
(a finding at run time, a rule to mypy) and equal when their fields are; pydantic reads a finding
as the dataclass its fields describe where a report model holds findings (the docstring of
`Finding.__get_pydantic_core_schema__`; the published schemas are unchanged).
"""

from __future__ import annotations

from release_safety.common.value import HashableValue

TYPE_CHECKING = False  # typing is not imported at run time (`contract.kinds` says why)
if TYPE_CHECKING:
    from typing import Any, ClassVar, Final, Literal

    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

    from release_safety.contract.kinds import Severity, Surface

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


class Finding(HashableValue):
    """One observation with its place in the repository and a rule id."""

    FIELDS = ("rule", "severity", "surface", "file", "line", "message", "hint", "acknowledged")

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

    # pydantic reads this where a finding is a model's field (a report read back refuses keys
    # a finding does not have).
    # (and a published schema, the evidence's, requires every key a finding always writes)
    __pydantic_config__: ClassVar[dict[str, object]] = {
        "extra": "forbid",
        "json_schema_serialization_defaults_required": True,
    }

    def __init__(
        self,
        *,
        rule: str,
        severity: Severity,
        surface: Surface | Literal["release"],
        file: str | None = None,
        line: int | None = None,
        message: str,
        hint: str | None = None,
        acknowledged: str | None = None,
    ) -> None:
        # past `__setattr__`, which refuses any change (by keywords: zip's pairs cost a
        # 2,000-file lint 3 million instructions)
        self.__dict__.update(
            rule=rule,
            severity=severity,
            surface=surface,
            file=file,
            line=line,
            message=message,
            hint=hint,
            acknowledged=acknowledged,
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a finding is immutable: cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a finding is immutable: cannot delete field {name!r}")

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
            for name in self.FIELDS
            if (value := getattr(self, name)) is not None or not omit_none
        }

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[Any], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        """The schema of the dataclass of the annotated fields: the fields are declared to
        `dataclasses` here, when a report model first needs them (no `__init__`, `__eq__` or
        `__repr__` of its own: the class's are kept), and pydantic validates, writes and
        publishes a finding as it did when `Finding` was a dataclass."""
        import dataclasses
        import typing

        from release_safety.contract import kinds

        # the names the fields' annotations use, imported above for mypy alone: dataclasses and
        # pydantic read the annotations in this module's namespace
        globals().update(
            ClassVar=typing.ClassVar,
            Literal=typing.Literal,
            Severity=kinds.Severity,
            Surface=kinds.Surface,
        )
        if not dataclasses.is_dataclass(cls):
            dataclasses.dataclass(init=False, repr=False, eq=False, kw_only=True)(cls)
        return handler(source)


class Rule(HashableValue):
    """A rule is data plus the code that applies it: id, title, why, unsafe and safe examples
    (a plain class, as `Finding`)."""

    FIELDS = ("id", "surface", "severity", "title", "why", "unsafe", "safe")

    id: Final[str]
    surface: Final[Surface | Literal["all", "release"]]
    severity: Final[Severity]
    title: Final[str]
    why: Final[str]
    unsafe: Final[str]
    safe: Final[str]

    def __init__(
        self,
        id: str,
        surface: Surface | Literal["all", "release"],
        severity: Severity,
        title: str,
        why: str,
        unsafe: str = "",
        safe: str = "",
    ) -> None:
        self.id = id
        self.surface = surface
        self.severity = severity
        self.title = title
        self.why = why
        self.unsafe = unsafe
        self.safe = safe

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
