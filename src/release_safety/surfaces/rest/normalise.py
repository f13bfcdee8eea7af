"""Normalise a loaded document so that refactors compare equal.

Schemas are built by the shared engine (`surfaces/jsonschema/build.py`: `$ref`s, `allOf`,
nullable forms, dialects, spec errors). Here path-level parameters are folded into operations,
header names are lower-cased, path-template variable names are erased from endpoint keys,
external `$ref` files are read, and security requirements are checked against the schemes the
document defines (one naming an undefined scheme is a spec error: the operation's security is
then unconstrained). Odd values in odd places are ignored, never trusted. Given the previous
version's normalisation, what did not change is reused (see `reuse.py`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from release_safety.surfaces.jsonschema.build import MAX_DEPTH, SchemaBuilder, missing, resolve
from release_safety.surfaces.jsonschema.issues import SpecError, SpecIssue
from release_safety.surfaces.jsonschema.model import Schema
from release_safety.surfaces.rest.load import Document, read_text, read_value
from release_safety.surfaces.rest.operation import (
    Body,
    Header,
    Operation,
    Param,
    Requirement,
    Response,
)
from release_safety.surfaces.rest.reuse import PathTrace, Reuse, Trace, scheme_names

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})


@dataclass
class Api:
    """A normalised document: operations by (METHOD, path template without names)."""

    operations: dict[tuple[str, str], Operation]
    servers: list[str]
    schemes: dict[str, tuple[str, ...]]  # security scheme name -> (type, where or how)
    document: Document
    issues: frozenset[SpecIssue]
    # what the normalisation read, for the next version's; kept by the newest document only
    trace: Trace | None = field(default=None, repr=False, compare=False)
    # the files external `$ref`s read, by repository path, for line lookups
    files: dict[str, Document] = field(default_factory=dict, repr=False, compare=False)


def endpoint_key(method: str, path: str) -> tuple[str, str]:
    return (method.upper(), re.sub(r"\{[^}/]*\}", "{}", path))


def path_owner(path: str) -> str:
    """The JSON pointer of a path item: what spec errors found in it belong to."""
    return "#/paths/" + path.replace("~", "~0").replace("/", "~1")


Fetch = Callable[[str], bytes | None]  # repository path -> content, None when absent


def normalise(
    document: Document, fetch: Fetch | None = None, base: str = "", previous: Api | None = None
) -> Api:
    """The operations, servers, security schemes and spec errors of a document.

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


def _scheme_shape(scheme: dict[str, Any]) -> tuple[str, ...]:
    """What a client must do to satisfy a scheme: its type, and where a key goes or which
    HTTP authentication scheme it uses."""
    kind = str(scheme.get("type"))
    if kind == "apiKey":
        return (kind, str(scheme.get("in")), str(scheme.get("name")))
    if kind == "http":
        return (kind, str(scheme.get("scheme")).lower())
    return (kind,)


