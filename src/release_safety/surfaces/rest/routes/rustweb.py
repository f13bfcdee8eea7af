"""Rust: axum (`Router::new().route("/x", get(h).post(h))`, `.nest("/api", api())`,
`.merge(other())`) and actix-web (`#[get("/x")]` handlers registered with `.service(h)`,
`web::scope("/api")`, `web::resource("/x").route(web::get().to(h))`, `.route("/x",
web::post().to(h))`, `.configure(config)`).

A router built by a function of the crate (`.nest("/api", api_routes())`) is read from that
function under the prefix; a path that is not a literal is a gap."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from tree_sitter import Node

from release_safety.code.memo import Memo
from release_safety.code.parsers import parse
from release_safety.code.syntax import call_arguments, node_text
from release_safety.surfaces.rest.routes.model import (
    ANY,
    METHODS,
    Files,
    Found,
    Route,
    RouteGap,
    join,
)

NAME = "rust"
_MARKERS = (b"axum", b"actix_web")
_VERBS = {m.lower(): m for m in METHODS} | {"any": ANY, "route": ANY}
_ROOTS = {"Router::new", "App::new", "web::scope", "scope"}
_PASS = {
    "layer",
    "route_layer",
    "with_state",
    "wrap",
    "wrap_fn",
    "app_data",
    "data",
    "fallback",
    "default_service",
    "guard",
    "name",
    "into_make_service",
}
_TREES: Memo[str, Node] = Memo(5_000)


_REGISTERS = re.compile(
    rb"\.(?:route|service|configure|nest|merge)\(|#\[(?:get|post|put|patch|delete|head|options)\("
)
"""A call or attribute that may register a route (a handler's `web::Json` does not)."""


def wanted(path: str, head: bytes) -> bool:
    return (
        path.endswith(".rs")
        and any(m in head for m in _MARKERS)
        and _REGISTERS.search(head) is not None
    )


@dataclass
class _Function:
    file: str
    node: Node


def read(snapshot: Files, paths: Sequence[str], prefix: str) -> Found:
    """The routes the Rust files among `paths` register."""
    functions: dict[str, list[_Function]] = {}
    macros: dict[str, list[tuple[str, str, str, int]]] = {}
    files: dict[str, str | None] = {}
    roots: list[tuple[str, Node]] = []
    for path in paths:
        blob = snapshot.blob_id(path)
        files[path] = blob
        root = _TREES.get(blob or path, partial(_tree, snapshot, path))
        roots.append((path, root))
        previous: Node | None = None
        for node in _items(root):
            if node.type == "function_item":
                name = node_text(node.child_by_field_name("name"))
                functions.setdefault(name, []).append(_Function(path, node))
                if previous is not None and previous.type == "attribute_item":
                    macro = _macro(previous)
                    if macro is not None:
                        macros.setdefault(name, []).append((*macro, path, node.start_point.row + 1))
            previous = node
    reader = _Reader(functions, macros)
    reader.blobs = {path: blob or path for path, blob in files.items()}
    for path, root in roots:
        reader.mounts(path, root)
    for path, root in roots:
        reader.roots(path, root, prefix)
    for name, registered in macros.items():
        if name not in reader.served:
            for method, route, path, line in registered:
                reader.routes.append(Route(method, join(prefix, route), path, line, NAME))
    return reader.routes, reader.gaps, files


def _tree(snapshot: Files, path: str) -> Node:
    return parse("rust", snapshot.read(path))


def _items(root: Node) -> list[Node]:
    """Top-level items, those of inline modules included."""
    found = []
    for node in root.named_children:
        if node.type == "mod_item" and node.child_by_field_name("body") is not None:
            found += _items(node.child_by_field_name("body"))  # type: ignore[arg-type]
        else:
            found.append(node)
    return found


def _macro(attribute: Node) -> tuple[str, str] | None:
    """`#[get("/x")]` -> ('GET', '/x')."""
    inner = attribute.named_children[0] if attribute.named_children else None
    if inner is None or inner.type != "attribute":
        return None
    name = node_text(inner.named_children[0]) if inner.named_children else ""
    if name not in _VERBS or name in ("any", "route"):
        return None
    tokens = next((c for c in inner.named_children if c.type == "token_tree"), None)
    literal = (
        next((c for c in tokens.named_children if c.type == "string_literal"), None)
        if tokens
        else None
    )
    path = _string(literal)
    return (_VERBS[name], path) if path is not None else None


class _Reader:
    def __init__(
        self,
        functions: dict[str, list[_Function]],
        macros: dict[str, list[tuple[str, str, str, int]]],
    ) -> None:
        self.functions = functions
        self.macros = macros
        self.routes: list[Route] = []
        self.gaps: list[RouteGap] = []
        self.served: set[str] = set()
        self.mounted: set[tuple[str, int]] = set()
        self.blobs: dict[str, str] = {}
        self.active: set[tuple[str, int]] = set()

    def target(self, callee: str, file: str) -> _Function | None:
        """The crate's function a call names (`config`, `api_routes_http::config`): by its
        name, then its module (the file or folder named before it), then the calling file."""
        *qualifiers, name = callee.split("::")
        candidates = self.functions.get(name, [])
        if len(candidates) > 1 and qualifiers and qualifiers[-1] not in ("self", "super", "crate"):
            module = qualifiers[-1]
            candidates = [c for c in candidates if module in c.file.removesuffix(".rs").split("/")]
        if len(candidates) > 1:
            candidates = [c for c in candidates if c.file == file] or candidates
        return candidates[0] if len(candidates) == 1 else None

    def called(self, node: Node, file: str) -> _Function | None:
        """The crate function a plain call runs."""
        if node.type != "call_expression" or _method(node) is not None:
            return None
        return self.target(node_text(node.child_by_field_name("function")), file)

    def configured(self, node: Node, file: str) -> list[_Function]:
        """The crate functions a `configure` argument runs: a function named, called, or
        called in a closure (`|cfg| routes::config(cfg)`, also under an `if`)."""
        if node.type in ("identifier", "scoped_identifier"):
            named = self.target(node_text(node), file)
            return [named] if named is not None else []
        found = []
        stack = [node]
        while stack:
            current = stack.pop()
            function = self.called(current, file)
            if function is not None:
                found.append(function)
            stack.extend(current.named_children)
        return found

    def roots(self, path: str, root: Node, prefix: str) -> None:
        """Every outermost router chain of a function no other router mounts."""
        for owner, chain in _sites(self.blobs[path], root)[0]:
            if owner not in self.mounted:
                self.chain(chain, path, prefix, {})

    def mounts(self, path: str, root: Node) -> None:
        """Note the functions whose routers are mounted by a router (read only from there)."""
        for call in _sites(self.blobs[path], root)[1]:
            for arg in call_arguments(call):
                if _method(call) == "configure":
                    found = self.configured(arg, path)
                else:
                    function = self.called(arg, path)
                    found = [function] if function is not None else []
                self.mounted |= {_key(function.node) for function in found}

    def chain(self, node: Node, path: str, prefix: str, scope: dict[str, Node]) -> None:
        """Read the routes of a router expression under `prefix`."""
        if node.type == "identifier" and node_text(node) in scope:
            self.chain(scope[node_text(node)], path, prefix, scope)
            return
        if node.type != "call_expression":
            return
        function = self.called(node, path)
        if function is not None:
            if _key(function.node) not in self.active:
                self._function(function, prefix)
            return
        root = _root_name(node)
        base = prefix
        resource: str | None = None
        start = _root(node)
        if root in ("web::scope", "scope", "web::resource", "resource"):
            literal = self._literal(
                call_arguments(start)[0] if call_arguments(start) else None, path, start
            )
            if literal is None:
                return
            if root.endswith("scope"):
                base = join(prefix, literal)
            else:
                resource = join(prefix, literal)
        for call in reversed(_calls(node)):
            self._call(call, path, base, resource, scope)

    def _call(
        self, call: Node, path: str, base: str, resource: str | None, scope: dict[str, Node]
    ) -> None:
        method = _method(call)
        args = call_arguments(call)
        line = call.start_point.row + 1
        if method == "route" and len(args) == 2:
            route = self._literal(args[0], path, call)
            if route is not None:
                for verb in _verbs(args[1]):
                    self.routes.append(Route(verb, join(base, route), path, line, NAME))
        elif method == "route" and len(args) == 1 and resource is not None:
            for verb in _verbs(args[0]):
                self.routes.append(Route(verb, resource, path, line, NAME))
        elif method == "to" and resource is not None:
            self.routes.append(Route(ANY, resource, path, line, NAME))
        elif method == "nest" and len(args) == 2:
            route = self._literal(args[0], path, call)
            if route is not None:
                self.chain(args[1], path, join(base, route), scope)
        elif method in ("merge", "service") and args:
            name = node_text(args[0])
            if args[0].type == "identifier" and name in self.macros:
                self.served.add(name)
                for verb, route, file, at in self.macros[name]:
                    self.routes.append(Route(verb, join(base, route), file, at, NAME))
            else:
                self.chain(args[0], path, base, scope)
        elif method == "configure" and args:
            for function in self.configured(args[0], path):
                if _key(function.node) not in self.active:
                    self._function(function, base)

    def _function(self, function: _Function, prefix: str) -> None:
        """A function that builds a router (its tail expression) or configures one (its
        statements on the parameter), read under `prefix`."""
        key = _key(function.node)
        self.active.add(key)
        body = function.node.child_by_field_name("body")
        scope: dict[str, Node] = {}
        for statement in body.named_children if body is not None else []:
            if statement.type == "let_declaration":
                value = statement.child_by_field_name("value")
                if value is not None:
                    scope[node_text(statement.child_by_field_name("pattern"))] = value
            elif statement.type == "expression_statement" and statement.named_children:
                self.chain(statement.named_children[0], function.file, prefix, scope)
            elif statement.type in ("call_expression", "identifier"):
                self.chain(statement, function.file, prefix, scope)
        self.active.discard(key)

    def _literal(self, node: Node | None, path: str, call: Node) -> str | None:
        literal = _string(node) if node is not None else None
        if literal is None:
            line = call.start_point.row + 1
            shown = node_text(call).split("\n")[0][:60]
            self.gaps.append(
                RouteGap(
                    path,
                    line,
                    f"`{shown}` registers a path computed at run time",
                    f"Write the path as a literal at {path}:{line}, so the reader can list it.",
                )
            )
        return literal


def _string(node: Node | None) -> str | None:
    if node is None or node.type not in ("string_literal", "raw_string_literal"):
        return None
    return "".join(node_text(c) for c in node.named_children if c.type == "string_content")


def _method(call: Node) -> str | None:
    function = call.child_by_field_name("function")
    if function is None or function.type != "field_expression":
        return None
    return node_text(function.child_by_field_name("field"))


def _receiver(call: Node) -> Node | None:
    function = call.child_by_field_name("function")
    if function is None or function.type != "field_expression":
        return None
    return function.child_by_field_name("value")


def _calls(node: Node) -> list[Node]:
    """The method calls of a chain, outermost first."""
    found = []
    while node.type == "call_expression" and _method(node) is not None:
        found.append(node)
        receiver = _receiver(node)
        if receiver is None:
            break
        node = receiver
    return found


def _root(node: Node) -> Node:
    while node.type == "call_expression" and _method(node) is not None:
        receiver = _receiver(node)
        if receiver is None:
            break
        node = receiver
    return node


def _root_name(node: Node) -> str:
    root = _root(node)
    if root.type == "call_expression":
        return node_text(root.child_by_field_name("function"))
    return node_text(root)


_REGISTERING = {"route", "service", "configure", "nest", "merge"}
_MOUNTING = {"nest", "merge", "configure", "service"}
Sites = tuple[list[tuple[tuple[str, int] | None, Node]], list[Node]]
_SITES: Memo[str, Sites] = Memo(5_000)


def _sites(blob: str, root: Node) -> Sites:
    """A file's outermost router chains, each with the function it is in, and its calls that
    mount a router built elsewhere (walked once per blob)."""
    return _SITES.get(blob, partial(_walk_sites, root))


def _walk_sites(root: Node) -> Sites:
    chains: list[tuple[tuple[str, int] | None, Node]] = []
    mounting: list[Node] = []
    stack: list[tuple[tuple[str, int] | None, Node]] = [(None, root)]
    while stack:
        owner, node = stack.pop()
        if node.type == "function_item":
            owner = _key(node)
        if node.type == "call_expression":
            if _method(node) in _MOUNTING:
                mounting.append(node)
            if _outermost(node) and _is_router(node):
                chains.append((owner, node))
        stack.extend((owner, child) for child in node.named_children)
    return chains, mounting


def _is_router(node: Node) -> bool:
    """A chain that builds a router: from `Router::new()`, `App::new()`, `web::scope(...)`, or
    from a variable (`app.configure(...)`, `cfg.service(...)`) with a registering call."""
    if _root_name(node) in _ROOTS:
        return True
    return _root(node).type == "identifier" and any(
        _method(call) in _REGISTERING for call in _calls(node)
    )


def _key(node: Node) -> tuple[str, int]:
    """A function item, as the walk tells functions apart (its name and where it starts)."""
    return node_text(node.child_by_field_name("name")), node.start_byte


def _outermost(node: Node) -> bool:
    """Not the receiver or an argument of another call of a chain."""
    parent = node.parent
    while parent is not None and parent.type in (
        "field_expression",
        "arguments",
        "call_expression",
    ):
        if parent.type == "call_expression" and _method(parent) is not None:
            return False
        parent = parent.parent
    return True


def _verbs(node: Node) -> list[str]:
    """The methods of an axum method router (`get(h).post(h)`) or actix route
    (`web::get().to(h)`)."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "call_expression":
            function = current.child_by_field_name("function")
            name = _method(current) or node_text(function).rsplit("::", 1)[-1]
            if name in _VERBS:
                found.append(_VERBS[name])
            receiver = _receiver(current)
            if receiver is not None:
                stack.append(receiver)
    return sorted(set(found)) or [ANY]
