"""Structural diff of two schema graphs into typed deltas: facts, never judgements.

A named schema (`origin`) is compared once per direction and its deltas carry the schema's own
location, so one edit reached from many places stays one fact: a schema that reaches a named
one along many paths (2^30 through thirty `$ref`s that each name the next twice) holds its
deltas once, so the work grows with the schemas, not with the paths. Cycles are allowed. Keywords
that were a spec error on either side (`Schema.unknown`) are not compared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from release_safety.surfaces.jsonschema.delta import Delta, Direction, Kind
from release_safety.surfaces.jsonschema.issues import SpecError
from release_safety.surfaces.jsonschema.model import EVERYTHING, Member, Schema, with_nullable

MAX_DIFF_DEPTH = 300
_BOUNDS = (
    ("minimum", "low", "minimum"),
    ("maximum", "high", "maximum"),
    ("min_length", "low", "minLength"),
    ("max_length", "high", "maxLength"),
    ("min_items", "low", "minItems"),
    ("max_items", "high", "maxItems"),
    ("min_properties", "low", "minProperties"),
    ("max_properties", "high", "maxProperties"),
)
SchemaDelta = Delta[Kind]
_ANY_KEY = Schema(types=frozenset({"string"}))  # what `propertyNames` constrains when absent
Add = Callable[..., None]  # records a delta found here
Deeper = Callable[..., None]  # compares two schemas found below, keeping their deltas
Same = Callable[[Schema, Schema], bool]  # the two describe the same values


def _covers(wide: frozenset[str] | None, narrow: frozenset[str] | None) -> bool:
    if wide is None:
        return True
    if narrow is None:
        return False
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _branch_keys(branches: Sequence[Schema]) -> dict[str, Schema]:
    """Union branches keyed by what names them on the wire: their `type` tag, else the schema
    they came from, else their type and rank among branches of that type (never position)."""
    out: dict[str, Schema] = {}
    ranks: dict[str, int] = {}  # branches seen per key: one count, not a scan of `out` each
    for branch in branches:
        tag = branch.properties.get("type")
        if tag is not None and tag.enum is not None and len(tag.enum) == 1:
            key = f"type={next(iter(tag.enum.values()))}"
        elif branch.origin:
            key = branch.origin
        else:
            types = ",".join(sorted(branch.types)) if branch.types is not None else "any"
            key = f"{types}#{branch.enum is not None}"
        rank = ranks[key] = ranks.get(key, -1) + 1
        out[f"{key}~{rank}" if rank else key] = branch
    return out


def _flatten(branches: Sequence[Schema]) -> list[Schema]:
    """A branch that is only a union of its own contributes its branches (grouping refactor)."""
    out: list[Schema] = []
    pending, seen = list(reversed(branches)), set()
    while pending:
        branch = pending.pop()
        nested = branch.one_of + branch.any_of
        pure = branch.types is None and not branch.properties and branch.enum is None
        if nested and pure and id(branch) not in seen:
            seen.add(id(branch))
            pending.extend(reversed(nested))
        else:
            out.append(branch)
    return out


def _branch_name(key: str, branch: Schema) -> str:
    if branch.origin:
        return branch.origin.rsplit("/", 1)[-1]
    key = key.split("~")[0]
    return key if key.startswith("type=") else key.split("#")[0]


def _which(
    before: str | None, after: str | None, added: Kind, removed: Kind, changed: Kind
) -> Kind:
    """The kind of a change to a keyword that is either absent or a string."""
    if before is None:
        return added
    return removed if after is None else changed


def _tighter(before: Any, after: Any, side: str) -> bool:
    if before is None:
        return True
    if after is None:
        return False
    b = before if isinstance(before, tuple) else (before, False)
    a = after if isinstance(after, tuple) else (after, False)
    if side == "low":
        return bool(a > b)
    return bool((a[0], not a[1]) < (b[0], not b[1]))


def _show(value: Any) -> str:
    if value is None:
        return "none"
    number, exclusive = value if isinstance(value, tuple) else (value, False)
    if isinstance(number, float) and number.is_integer() and abs(number) < 1e15:
        number = int(number)
    return f"{number} (exclusive)" if exclusive else str(number)


class SchemaDiffer:
    """Compares schema graphs; a named pair is compared once per direction (cycles allowed).

    In a request, `readOnly` properties are left out; in a response, `writeOnly` ones.
    """

    def __init__(self) -> None:
        self.cache: dict[tuple[int, int, str, bool], list[SchemaDelta]] = {}
        self.active: dict[tuple[int, int, str, bool], int] = {}
        self.low = MAX_DIFF_DEPTH
        self.depth = 0

    def compare(
        self,
        old: Schema,
        new: Schema,
        direction: Direction,
        place: str,
        path: tuple[str, ...] = (),
        open_enum: bool = False,
    ) -> list[SchemaDelta]:
        """The deltas from `old` to `new`, found at `place` (`open_enum`: a sibling branch
        accepts any string, so enums here are open)."""
        origin = new.origin or old.origin
        if old is new:
            return []
        self.depth += 1
        try:
            if self.depth > MAX_DIFF_DEPTH:
                raise SpecError(f"schemas nested deeper than {MAX_DIFF_DEPTH} levels")
            if origin is None:
                inherited = place if place.startswith(("#/", "/")) else None
                return self._compare(old, new, direction, place, inherited, path, open_enum)
            return self._named(old, new, direction, origin, open_enum)
        finally:
            self.depth -= 1

    def _named(
        self, old: Schema, new: Schema, direction: Direction, origin: str, open_enum: bool
    ) -> list[SchemaDelta]:
        """A named pair: compared once (cached unless on a cycle still being compared)."""
        key = (id(old), id(new), direction, open_enum)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        if key in self.active:
            self.low = min(self.low, self.active[key])
            return []
        mine = len(self.active)
        self.active[key] = mine
        saved, self.low = self.low, MAX_DIFF_DEPTH
        try:
            deltas = self._compare(old, new, direction, origin, origin, (), open_enum)
        finally:
            del self.active[key]
        if self.low >= mine:
            self.cache[key] = deltas
        self.low = min(saved, self.low)
        return deltas

    def _compare(
        self,
        old: Schema,
        new: Schema,
        direction: Direction,
        place: str,
        origin: str | None,
        path: tuple[str, ...],
        open_enum: bool,
    ) -> list[SchemaDelta]:
        out: list[SchemaDelta] = []
        held: set[int] = set()  # the deltas in `out`: a named pair's, reached twice, once
        skip = old.unknown | new.unknown if old.unknown or new.unknown else frozenset()
        if EVERYTHING in skip:
            return out

        def add(
            kind: Kind, before: Any = None, after: Any = None, at: tuple[str, ...] = path
        ) -> None:
            out.append(Delta(kind, direction, place, origin, at, before, after))

        def deeper(was: Schema, now: Schema, at: tuple[str, ...], open_enum: bool = False) -> None:
            for delta in self.compare(was, now, direction, place, at, open_enum):
                if id(delta) not in held:
                    held.add(id(delta))
                    out.append(delta)

        def same(was: Schema, now: Schema) -> bool:
            return not self.compare(was, now, direction, "")

        old_union, new_union = old.one_of + old.any_of, new.one_of + new.any_of
        if bool(old_union) != bool(new_union):
            # One side became (or stopped being) a union: the plain side is one of its branches.
            if old.nullable != new.nullable and "nullable" not in skip:
                add(Kind.NULLABLE_ADDED if new.nullable else Kind.NULLABLE_REMOVED)
            before = old_union or (with_nullable(old, False),)
            after = new_union or (with_nullable(new, False),)
            self._branches(before, after, path, add, deeper, same)
            return out
        if old.types != new.types and "type" not in skip:
            if _covers(new.types, old.types):
                add(Kind.TYPE_WIDENED, old.types, new.types)
            elif _covers(old.types, new.types):
                add(Kind.TYPE_NARROWED, old.types, new.types)
            else:
                add(Kind.TYPE_CHANGED, old.types, new.types)
        if old.nullable != new.nullable and not skip & {"nullable", "type"}:
            add(Kind.NULLABLE_ADDED if new.nullable else Kind.NULLABLE_REMOVED)
        if old.format != new.format and "format" not in skip:
            formats = (Kind.FORMAT_ADDED, Kind.FORMAT_REMOVED, Kind.FORMAT_CHANGED)
            add(_which(old.format, new.format, *formats), old.format, new.format)
        if "enum" not in skip:
            self._enum(old, new, add, open_enum)
        self._bounds(old, new, skip, add)
        if old.pattern != new.pattern and "pattern" not in skip:
            patterns = (Kind.PATTERN_ADDED, Kind.PATTERN_REMOVED, Kind.PATTERN_CHANGED)
            add(_which(old.pattern, new.pattern, *patterns), old.pattern, new.pattern)
        defaults = (old.default, new.default)
        if None not in defaults and defaults[0] != defaults[1] and "default" not in skip:
            add(Kind.DEFAULT_CHANGED, *defaults)
        if "additionalProperties" not in skip:
            if old.additional is not False and new.additional is False:
                add(Kind.ADDITIONAL_PROPERTIES_DISALLOWED)
            elif old.additional is False and new.additional is not False:
                add(Kind.ADDITIONAL_PROPERTIES_ALLOWED)
            elif isinstance(old.additional, Schema) and isinstance(new.additional, Schema):
                deeper(old.additional, new.additional, (*path, "*"))
        names = (old.property_names, new.property_names)
        if names != (None, None) and "propertyNames" not in skip:  # keys are strings anyway
            deeper(names[0] or _ANY_KEY, names[1] or _ANY_KEY, (*path, "{keys}"))
        if "properties" not in skip:
            self._properties(old, new, direction, path, skip, add, deeper)
        if "dependentRequired" not in skip:
            self._dependent(old, new, path, add)
        if "items" not in skip and old.items is not None and new.items is not None:
            deeper(old.items, new.items, (*path, "[]"))
        if "prefixItems" not in skip:
            self._tuple(old, new, path, add, deeper)
        self._branches(old_union, new_union, path, add, deeper, same)
        self._discriminator(old, new, add, same)
        for keyword in sorted(old.opaque.keys() | new.opaque.keys()):
            was, now = old.opaque.get(keyword), new.opaque.get(keyword)
            if was != now:
                add(Kind.KEYWORD_NOT_COMPARED, (keyword, was), (keyword, now))
        return out

    @staticmethod
    def _enum(old: Schema, new: Schema, add: Add, open_enum: bool) -> None:
        if old.enum is None and new.enum is None:
            return
        if old.enum is None:
            assert new.enum is not None
            add(Kind.ENUM_SET, None, list(new.enum.values()))
            return
        if new.enum is None:
            add(Kind.OPEN_ENUM_WIDENED if open_enum else Kind.ENUM_UNSET, list(old.enum.values()))
            return
        removed = [v for k, v in old.enum.items() if k not in new.enum]
        added = [v for k, v in new.enum.items() if k not in old.enum]
        if removed:
            add(Kind.ENUM_VALUE_REMOVED, removed, None)
        if added:
            opened = new.open_enum or open_enum
            add(Kind.OPEN_ENUM_WIDENED if opened else Kind.ENUM_VALUE_ADDED, None, added)

    @staticmethod
    def _bounds(old: Schema, new: Schema, skip: frozenset[str], add: Add) -> None:
        for name, side, keyword in _BOUNDS:
            before, after = getattr(old, name), getattr(new, name)
            if before != after and keyword not in skip:
                kind = (
                    Kind.BOUND_TIGHTENED if _tighter(before, after, side) else Kind.BOUND_LOOSENED
                )
                add(kind, (keyword, _show(before)), (keyword, _show(after)))
        if old.unique_items != new.unique_items and "uniqueItems" not in skip:
            add(
                Kind.BOUND_TIGHTENED if new.unique_items else Kind.BOUND_LOOSENED,
                ("uniqueItems", str(old.unique_items).lower()),
                ("uniqueItems", str(new.unique_items).lower()),
            )
        if old.multiple_of != new.multiple_of and "multipleOf" not in skip:
            step_was, step_now = old.multiple_of, new.multiple_of
            # every multiple of the old step is one of the new step exactly when the new divides it
            narrower = step_now is not None and (step_was is None or step_was % step_now != 0)
            wider = step_was is not None and (step_now is None or step_now % step_was != 0)
            shown = (("multipleOf", _show(step_was)), ("multipleOf", _show(step_now)))
            if narrower:
                add(Kind.BOUND_TIGHTENED, *shown)
            if wider:
                add(Kind.BOUND_LOOSENED, *shown)

    @staticmethod
    def _properties(
        old: Schema,
        new: Schema,
        direction: Direction,
        path: tuple[str, ...],
        skip: frozenset[str],
        add: Add,
        deeper: Deeper,
    ) -> None:
        if not (old.properties or new.properties or old.required or new.required):
            return
        hidden = "read_only" if direction == "request" else "write_only"
        before = {n: s for n, s in old.properties.items() if not getattr(s, hidden)}
        after = {n: s for n, s in new.properties.items() if not getattr(s, hidden)}
        for name in sorted(before.keys() - after.keys()):
            member = Member(name in old.required, before[name].deprecated)
            add(Kind.PROPERTY_REMOVED, member, None, (*path, name))
        for name in sorted(after.keys() - before.keys()):
            member = Member(name in new.required, after[name].deprecated)
            add(Kind.PROPERTY_ADDED, None, member, (*path, name))
        # names in `required` without a declared property count as well
        declared = old.properties.keys() | new.properties.keys()
        both = (before.keys() & after.keys()) | ((old.required ^ new.required) - declared)
        for name in sorted(both):
            at = (*path, name)
            was, now = name in old.required, name in new.required
            if was != now and "required" not in skip:
                add(Kind.PROPERTY_BECAME_REQUIRED if now else Kind.PROPERTY_BECAME_OPTIONAL, at=at)
            if name not in before:
                continue
            if after[name].deprecated and not before[name].deprecated:
                add(Kind.PROPERTY_DEPRECATED, at=at)
            deeper(before[name], after[name], at)

    @staticmethod
    def _dependent(old: Schema, new: Schema, path: tuple[str, ...], add: Add) -> None:
        for name in sorted(old.dependent_required.keys() | new.dependent_required.keys()):
            was = old.dependent_required.get(name, frozenset())
            now = new.dependent_required.get(name, frozenset())
            if now - was:
                add(Kind.DEPENDENT_REQUIRED_ADDED, None, sorted(now - was), (*path, name))
            if was - now:
                add(Kind.DEPENDENT_REQUIRED_REMOVED, sorted(was - now), None, (*path, name))

    @staticmethod
    def _tuple(old: Schema, new: Schema, path: tuple[str, ...], add: Add, deeper: Deeper) -> None:
        for index in range(max(len(old.prefix_items), len(new.prefix_items))):
            at = (*path, f"[{index}]")
            if index >= len(new.prefix_items):
                add(Kind.TUPLE_ITEM_REMOVED, at=at)
            elif index >= len(old.prefix_items):
                add(Kind.TUPLE_ITEM_ADDED, at=at)
            else:
                deeper(old.prefix_items[index], new.prefix_items[index], at)

    @staticmethod
    def _branches(
        before: Sequence[Schema],
        after: Sequence[Schema],
        path: tuple[str, ...],
        add: Add,
        deeper: Deeper,
        same: Same,
    ) -> None:
        if not before and not after:
            return
        olds, news = _branch_keys(_flatten(before)), _branch_keys(_flatten(after))
        open_enum = any(s.is_free_string() for s in after)
        gone = sorted(olds.keys() - news.keys())
        new_keys = sorted(news.keys() - olds.keys())
        for key in list(gone):
            # A renamed or moved branch: an unmatched pair that compares equal is one branch.
            twin = next((k for k in new_keys if same(olds[key], news[k])), None)
            if twin is not None:
                gone.remove(key)
                new_keys.remove(twin)
        for key in gone:
            add(Kind.BRANCH_REMOVED, _branch_name(key, olds[key]), None)
        for key in new_keys:
            add(Kind.BRANCH_ADDED, None, _branch_name(key, news[key]))
        for key in sorted(olds.keys() & news.keys()):
            deeper(olds[key], news[key], path, open_enum)

    @staticmethod
    def _discriminator(old: Schema, new: Schema, add: Add, same: Same) -> None:
        if old.discriminator is None:
            return
        if new.discriminator != old.discriminator:
            add(Kind.DISCRIMINATOR_CHANGED, old.discriminator, new.discriminator)
            return
        removed = sorted(old.mapping.keys() - new.mapping.keys())
        added = sorted(new.mapping.keys() - old.mapping.keys())
        changed = [
            value
            for value in sorted(old.mapping.keys() & new.mapping.keys())
            if old.mapping[value].origin != new.mapping[value].origin
            and not same(old.mapping[value], new.mapping[value])
        ]
        if removed:
            add(Kind.DISCRIMINATOR_MAPPING_REMOVED, removed, None)
        if added:
            add(Kind.DISCRIMINATOR_MAPPING_ADDED, None, added)
        if changed:
            add(Kind.DISCRIMINATOR_MAPPING_CHANGED, changed, changed)
