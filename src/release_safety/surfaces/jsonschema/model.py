"""The normalised schema both surfaces compare, and the facts a delta carries about members."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from json.encoder import encode_basestring
from types import MappingProxyType
from typing import Any

Bound = tuple[float, bool]  # (value, exclusive)
# `Schema.unknown` holding this: the whole schema had a spec error and is never compared.
EVERYTHING = "*"
_NO_ENTRIES: Mapping[str, Any] = MappingProxyType({})


def _no_entries() -> Mapping[str, Any]:
    """The shared empty mapping: most schemas have no properties, mapping, ... (no allocation,
    which matters for the garbage collector when a document holds tens of thousands)."""
    return _NO_ENTRIES


@dataclass(eq=False, slots=True)
class Schema:
    """A resolved, dialect-free schema. `origin` is the `$ref` it was read from, if any.

    `unknown` names the keywords whose value was a spec error in this version: they are
    unconstrained here and never compared. `opaque` keeps the canonical text of keywords the
    diff does not reason about (`not`, `if`, `patternProperties` ...), compared as text.
    """

    origin: str | None = None
    types: frozenset[str] | None = None  # None: any type
    nullable: bool = False
    format: str | None = None
    enum: dict[str, Any] | None = None  # canonical JSON text -> value
    open_enum: bool = False
    minimum: Bound | None = None
    maximum: Bound | None = None
    min_length: float | None = None
    max_length: float | None = None
    min_items: float | None = None
    max_items: float | None = None
    min_properties: float | None = None
    max_properties: float | None = None
    multiple_of: float | None = None
    unique_items: bool = False
    pattern: str | None = None
    properties: Mapping[str, Schema] = field(default_factory=_no_entries)
    required: frozenset[str] = frozenset()
    dependent_required: Mapping[str, frozenset[str]] = field(default_factory=_no_entries)
    additional: bool | Schema = True
    property_names: Schema | None = None
    items: Schema | None = None
    prefix_items: tuple[Schema, ...] = ()
    one_of: tuple[Schema, ...] = ()
    any_of: tuple[Schema, ...] = ()
    discriminator: str | None = None
    mapping: Mapping[str, Schema] = field(default_factory=_no_entries)  # value -> branch
    read_only: bool = False
    write_only: bool = False
    deprecated: bool = False
    default: str | None = None
    opaque: Mapping[str, str] = field(default_factory=_no_entries)
    unknown: frozenset[str] = frozenset()
    building: bool = False

    def is_free_string(self) -> bool:
        """A branch that accepts any string: it makes sibling enums open."""
        return self.types == frozenset({"string"}) and self.enum is None and self.pattern is None


ALL_FIELDS = tuple(f.name for f in fields(Schema))


@dataclass(frozen=True, slots=True)
class Member:
    """A property, parameter or header as its container declared it (a delta's before/after)."""

    required: bool = False
    deprecated: bool = False


def canonical(value: Any) -> str:
    """A value as canonical JSON text (enum values, defaults and opaque keywords compare by it)."""
    if type(value) is str:
        return str(encode_basestring(value))
    return json.dumps(value, sort_keys=True, default=str)


def with_nullable(schema: Schema, nullable: bool = True) -> Schema:
    """A copy of a schema that accepts null or not (its origin kept, for grouping)."""
    copy = Schema()
    for name in ALL_FIELDS:
        setattr(copy, name, getattr(schema, name))
    copy.nullable, copy.building = nullable, False
    return copy
