"""Column types: read from a definition's tokens, and what changing one to another does.

A type change rewrites the table unless PostgreSQL can keep every stored value as it is
(`ATColumnChangeRequiresRewrite`): the same type with a wider length or precision when the
type's length coercion has a support function, a binary-coercible cast (varchar to text), a
domain without constraints over the old type, or timestamp to timestamptz (and back) when the
session time zone is UTC (PostgreSQL 12+). Without a rewrite, the column's indexes are still
rebuilt when the new type is indexed with another operator class (timestamp to timestamptz).
Old code keeps working when the new type holds every value it writes and reads back a value
of the same kind (a widening); anything else is a break.

PostgreSQL's catalogue (`pgcatalog`, a tenth of the classifier's start) is imported where a
type change or an index's operator class asks it: a file that changes no type never loads it.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet

from release_safety.common.textcase import lower
from release_safety.common.value import HashableValue
from release_safety.surfaces.migrations.sql.tokens import Tok

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Final

# Spellings of built-in types, as PostgreSQL's type names (pg_type.typname).
_ALIASES = {
    "INT": "int4",
    "INTEGER": "int4",
    "INT4": "int4",
    "SERIAL": "int4",
    "SERIAL4": "int4",
    "SMALLINT": "int2",
    "INT2": "int2",
    "SMALLSERIAL": "int2",
    "SERIAL2": "int2",
    "BIGINT": "int8",
    "INT8": "int8",
    "BIGSERIAL": "int8",
    "SERIAL8": "int8",
    "REAL": "float4",
    "FLOAT4": "float4",
    "FLOAT8": "float8",
    "DECIMAL": "numeric",
    "NUMERIC": "numeric",
    "VARCHAR": "varchar",
    "CHAR": "bpchar",
    "CHARACTER": "bpchar",
    "BPCHAR": "bpchar",
    "BOOL": "bool",
    "BOOLEAN": "bool",
    "TIMESTAMPTZ": "timestamptz",
    "TIMETZ": "timetz",
    "VARBIT": "varbit",
}
_PLAIN = frozenset(
    {
        "text",
        "date",
        "time",
        "timestamp",
        "interval",
        "json",
        "jsonb",
        "uuid",
        "bytea",
        "inet",
        "cidr",
        "macaddr",
        "macaddr8",
        "money",
        "bit",
        "xml",
        "tsvector",
        "tsquery",
        "oid",
        "point",
        "int4range",
        "int8range",
        "numrange",
        "tsrange",
        "tstzrange",
        "daterange",
    }
)
_ZONED = {"timestamp": "timestamptz", "time": "timetz"}
_DEFAULT_LENGTH = {"bpchar": (1,), "bit": (1,)}  # `char` is char(1), `bit` is bit(1)
_UTC = frozenset(
    {
        "utc",
        "etc/utc",
        "uct",
        "etc/uct",
        "gmt",
        "etc/gmt",
        "gmt0",
        "etc/gmt0",
        "gmt+0",
        "etc/gmt+0",
        "gmt-0",
        "etc/gmt-0",
        "greenwich",
        "etc/greenwich",
        "universal",
        "etc/universal",
        "zulu",
        "etc/zulu",
        "z",
    }
)
SERIAL_TYPES = frozenset({"SERIAL", "BIGSERIAL", "SMALLSERIAL", "SERIAL2", "SERIAL4", "SERIAL8"})


def is_utc(zone: str) -> bool:
    """The zone has a fixed offset of zero (PostgreSQL then converts timestamp and timestamptz
    without touching the stored value)."""
    return lower(zone.strip().strip("'\"")) in _UTC


class ColType(HashableValue):
    """A column type: PostgreSQL's name for a built-in type (`int4`, `varchar`), else the name
    of a user type (enum, domain); its length or precision and scale; an array of it."""

    FIELDS = ("name", "mods", "array", "builtin")

    name: Final[str]
    mods: Final[tuple[int, ...]]
    array: Final[bool]
    builtin: Final[bool]

    def __init__(
        self, name: str, mods: tuple[int, ...] = (), array: bool = False, builtin: bool = True
    ) -> None:
        self.name = name
        self.mods = mods
        self.array = array
        self.builtin = builtin

    def __str__(self) -> str:
        mods = f"({','.join(map(str, self.mods))})" if self.mods else ""
        return f"{self.name}{mods}{'[]' if self.array else ''}"

    def element(self) -> ColType:
        return ColType(self.name, self.mods, False, self.builtin)


def _mods(toks: list[Tok], k: int) -> tuple[tuple[int, ...], int]:
    """Integer modifiers in parentheses at `k`, and the index after them."""
    if k >= len(toks) or toks[k].text != "(":
        return (), k
    values: list[int] = []
    k += 1
    while k < len(toks) and toks[k].text != ")":
        if toks[k].kind == "number":
            values.append(int(float(toks[k].text)))
        k += 1
    return tuple(values), k + 1


def parse_type(toks: list[Tok]) -> ColType | None:
    """The type a column definition's type tokens name; None when they are not a type."""
    if not toks or toks[0].kind not in ("word", "ident"):
        return None
    up = [t.up for t in toks]
    first = up[0]
    k = 1
    mods: tuple[int, ...] = ()
    if toks[0].kind == "ident" or (len(toks) > 2 and toks[1].text == "."):
        parts = [toks[0].text if toks[0].kind == "ident" else lower(toks[0].text)]
        while k + 1 < len(toks) and toks[k].text == "." and toks[k + 1].kind in ("word", "ident"):
            nxt = toks[k + 1]
            parts.append(nxt.text if nxt.kind == "ident" else lower(nxt.text))
            k += 2
        if parts[:-1] in (["pg_catalog"], ["public"]) and parts[-1] in _PLAIN | set(_ALIASES):
            name, builtin = lower(parts[-1]), True
        else:
            name, builtin = ".".join(p for p in parts if p not in ("public",)), False
    elif first == "DOUBLE" and up[1:2] == ["PRECISION"]:
        name, builtin, k = "float8", True, 2
    elif first in ("CHARACTER", "CHAR") and up[1:2] == ["VARYING"]:
        name, builtin, k = "varchar", True, 2
    elif first == "BIT" and up[1:2] == ["VARYING"]:
        name, builtin, k = "varbit", True, 2
    elif first == "FLOAT":
        mods, k = _mods(toks, 1)
        name, builtin = ("float4" if mods and mods[0] <= 24 else "float8"), True
    elif first in _ALIASES:
        name, builtin = _ALIASES[first], True
    elif lower(first) in _PLAIN:
        name, builtin = lower(first), True
    else:
        name, builtin = lower(toks[0].text), False
    if name != "float4" and name != "float8":
        mods, k = _mods(toks, k)
    if name in ("timestamp", "time") and up[k : k + 3] == ["WITH", "TIME", "ZONE"]:
        name, k = _ZONED[name], k + 3
    elif up[k : k + 3] == ["WITHOUT", "TIME", "ZONE"]:
        k += 3
    if name == "interval":
        while k < len(toks) and toks[k].kind == "word" and up[k] not in ("ARRAY",):
            k += 1
        if not mods:
            mods, k = _mods(toks, k)
    if name == "numeric" and len(mods) == 1:
        mods = (mods[0], 0)
    if not mods:
        mods = _DEFAULT_LENGTH.get(name, ())
    array = False
    while k < len(toks) and (toks[k].text == "[" or up[k] == "ARRAY"):
        array = True
        k += 1
        while k < len(toks) and toks[k].text != "]" and toks[k].kind == "number":
            k += 1
        if k < len(toks) and toks[k].text == "]":
            k += 1
    return ColType(name, mods, array, builtin)


