"""Python: FastAPI (`@app.get("/x")`, `APIRouter(prefix=...)`, `include_router(r, prefix=...)`,
`add_api_route`), Flask (`@app.route("/x", methods=[...])`, `@bp.get`, `Blueprint(...,
url_prefix=...)`, `register_blueprint`, `add_url_rule`), Django (`urlpatterns` of `path`,
`re_path`, `url` and `include("app.urls")`) and Django REST framework routers
(`router.register("users", UserViewSet)`: the list and the detail route).

Read with the standard library's `ast`; routers across modules are linked by `link`. A path
that is not a literal (or a constant of the module), or a registration in a loop, is a gap.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Sequence
from functools import partial

from release_safety.code.memo import Memo
from release_safety.code.python import shown
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

NAME = "python"
_MARKERS = (b"fastapi", b"flask", b"django", b"rest_framework", b"APIRouter", b"Blueprint")
_REGISTERS = re.compile(
    rb"urlpatterns|include_router|register_blueprint|add_url_rule|add_api_route|APIRouter|"
    rb"Blueprint\(|FastAPI\(|Flask\(|\.register\(|\bre_path\(|\bpath\(|"
    rb"@\w+\.(?:get|post|put|patch|delete|head|options|route|api_route)\("
)
_MAKERS = {"FastAPI", "APIRouter", "Flask", "Blueprint"}
_DRF = {"DefaultRouter", "SimpleRouter", "ExtendedDefaultRouter", "ExtendedSimpleRouter"}
_VERBS = {m.lower(): m for m in METHODS}
_URLS = {"path", "re_path", "url"}


def wanted(path: str, head: bytes) -> bool:
    """A Python file that names a framework and may register routes."""
    return (
        path.endswith(".py")
        and any(m in head for m in _MARKERS)
        and _REGISTERS.search(head) is not None
    )


def read(snapshot: Files, paths: Sequence[str], prefix: str) -> Found:
    """The routes the Python files among `paths` register, linked across modules."""
    known: dict[str, FileRouters] = {}
    files: dict[str, str | None] = {}
    for path in paths:
        if not path.endswith(".py"):
            continue
        blob = snapshot.blob_id(path)
        found = _FILES.get(blob or path, partial(_read_file, snapshot, path))
        if found is not None:
            known[path] = found
            files[path] = blob
    present = set(snapshot.paths())

    def resolve(file: str, module: str) -> str | None:
        dots = len(module) - len(module.lstrip("."))
        parts = module.lstrip(".").split(".") if module.lstrip(".") else []
        if dots:
            folder = posixpath.dirname(file)
            for _ in range(dots - 1):
                folder = posixpath.dirname(folder)
            bases = [folder]
        else:
            folder, bases = posixpath.dirname(file), []
            while True:
                bases.append(folder)
                if not folder:
                    break
                folder = posixpath.dirname(folder)
        for base in bases:
            stem = posixpath.join(base, *parts) if parts else base
            for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                if candidate.lstrip("/") in present:
                    return candidate.lstrip("/")
        return None

    routes = link(known, resolve, NAME)
    if prefix:
        routes = [Route(r.method, join(prefix, r.path), r.file, r.line, NAME) for r in routes]
    return routes, [g for found in known.values() for g in found.gaps], files


def _read_file(snapshot: Files, path: str) -> FileRouters | None:
    return _file(snapshot.read(path), path)


def _file(source: bytes, path: str) -> FileRouters | None:
    if not wanted(path, source):
        return None
    try:
        tree = ast.parse(source, path)
    except (SyntaxError, ValueError):
        return None
    return _Reader(path).read(tree)


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path
        self.found = FileRouters()
        self.constants: dict[str, str] = {}
        self.drf: set[str] = set()
        self.variables: set[str] = set()
        self.lists: set[str] = set()

    def read(self, tree: ast.Module) -> FileRouters:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                for alias in node.names:
                    local = alias.asname or alias.name
                    self.found.imports[local] = (module, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    self.found.imports[alias.asname or alias.name] = (alias.name, "*")
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                self._assign(node.targets[0], node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._assign(node.target, node.value)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for decorator in node.decorator_list:
                    if isinstance(decorator, ast.Call):
                        self._decorator(decorator)
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and (
                        target.id == "urlpatterns" or target.id in self.lists
                    ):
                        self._urlpatterns(node.value, target.id)
        return self.found

    def _assign(self, target: ast.expr, value: ast.expr) -> None:
        if not isinstance(target, ast.Name):
            return
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            if target.id in self.constants and self.constants[target.id] != value.value:
                self.variables.add(target.id)
            self.constants[target.id] = value.value
        elif isinstance(value, (ast.List, ast.Tuple)) and any(
            isinstance(e, ast.Call) and _name(e.func) in _URLS for e in value.elts
        ):
            self.lists.add(target.id)
        elif isinstance(value, ast.Call):
            maker = _name(value.func)
            if maker in _MAKERS or (maker.endswith("APIRouter") and maker not in _DRF):
                keyword = "url_prefix" if maker == "Blueprint" else "prefix"
                self.found.prefixes[target.id] = self._keyword(value, keyword) or ""
            elif maker in _DRF:
                self.drf.add(target.id)

    def _keyword(self, call: ast.Call, name: str) -> str | None:
        for keyword in call.keywords:
            if keyword.arg == name:
                return self._literal(keyword.value)
        return None

    def _literal(self, node: ast.expr | None) -> str | None:
        """A string literal or module constant; an f-string that only puts a name before its
        literal text (`f"{prefix}admin/"`, a base path the deployment configures) is its text."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return self.constants.get(node.id, "" if node.id in self.variables else None)
        if isinstance(node, ast.JoinedStr) and node.values:
            first, *rest = node.values
            if isinstance(first, ast.FormattedValue) and isinstance(first.value, ast.Name):
                texts = [v.value for v in rest if isinstance(v, ast.Constant)]
                if len(texts) == len(rest):
                    return "".join(str(t) for t in texts)
        return None

    def _methods(self, call: ast.Call, default: list[str]) -> list[str] | None:
        for keyword in call.keywords:
            if keyword.arg == "methods":
                if not isinstance(keyword.value, (ast.List, ast.Tuple, ast.Set)):
                    return None
                found = [self._literal(e) for e in keyword.value.elts]
                if any(m is None for m in found):
                    return None
                return [m.upper() for m in found if m]
        return default

    def _decorator(self, call: ast.Call) -> None:
        func = call.func
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
            return
        router, verb = func.value.id, func.attr
        if verb in _VERBS:
            methods: list[str] | None = [_VERBS[verb]]
        elif verb in ("route", "api_route"):
            methods = self._methods(call, ["GET"])
        else:
            return
        self._register(router, methods, call.args[0] if call.args else None, call)

    def _register(
        self, router: str, methods: list[str] | None, path_node: ast.expr | None, call: ast.Call
    ) -> None:
        path = self._literal(path_node) if path_node is not None else None
        if path_node is None:
            path = self._keyword(call, "path") or self._keyword(call, "rule")
        if path is None or methods is None:
            self._gap(call, "a route whose path or methods are computed at run time")
            return
        for method in methods:
            self.found.registrations.append(Registration(router, method, path, call.lineno))

    def _call(self, call: ast.Call) -> None:
        func = call.func
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
            return
        router, verb = func.value.id, func.attr
        if verb in ("include_router", "register_blueprint") and call.args:
            keyword = "prefix" if verb == "include_router" else "url_prefix"
            given = self._keyword(call, keyword)
            child = self._child(call.args[0])
            if child is not None:
                replaces = verb == "register_blueprint" and given is not None
                mount = Mount(router, given or "", child, call.lineno, replaces)
                self.found.mounts.append(mount)
        elif verb in ("add_api_route", "add_url_rule") and (call.args or call.keywords):
            self._register(
                router, self._methods(call, ["GET"]), call.args[0] if call.args else None, call
            )
        elif verb == "register" and router in self.drf and call.args:
            base = self._literal(call.args[0])
            if base is None:
                self._gap(call, "a router entry whose prefix is computed at run time")
                return
            for entry in (base, f"{base.rstrip('/')}/{{pk}}"):
                self.found.registrations.append(Registration(router, ANY, entry, call.lineno))

    def _child(self, node: ast.expr) -> str | None:
        """The router a mount names: `users`, `users.router` (a module's attribute)."""
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            base = node.value.id
            if base in self.found.imports:
                module, name = self.found.imports[base]
                whole = (
                    module
                    if name == "*"
                    else f"{module}{'' if module.endswith('.') else '.'}{name}"
                )
                local = f"{base}.{node.attr}"
                self.found.imports[local] = (whole, node.attr)
                return local
            if node.attr == "urls" and base in self.drf:
                return base
        return None

    def _urlpatterns(self, value: ast.expr, owner: str) -> None:
        """The entries of a list of URL patterns (`urlpatterns`, or a list `include`d)."""
        if isinstance(value, ast.BinOp):
            self._urlpatterns(value.left, owner)
            self._urlpatterns(value.right, owner)
            return
        if isinstance(value, ast.Attribute) and value.attr == "urls":
            child = self._child(value)
            if child is not None:
                self.found.mounts.append(Mount(owner, "", child, value.lineno))
            return
        if not isinstance(value, (ast.List, ast.Tuple)):
            return
        for entry in value.elts:
            if isinstance(entry, ast.Starred):
                self._gap(entry, "urlpatterns entries spread from a computed list")
                continue
            if not isinstance(entry, ast.Call) or _name(entry.func) not in _URLS:
                continue
            raw = self._literal(entry.args[0]) if entry.args else None
            if raw is None:
                self._gap(entry, "a URL pattern computed at run time")
                continue
            path = _django_path(raw, _name(entry.func) != "path")
            target = entry.args[1] if len(entry.args) > 1 else None
            if isinstance(target, ast.Call) and _name(target.func) == "include":
                self._include(owner, path, target)
            else:
                self.found.registrations.append(Registration(owner, ANY, path, entry.lineno))

    def _include(self, owner: str, path: str, call: ast.Call) -> None:
        module = self._literal(call.args[0]) if call.args else None
        if module is not None:
            local = f"include({module})"
            self.found.imports[local] = (module, "urlpatterns")
            self.found.mounts.append(Mount(owner, path, local, call.lineno))
            return
        child = self._child(call.args[0]) if call.args else None
        if child is None:
            self._gap(call, "an include() of URL patterns the reader cannot follow")
            return
        if child not in self.drf and child not in self.lists and not child.endswith(".urls"):
            self.found.imports.setdefault(child, (child, "urlpatterns"))
        self.found.mounts.append(Mount(owner, path, child, call.lineno))

    def _gap(self, node: ast.expr | ast.stmt, what: str) -> None:
        line = getattr(node, "lineno", 1)
        what_shown = shown(node)
        self.found.gaps.append(
            RouteGap(
                self.path,
                line,
                f"`{what_shown}` registers {what}",
                f"Write the route with a literal path (or a module constant) at "
                f"{self.path}:{line}, so the reader can list it.",
            )
        )


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


_GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)|\([^)]*\)")


def _django_path(raw: str, regex: bool) -> str:
    """A Django route as a path template: `users/<int:pk>/` stays, a regex
    `^users/(?P<pk>[0-9]+)/$` becomes `users/{pk}/`."""
    if not regex:
        return raw
    text = raw.lstrip("^").rstrip("$")
    return _GROUP.sub(lambda m: "{" + (m.group(1) or "p") + "}", text).replace("\\", "")
