"""Typed deltas: what changed, where, in which direction, from what to what. Never a verdict."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, Literal, TypeVar

# request: values clients send (an MCP tool's input); response: values they read (its output);
# operation: an operation or tool as a whole; api: the document as a whole.
Direction = Literal["request", "response", "operation", "api"]
SCHEMA_DIRECTIONS: tuple[Direction, Direction] = ("request", "response")


class Kind(Enum):
    """What changed between two schemas (each may happen in a request or in a response)."""

    TYPE_WIDENED = "type-widened"
    TYPE_NARROWED = "type-narrowed"
    TYPE_CHANGED = "type-changed"
    NULLABLE_ADDED = "nullable-added"
    NULLABLE_REMOVED = "nullable-removed"
    FORMAT_ADDED = "format-added"
    FORMAT_REMOVED = "format-removed"
    FORMAT_CHANGED = "format-changed"
    ENUM_SET = "enum-set"
    ENUM_UNSET = "enum-unset"
    ENUM_VALUE_ADDED = "enum-value-added"
    ENUM_VALUE_REMOVED = "enum-value-removed"
    OPEN_ENUM_WIDENED = "open-enum-widened"
    BOUND_TIGHTENED = "bound-tightened"
    BOUND_LOOSENED = "bound-loosened"
    PATTERN_ADDED = "pattern-added"
    PATTERN_REMOVED = "pattern-removed"
    PATTERN_CHANGED = "pattern-changed"
    DEFAULT_CHANGED = "default-changed"
    ADDITIONAL_PROPERTIES_DISALLOWED = "additional-properties-disallowed"
    ADDITIONAL_PROPERTIES_ALLOWED = "additional-properties-allowed"
    PROPERTY_ADDED = "property-added"
    PROPERTY_REMOVED = "property-removed"
    PROPERTY_BECAME_REQUIRED = "property-became-required"
    PROPERTY_BECAME_OPTIONAL = "property-became-optional"
    PROPERTY_DEPRECATED = "property-deprecated"
    DEPENDENT_REQUIRED_ADDED = "dependent-required-added"
    DEPENDENT_REQUIRED_REMOVED = "dependent-required-removed"
    TUPLE_ITEM_ADDED = "tuple-item-added"
    TUPLE_ITEM_REMOVED = "tuple-item-removed"
    BRANCH_ADDED = "branch-added"
    BRANCH_REMOVED = "branch-removed"
    DISCRIMINATOR_CHANGED = "discriminator-changed"
    DISCRIMINATOR_MAPPING_ADDED = "discriminator-mapping-added"
    DISCRIMINATOR_MAPPING_REMOVED = "discriminator-mapping-removed"
    DISCRIMINATOR_MAPPING_CHANGED = "discriminator-mapping-changed"
    KEYWORD_NOT_COMPARED = "keyword-not-compared"


# Kinds by what they do to the values a schema accepts (a fact in either direction; what it
# means for clients is the rules' business). The other kinds do both, or neither.
ACCEPTS_MORE = (
    *(Kind.TYPE_WIDENED, Kind.NULLABLE_ADDED, Kind.FORMAT_REMOVED, Kind.ENUM_UNSET),
    *(Kind.ENUM_VALUE_ADDED, Kind.BOUND_LOOSENED, Kind.PATTERN_REMOVED),
    *(Kind.ADDITIONAL_PROPERTIES_ALLOWED, Kind.PROPERTY_BECAME_OPTIONAL),
    *(Kind.DEPENDENT_REQUIRED_REMOVED, Kind.BRANCH_ADDED, Kind.DISCRIMINATOR_MAPPING_ADDED),
)
ACCEPTS_FEWER = (
    *(Kind.TYPE_NARROWED, Kind.NULLABLE_REMOVED, Kind.FORMAT_ADDED, Kind.ENUM_SET),
    *(Kind.ENUM_VALUE_REMOVED, Kind.BOUND_TIGHTENED, Kind.PATTERN_ADDED),
    *(Kind.ADDITIONAL_PROPERTIES_DISALLOWED, Kind.PROPERTY_BECAME_REQUIRED),
    *(Kind.DEPENDENT_REQUIRED_ADDED, Kind.BRANCH_REMOVED, Kind.DISCRIMINATOR_MAPPING_REMOVED),
)
# What a value may be, changed both ways at once.
CHANGED = (
    *(Kind.TYPE_CHANGED, Kind.FORMAT_CHANGED, Kind.PATTERN_CHANGED),
    *(Kind.DISCRIMINATOR_CHANGED, Kind.DISCRIMINATOR_MAPPING_CHANGED),
)

K = TypeVar("K", bound=Enum, covariant=True)


@dataclass(frozen=True, slots=True)
class Delta(Generic[K]):
    """One change. `place` is where the schema hangs (`request body`, `input`) or, inside a
    named schema, that schema (`origin`), so an edit many operations reach is one fact; `path`
    leads from there to the change (`("pets", "[]", "name")`)."""

    kind: K
    direction: Direction
    place: str
    origin: str | None = None
    path: tuple[str, ...] = ()
    before: Any = None
    after: Any = None

    @property
    def at(self) -> str:
        """The path as text: `pets[].name`, `tags.*`, `pair[0]`."""
        out = ""
        for part in self.path:
            out = out + part if part.startswith("[") or not out else f"{out}.{part}"
        return out
