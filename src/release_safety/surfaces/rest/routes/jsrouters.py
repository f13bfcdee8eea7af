"""Express, Fastify, Hono and Koa (koa-router, @koa/router): routes registered in code.

`app.get('/x', h)` (and post, put, patch, delete, head, options; `all` answers every method),
`router.route('/x').get(h).post(h)`, Hono's chained `app.get(...).post(...)`, Fastify's
`app.route({ method, url })`; mounts `app.use('/api', router)`, `app.route('/api', sub)`,
`app.register(plugin, { prefix })`, `router.use('/p', other.routes())`; a router's own prefix
(`new Router({ prefix })`, `new Hono().basePath('/api')`). Only files that import one of the
frameworks are read, and only receivers that are routers there (made by the framework, or a
function's parameter in such a file): a client's `api.get('/users')` is not a route.
A path that is not a literal (or a constant of the file), or a registration in a loop, is a gap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial

from tree_sitter import Node

from release_safety.code.jsmodules import module_candidates
from release_safety.code.memo import Memo
from release_safety.code.parsers import parse
from release_safety.code.syntax import call_arguments, node_text
from release_safety.code.tsnodes import literal_of
from release_safety.surfaces.rest.routes.link import FileRouters, Mount, Registration, link
from release_safety.surfaces.rest.routes.model import (
    ANY,
    METHODS,
    Files,
    Found,
    Route,
    RouteGap,
    join,
)

_FILES: Memo[str, FileRouters | None] = Memo(20_000)
"""What each file says about routers, by blob id and whether it must name a framework."""

NAME = "express"
EXTENSIONS = (".ts", ".js", ".mjs", ".cjs", ".tsx", ".jsx", ".mts", ".cts")
MODULES = ("express", "fastify", "hono", "koa", "@koa/router", "koa-router")
_MARKERS = tuple(m.encode() for m in ("express", "fastify", "hono", "koa"))
_IMPORTED = re.compile(
    rb"[\"'`](?:(?:" + b"|".join(re.escape(m.encode()) for m in MODULES) + rb")[\"'`]"
    rb"|hono/|@hono/|fastify-)"
)
"""A framework's module written as a string (`from "express"`, `require('hono/jsx')`): what a
file that registers routes holds (`_framework`), where a marker alone may be `expression`."""
_VERBS = {m.lower(): m for m in METHODS} | {"all": ANY}
_MAKERS = {"express", "Router", "fastify", "Fastify", "Hono", "Koa", "KoaRouter", "OpenAPIHono"}
_ROUTER_TYPES = ("Fastify", "Express", "Router", "Hono", "Application", "Koa")
_ROUTER_NAMES = {"app", "router", "fastify", "server", "instance"}
_LOOPS = {"for_statement", "for_in_statement", "while_statement", "do_statement"}
_LOOP_CALLS = {"forEach", "map", "flatMap"}


def wanted(path: str, head: bytes) -> bool:
    """A source file that may register routes: it names one of the frameworks."""
    return path.endswith(EXTENSIONS) and any(marker in head for marker in _MARKERS)


def read(snapshot: Files, paths: Sequence[str], prefix: str) -> Found:
    """The routes the JavaScript / TypeScript files among `paths` register, linked."""
    known: dict[str, FileRouters] = {}
    files: dict[str, str | None] = {}
    present = set(snapshot.paths())

    def resolve(file: str, module: str) -> str | None:
        return next((c for c in module_candidates(file, module) if c in present), None)

    queue = [(path, True) for path in paths if path.endswith(EXTENSIONS)]
    while queue:
        path, framework = queue.pop()
        if path in known:
            continue
        blob = snapshot.blob_id(path)
        key = f"{blob or path}:{framework}"
        reading = _FILES.get(key, partial(_read_file, snapshot, path, framework))
        if reading is None:
            continue
        known[path] = reading
        files[path] = blob
        # a module a router is imported through (`export { default } from "./routes"`,
        # `module.exports = require("./routes")`) is read for its exports too
        for module, _ in reading.imports.values():
            found = resolve(path, module)
            if found is not None and found not in known and found.endswith(EXTENSIONS):
                queue.append((found, False))

    routes = link(known, resolve, NAME)
    if prefix:
        routes = [
            Route(r.method, join(prefix, r.path), r.file, r.line, r.framework) for r in routes
        ]
    gaps = [gap for reading in known.values() for gap in reading.gaps]
    return routes, gaps, files


def _read_file(snapshot: Files, path: str, framework: bool = True) -> FileRouters | None:
    return _file(snapshot.read(path), path, framework)


def _file(source: bytes, path: str, framework: bool = True) -> FileRouters | None:
    """What a file says about routers; None for a file that names no framework (`framework`
    False: read anyway, for what it imports and exports)."""
    if framework and _IMPORTED.search(source) is None:
        return None
    dialect = "tsx" if path.endswith((".tsx", ".jsx")) else "ts"
    root = parse(dialect, source)
    reader = _Reader(path)
    reader.scan(root)
    if not reader.framework:
        return None if framework else reader.found
    reader.calls(root)
    return reader.found


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path
        self.found = FileRouters()
        self.routers: set[str] = set()
        self.constants: dict[str, str] = {}
        self.framework = False
        self.makers = set(_MAKERS)

    # -- declarations ---------------------------------------------------------------------
    def scan(self, root: Node) -> None:
        """Imports, exports, constants and the routers the file makes."""
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "import_statement":
                self._import(node)
            elif node.type == "variable_declarator":
                self._declarator(node)
            elif node.type == "export_statement":
                self._export(node)
            elif node.type == "assignment_expression" and node_text(
                node.child_by_field_name("left")
            ) in ("module.exports", "exports.default"):
                right = node.child_by_field_name("right")
                if right is not None and right.type == "identifier":
                    self.found.exports["default"] = node_text(right)
                elif right is not None and right.type == "object":
                    self._exported_object(right)
                elif right is not None and (module := _required(right)) is not None:
                    self.found.imports["require(*)"] = (module, "*")
                    self.found.exports["*"] = "require(*)"
            elif node.type in ("function_declaration", "arrow_function", "function_expression"):
                self._parameters(node)
            stack.extend(node.named_children)

    def _import(self, node: Node) -> None:
        module = literal_of(node.child_by_field_name("source"))
        if module is None:
            return
        if _framework(module):
            self.framework = True
        for clause in node.named_children:
            if clause.type != "import_clause":
                continue
            for item in clause.named_children:
                if item.type == "identifier":
                    self._bind(node_text(item), module, "default")
                elif item.type == "namespace_import":
                    self._bind(node_text(item.named_children[-1]), module, "*")
                elif item.type == "named_imports":
                    for spec in item.named_children:
                        name = node_text(spec.child_by_field_name("name"))
                        alias = spec.child_by_field_name("alias")
                        self._bind(node_text(alias) if alias else name, module, name)

    def _bind(self, local: str, module: str, name: str) -> None:
        if _framework(module):
            if name in ("default", "Router", "Hono", "*", "OpenAPIHono") or local in _MAKERS:
                self.makers.add(local)
            return
        self.found.imports[local] = (module, name)

    def _declarator(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name_node is None or value is None:
            return
        name = node_text(name_node)
        if (
            value.type == "call_expression"
            and node_text(value.child_by_field_name("function")) == "require"
        ):
            module = literal_of(_first_argument(value))
            if module is not None:
                if _framework(module):
                    self.framework = True
                    self.makers.add(name)
                elif name_node.type == "identifier":
                    self.found.imports[name] = (module, "default")
                else:
                    for item in name_node.named_children:
                        self.found.imports[node_text(item)] = (module, node_text(item))
            return
        literal = literal_of(value)
        if literal is not None:
            self.constants[name] = literal
            return
        made = self._made(value)
        if made is not None:
            self.routers.add(name)
            if made:
                self.found.prefixes[name] = made

    def _made(self, value: Node) -> str | None:
        """The prefix ('' for none) when `value` makes a router, else None."""
        while value.type in ("await_expression", "parenthesized_expression", "as_expression"):
            value = value.named_children[0]
        if value.type not in ("call_expression", "new_expression"):
            return None
        field = "function" if value.type == "call_expression" else "constructor"
        callee = value.child_by_field_name(field)
        if callee is None:
            return None
        if callee.type == "member_expression":
            member = node_text(callee.child_by_field_name("property"))
            inner = callee.child_by_field_name("object")
            if member == "basePath" and inner is not None:
                base = self._made(inner)
                path = self._path(_first_argument(value))
                return None if base is None else (base + (path or ""))
            if member == "Router" and node_text(inner) in self.makers:
                return ""
            return None
        if (
            callee.type == "call_expression"
            and node_text(callee.child_by_field_name("function")) == "require"
        ):
            module = literal_of(_first_argument(callee))
            if module is None or not _framework(module):
                return None
            self.framework = True
        elif node_text(callee) not in self.makers:
            return None
        options = _first_argument(value)
        if options is not None and options.type == "object":
            for pair in options.named_children:
                if pair.type == "pair" and node_text(pair.child_by_field_name("key")) == "prefix":
                    return self._path(pair.child_by_field_name("value")) or ""
        return ""

    def _export(self, node: Node) -> None:
        declaration = node.child_by_field_name("declaration")
        if declaration is not None:
            for declarator in declaration.named_children:
                if declarator.type == "variable_declarator":
                    name = node_text(declarator.child_by_field_name("name"))
                    self.found.exports[name] = name
            if declaration.type == "function_declaration":
                name = node_text(declaration.child_by_field_name("name"))
                self.found.exports[name] = name
                if any(child.type == "default" for child in node.children):
                    self.found.exports["default"] = name
        value = node.child_by_field_name("value")
        if value is not None and value.type == "identifier":
            self.found.exports["default"] = node_text(value)
        module = literal_of(node.child_by_field_name("source"))
        for child in node.named_children:
            if child.type == "export_clause":
                for spec in child.named_children:
                    name = node_text(spec.child_by_field_name("name"))
                    alias = spec.child_by_field_name("alias")
                    exported = node_text(alias) if alias else name
                    if module is None:
                        self.found.exports[exported] = name
                    else:  # `export { default } from "./routes"`: what the other module exports
                        local = f"export({module}).{name}"
                        self.found.imports[local] = (module, name)
                        self.found.exports[exported] = local

    def _exported_object(self, value: Node) -> None:
        """`module.exports = { api: apiRouter, render }`: each key exports its value's name."""
        for pair in value.named_children:
            if pair.type == "pair":
                target = pair.child_by_field_name("value")
                if target is not None and target.type == "identifier":
                    key = node_text(pair.child_by_field_name("key"))
                    self.found.exports[key] = node_text(target)
            elif pair.type == "shorthand_property_identifier":
                self.found.exports[node_text(pair)] = node_text(pair)

    def _parameters(self, node: Node) -> None:
        """A function of a framework file whose first parameter is used as a router
        (`function routes(app: Express)`, a Fastify plugin `async (fastify) => ...`)."""
        params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        if params is None:
            return
        first = params if params.type == "identifier" else next(iter(params.named_children), None)
        if first is None:
            return
        typed = ""
        if first.type in ("required_parameter", "optional_parameter"):
            typed = node_text(first.child_by_field_name("type"))
            first = first.child_by_field_name("pattern")
        if first is None or first.type != "identifier":
            return
        if any(t in typed for t in _ROUTER_TYPES) or node_text(first) in _ROUTER_NAMES:
            name = node_text(first)
            self.routers.add(name)
            owner = node_text(node.child_by_field_name("name"))
            if not owner and node.parent is not None and node.parent.type == "variable_declarator":
                owner = node_text(node.parent.child_by_field_name("name"))
            if owner:
                self.found.mounts.append(Mount(owner, "", name, node.start_point.row + 1))
                self.routers.add(owner)

    # -- registrations ---------------------------------------------------------------------
    def calls(self, root: Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "call_expression":
                self._call(node)
            stack.extend(node.named_children)

    def _call(self, call: Node) -> None:
        callee = call.child_by_field_name("function")
        if callee is None or callee.type != "member_expression":
            return
        verb = node_text(callee.child_by_field_name("property"))
        receiver = callee.child_by_field_name("object")
        if receiver is None:
            return
        router, route_path = self._router(receiver)
        if router is None:
            return
        line = call.start_point.row + 1
        args = call_arguments(call)
        if verb in _VERBS:
            if route_path is not None:
                self._register(router, _VERBS[verb], route_path, line, call)
            elif args:
                self._register_node(router, _VERBS[verb], args[0], line, call)
        elif verb == "route" and len(args) == 1 and args[0].type == "object":
            self._fastify_route(router, args[0], line, call)
        elif verb in ("use", "route", "register") and args:
            self._mount(router, verb, args, line)

    def _router(self, node: Node) -> tuple[str | None, str | None]:
        """The router a receiver is (its local name) and, after `.route('/x')`, the path."""
        if node.type == "identifier":
            name = node_text(node)
            return (name, None) if name in self.routers else (None, None)
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            if callee is not None and callee.type == "member_expression":
                verb = node_text(callee.child_by_field_name("property"))
                inner = callee.child_by_field_name("object")
                router, path = self._router(inner) if inner is not None else (None, None)
                args = call_arguments(node)
                if verb == "route" and len(args) == 1 and router is not None:
                    return router, self._path(args[0])
                if verb in _VERBS or verb in ("use", "basePath"):
                    return router, path
        return None, None

    def _register_node(self, router: str, method: str, arg: Node, line: int, call: Node) -> None:
        path = self._path(arg)
        if path is not None:
            self._register(router, method, path, line, call)
        elif arg.type not in ("arrow_function", "function_expression", "object"):
            loop = _in_loop(call)
            how = "routes from a loop" if loop else "a path computed at run time"
            self._gap(line, f"`{_short(call)}` registers {how}")

    def _register(self, router: str, method: str, path: str, line: int, call: Node) -> None:
        self.found.registrations.append(Registration(router, method, path, line))

    def _fastify_route(self, router: str, options: Node, line: int, call: Node) -> None:
        fields = {
            node_text(p.child_by_field_name("key")): p.child_by_field_name("value")
            for p in options.named_children
            if p.type == "pair"
        }
        url = self._path(fields.get("url") or fields.get("path"))
        method = fields.get("method")
        methods: list[str] = []
        if method is not None and method.type == "array":
            methods = [m for e in method.named_children if (m := literal_of(e)) is not None]
        elif (single := literal_of(method)) is not None:
            methods = [single]
        if url is None or not methods:
            self._gap(line, f"`{_short(call)}` registers a route whose method or url is computed")
            return
        for verb in methods:
            self._register(router, verb.upper(), url, line, call)

    def _mount(self, router: str, verb: str, args: list[Node], line: int) -> None:
        prefix = ""
        child_node = args[-1] if verb != "register" else args[0]
        if verb in ("use", "route") and len(args) >= 2:
            path = self._path(args[0])
            if path is None:
                return
            prefix = path
        if verb == "register" and len(args) >= 2 and args[1].type == "object":
            for pair in args[1].named_children:
                if pair.type == "pair" and node_text(pair.child_by_field_name("key")) == "prefix":
                    prefix = self._path(pair.child_by_field_name("value")) or ""
        child = self._child(child_node)
        module = _required(child_node)
        if module is not None:
            child = f"require({module})"
            self.found.imports[child] = (module, "default")
        if child is not None:
            self.found.mounts.append(Mount(router, prefix, child, line))

    def _child(self, node: Node) -> str | None:
        """The router a mount names: `users`, `users.routes()` (koa-router), `routes.api` (an
        export of an imported module)."""
        if node.type == "identifier":
            return node_text(node)
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            if callee is not None and callee.type == "member_expression":
                inner = callee.child_by_field_name("object")
                if inner is not None and inner.type == "identifier":
                    return node_text(inner)
        if node.type == "member_expression":
            inner = node.child_by_field_name("object")
            member = node_text(node.child_by_field_name("property"))
            base = node_text(inner)
            if inner is not None and inner.type == "identifier" and base in self.found.imports:
                module, name = self.found.imports[base]
                if name in ("default", "*"):
                    local = f"{base}.{member}"
                    self.found.imports[local] = (module, member)
                    return local
            return member
        return None

    def _path(self, node: Node | None) -> str | None:
        if node is None:
            return None
        literal = literal_of(node)
        if literal is not None:
            return literal
        if node.type == "identifier":
            return self.constants.get(node_text(node))
        if node.type == "template_string":
            return self._based(node)
        return None

    def _based(self, node: Node) -> str | None:
        """`${base}/users`, a variable (a base path the deployment configures) before literal
        text, is the text (the variable's value when it is a constant of the file)."""
        parts = [c for c in node.named_children if c.type != "string_fragment" or node_text(c)]
        if len(parts) < 2 or parts[0].type != "template_substitution":
            return None
        inner = parts[0].named_children[0] if parts[0].named_children else None
        if inner is None or inner.type != "identifier":
            return None
        if any(p.type == "template_substitution" for p in parts[1:]):
            return None
        return self.constants.get(node_text(inner), "") + "".join(node_text(p) for p in parts[1:])

    def _gap(self, line: int, what: str) -> None:
        self.found.gaps.append(
            RouteGap(
                self.path,
                line,
                what,
                f"Write each route with a literal path (or a constant of the file) at "
                f"{self.path}:{line}, so the reader can list it.",
            )
        )


def _framework(module: str) -> bool:
    return module in MODULES or module.startswith(("hono/", "@hono/", "fastify-"))


def _first_argument(call: Node) -> Node | None:
    args = call_arguments(call)
    return args[0] if args else None


def _required(node: Node) -> str | None:
    """The module of `require('./x')`, else None."""
    if node.type != "call_expression":
        return None
    if node_text(node.child_by_field_name("function")) != "require":
        return None
    return literal_of(_first_argument(node))


def _in_loop(node: Node) -> str | None:
    parent = node.parent
    while parent is not None:
        if parent.type in _LOOPS:
            return "a loop"
        if parent.type == "call_expression":
            callee = parent.child_by_field_name("function")
            if callee is not None and callee.type == "member_expression":
                name = node_text(callee.child_by_field_name("property"))
                if name in _LOOP_CALLS:
                    return f".{name}(...)"
        if parent.type in ("function_declaration", "program"):
            return None
        parent = parent.parent
    return None


def _short(node: Node) -> str:
    return node_text(node).split("\n")[0][:60]
