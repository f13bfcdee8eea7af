"""Normalise a loaded document so that refactors compare equal.

Local `$ref`s are resolved (each target once, cycles kept as cycles in the object graph), allOf
is merged, the three nullable forms and the 3.0 / 3.1 dialects are unified, path-level
parameters are folded into operations, header names are lower-cased, path-template variable
names are erased from endpoint keys. Odd values in odd places are ignored, never trusted.
Given the previous version's normalisation, what did not change is reused (see `reuse.py`).
"""

from __future__ import annotations

import json
import math
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from json.encoder import encode_basestring
from typing import Any

from release_safety.surfaces.rest.load import Document, SpecError, read_text, read_value
from release_safety.surfaces.rest.reuse import PathTrace, Reuse, Trace, missing, resolve

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_DEPTH = 120
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
Bound = tuple[float, bool]  # (value, exclusive)
_ENUM_KEYS = frozenset({"enum", "const", "x-extensible-enum"})
_NUMERIC_KEYS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
    | {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
    | {"multipleOf", "uniqueItems"}
)
_OBJECT_KEYS = frozenset({"properties", "required", "additionalProperties"})
_OBJECT_KEYS |= {"unevaluatedProperties"}
_FLAG_KEYS = frozenset({"pattern", "nullable", "x-nullable", "readOnly", "writeOnly"})
_FLAG_KEYS |= {"deprecated", "default"}
_UNION_KEYS = frozenset({"oneOf", "anyOf", "discriminator"})


@dataclass(eq=False, slots=True)
class Schema:
    """A resolved, dialect-free schema. `origin` is the `$ref` it was read from, if any."""

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
    properties: dict[str, Schema] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    additional: bool | Schema = True
    items: Schema | None = None
    one_of: list[Schema] = field(default_factory=list)
    any_of: list[Schema] = field(default_factory=list)
    discriminator: str | None = None
    mapping: frozenset[str] = frozenset()
    read_only: bool = False
    write_only: bool = False
    deprecated: bool = False
    default: str | None = None
    building: bool = False

    def is_free_string(self) -> bool:
        """A branch that accepts any string: it makes sibling enums open."""
        return self.types == frozenset({"string"}) and self.enum is None and self.pattern is None


_ALL = tuple(f.name for f in fields(Schema))
_COPIED = tuple(name for name in _ALL if name not in ("origin", "building"))


@dataclass
class Param:
    location: str
    name: str
    required: bool
    schema: Schema
    style: str
    explode: bool
    deprecated: bool


@dataclass
class Header:
    name: str
    required: bool
    schema: Schema


@dataclass
class Body:
    required: bool
    content: dict[str, Schema]


@dataclass
class Response:
    content: dict[str, Schema]
    headers: dict[str, Header]


Requirement = frozenset[tuple[str, frozenset[str]]]


@dataclass
class Operation:
    method: str
    path: str
    params: dict[tuple[str, str], Param]
    body: Body | None
    responses: dict[str, Response]
    security: list[Requirement]
    deprecated: bool
    sunset: str | None
    stability: str | None

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"


@dataclass
class Api:
    """A normalised document: operations by (METHOD, path template without names)."""

    operations: dict[tuple[str, str], Operation]
    servers: list[str]
    api_keys: dict[str, tuple[str, str]]  # scheme name -> (in, name)
    document: Document
    # what the normalisation read, for the next version's; kept by the newest document only
    trace: Trace | None = field(default=None, repr=False, compare=False)


def endpoint_key(method: str, path: str) -> tuple[str, str]:
    return (method.upper(), re.sub(r"\{[^}/]*\}", "{}", path))


Fetch = Callable[[str], bytes | None]  # repository path -> content, None when absent