class DomainFacts(HashableValue):
    """What a type change needs to know of a domain: its base type and whether it has
    constraints (NOT NULL or CHECK)."""

    FIELDS = ("base", "constrained")

    base: Final[ColType | None]
    constrained: Final[bool]

    def __init__(self, base: ColType | None, constrained: bool) -> None:
        self.base = base
        self.constrained = constrained


Domains = Callable[[str], "DomainFacts | None"]


class TypeChange(HashableValue):
    """What `ALTER COLUMN ... TYPE` does to a column's rows, indexes and old code; None where
    the old type is not known."""

    FIELDS = ("rewrites", "rebuilds_indexes", "compatible")

    rewrites: Final[bool | None]
    rebuilds_indexes: Final[bool | None]
    compatible: Final[bool | None]

    def __init__(
        self, rewrites: bool | None, rebuilds_indexes: bool | None, compatible: bool | None
    ) -> None:
        self.rewrites = rewrites
        self.rebuilds_indexes = rebuilds_indexes
        self.compatible = compatible


def _wider(name: str, old: tuple[int, ...], new: tuple[int, ...]) -> bool:
    """The new length or precision holds every value of the old one."""
    if not new:
        return True
    if not old:
        return False
    if name == "numeric":
        return new[1:] == old[1:] and new[0] >= old[0]
    return new[0] >= old[0]


