"""Go: net/http (1.22 patterns `"GET /api/{id}"`, a pattern without a method answers every
method), chi (`r.Get`, `r.Route("/p", func(r chi.Router) {...})`, `r.Group`, `r.Mount("/p",
sub())`), gin and echo (`r.GET`, `r.Match([]string{"GET", "HEAD"}, "/x", h)`,
`v1 := r.Group("/v1")`), gorilla/mux (`.Methods("GET")`,
`r.PathPrefix("/api").Subrouter()`).

Each function is read with the prefixes of the routers it knows; a function whose router is
mounted (`r.Mount("/admin", adminRoutes())`, same package) is read under that prefix only.
A registration whose path is not a literal (or a constant of the package) is a gap.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

from tree_sitter import Node

from release_safety.code.golang import string_value
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

_TREES: Memo[str, Node] = Memo(5_000)

NAME = "go"
MODULES = (
    "net/http",
    "github.com/go-chi/chi",
    "github.com/gin-gonic/gin",
    "github.com/labstack/echo",
    "github.com/gorilla/mux",
)
_REGISTERS = re.compile(
    rb"\.(?:HandleFunc|Handle)\(|\.(?:Get|Post|Put|Patch|Delete|Head|Options|GET|POST|PUT|PATCH|"
    rb"DELETE|HEAD|OPTIONS|Any|Match|Group|Route|Mount|PathPrefix|Method|MethodFunc)\(\s*"
    rb"(?:\"(?:[A-Z]+ )?/|`/|\[\]string|func)"
)
"""A call that may register a route: `HandleFunc(`, or a router method whose path starts with
a slash (a map's `.Get("key")` or a header's does not)."""
_VERBS = {m: m for m in METHODS} | {m.capitalize(): m for m in METHODS} | {"Any": ANY}
_HANDLE = {"HandleFunc", "Handle"}
_GROUPS = {"Group"}


def _tree(data: bytes) -> Node:
    return parse("go", data)


def wanted(path: str, head: bytes) -> bool:
    return (
        path.endswith(".go")
        and not path.endswith("_test.go")
        and _REGISTERS.search(head) is not None
    )


@dataclass
class _Package:
    functions: dict[str, Node] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)


def read(snapshot: Files, paths: Sequence[str], prefix: str) -> Found:
    """The routes the Go files among `paths` register."""
    packages: dict[str, _Package] = {}
    files: dict[str, str | None] = {}
    trees = []
    for path in paths:
        if not path.endswith(".go") or path.endswith("_test.go"):
            continue
        data = snapshot.read(path)
        if not wanted(path, data):
            continue
        files[path] = snapshot.blob_id(path)
        root = _TREES.get(files[path] or path, partial(_tree, data))
        trees.append((path, root))
        package = packages.setdefault(posixpath.dirname(path), _Package())
        for node in root.named_children:
            if node.type in ("function_declaration", "method_declaration"):
                name = node_text(node.child_by_field_name("name"))
                package.functions[name] = node
                package.files[name] = path
            elif node.type == "const_declaration":
                for spec in node.named_children:
                    value = spec.child_by_field_name("value")
                    literal = string_value(value.named_children[0]) if value is not None else None
                    if literal is not None:
                        package.constants[node_text(spec.child_by_field_name("name"))] = literal
    walker = _Walker(packages, prefix)
    for path, root in trees:
        walker.mounted_functions(root, posixpath.dirname(path))
    for path, root in trees:
        package = packages[posixpath.dirname(path)]
        for node in root.named_children:
            name = node_text(node.child_by_field_name("name"))
            if node.type == "function_declaration" and (path, name) not in walker.mounted:
                walker.walk(node, path, {}, prefix)
    return walker.routes, walker.gaps, files


class _Walker:
    def __init__(self, packages: dict[str, _Package], prefix: str) -> None:
        self.packages = packages
        self.routes: list[Route] = []
        self.gaps: list[RouteGap] = []
        self.mounted: set[tuple[str, str]] = set()
        self.walking: set[tuple[str, str]] = set()

    def mounted_functions(self, root: Node, folder: str) -> None:
        """The package's functions whose routers are mounted under a prefix elsewhere."""
        package = self.packages[folder]
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "call_expression" and _member(node) == "Mount":
                args = call_arguments(node)
                if len(args) == 2 and args[1].type == "call_expression":
                    name = node_text(args[1].child_by_field_name("function"))
                    if name in package.functions:
                        self.mounted.add((package.files[name], name))
            stack.extend(node.named_children)

    def walk(self, node: Node, path: str, env: dict[str, str], base: str) -> None:
        """Read the registrations under `node`; `env` maps router variables to prefixes,
        `base` is the prefix of a router the walk does not know."""
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "call_expression" and self._call(current, path, env, base):
                continue
            if current.type in ("short_var_declaration", "assignment_statement"):
                self._assign(current, path, env, base)
            stack.extend(reversed(current.named_children))

    def _prefix(self, receiver: Node | None, path: str, env: dict[str, str], base: str) -> str:
        """The prefix of the router an expression is (`v1`, `r.PathPrefix("/a").Subrouter()`)."""
        if receiver is None:
            return base
        if receiver.type == "identifier":
            return env.get(node_text(receiver), base)
        if receiver.type == "call_expression":
            member = _member(receiver)
            inner = _receiver(receiver)
            if member in ("Group", "PathPrefix") and call_arguments(receiver):
                literal = self._literal(call_arguments(receiver)[0], path)
                return join(self._prefix(inner, path, env, base), literal or "")
            if member in ("Subrouter", "With", "Use"):
                return self._prefix(inner, path, env, base)
        return base

    def _assign(self, node: Node, path: str, env: dict[str, str], base: str) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None or right is None:
            return
        for target, value in zip(left.named_children, right.named_children, strict=False):
            if value.type == "call_expression" and _member(value) in (
                "Group",
                "PathPrefix",
                "Subrouter",
                "With",
            ):
                env[node_text(target)] = self._prefix(value, path, env, base)

    def _call(self, call: Node, path: str, env: dict[str, str], base: str) -> bool:
        """Read one call; True when its function literal was walked already."""
        member = _member(call)
        args = call_arguments(call)
        if member is None or not args:
            return False
        line = call.start_point.row + 1
        receiver = _receiver(call)
        if member in ("Route", "Group") and args[-1].type == "func_literal":
            inner = base if member == "Group" and len(args) == 1 else None
            prefix = self._prefix(receiver, path, env, base)
            if member == "Route":
                literal = self._literal(args[0], path)
                if literal is None:
                    self._gap(path, line, call, "a group under a path computed at run time")
                    return True
                prefix = join(prefix, literal)
            param = _first_param(args[-1])
            scoped = dict(env)
            if param:
                scoped[param] = prefix if inner is None else self._prefix(receiver, path, env, base)
            self.walk(args[-1].child_by_field_name("body") or args[-1], path, scoped, base)
            return True
        if member == "Mount" and len(args) == 2:
            prefix = join(
                self._prefix(receiver, path, env, base), self._literal(args[0], path) or ""
            )
            if args[1].type == "call_expression":
                name = node_text(args[1].child_by_field_name("function"))
                package = self.packages[posixpath.dirname(path)]
                if name in package.functions and (path, name) not in self.walking:
                    key = (package.files[name], name)
                    self.walking.add(key)
                    self.walk(package.functions[name], package.files[name], {}, prefix)
                    self.walking.discard(key)
            return False
        methods = self._methods(member, call, args)
        if methods is None:
            return False
        pattern_node = args[1] if member in ("Method", "MethodFunc", "Match") else args[0]
        pattern = self._literal(pattern_node, path)
        if pattern is None:
            self._gap(path, line, call, "a route whose path is computed at run time")
            return False
        if member in _HANDLE and " " in pattern.strip():
            verb, _, pattern = pattern.strip().partition(" ")
            methods = [verb.upper()]
            pattern = pattern.strip()
        relative = member.isupper() or member == "Match"  # gin and echo join "x" to the group
        if pattern and not pattern.startswith("/"):
            if relative and "://" not in pattern and " " not in pattern:
                pattern = "/" + pattern
            elif member in _HANDLE and "/" in pattern:
                pattern = "/" + pattern.split("/", 1)[1]  # a host before the path
            else:
                return False
        prefix = self._prefix(receiver, path, env, base)
        for method in methods:
            self.routes.append(Route(method, join(prefix, pattern), path, line, NAME))
        return False

    def _methods(self, member: str, call: Node, args: list[Node]) -> list[str] | None:
        if member in _VERBS and (len(args) >= 2 or member.isupper()):
            return [_VERBS[member]]
        if member in ("Method", "MethodFunc") and len(args) >= 3:
            verb = string_value(args[0])
            return [verb.upper()] if verb else None
        if member == "Match" and len(args) >= 3 and args[0].type == "composite_literal":
            body = args[0].child_by_field_name("body")
            strings = [_method_name(e) for e in _leaves(body)] if body is not None else []
            return [m for m in strings if m] or None
        if member in _HANDLE and len(args) == 2:
            return _chained_methods(call)
        return None

    def _literal(self, node: Node, path: str) -> str | None:
        """A string literal or package constant; `basePath + "/x"`, a variable (a base path
        the deployment configures) before a literal, is the literal."""
        literal = string_value(node)
        constants = self.packages[posixpath.dirname(path)].constants
        if literal is None and node.type == "identifier":
            return constants.get(node_text(node))
        if literal is None and node.type == "binary_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and left.type == "identifier":
                tail = self._literal(right, path)
                head = constants.get(node_text(left), "")
                return None if tail is None else head + tail
        return literal

    def _gap(self, path: str, line: int, call: Node, what: str) -> None:
        shown = node_text(call).split("\n")[0][:60]
        self.gaps.append(
            RouteGap(
                path,
                line,
                f"`{shown}` registers {what}",
                f"Write the route with a literal path (or a package constant) at {path}:{line}, "
                "so the reader can list it.",
            )
        )