def normalise(
    document: Document, fetch: Fetch | None = None, base: str = "", previous: Api | None = None
) -> Api:
    """The operations, servers and API-key schemes of a document.

    `fetch` reads the files that external `$ref`s name (relative to the folder `base`); without
    it an external `$ref` is refused (external refs are off by default). `previous`, another
    version's normalisation, supplies what did not change (without external refs only).
    """
    trace = previous.trace if previous is not None and fetch is None else None
    try:
        return _Normaliser(document, fetch, base, trace).api()
    except RecursionError as exc:
        raise SpecError("document nested too deeply") from exc


def _absolute_refs(node: Any, path: str) -> None:
    """Rewrite the `$ref`s of a file read at `path` to `/<repository path>#<pointer>`."""
    folder = posixpath.dirname(path)
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and "://" not in ref:
                target, _, pointer = ref.partition("#")
                if not target:
                    target = path
                elif not target.startswith("/"):
                    target = posixpath.normpath(posixpath.join(folder, target))
                item["$ref"] = f"/{target.lstrip('/')}#{pointer}"
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))


def _by_position(path: str, params: dict[tuple[str, str], Param]) -> dict[tuple[str, str], Param]:
    """Path parameters keyed by their place in the template: renaming `{id}` is no change."""
    names = re.findall(r"\{([^}/]*)\}", path)
    out: dict[tuple[str, str], Param] = {}
    for key, param in params.items():
        if key[0] == "path" and key[1] in names:
            key = ("path", f"{{{names.index(key[1])}}}")
        out[key] = param
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _canonical(value: Any) -> str:
    """A value as canonical JSON text (enum values and defaults compare by it)."""
    if type(value) is str:
        return str(encode_basestring(value))
    return json.dumps(value, sort_keys=True, default=str)


def with_nullable(schema: Schema, nullable: bool = True) -> Schema:
    """A copy of a schema that accepts null or not (its origin kept, for grouping)."""
    copy = Schema()
    for name in _ALL:
        setattr(copy, name, getattr(schema, name))
    copy.nullable, copy.building = nullable, False
    return copy


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