class _Normaliser(SchemaBuilder):
    def __init__(
        self, document: Document, fetch: Fetch | None, base: str, previous: Trace | None
    ) -> None:
        self.doc = document
        self.trace = Trace(document.root)
        trace = self.trace
        super().__init__(document.root, trace.schemas, trace.refs, trace.heights, trace.issues)
        self.fetch = fetch
        self.base = base
        self.files: dict[str, Document] = {}  # what external `$ref`s read, by repository path
        self.reuse = Reuse(previous, self.trace, MAX_DEPTH) if previous is not None else None
        self.defined = scheme_names(document.root)
        self.root_security: list[Requirement] | None = [frozenset()]

    # -- references ---------------------------------------------------------------------------
    def reused(self, ref: str, depth: int) -> Schema | None:
        return self.reuse.schema(ref, depth) if self.reuse is not None else None

    def external(self, ref: str, target: str) -> Any:
        """The root of the file an external `$ref` names, read once."""
        if self.fetch is None:
            raise SpecError(
                f"external $ref {ref!r} not followed (external refs are off:"
                " `rest.external_refs = true` follows the repository's own files)"
            )
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
            text = read_text(data)
            root = read_value(text)
            _absolute_refs(root, path)
            self.files[path] = Document(root, self.doc.version, text)
        return self.files[path].root

    def lookup(self, ref: str) -> Any:
        target, _, pointer = ref.partition("#")
        node = resolve(self.external(ref, target) if target else self.root, pointer)
        if missing(node):
            raise SpecError(f"unresolvable $ref {ref!r}")
        return node

    def deref(self, node: Any) -> Any:
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

    # -- operations ---------------------------------------------------------------------------
    def api(self) -> Api:
        self.owners.append("#/security")
        self.root_security = self.security(self.root.get("security"))
        self.owners.pop()
        operations: dict[tuple[str, str], Operation] = {}
        for path, item in _dict(self.root.get("paths")).items():
            owner = path_owner(str(path))
            reused = self.reuse.path(path, owner, item) if self.reuse is not None else None
            if reused is None:
                reused = self.path_item(str(path), item)
            self.trace.paths[path] = reused
            operations.update(reused.operations)
        servers = sorted(
            str(s.get("url")) for s in _list(self.root.get("servers")) if isinstance(s, dict)
        )
        schemes: dict[str, tuple[str, ...]] = {}
        for name, scheme in _dict(
            _dict(self.root.get("components")).get("securitySchemes")
        ).items():
            scheme = self.deref(scheme)
            if isinstance(scheme, dict):
                schemes[name] = _scheme_shape(scheme)
        issues = self.all_issues()
        # The raw tree is kept in the trace only, which the next version's normalisation drops.
        document = replace(self.doc, root={})
        trace = self.trace if not self.files else None
        files = {path: Document({}, read.version, read.text) for path, read in self.files.items()}
        return Api(operations, servers, schemes, document, issues, trace, files)

    def path_item(self, path: str, item: Any) -> PathTrace:
        """Normalise the operations of one path item, recording what they followed."""
        outer, self.deepest = self.deepest, 0
        self.followed.append(set())
        self.owners.append(path_owner(path))
        operations: dict[tuple[str, str], Operation] = {}
        item = self.deref(item)
        if isinstance(item, dict):
            common = self.params(item.get("parameters"), {})
            for method in METHODS:
                op = item.get(method)
                if isinstance(op, dict):
                    operations[endpoint_key(method, path)] = self.operation(
                        method, path, op, common
                    )
        self.owners.pop()
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

    def security(self, value: Any) -> list[Requirement] | None:
        """The alternatives of a security requirement; None (unconstrained) when one names a
        scheme the document does not define, which is a spec error."""
        requirements: list[Requirement] = [
            frozenset(
                (str(name), frozenset(s for s in _list(scopes) if isinstance(s, str)))
                for name, scopes in alt.items()
            )
            for alt in _list(value)
            if isinstance(alt, dict)
        ]
        undefined = sorted({name for alt in requirements for name, _ in alt} - self.defined)
        for name in undefined:
            message = f"security requires `{name}`, which components.securitySchemes lacks"
            self.issue(name, message)
        return None if undefined else requirements or [frozenset()]

    def operation(
        self, method: str, path: str, op: dict[str, Any], common: dict[tuple[str, str], Param]
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
                        str(name),
                        header.get("required") is True,
                        header.get("deprecated") is True,
                        self.schema(header.get("schema")),
                    )
            responses[str(status).upper()] = Response(
                self.content(response.get("content")), headers
            )
        security = self.security(op["security"]) if "security" in op else self.root_security
        sunset = op.get("x-sunset")
        stability = op.get("x-stability-level")
        return Operation(
            method=method,
            path=path,
            params=_by_position(path, self.params(op.get("parameters"), common)),
            body=body,
            responses=responses,
            security=security,
            deprecated=op.get("deprecated") is True,
            sunset=str(sunset) if sunset is not None else None,
            stability=str(stability) if stability is not None else None,
        )
