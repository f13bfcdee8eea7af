"""Structural diff of two normalised APIs: what changed, where, in which direction.

The diff states facts (a property was removed, a bound moved) and never judges them: the rules
(`rules.py`) decide what breaks. A shared schema is compared once per direction and its deltas
carry the schema's own location, so one edit reached by many operations stays one fact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from release_safety.surfaces.rest.load import SpecError
from release_safety.surfaces.rest.normalise import Api, Operation, Param, Schema, with_nullable

Direction = Literal["request", "response", "operation", "api"]
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


@dataclass(frozen=True)
class Delta:
    """One structural change. `place` is a named schema (`origin`) or an operation part."""

    kind: str
    direction: Direction
    place: str
    origin: str | None = None
    at: str = ""
    old: Any = None
    new: Any = None
    flag: bool = False


@dataclass
class OperationDelta:
    """A delta and the operations it reaches (labels such as `GET /pets/{id}`)."""

    delta: Delta
    operation: Operation | None


def _covers(wide: frozenset[str] | None, narrow: frozenset[str] | None) -> bool:
    if wide is None:
        return True
    if narrow is None:
        return False
    return all(t in wide or (t == "integer" and "number" in wide) for t in narrow)


def _join(at: str, part: str) -> str:
    if not at:
        return part
    return at + part if part.startswith("[") else f"{at}.{part}"


def _branch_keys(branches: list[Schema]) -> dict[str, Schema]:
    """Union branches keyed by what names them on the wire: their `type` tag, else the schema
    they came from, else their type and rank among branches of that type (never position)."""
    out: dict[str, Schema] = {}
    for branch in branches:
        tag = branch.properties.get("type")
        if tag is not None and tag.enum is not None and len(tag.enum) == 1:
            key = f"type={next(iter(tag.enum.values()))}"
        elif branch.origin:
            key = branch.origin
        else:
            types = ",".join(sorted(branch.types)) if branch.types is not None else "any"
            key = f"{types}#{branch.enum is not None}"
        rank = sum(1 for k in out if k.split("~")[0] == key)
        out[f"{key}~{rank}" if rank else key] = branch
    return out


def _flatten(branches: list[Schema]) -> list[Schema]:
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


class SchemaDiffer:
    """Compares schema graphs (cycles allowed); named pairs are compared once per direction."""

    def __init__(self) -> None:
        self.cache: dict[tuple[int, int, str, bool], list[Delta]] = {}
        self.active: dict[tuple[int, int, str, bool], int] = {}
        self.low = MAX_DIFF_DEPTH
        self.depth = 0

    def compare(
        self,
        old: Schema,
        new: Schema,
        direction: Direction,
        place: str,
        at: str = "",
        open_enum: bool = False,
    ) -> list[Delta]:
        origin = new.origin or old.origin
        if old is new:
            return []
        if origin is None:
            inherited = place if place.startswith(("#/", "/")) else None
            return self._guarded(old, new, direction, place, inherited, at, open_enum)
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
            deltas = self._guarded(old, new, direction, origin, origin, "", open_enum)
        finally:
            del self.active[key]
        if self.low >= mine:
            self.cache[key] = deltas
        self.low = min(saved, self.low)
        return deltas

    def _guarded(
        self,
        old: Schema,
        new: Schema,
        direction: Direction,
        place: str,
        origin: str | None,
        at: str,
        open_enum: bool,
    ) -> list[Delta]:
        self.depth += 1
        try:
            if self.depth > MAX_DIFF_DEPTH:
                raise SpecError(f"schemas nested deeper than {MAX_DIFF_DEPTH} levels")
            return self._compare(old, new, direction, place, origin, at, open_enum)
        finally:
            self.depth -= 1

    def _compare(
        self,
        old: Schema,
        new: Schema,
        direction: Direction,
        place: str,
        origin: str | None,
        at: str,
        open_enum: bool,
    ) -> list[Delta]:
        out: list[Delta] = []

        def add(
            kind: str, before: Any = None, after: Any = None, where: str = at, flag: bool = False
        ) -> None:
            out.append(Delta(kind, direction, place, origin, where, before, after, flag))

        old_union, new_union = old.one_of + old.any_of, new.one_of + new.any_of
        if bool(old_union) != bool(new_union):
            # One side became (or stopped being) a union: the plain side is one of its branches.
            if old.nullable != new.nullable:
                add("nullable-added" if new.nullable else "nullable-removed")
            before = old_union or [with_nullable(old, False)]
            after = new_union or [with_nullable(new, False)]
            self._branches(before, after, direction, place, at, add, out)
            return out
        if old.types != new.types:
            if _covers(new.types, old.types):
                add("type-widened", old.types, new.types)
            elif _covers(old.types, new.types):
                add("type-narrowed", old.types, new.types)
            else:
                add("type-changed", old.types, new.types)
        if old.nullable != new.nullable:
            add("nullable-added" if new.nullable else "nullable-removed")
        if old.format != new.format:
            add("format-changed", old.format, new.format)
        self._enum(old, new, add, open_enum)
        for name, side, keyword in _BOUNDS:
            before, after = getattr(old, name), getattr(new, name)
            if before != after:
                kind = "bound-tightened" if _tighter(before, after, side) else "bound-loosened"
                add(kind, (keyword, _show(before)), (keyword, _show(after)))
        if old.unique_items != new.unique_items:
            kind = "bound-tightened" if new.unique_items else "bound-loosened"
            add(
                kind,
                ("uniqueItems", str(old.unique_items).lower()),
                ("uniqueItems", str(new.unique_items).lower()),
            )
        if old.multiple_of != new.multiple_of:
            step_was, step_now = old.multiple_of, new.multiple_of
            # every multiple of the old step is one of the new step exactly when the new divides it
            narrower = step_now is not None and (step_was is None or step_was % step_now != 0)
            wider = step_was is not None and (step_now is None or step_now % step_was != 0)
            for kind, happened in (("bound-tightened", narrower), ("bound-loosened", wider)):
                if happened:
                    add(kind, ("multipleOf", _show(step_was)), ("multipleOf", _show(step_now)))
        if old.pattern != new.pattern:
            add("pattern-changed", old.pattern, new.pattern)
        if old.default != new.default and old.default is not None and new.default is not None:
            add("default-changed", old.default, new.default)
        if old.additional is not False and new.additional is False:
            add("additional-properties-disallowed")
        elif isinstance(old.additional, Schema) and isinstance(new.additional, Schema):
            out += self.compare(old.additional, new.additional, direction, place, _join(at, "*"))
        self._properties(old, new, direction, place, at, add, out)
        if old.items is not None and new.items is not None:
            out += self.compare(old.items, new.items, direction, place, _join(at, "[]"))
        self._branches(old_union, new_union, direction, place, at, add, out)
        if old.discriminator is not None and (
            new.discriminator != old.discriminator or old.mapping - new.mapping
        ):
            add("discriminator-changed", old.discriminator, sorted(old.mapping - new.mapping))
        return out

    @staticmethod
    def _enum(old: Schema, new: Schema, add: Any, open_enum: bool) -> None:
        if old.enum is None and new.enum is None:
            return
        if old.enum is None:
            assert new.enum is not None
            add("enum-set", None, list(new.enum.values()))
            return
        if new.enum is None:
            add("enum-unset", list(old.enum.values()), None, flag=open_enum)
            return
        removed = [v for k, v in old.enum.items() if k not in new.enum]
        added = [v for k, v in new.enum.items() if k not in old.enum]
        if removed:
            add("enum-value-removed", removed, None)
        if added:
            add("enum-value-added", None, added, flag=new.open_enum or open_enum)

    def _properties(
        self,
        old: Schema,
        new: Schema,
        direction: Direction,
        place: str,
        at: str,
        add: Any,
        out: list[Delta],
    ) -> None:
        if not old.properties and not new.properties:
            return
        hidden = "read_only" if direction == "request" else "write_only"
        before = {n: s for n, s in old.properties.items() if not getattr(s, hidden)}
        after = {n: s for n, s in new.properties.items() if not getattr(s, hidden)}
        for name in sorted(before.keys() - after.keys()):
            add("property-removed", where=_join(at, name), flag=name in old.required)
        for name in sorted(after.keys() - before.keys()):
            add("property-added", where=_join(at, name), flag=name in new.required)
        for name in sorted(before.keys() & after.keys()):
            where = _join(at, name)
            was, now = name in old.required, name in new.required
            if was != now:
                add("property-became-required" if now else "property-became-optional", where=where)
            if after[name].deprecated and not before[name].deprecated:
                add("property-deprecated", where=where)
            out += self.compare(before[name], after[name], direction, place, where)

    def _branches(
        self,
        before: list[Schema],
        after: list[Schema],
        direction: Direction,
        place: str,
        at: str,
        add: Any,
        out: list[Delta],
    ) -> None:
        if not before and not after:
            return
        olds, news = _branch_keys(_flatten(before)), _branch_keys(_flatten(after))
        open_enum = any(s.is_free_string() for s in after)
        gone = sorted(olds.keys() - news.keys())
        new_keys = sorted(news.keys() - olds.keys())
        for key in list(gone):
            # A renamed or moved branch: an unmatched pair that compares equal is one branch.
            twin = next(
                (k for k in new_keys if not self.compare(olds[key], news[k], direction, place)),
                None,
            )
            if twin is not None:
                gone.remove(key)
                new_keys.remove(twin)
        for key in gone:
            add("branch-removed", _branch_name(key, olds[key]), None)
        for key in new_keys:
            add("branch-added", None, _branch_name(key, news[key]))
        for key in sorted(olds.keys() & news.keys()):
            out += self.compare(olds[key], news[key], direction, place, at, open_enum)


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


def diff_apis(old: Api, new: Api) -> list[OperationDelta]:
    """Every delta between two APIs, each with the operation it was found in (None: API-wide)."""
    differ = SchemaDiffer()
    found: list[OperationDelta] = []
    for key in sorted(old.operations.keys() | new.operations.keys()):
        before, after = old.operations.get(key), new.operations.get(key)
        if before is after:  # reused unchanged from the previous version's normalisation
            continue
        if after is None:
            assert before is not None
            found.append(
                OperationDelta(Delta("endpoint-removed", "operation", "operation"), before)
            )
        elif before is None:
            found.append(OperationDelta(Delta("endpoint-added", "operation", "operation"), after))
        else:
            found += [OperationDelta(d, after) for d in _operation(before, after, differ)]
    if old.servers != new.servers:
        found.append(
            OperationDelta(
                Delta("servers-changed", "api", "servers", None, "", old.servers, new.servers), None
            )
        )
    for name in sorted(old.api_keys.keys() & new.api_keys.keys()):
        if old.api_keys[name] != new.api_keys[name]:
            delta = Delta(
                "api-key-changed",
                "api",
                f"security scheme `{name}`",
                None,
                "",
                old.api_keys[name],
                new.api_keys[name],
            )
            found.append(OperationDelta(delta, None))
    return found


def _operation(old: Operation, new: Operation, differ: SchemaDiffer) -> list[Delta]:
    out: list[Delta] = []
    if new.deprecated and not old.deprecated:
        out.append(
            Delta("endpoint-deprecated", "operation", "operation", None, "", None, new.sunset)
        )
    if old.stability != new.stability:
        out.append(
            Delta(
                "stability-changed",
                "operation",
                "operation",
                None,
                "",
                old.stability,
                new.stability,
            )
        )
    out += _params(old.params, new.params, differ)
    out += _body(old, new, differ)
    out += _responses(old, new, differ)
    for requirement in old.security:
        if not any(_satisfies(requirement, alt) for alt in new.security):
            wanted = sorted(
                f"{name}{'(' + ', '.join(sorted(scopes)) + ')' if scopes else ''}"
                for alt in new.security
                for name, scopes in alt
            )
            out.append(
                Delta("security-requirement-added", "request", "security", None, "", None, wanted)
            )
            break
    return out


def _satisfies(
    held: frozenset[tuple[str, frozenset[str]]], needed: frozenset[tuple[str, frozenset[str]]]
) -> bool:
    """A client that satisfied `held` also satisfies `needed`."""
    scopes = dict(held)
    return all(name in scopes and wanted <= scopes[name] for name, wanted in needed)


def _param_place(param: Param) -> str:
    return f"{param.location} parameter `{param.name}`"


def _params(
    old: dict[tuple[str, str], Param], new: dict[tuple[str, str], Param], differ: SchemaDiffer
) -> list[Delta]:
    out: list[Delta] = []
    removed = {k: old[k] for k in old.keys() - new.keys()}
    added = {k: new[k] for k in new.keys() - old.keys()}
    moved: set[tuple[str, str]] = set()
    for key, param in sorted(removed.items()):
        target = next(
            (k for k in sorted(added) if k[1].lower() == key[1].lower() and k not in moved), None
        )
        if target is not None:
            moved.add(target)
            out.append(
                Delta(
                    "parameter-moved", "request", _param_place(param), None, "", key[0], target[0]
                )
            )
        else:
            out.append(Delta("parameter-removed", "request", _param_place(param)))
    for key, param in sorted(added.items()):
        if key not in moved:
            out.append(
                Delta(
                    "parameter-added",
                    "request",
                    _param_place(param),
                    None,
                    "",
                    None,
                    None,
                    param.required,
                )
            )
    for key in sorted(old.keys() & new.keys()):
        before, after = old[key], new[key]
        place = _param_place(after)
        if after.required and not before.required:
            out.append(Delta("parameter-became-required", "request", place))
        if (before.style, before.explode) != (after.style, after.explode):
            out.append(
                Delta(
                    "parameter-style-changed",
                    "request",
                    place,
                    None,
                    "",
                    (before.style, before.explode),
                    (after.style, after.explode),
                )
            )
        if after.deprecated and not before.deprecated:
            out.append(Delta("parameter-deprecated", "request", place))
        out += differ.compare(before.schema, after.schema, "request", place)
    return out


def _body(old: Operation, new: Operation, differ: SchemaDiffer) -> list[Delta]:
    out: list[Delta] = []
    before, after = old.body, new.body
    if after is None:
        return out
    if after.required and (before is None or not before.required):
        out.append(Delta("body-became-required", "request", "request body"))
    if before is None:
        return out
    for media in sorted(before.content.keys() - after.content.keys()):
        out.append(Delta("media-type-removed", "request", "request body", None, "", media))
    for media in sorted(before.content.keys() & after.content.keys()):
        place = "request body" if len(after.content) == 1 else f"request body {media}"
        out += differ.compare(before.content[media], after.content[media], "request", place)
    return out


def _is_success(status: str) -> bool:
    return status[:1] in ("1", "2", "3")


def _responses(old: Operation, new: Operation, differ: SchemaDiffer) -> list[Delta]:
    out: list[Delta] = []
    for status in sorted(old.responses.keys() - new.responses.keys()):
        if _is_success(status):
            out.append(
                Delta("success-status-removed", "response", f"response {status}", None, "", status)
            )
    for status in sorted(new.responses.keys() - old.responses.keys()):
        if status[:1] in ("4", "5"):
            out.append(
                Delta(
                    "error-status-added", "response", f"response {status}", None, "", None, status
                )
            )
    for status in sorted(old.responses.keys() & new.responses.keys()):
        before, after = old.responses[status], new.responses[status]
        for media in sorted(before.content.keys() - after.content.keys()):
            out.append(
                Delta("media-type-removed", "response", f"response {status}", None, "", media)
            )
        for media in sorted(before.content.keys() & after.content.keys()):
            place = (
                f"response {status}" if len(after.content) == 1 else f"response {status} {media}"
            )
            out += differ.compare(before.content[media], after.content[media], "response", place)
        for name in sorted(before.headers.keys() - after.headers.keys()):
            out.append(
                Delta(
                    "header-removed",
                    "response",
                    f"response {status}",
                    None,
                    "",
                    before.headers[name].name,
                    flag=before.headers[name].required,
                )
            )
        for name in sorted(before.headers.keys() & after.headers.keys()):
            place = f"response {status} header `{after.headers[name].name}`"
            out += differ.compare(
                before.headers[name].schema, after.headers[name].schema, "response", place
            )
    return out