class _Normaliser:
    def __init__(
        self, document: Document, fetch: Fetch | None, base: str, previous: Trace | None
    ) -> None:
        self.doc = document
        self.root = document.root
        self.trace = Trace(document.root)
        self.memo = self.trace.schemas  # ref -> schema, built or reused
        self.fetch = fetch
        self.base = base
        self.files: dict[str, Any] = {}
        self.reuse = Reuse(previous, self.trace, MAX_DEPTH) if previous is not None else None
        self.followed: list[set[str]] = [set()]  # per build under way, the `$ref`s it followed
        self.deepest = 0  # the deepest level the build under way reached

    # -- references ---------------------------------------------------------------------------
    def external(self, ref: str, target: str) -> Any:
        """The root of the file an external `$ref` names, read once."""
        if self.fetch is None:
            raise SpecError(f"external $ref {ref!r} not followed (external refs are off)")
        if "://" in target:
            raise SpecError(f"remote $ref {ref!r} not followed")
        if target.startswith("/"):
            path = posixpath.normpath(target.lstrip("/"))
        else:
            path = posixpath.normpath(posixpath.join(self.base, target))
        if path == ".." or path.startswith("../"):
            raise SpecError(f"$ref {ref!r} points outside the repository")
        if path not in self.files:
            data = self.fetch(path)
            if data is None:
                raise SpecError(f"$ref {ref!r}: {path} not found")
            root = read_value(read_text(data))
            _absolute_refs(root, path)
            self.files[path] = root
        return self.files[path]

    def lookup(self, ref: str) -> Any:
        target, _, pointer = ref.partition("#")
        node = resolve(self.external(ref, target) if target else self.root, pointer)
        if missing(node):
            raise SpecError(f"unresolvable $ref {ref!r}")
        return node

    def deref(self, node: Any, depth: int = 0) -> Any:
        """Follow `$ref`s of a non-schema object (parameter, response, body)."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen:
                raise SpecError(f"$ref cycle through {ref!r}")
            seen.add(ref)
            self.followed[-1].add(ref)
            node = self.lookup(ref)
        return node

    # -- schemas ------------------------------------------------------------------------------
    def schema(self, node: Any, depth: int = 0) -> Schema:
        if depth > MAX_DEPTH:
            raise SpecError(f"schema nested deeper than {MAX_DEPTH} levels")
        if depth > self.deepest:
            self.deepest = depth
        if not isinstance(node, dict):
            return Schema(types=frozenset()) if node is False else Schema()
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = self.ref_schema(ref, depth)
            rest = {
                k: v
                for k, v in node.items()
                if k not in ("$ref", "description", "summary", "title", "example", "examples")
            }
            if not rest:
                return target
            return self.merge([self.build(rest, depth), target], rest)
        return self.build(node, depth)

    def ref_schema(self, ref: str, depth: int) -> Schema:
        self.followed[-1].add(ref)
        found = self.memo.get(ref)
        if found is None and self.reuse is not None:
            found = self.reuse.schema(ref, depth)
        if found is not None:
            self.deepest = max(self.deepest, depth + self.trace.heights.get(ref, 0))
            return found
        holder = Schema(origin=ref, building=True)
        self.memo[ref] = holder
        outer, self.deepest = self.deepest, depth
        self.followed.append(set())
        built = self.schema(self.lookup(ref), depth + 1)
        self.trace.refs[ref] = frozenset(self.followed.pop())
        self.trace.heights[ref] = self.deepest - depth
        self.deepest = max(outer, self.deepest)
        for name in _COPIED:
            setattr(holder, name, getattr(built, name))
        holder.building = False
        return holder

    def build(self, node: dict[str, Any], depth: int) -> Schema:
        out = Schema()
        keys = node.keys()
        kind = node.get("type")
        if isinstance(kind, str):
            out.types = frozenset((kind,))
        elif isinstance(kind, list):
            out.types = frozenset(k for k in kind if isinstance(k, str))
        if out.types is not None and "null" in out.types:
            out.types, out.nullable = out.types - {"null"}, True
        fmt = node.get("format")
        out.format = fmt if isinstance(fmt, str) else None
        if not keys.isdisjoint(_ENUM_KEYS):
            self.enum(out, node)
        if not keys.isdisjoint(_NUMERIC_KEYS):
            out.minimum, out.maximum = self.bounds(node)
            out.min_length = _number(node.get("minLength"))
            out.max_length = _number(node.get("maxLength"))
            out.min_items = _number(node.get("minItems"))
            out.max_items = _number(node.get("maxItems"))
            out.min_properties = _number(node.get("minProperties"))
            out.max_properties = _number(node.get("maxProperties"))
            step = _number(node.get("multipleOf"))
            out.multiple_of = step if step is not None and 0 < step < math.inf else None
            out.unique_items = node.get("uniqueItems") is True
        if not keys.isdisjoint(_OBJECT_KEYS):
            self.object(out, node, depth)
        items = node.get("items")
        if isinstance(items, dict):
            out.items = self.schema(items, depth + 1)
        if not keys.isdisjoint(_FLAG_KEYS):
            pattern = node.get("pattern")
            out.pattern = pattern if isinstance(pattern, str) else None
            out.nullable = out.nullable or node.get("nullable") is True
            out.nullable = out.nullable or node.get("x-nullable") is True
            out.read_only = node.get("readOnly") is True
            out.write_only = node.get("writeOnly") is True
            out.deprecated = node.get("deprecated") is True
            if "default" in node:
                out.default = _canonical(node["default"])
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
            out.enum = {_canonical(v): v for v in values if v is not None}

    def object(self, out: Schema, node: dict[str, Any], depth: int) -> None:
        out.properties = {
            str(name): self.schema(sub, depth + 1)
            for name, sub in _dict(node.get("properties")).items()
        }
        out.required = frozenset(r for r in _list(node.get("required")) if isinstance(r, str))
        extra = node.get("additionalProperties", node.get("unevaluatedProperties"))
        if extra is False:
            out.additional = False
        elif isinstance(extra, dict) and extra:
            out.additional = self.schema(extra, depth + 1)

    def union(self, out: Schema, node: dict[str, Any], depth: int) -> None:
        for key in ("oneOf", "anyOf"):
            branches = [self.schema(b, depth + 1) for b in _list(node.get(key))]
            real = [b for b in branches if not (b.types == frozenset() and b.nullable)]
            if len(real) < len(branches):
                out.nullable = True
            if key == "oneOf":
                out.one_of = real
            else:
                out.any_of = real
        discriminator = _dict(node.get("discriminator"))
        if isinstance(discriminator.get("propertyName"), str):
            out.discriminator = discriminator["propertyName"]
            explicit = {str(k) for k in _dict(discriminator.get("mapping"))}
            implicit = {b.origin.rsplit("/", 1)[-1] for b in out.one_of + out.any_of if b.origin}
            out.mapping = frozenset(explicit | implicit)

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

    def bounds(self, node: dict[str, Any]) -> tuple[Bound | None, Bound | None]:
        low = _number(node.get("minimum"))
        high = _number(node.get("maximum"))
        lo: Bound | None = None if low is None else (low, node.get("exclusiveMinimum") is True)
        hi: Bound | None = None if high is None else (high, node.get("exclusiveMaximum") is True)
        ex_low = _number(node.get("exclusiveMinimum"))
        ex_high = _number(node.get("exclusiveMaximum"))
        if ex_low is not None:
            lo = _tighter_min(lo, (ex_low, True))
        if ex_high is not None:
            hi = _tighter_max(hi, (ex_high, True))
        return lo, hi

    def merge(self, parts: list[Schema], node: dict[str, Any]) -> Schema:
        """allOf: every part holds, so constraints add up and the tightest wins."""
        own, members = parts[0], parts[1:]
        live = [p for p in members if not p.building]
        empty = not (set(node) - {"allOf", "description", "title", "nullable", "$ref"})
        if len(members) == 1 and empty and not members[0].building:
            only = members[0]
            if own.nullable and not only.nullable:
                return with_nullable(only)
            return only
        out = Schema()
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
                mine = out.properties.get(name)
                out.properties[name] = sub if mine is None else self.merge([mine, sub], {"x": 1})
            out.required |= part.required
            if part.additional is False or out.additional is True:
                out.additional = part.additional
            if part.items is not None:
                out.items = (
                    part.items
                    if out.items is None
                    else self.merge([out.items, part.items], {"x": 1})
                )
            out.one_of = out.one_of or part.one_of
            out.any_of = out.any_of or part.any_of
            out.discriminator = out.discriminator or part.discriminator
            out.mapping = out.mapping or part.mapping
            out.read_only = out.read_only or part.read_only
            out.write_only = out.write_only or part.write_only
            out.deprecated = out.deprecated or part.deprecated
            out.default = part.default if part.default is not None else out.default
        out.nullable = own.nullable or (
            all(p.nullable for p in typed) if typed else any(p.nullable for p in live)
        )
        return out

    # -- operations ---------------------------------------------------------------------------
    def api(self) -> Api:
        operations: dict[tuple[str, str], Operation] = {}
        for path, item in _dict(self.root.get("paths")).items():
            reused = self.reuse.path(path, item) if self.reuse is not None else None
            if reused is None:
                reused = self.path_item(str(path), item)
            self.trace.paths[path] = reused
            operations.update(reused.operations)
        servers = sorted(
            str(s.get("url")) for s in _list(self.root.get("servers")) if isinstance(s, dict)
        )
        schemes = _dict(_dict(self.root.get("components")).get("securitySchemes"))
        api_keys: dict[str, tuple[str, str]] = {}
        for name, scheme in schemes.items():
            scheme = self.deref(scheme)
            if isinstance(scheme, dict) and scheme.get("type") == "apiKey":
                api_keys[name] = (str(scheme.get("in")), str(scheme.get("name")))
        # The raw tree is kept in the trace only, which the next version's normalisation drops.
        document = Document({}, self.doc.version, self.doc.text)
        trace = self.trace if not self.files else None
        return Api(operations, servers, api_keys, document, trace)

    def path_item(self, path: str, item: Any) -> PathTrace:
        """Normalise the operations of one path item, recording what they followed."""
        outer, self.deepest = self.deepest, 0
        self.followed.append(set())
        operations: dict[tuple[str, str], Operation] = {}
        item = self.deref(item)
        if isinstance(item, dict):
            common = self.params(item.get("parameters"), {})
            for method in METHODS:
                op = item.get(method)
                if isinstance(op, dict):
                    operations[endpoint_key(method, path)] = self.operation(
                        method, path, op, common, self.root.get("security")
                    )
        record = PathTrace(frozenset(self.followed.pop()), self.deepest, operations)
        self.deepest = outer
        return record

    def params(
        self, value: Any, inherited: dict[tuple[str, str], Param]
    ) -> dict[tuple[str, str], Param]:
        out = dict(inherited)
        for raw in _list(value):
            param = self.deref(raw)
            if not isinstance(param, dict):
                continue
            location, name = param.get("in"), param.get("name")
            if not isinstance(location, str) or not isinstance(name, str):
                continue
            if location == "header" and name.lower() in _IGNORED_HEADERS:
                continue
            schema_node = param.get("schema")
            if schema_node is None:
                content = [v for v in _dict(param.get("content")).values() if isinstance(v, dict)]
                schema_node = content[0].get("schema") if content else None
            style = param.get("style")
            default_style = "form" if location in ("query", "cookie") else "simple"
            style = style if isinstance(style, str) else default_style
            explode = param.get("explode")
            key = (location, name.lower() if location == "header" else name)
            out[key] = Param(
                location=location,
                name=name,
                required=location == "path" or param.get("required") is True,
                schema=self.schema(schema_node),
                style=style,
                explode=explode if isinstance(explode, bool) else style == "form",
                deprecated=param.get("deprecated") is True,
            )
        return out

    def content(self, value: Any) -> dict[str, Schema]:
        out: dict[str, Schema] = {}
        for media, entry in _dict(value).items():
            entry = _dict(entry)
            out[str(media).lower().split(";")[0].strip()] = self.schema(entry.get("schema"))
        return out

    def operation(
        self,
        method: str,
        path: str,
        op: dict[str, Any],
        common: dict[tuple[str, str], Param],
        root_security: Any,
    ) -> Operation:
        body = None
        raw_body = self.deref(op.get("requestBody"))
        if isinstance(raw_body, dict):
            body = Body(raw_body.get("required") is True, self.content(raw_body.get("content")))
        responses: dict[str, Response] = {}
        for status, raw in _dict(op.get("responses")).items():
            response = self.deref(raw)
            if not isinstance(response, dict):
                continue
            headers: dict[str, Header] = {}
            for name, header in _dict(response.get("headers")).items():
                header = self.deref(header)
                if isinstance(header, dict) and str(name).lower() != "content-type":
                    headers[str(name).lower()] = Header(
                        str(name), header.get("required") is True, self.schema(header.get("schema"))
                    )
            responses[str(status).upper()] = Response(
                self.content(response.get("content")), headers
            )
        security = op.get("security", root_security)
        requirements: list[Requirement] = [
            frozenset(
                (str(name), frozenset(s for s in _list(scopes) if isinstance(s, str)))
                for name, scopes in alt.items()
            )
            for alt in _list(security)
            if isinstance(alt, dict)
        ]
        sunset = op.get("x-sunset")
        stability = op.get("x-stability-level")
        return Operation(
            method=method,
            path=path,
            params=_by_position(path, self.params(op.get("parameters"), common)),
            body=body,
            responses=responses,
            security=requirements or [frozenset()],
            deprecated=op.get("deprecated") is True,
            sunset=str(sunset) if sunset is not None else None,
            stability=str(stability) if stability is not None else None,
        )
