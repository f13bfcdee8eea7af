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