def _opclass(kind: ColType, domains: Domains) -> str:
    """The type whose default btree operator class indexes the column."""
    domain = None if kind.builtin else domains(kind.name)
    base = domain.base if domain is not None and domain.base is not None else kind
    from release_safety.surfaces.migrations.schema import pgcatalog  # see the module docstring

    name = pgcatalog.BTREE_OPCLASS_OF.get(base.name, base.name)
    return name + ("[]" if kind.array else "")


def _relabels(old: ColType, new: ColType, domains: Domains, version: int, utc: bool) -> bool:
    """PostgreSQL keeps every stored value: no rewrite."""
    if old.array != new.array:
        return False
    if old == new:
        return True
    from release_safety.surfaces.migrations.schema import pgcatalog  # see the module docstring

    if old.name == new.name:
        return (
            old.name in pgcatalog.LENGTH_NOOP
            and version >= 10
            and _wider(old.name, old.mods, new.mods)
        )
    new_domain = None if new.builtin else domains(new.name)
    if new_domain is not None:
        base = new_domain.base
        return (
            not new_domain.constrained
            and base is not None
            and _relabels(old, base, domains, version, utc)
        )
    old_domain = None if old.builtin else domains(old.name)
    if old_domain is not None:
        return old_domain.base is not None and _relabels(
            old_domain.base, new, domains, version, utc
        )
    if {old.name, new.name} == {"timestamp", "timestamptz"}:
        return version >= 12 and utc and (not new.mods or new.mods == old.mods)
    binary = (old.name, new.name) in pgcatalog.BINARY_COERCIBLE
    return binary and version >= 10 and not new.mods


_WIDENING = frozenset(
    {
        ("int2", "int4"),
        ("int2", "int8"),
        ("int4", "int8"),
        ("float4", "float8"),
        ("varchar", "text"),
        ("text", "varchar"),
        ("timestamp", "timestamptz"),
        ("cidr", "inet"),
    }
)


def _compatible(old: ColType, new: ColType, domains: Domains, enums: AbstractSet[str]) -> bool:
    """Old code's parameters still fit and its reads return the same kind of value."""
    if old.array != new.array:
        return False
    if old.name == new.name:
        return _wider(old.name, old.mods, new.mods)
    new_domain = None if new.builtin else domains(new.name)
    if new_domain is not None:
        base = new_domain.base
        return not new_domain.constrained and base is not None and base == old
    old_domain = None if old.builtin else domains(old.name)
    if old_domain is not None:
        return old_domain.base is not None and _compatible(old_domain.base, new, domains, enums)
    if old.name in enums:
        return new.name == "text" or (new.name == "varchar" and not new.mods)
    if (old.name, new.name) == ("text", "varchar"):
        return not new.mods
    if old.name == "bpchar" and new.name in ("varchar", "text"):
        # every char(n) value fits a varchar(m >= n) or text; only its padding is dropped
        return _wider("varchar", old.mods, new.mods)
    return (old.name, new.name) in _WIDENING


def type_change(
    old: ColType | None,
    new: ColType | None,
    *,
    using: bool,
    indexed: bool | None,
    domains: Domains,
    enums: AbstractSet[str],
    version: int,
    utc: bool,
) -> TypeChange:
    """What changing a column from `old` to `new` does (`using`: a USING expression other
    than the column itself; `indexed`: the column has indexes, None when unknown)."""
    if old is None or new is None:
        return TypeChange(None, None, None)
    rewrites = using or not _relabels(old, new, domains, version, utc)
    rebuilds: bool | None = rewrites
    if not rewrites:
        differs = _opclass(old, domains) != _opclass(new, domains)
        rebuilds = None if indexed is None and differs else bool(indexed) and differs
    return TypeChange(rewrites, rebuilds, _compatible(old, new, domains, enums))