def _chained_methods(call: Node) -> list[str]:
    """gorilla/mux: the methods of `.Methods("GET", http.MethodPost)` chained after the
    registration (through `.Name(...)` and other matchers); every method when there is none."""
    node = call
    while (chained := node.parent) is not None and chained.type == "selector_expression":
        outer = chained.parent
        if outer is None or outer.type != "call_expression":
            break
        if node_text(chained.child_by_field_name("field")) == "Methods":
            listed = [_method_name(a) for a in call_arguments(outer)]
            return [m for m in listed if m] or [ANY]
        node = outer
    return [ANY]


def _leaves(node: Node) -> list[Node]:
    """The elements of a composite literal's body (`{"GET", http.MethodHead}`)."""
    found = []
    for child in node.named_children:
        found += child.named_children if child.type == "literal_element" else [child]
    return found


def _method_name(node: Node) -> str | None:
    """`"GET"` or `http.MethodGet` -> GET."""
    literal = string_value(node)
    if literal is not None:
        return literal.upper()
    text = node_text(node)
    if text.startswith("http.Method"):
        return text.removeprefix("http.Method").upper()
    return None


def _member(call: Node) -> str | None:
    function = call.child_by_field_name("function")
    if function is None or function.type != "selector_expression":
        return None
    return node_text(function.child_by_field_name("field"))


def _receiver(call: Node) -> Node | None:
    function = call.child_by_field_name("function")
    return function.child_by_field_name("operand") if function is not None else None


def _first_param(func: Node) -> str:
    params = func.child_by_field_name("parameters")
    if params is None:
        return ""
    for decl in params.named_children:
        name = decl.child_by_field_name("name")
        if name is not None:
            return node_text(name)
    return ""
