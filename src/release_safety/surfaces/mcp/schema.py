"""JSON-Schema reasoning: what a new schema accepts that the old did not, and the reverse.

`compare(old, new, direction)` walks both schemas together and returns the changes that matter
for that direction:

- ``input``: a client built for the old schema sends values the old schema accepted; the new
  schema must still accept them. Narrowing (fewer values accepted) breaks.
- ``output``: a client built for the old schema reads values the old schema promised; the new
  schema must promise no more than that. Widening (more values possible) breaks.

A property removed breaks in both directions (old clients send it, or read it). Local `$ref`
(`#/$defs/...`, `#/definitions/...`, any `#/` pointer) is resolved, `allOf` is merged,
`anyOf` / `oneOf` branches are matched one to one by their fewest breaking changes. Keywords
this module does not reason about (`not`, `if`/`then`/`else`, `patternProperties`, ...) are
compared textually: when they differ the change is "unknown", never silently safe.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Direction = Literal["input", "output"]
Pointer = tuple[str | int, ...]
Kind = Literal["removed", "required", "narrowed", "widened", "unknown", "deprecated"]

_LOWER = ("minLength", "minItems", "minProperties", "minimum", "exclusiveMinimum")
_UPPER = ("maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum")
_OPAQUE = (
    "not",
    "if",
    "then",
    "else",
    "dependencies",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "propertyNames",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
)
_REF_DEPTH = 64
_WALK_DEPTH = 48
_WALK_BUDGET = 20_000


@dataclass(frozen=True)
class Change:
    """One change at a location (`filters[].op`; empty for the schema's root)."""

    kind: Kind
    loc: str
    text: str
    pointer: Pointer


def compare(old: Any, new: Any, direction: Direction) -> list[Change]:
    """Breaking, unknown and deprecation changes from `old` to `new` for `direction`.

    Raises RecursionError for schemas nested beyond Python's limit (the caller reports it).
    """
    if _canon(old) == _canon(new):
        return []
    return _Comparator(old, new, direction).walk(old, new, "", (), ())


def _child(loc: str, name: str) -> str:
    return f"{loc}.{name}" if loc else name


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _show(value: Any) -> str:
    return value if isinstance(value, str) else _canon(value)


class _Comparator:
    def __init__(self, old_root: Any, new_root: Any, direction: Direction) -> None:
        self.roots = (old_root, new_root)
        self.direction = direction
        self.visiting: set[tuple[int, int]] = set()
        self.depth = 0
        self.steps = 0

    # -- references and composition ------------------------------------------------------

    def deref(self, schema: Any, pointer: Pointer, side: int) -> tuple[Any, Pointer, str | None]:
        """Follow `$ref` to its target (merged with sibling keywords); error text if it fails."""
        for _ in range(_REF_DEPTH):
            if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
                return schema, pointer, None
            ref = schema["$ref"]
            if not ref.startswith("#"):
                return schema, pointer, f"`$ref` `{ref}` is not local"
            target: Any = self.roots[side]
            path: list[str | int] = []
            for raw in ref[1:].split("/")[1:]:
                part = raw.replace("~1", "/").replace("~0", "~")
                if isinstance(target, dict) and part in target:
                    target = target[part]
                    path.append(part)
                elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                    target = target[int(part)]
                    path.append(int(part))
                else:
                    return schema, pointer, f"`$ref` `{ref}` does not resolve"
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            if _constrains(siblings):
                schema = {"allOf": [target, siblings]}
            else:
                schema, pointer = target, tuple(path)
        return schema, pointer, "`$ref` chain too long"

    def flatten(
        self, schema: Any, pointer: Pointer, side: int, active: tuple[int, ...] = ()
    ) -> tuple[Any, Pointer, str | None]:
        """Dereference and merge `allOf` into one schema (`active`: schemas being merged)."""
        if id(schema) in active:
            return schema, pointer, "`allOf` refers back to itself"
        resolved, pointer, error = self.deref(schema, pointer, side)
        if id(resolved) in active:
            return schema, pointer, "`allOf` refers back to itself"
        if error or not isinstance(resolved, dict) or not isinstance(resolved.get("allOf"), list):
            return resolved, pointer, error
        merged: dict[str, Any] = {k: v for k, v in resolved.items() if k != "allOf"}
        inner = (*active, id(schema), id(resolved))
        for part in resolved["allOf"]:
            flat, _, error = self.flatten(part, pointer, side, inner)
            if error:
                return resolved, pointer, error
            if flat is False:
                return False, pointer, None
            if isinstance(flat, dict):
                merged = _merge(merged, flat)
        return merged, pointer, None

    def branches(self, schema: Any) -> list[Any]:
        if not isinstance(schema, dict):
            return [schema]
        options = [
            option
            for keyword in ("anyOf", "oneOf")
            if isinstance(schema.get(keyword), list)
            for option in schema[keyword]
        ]
        if not options:
            return [schema]
        rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
        return [{"allOf": [rest, option]} if _constrains(rest) else option for option in options]

    # -- the walk -------------------------------------------------------------------------

    def breaks(self, change: Change) -> bool:
        if change.kind in ("removed", "unknown"):
            return True
        if self.direction == "input":
            return change.kind in ("required", "narrowed")
        return change.kind == "widened"

    def walk(self, old: Any, new: Any, loc: str, op: Pointer, np: Pointer) -> list[Change]:
        self.steps += 1
        if self.depth >= _WALK_DEPTH or self.steps > _WALK_BUDGET:
            text = "not compared: schema too deep, recursive or branching to reason about"
            return [Change("unknown", loc, text, np)]
        old, op, old_error = self.flatten(old, op, 0)
        new, np, new_error = self.flatten(new, np, 1)
        if old_error or new_error:
            return [Change("unknown", loc, f"not compared: {old_error or new_error}", np)]
        key = (id(old), id(new))
        if key in self.visiting:
            return []
        self.visiting.add(key)
        self.depth += 1
        try:
            old_branches, new_branches = self.branches(old), self.branches(new)
            if old_branches[0] is old and new_branches[0] is new:
                return self.single(old, new, loc, op, np)
            return self.match(old_branches, new_branches, loc, op, np)
        finally:
            self.depth -= 1
            self.visiting.discard(key)

    def match(
        self, olds: list[Any], news: list[Any], loc: str, op: Pointer, np: Pointer
    ) -> list[Change]:
        """Each branch that must stay covered is matched with its least-breaking counterpart."""
        found: list[Change] = []
        if self.direction == "input":
            for old in olds:
                options = [self.walk(old, new, loc, op, np) for new in news]
                best: list[Change] = min(options, key=self._breaking_count)
                found.extend(best)
        else:
            for new in news:
                options = [self.walk(old, new, loc, op, np) for old in olds]
                best = min(options, key=self._breaking_count)
                found.extend(best)
        return _unique([c for c in found if self.breaks(c) or c.kind == "deprecated"])

    def _breaking_count(self, changes: list[Change]) -> tuple[int, int, int]:
        """Proven breaks first, then unknowns, then everything else."""
        proven = sum(1 for c in changes if self.breaks(c) and c.kind != "unknown")
        unknown = sum(1 for c in changes if c.kind == "unknown")
        return proven, unknown, len(changes)

    def single(self, old: Any, new: Any, loc: str, op: Pointer, np: Pointer) -> list[Change]:
        if isinstance(old, bool) or isinstance(new, bool) or old is None or new is None:
            return self.booleans(old, new, loc, np)
        if not isinstance(old, dict) or not isinstance(new, dict):
            if _canon(old) == _canon(new):
                return []
            return [Change("unknown", loc, "not compared: not a JSON Schema", np)]
        found: list[Change] = []
        if not old.get("deprecated") and new.get("deprecated"):
            found.append(Change("deprecated", loc, "deprecated", np))
        for keyword in _OPAQUE:
            if _canon(old.get(keyword)) != _canon(new.get(keyword)):
                text = f"not compared: `{keyword}` changed"
                found.append(Change("unknown", loc, text, (*np, keyword)))
        found += _types(old, new, loc, np)
        if _disjoint(_types_of(old), _types_of(new)):
            # nothing one side accepts is accepted by the other: the type change says it all
            return [change for change in found if self.breaks(change)]
        found += _values(old, new, loc, np)
        found += _strings(old, new, loc, np)
        found += _bounds(old, new, loc, np)
        found += self.objects(old, new, loc, op, np)
        found += self.arrays(old, new, loc, op, np)
        return [change for change in found if self.breaks(change) or change.kind == "deprecated"]

    def booleans(self, old: Any, new: Any, loc: str, np: Pointer) -> list[Change]:
        old_none, new_none = old is False, new is False
        if old_none == new_none:
            if old_none or (old in (True, None, {}) and new in (True, None, {})):
                return []
            # one side `true` (anything), the other a real schema
            return self.single(_as_dict(old), _as_dict(new), loc, (), np)
        if new_none:
            return [Change("narrowed", loc, "no longer accepts any value", np)]
        return [Change("widened", loc, "now accepts values (was `false`)", np)]

    def objects(self, old: dict[str, Any], new: dict[str, Any], loc: str, op: Pointer,
                np: Pointer) -> list[Change]:  # fmt: skip
        old_props = _dict(old.get("properties"))
        new_props = _dict(new.get("properties"))
        old_req = set(_strings_of(old.get("required")))
        new_req = set(_strings_of(new.get("required")))
        found: list[Change] = []
        for name in sorted(old_props.keys() | new_props.keys() | old_req | new_req):
            here = _child(loc, name)
            where = (*np, "properties", name)
            if name in old_props and name not in new_props:
                found.append(Change("removed", here, "removed", (*np, "properties")))
                continue
            if name in new_req and name not in old_req:
                text = "became required" if name in old_props else "added as required"
                found.append(Change("required", here, text, where))
            elif name in old_req and name not in new_req:
                found.append(Change("widened", here, "became optional", where))
            if name in old_props and name in new_props:
                found += self.walk(
                    old_props[name], new_props[name], here, (*op, "properties", name), where
                )
        found += self.additional(old, new, loc, op, np)
        return found

    def additional(self, old: dict[str, Any], new: dict[str, Any], loc: str, op: Pointer,
                   np: Pointer) -> list[Change]:  # fmt: skip
        old_extra = old.get("additionalProperties", True)
        new_extra = new.get("additionalProperties", True)
        where = (*np, "additionalProperties")
        if old_extra is not False and new_extra is False:
            return [Change("narrowed", loc, "no longer accepts additional properties", where)]
        if old_extra is False and new_extra is not False:
            return [Change("widened", loc, "now allows additional properties", where)]
        if old_extra is False or _canon(old_extra) == _canon(new_extra):
            return []
        return self.walk(
            old_extra, new_extra, _child(loc, "*"), (*op, "additionalProperties"), where
        )

    def arrays(self, old: dict[str, Any], new: dict[str, Any], loc: str, op: Pointer,
               np: Pointer) -> list[Change]:  # fmt: skip
        found: list[Change] = []
        for keyword in ("items", "prefixItems"):
            old_items, new_items = old.get(keyword), new.get(keyword)
            if old_items is None and new_items is None:
                continue
            if isinstance(old_items, list) or isinstance(new_items, list):
                olds = old_items if isinstance(old_items, list) else []
                news = new_items if isinstance(new_items, list) else []
                for i in range(max(len(olds), len(news))):
                    here = f"{loc}[{i}]"
                    if i >= len(news):
                        found.append(Change("removed", here, "removed", (*np, keyword)))
                    elif i < len(olds):
                        found += self.walk(
                            olds[i], news[i], here, (*op, keyword, i), (*np, keyword, i)
                        )
                continue
            found += self.walk(
                True if old_items is None else old_items,
                True if new_items is None else new_items,
                f"{loc}[]",
                (*op, keyword),
                (*np, keyword),
            )
        if not old.get("uniqueItems") and new.get("uniqueItems"):
            found.append(Change("narrowed", loc, "items must now be unique", np))
        elif old.get("uniqueItems") and not new.get("uniqueItems"):
            found.append(Change("widened", loc, "items may now repeat", np))
        return found


def _as_dict(schema: Any) -> dict[str, Any]:
    return schema if isinstance(schema, dict) else {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _strings_of(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _constrains(schema: dict[str, Any]) -> bool:
    annotations = {"title", "description", "examples", "default", "$comment", "$schema", "$id"}
    return any(key not in annotations and key not in ("$defs", "definitions") for key in schema)


def _unique(changes: list[Change]) -> list[Change]:
    seen: dict[tuple[str, str, str], Change] = {}
    for change in changes:
        seen.setdefault((change.kind, change.loc, change.text), change)
    return list(seen.values())


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The schema of values both `a` and `b` accept (an approximation good for diffing)."""
    merged = dict(a)
    for key, value in b.items():
        if key not in merged:
            merged[key] = value
        elif key == "properties" and isinstance(value, dict):
            props = dict(_dict(merged[key]))
            for name, schema in value.items():
                props[name] = {"allOf": [props[name], schema]} if name in props else schema
            merged[key] = props
        elif key == "required":
            merged[key] = sorted(set(_strings_of(merged[key])) | set(_strings_of(value)))
        elif key == "type":
            merged[key] = sorted(_type_set(merged[key]) & _type_set(value))
        elif key == "enum" and isinstance(value, list) and isinstance(merged[key], list):
            allowed = {_canon(v) for v in value}
            merged[key] = [v for v in merged[key] if _canon(v) in allowed]
        elif key in _LOWER and _number(value) and _number(merged[key]):
            merged[key] = max(merged[key], value)
        elif key in _UPPER and _number(value) and _number(merged[key]):
            merged[key] = min(merged[key], value)
        elif key == "additionalProperties" and (value is False or merged[key] is False):
            merged[key] = False
        elif key in ("items", "additionalProperties") and _canon(value) != _canon(merged[key]):
            merged[key] = {"allOf": [merged[key], value]}
        elif _canon(value) != _canon(merged[key]):
            merged[key] = f"{_show(merged[key])} & {_show(value)}"
    return merged


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _type_set(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    return {item for item in value if isinstance(item, str)} if isinstance(value, list) else set()


def _types_of(schema: dict[str, Any]) -> set[str] | None:
    if "type" not in schema:
        return None
    return _type_set(schema["type"])


def _accepts(types: set[str] | None, kind: str) -> bool:
    return types is None or kind in types or (kind == "integer" and "number" in types)


def _disjoint(before: set[str] | None, after: set[str] | None) -> bool:
    if before is None or after is None:
        return False
    shared = [kind for kind in before if _accepts(after, kind)]
    return not shared and not any(_accepts(before, kind) for kind in after)


def _show_types(types: set[str] | None) -> str:
    return "any" if types is None else " | ".join(sorted(types)) or "nothing"


def _types(old: dict[str, Any], new: dict[str, Any], loc: str, np: Pointer) -> list[Change]:
    before, after = _types_of(old), _types_of(new)
    if before == after:
        return []
    text = f"type changed {_show_types(before)} → {_show_types(after)}"
    where = (*np, "type")
    narrowed = (after is not None and before is None) or any(
        not _accepts(after, kind) for kind in before or ()
    )
    widened = (before is not None and after is None) or any(
        not _accepts(before, kind) for kind in after or ()
    )
    found = [Change("narrowed", loc, text, where)] if narrowed else []
    return found + ([Change("widened", loc, text, where)] if widened else [])


def _enum_of(schema: dict[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    enum = schema.get("enum")
    return enum if isinstance(enum, list) else None


def _values(old: dict[str, Any], new: dict[str, Any], loc: str, np: Pointer) -> list[Change]:
    before, after = _enum_of(old), _enum_of(new)
    where = (*np, "enum" if "enum" in new else "const")
    if before is None and after is None:
        return []
    if before is None:
        text = f"restricted to {_canon(after)}"
        return [Change("narrowed", loc, text, where)]
    if after is None:
        return [Change("widened", loc, f"no longer restricted to {_canon(before)}", where)]
    old_keys = {_canon(v): v for v in before}
    new_keys = {_canon(v): v for v in after}
    found = [
        Change("narrowed", loc, f"enum value `{_show(old_keys[k])}` removed", where)
        for k in sorted(old_keys.keys() - new_keys.keys())
    ]
    return found + [
        Change("widened", loc, f"enum value `{_show(new_keys[k])}` added", where)
        for k in sorted(new_keys.keys() - old_keys.keys())
    ]


def _strings(old: dict[str, Any], new: dict[str, Any], loc: str, np: Pointer) -> list[Change]:
    found: list[Change] = []
    for keyword in ("pattern", "format", "multipleOf"):
        before, after = old.get(keyword), new.get(keyword)
        if _canon(before) == _canon(after):
            continue
        where = (*np, keyword)
        if before is None:
            found.append(Change("narrowed", loc, f"{keyword} `{_show(after)}` added", where))
        elif after is None:
            found.append(Change("widened", loc, f"{keyword} `{_show(before)}` removed", where))
        else:
            text = f"{keyword} changed `{_show(before)}` → `{_show(after)}`"
            found += [Change("narrowed", loc, text, where), Change("widened", loc, text, where)]
    return found


def _bounds(old: dict[str, Any], new: dict[str, Any], loc: str, np: Pointer) -> list[Change]:
    found: list[Change] = []
    for keyword in (*_LOWER, *_UPPER):
        before, after = old.get(keyword), new.get(keyword)
        if before == after:
            continue
        where = (*np, keyword)
        if not (before is None or _number(before)) or not (after is None or _number(after)):
            text = f"not compared: `{keyword}` changed"
            found.append(Change("unknown", loc, text, where))
            continue
        if before is None:
            found.append(Change("narrowed", loc, f"{keyword} {_show(after)} added", where))
            continue
        if after is None:
            found.append(Change("widened", loc, f"{keyword} {_show(before)} removed", where))
            continue
        tighter = after > before if keyword in _LOWER else after < before
        text = f"{keyword} changed {_show(before)} → {_show(after)}"
        found.append(Change("narrowed" if tighter else "widened", loc, text, where))
    return found
