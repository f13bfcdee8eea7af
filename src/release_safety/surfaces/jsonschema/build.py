"""Build `Schema`s from raw JSON Schema: `$ref`s resolved, `allOf` merged, dialects unified.

Local `$ref`s are resolved (each target once, cycles kept as cycles in the object graph), allOf
is merged, the three nullable forms and the OpenAPI 3.0 / 3.1 (draft 4 to 2020-12) dialects are
unified. A spec error (a key that is no keyword, a type that is no type, a value of the wrong
kind) is recorded as a `SpecIssue` and leaves the element unconstrained in this version.

JSON pointers are read here by hand (`pointer_parts`, `resolve`, `missing`), the one reader of
every `$ref` and owner pointer, not by `referencing`'s `Resource.pointer`: that reads some
pointers otherwise (`%2F` splits a key, `-1`, `+1` and ` 1` index a list, a digit indexes a
string, a fragment without a leading `/` loses its first character) and gives no keys for the
line lookups. Speed barely decides it: bench_rest's largest pair (c094647 -> f85dbe2) resolves
3,874 pointers, 2.2 ms here against 6.3 ms by `Resource.opaque(root).pointer`; the analysis took
0.621 s against 0.634 s and 0.564 s against 0.582 s (medians of 20 interleaved runs, twice).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from release_safety.surfaces.jsonschema.issues import SpecError, SpecIssue
from release_safety.surfaces.jsonschema.keywords import (
    KEYWORDS,
    OPAQUE,
    TYPES,
    compared_as,
    meant,
)
from release_safety.surfaces.jsonschema.model import (
    ALL_FIELDS,
    EVERYTHING,
    Bound,
    Schema,
    canonical,
    with_nullable,
)

MAX_DEPTH = 120
_COPIED = tuple(name for name in ALL_FIELDS if name not in ("origin", "building"))
_ENUM_KEYS = frozenset({"enum", "const", "x-extensible-enum"})
_NUMBERS = (
    ("minLength", "min_length"),
    ("maxLength", "max_length"),
    ("minItems", "min_items"),
    ("maxItems", "max_items"),
    ("minProperties", "min_properties"),
    ("maxProperties", "max_properties"),
)
_NUMERIC_KEYS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems"}
    | {key for key, _ in _NUMBERS}
)
_OBJECT_KEYS = frozenset(
    {"properties", "required", "additionalProperties", "unevaluatedProperties"}
    | {"dependentRequired", "propertyNames"}
)
_FLAG_KEYS = frozenset({"pattern", "nullable", "x-nullable", "readOnly", "writeOnly"})
_FLAG_KEYS |= {"deprecated", "default"}
_UNION_KEYS = frozenset({"oneOf", "anyOf", "discriminator"})
# Keys beside a `$ref` (or an `allOf`) that constrain nothing: the target stands alone.
_ANNOTATIONS = frozenset(
    {"$ref", "description", "summary", "title", "example", "examples", "$comment", "$schema"}
    | {"$id", "$defs", "definitions"}
)
_MISSING = object()
_TYPE_SETS = {name: frozenset((name,)) for name in TYPES if name != "null"}


@lru_cache(maxsize=4096)
def pointer_parts(pointer: str) -> tuple[str, ...]:
    """The keys of a JSON pointer: `/a/b` or a `$ref` such as `#/a/b` (URI-escaped)."""
    if "#" in pointer:
        pointer = pointer.partition("#")[2]
    parts = pointer.split("/")[1:] if pointer else []
    return tuple(unquote(p).replace("~1", "/").replace("~0", "~") for p in parts)


def resolve(node: Any, pointer: str) -> Any:
    """The value at a JSON pointer (`/a/b`, URI-escaped) under `node`; see `missing`."""
    for part in pointer_parts(pointer):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def missing(value: Any) -> bool:
    """`resolve` found nothing at the pointer."""
    return value is _MISSING


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float))


def _tighter_min(a: Bound | None, b: Bound | None) -> Bound | None:
    if a is None or b is None:
        return a or b
    return max(a, b)


def _tighter_max(a: Bound | None, b: Bound | None) -> Bound | None:
    if a is None or b is None:
        return a or b
    return a if (a[0], not a[1]) <= (b[0], not b[1]) else b


def _intersect_types(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    if a is None or b is None:
        return a if b is None else b
    both = a & b
    if ("integer" in a and "number" in b) or ("number" in a and "integer" in b):
        both |= {"integer"}
    return frozenset(both)


def _least(a: float | None, b: float | None, pick: Any) -> float | None:
    if a is None or b is None:
        return a if b is None else b
    return float(pick(a, b))


class SchemaBuilder:
    """Builds the schemas of one document (`root`); a named schema is built once.

    What each build followed is recorded (`refs`, `heights`), and the spec errors found are
    kept per owner (`issues`: the named schema or the part of the document being built), so a
    later version can reuse what did not change together with its errors (`reused`).
    """

    def __init__(
        self,
        root: Any,
        schemas: dict[str, Schema] | None = None,
        refs: dict[str, frozenset[str]] | None = None,
        heights: dict[str, int] | None = None,
        issues: dict[str, list[SpecIssue]] | None = None,
    ) -> None:
        self.root = root
        self.schemas: dict[str, Schema] = {} if schemas is None else schemas
        self.refs: dict[str, frozenset[str]] = {} if refs is None else refs
        self.heights: dict[str, int] = {} if heights is None else heights
        self.issues: dict[str, list[SpecIssue]] = {} if issues is None else issues
        self.followed: list[set[str]] = [set()]  # per build under way, the `$ref`s it followed
        self.deepest = 0  # the deepest level the build under way reached
        self.owners = ["#"]  # what the spec errors found now belong to

    # -- hooks ------------------------------------------------------------------------------
    def lookup(self, ref: str) -> Any:
        """The node a `$ref` names (local pointers here); SpecError when it names none."""
        target, _, pointer = ref.partition("#")
        if target:
            raise SpecError(f"$ref {ref!r} is not local")
        node = resolve(self.root, pointer)
        if missing(node):
            raise SpecError(f"unresolvable $ref {ref!r}")
        return node

    def reused(self, ref: str, depth: int) -> Schema | None:
        """Another version's schema for `ref`, when it stands unchanged (never, here)."""
        return None

    # -- spec errors ------------------------------------------------------------------------
    def issue(self, token: str, message: str) -> None:
        """Record a spec error of the owner being built."""
        self.issues.setdefault(self.owners[-1], []).append(
            SpecIssue(self.owners[-1], token, message)
        )

    def all_issues(self) -> frozenset[SpecIssue]:
        """Every spec error recorded (or reused) so far."""
        return frozenset(issue for found in self.issues.values() for issue in found)

    # -- schemas ----------------------------------------------------------------------------
    def schema(self, node: Any, depth: int = 0) -> Schema:
        """The schema of a raw node (`None`, `true`: anything; `false`: nothing)."""
        if depth > MAX_DEPTH:
            raise SpecError(f"schema nested deeper than {MAX_DEPTH} levels")
        if depth > self.deepest:
            self.deepest = depth
        if not isinstance(node, dict):
            if node is False:
                return Schema(types=frozenset())
            if node is not None and node is not True:
                token = str(node)[:40]
                self.issue(token, f"`{token}` is not a schema")
                return Schema(unknown=frozenset({EVERYTHING}))
            return Schema()
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = self.ref_schema(ref, depth)
            rest = {k: v for k, v in node.items() if k not in _ANNOTATIONS}
            if not rest:
                return target
            return self.merge([self.build(rest, depth), target], rest)
        return self.build(node, depth)

    def ref_schema(self, ref: str, depth: int) -> Schema:
        """The schema a `$ref` names, built once (a cycle meets the schema being built)."""
        self.followed[-1].add(ref)
        found = self.schemas.get(ref)
        if found is None:
            found = self.reused(ref, depth)
        if found is not None:
            self.deepest = max(self.deepest, depth + self.heights.get(ref, 0))
            return found
        node = self.lookup(ref)
        holder = Schema(origin=ref, building=True)
        self.schemas[ref] = holder
        outer, self.deepest = self.deepest, depth
        self.followed.append(set())
        self.owners.append(ref)
        built = self.schema(node, depth + 1)
        self.owners.pop()
        self.refs[ref] = frozenset(self.followed.pop())
        self.heights[ref] = self.deepest - depth
        self.deepest = max(outer, self.deepest)
        for name in _COPIED:
            setattr(holder, name, getattr(built, name))
        holder.building = False
        return holder

    def build(self, node: dict[str, Any], depth: int) -> Schema:
        out = Schema()
        keys = node.keys()
        if not keys <= KEYWORDS:
            self.unknown_keys(out, keys)
        if "type" in keys:
            self.types(out, node["type"])
        fmt = node.get("format")
        out.format = fmt if isinstance(fmt, str) else None
        if not keys.isdisjoint(_ENUM_KEYS):
            self.enum(out, node)
        if not keys.isdisjoint(_NUMERIC_KEYS):
            self.numbers(out, node)
        if not keys.isdisjoint(_OBJECT_KEYS):
            self.object(out, node, depth)
        if "items" in keys or "prefixItems" in keys:
            self.array(out, node, depth)
        if not keys.isdisjoint(_FLAG_KEYS):
            pattern = node.get("pattern")
            out.pattern = pattern if isinstance(pattern, str) else None
            out.nullable = out.nullable or node.get("nullable") is True
            out.nullable = out.nullable or node.get("x-nullable") is True
            out.read_only = node.get("readOnly") is True
            out.write_only = node.get("writeOnly") is True
            out.deprecated = node.get("deprecated") is True
            if "default" in node:
                out.default = canonical(node["default"])
        if not keys.isdisjoint(OPAQUE):
            out.opaque = {k: canonical(node[k]) for k in sorted(OPAQUE & keys)}
        if not keys.isdisjoint(_UNION_KEYS):
            self.union(out, node, depth)
            single = self.collapse(out, node)
            if single is not None:
                return single
        if "allOf" in keys:
            parts = [self.schema(m, depth + 1) for m in _list(node.get("allOf"))]
            if parts:
                return self.merge([out, *parts], node)
        return out

    def unknown_keys(self, out: Schema, keys: Any) -> None:
        """Keys that are no keyword (extensions aside): spec errors; what they meant is unknown."""
        unknown = set(out.unknown)
        for key in sorted(k for k in keys - KEYWORDS if not str(k).startswith("x-")):
            guesses = meant(str(key))
            hint = f" (did you mean `{'` or `'.join(guesses)}`?)" if guesses else ""
            self.issue(str(key), f"`{key}` is not a JSON Schema keyword{hint}")
            unknown |= {compared_as(k) for k in guesses}
        out.unknown = frozenset(unknown)

    def types(self, out: Schema, kind: Any) -> None:
        one = _TYPE_SETS.get(kind) if isinstance(kind, str) else None
        if one is not None:  # the common case, without allocating
            out.types = one
            return
        names = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else [kind]
        wrong = [n for n in names if not (isinstance(n, str) and n in TYPES)]
        if wrong:
            token = wrong[0] if isinstance(wrong[0], str) else canonical(wrong[0])
            self.issue(token, f"`{token}` is not a JSON Schema type")
            out.unknown |= {"type"}
            return
        out.types = frozenset(names) - {"null"}
        out.nullable = "null" in names

    @staticmethod
    def enum(out: Schema, node: dict[str, Any]) -> None:
        values = node.get("enum") if isinstance(node.get("enum"), list) else None
        extensible = node.get("x-extensible-enum")
        if values is None and isinstance(extensible, list):
            values, out.open_enum = extensible, True
        if values is None and "const" in node:
            values = [node["const"]]
        if values is not None:
            if None in values:
                out.nullable = True
            out.enum = {canonical(v): v for v in values if v is not None}

    def number(self, out: Schema, node: dict[str, Any], key: str) -> float | None:
        """A numeric keyword's value; any other value is a spec error (the bound is unknown)."""
        value = node.get(key)
        if value is None or _is_number(value):
            return value
        if not (isinstance(value, bool) and key.startswith("exclusive")):
            self.issue(key, f"`{key}` is not a number")
            out.unknown |= {compared_as(key)}
        return None

    def numbers(self, out: Schema, node: dict[str, Any]) -> None:
        out.minimum, out.maximum = self.bounds(out, node)
        for key, name in _NUMBERS:
            setattr(out, name, self.number(out, node, key))
        step = self.number(out, node, "multipleOf")
        out.multiple_of = step if step is not None and 0 < step < math.inf else None
        out.unique_items = node.get("uniqueItems") is True

    def bounds(self, out: Schema, node: dict[str, Any]) -> tuple[Bound | None, Bound | None]:
        low, high = self.number(out, node, "minimum"), self.number(out, node, "maximum")
        lo: Bound | None = None if low is None else (low, node.get("exclusiveMinimum") is True)
        hi: Bound | None = None if high is None else (high, node.get("exclusiveMaximum") is True)
        ex_low = self.number(out, node, "exclusiveMinimum")
        ex_high = self.number(out, node, "exclusiveMaximum")
        if ex_low is not None:
            lo = _tighter_min(lo, (ex_low, True))
        if ex_high is not None:
            hi = _tighter_max(hi, (ex_high, True))
        return lo, hi

    def object(self, out: Schema, node: dict[str, Any], depth: int) -> None:
        out.properties = {
            str(name): self.schema(sub, depth + 1)
            for name, sub in _dict(node.get("properties")).items()
        }
        out.required = frozenset(r for r in _list(node.get("required")) if isinstance(r, str))
        if "dependentRequired" in node:
            out.dependent_required = {
                str(name): frozenset(r for r in needs if isinstance(r, str))
                for name, needs in _dict(node["dependentRequired"]).items()
                if isinstance(needs, list)
            }
        if "propertyNames" in node:
            out.property_names = self.schema(node["propertyNames"], depth + 1)
        extra = node.get("additionalProperties", node.get("unevaluatedProperties"))
        if extra is False:
            out.additional = False
        elif isinstance(extra, dict) and extra:
            out.additional = self.schema(extra, depth + 1)

    def array(self, out: Schema, node: dict[str, Any], depth: int) -> None:
        items, prefix = node.get("items"), node.get("prefixItems")
        if isinstance(items, list):  # draft 4 to 2019-09 tuples
            items, prefix = node.get("additionalItems"), items
        if isinstance(items, dict):
            out.items = self.schema(items, depth + 1)
        elif items is False:
            out.items = Schema(types=frozenset())
        out.prefix_items = tuple(self.schema(item, depth + 1) for item in _list(prefix))

    def union(self, out: Schema, node: dict[str, Any], depth: int) -> None:
        for key in ("oneOf", "anyOf"):
            branches = [self.schema(b, depth + 1) for b in _list(node.get(key))]
            real = [b for b in branches if not (b.types == frozenset() and b.nullable)]
            if len(real) < len(branches):
                out.nullable = True
            if key == "oneOf":
                out.one_of = tuple(real)
            else:
                out.any_of = tuple(real)
        discriminator = _dict(node.get("discriminator"))
        if isinstance(discriminator.get("propertyName"), str):
            out.discriminator = discriminator["propertyName"]
            mapping = {
                str(value): self.mapped(str(value), target, depth)
                for value, target in _dict(discriminator.get("mapping")).items()
            }
            # without a mapping a branch's value is its schema's name: the branches say it all
            out.mapping = {value: branch for value, branch in mapping.items() if branch}

    def mapped(self, value: str, target: Any, depth: int) -> Schema | None:
        """The branch a discriminator value maps to (a bare name is a component schema)."""
        if not isinstance(target, str):
            return None
        ref = target if "#" in target or "/" in target else f"#/components/schemas/{target}"
        try:
            self.lookup(ref)
        except SpecError:
            self.issue(
                target, f"discriminator value `{value}` maps to `{target}`, which is no schema"
            )
            return None
        return self.ref_schema(ref, depth + 1)

    @staticmethod
    def collapse(out: Schema, node: dict[str, Any]) -> Schema | None:
        """`oneOf: [X, null]` with nothing else is X, nullable: one of the three null forms."""
        branches = out.one_of or out.any_of
        others = set(node) - {"oneOf", "anyOf", "description", "title", "nullable", "default"}
        if len(branches) == 1 and not others and not (out.one_of and out.any_of):
            only = branches[0]
            if out.nullable and not only.nullable:
                return with_nullable(only)
            return only
        return None

    def merge(self, parts: list[Schema], node: dict[str, Any]) -> Schema:
        """allOf: every part holds, so constraints add up and the tightest wins."""
        own, members = parts[0], parts[1:]
        live = [p for p in members if not p.building]
        empty = not (set(node) - _ANNOTATIONS - {"allOf", "nullable"})
        if len(members) == 1 and empty and not members[0].building:
            only = members[0]
            if own.nullable and not only.nullable:
                return with_nullable(only)
            return only
        out = Schema()
        properties: dict[str, Schema] = {}
        dependent: dict[str, frozenset[str]] = {}
        typed = [p for p in [own, *live] if p.types is not None]
        for part in [own, *live]:
            out.types = _intersect_types(out.types, part.types)
            out.format = out.format or part.format
            if part.enum is not None:
                out.enum = (
                    part.enum
                    if out.enum is None
                    else {k: v for k, v in out.enum.items() if k in part.enum}
                )
                out.open_enum = out.open_enum or part.open_enum
            out.minimum = _tighter_min(out.minimum, part.minimum)
            out.maximum = _tighter_max(out.maximum, part.maximum)
            out.min_length = _least(out.min_length, part.min_length, max)
            out.max_length = _least(out.max_length, part.max_length, min)
            out.min_items = _least(out.min_items, part.min_items, max)
            out.max_items = _least(out.max_items, part.max_items, min)
            out.min_properties = _least(out.min_properties, part.min_properties, max)
            out.max_properties = _least(out.max_properties, part.max_properties, min)
            out.multiple_of = out.multiple_of or part.multiple_of
            out.unique_items = out.unique_items or part.unique_items
            out.pattern = out.pattern or part.pattern
            for name, sub in part.properties.items():
                mine = properties.get(name)
                properties[name] = sub if mine is None else self.merge([mine, sub], {"x": 1})
            out.required |= part.required
            for name, needs in part.dependent_required.items():
                dependent[name] = dependent.get(name, needs) | needs
            out.property_names = out.property_names or part.property_names
            if part.additional is False or out.additional is True:
                out.additional = part.additional
            if part.items is not None:
                out.items = (
                    part.items
                    if out.items is None
                    else self.merge([out.items, part.items], {"x": 1})
                )
            out.prefix_items = out.prefix_items or part.prefix_items
            out.one_of = out.one_of or part.one_of
            out.any_of = out.any_of or part.any_of
            out.discriminator = out.discriminator or part.discriminator
            out.mapping = out.mapping or part.mapping
            out.read_only = out.read_only or part.read_only
            out.write_only = out.write_only or part.write_only
            out.deprecated = out.deprecated or part.deprecated
            out.default = part.default if part.default is not None else out.default
            if part.opaque:
                out.opaque = {**out.opaque, **part.opaque}
            out.unknown |= part.unknown
        out.properties, out.dependent_required = properties, dependent
        out.nullable = own.nullable or (
            all(p.nullable for p in typed) if typed else any(p.nullable for p in live)
        )
        return out
