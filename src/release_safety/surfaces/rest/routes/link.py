"""Routers across files: what each file registers on which router, which router it mounts
under which prefix, and what it imports and exports; linked, every route gets the prefixes of
the routers it is mounted under (an Express `Router()` mounted with `app.use('/api', users)`
from another file, a FastAPI `include_router(prefix=...)`, a Fastify plugin registered with a
prefix). A router mounted nowhere is read at the root."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from release_safety.surfaces.rest.routes.model import Route, RouteGap, join


@dataclass(frozen=True)
class Registration:
    """`router.get('/x', ...)`: a route on a router of the file (by its local name)."""

    router: str
    method: str
    path: str
    line: int


@dataclass(frozen=True)
class Mount:
    """`parent.use('/prefix', child)`: `child` a local name, or an imported one."""

    parent: str
    prefix: str
    child: str
    line: int
    replaces: bool = False
    """The prefix replaces the child's own (Flask's `register_blueprint(url_prefix=...)`)."""


@dataclass
class FileRouters:
    """What one file says about routers."""

    registrations: list[Registration] = field(default_factory=list)
    mounts: list[Mount] = field(default_factory=list)
    prefixes: dict[str, str] = field(default_factory=dict)
    """A router's own prefix (`new Router({ prefix: '/api' })`, `APIRouter(prefix=...)`)."""
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)
    """local name -> (module as written, the name it has there; `*` the module itself)"""
    exports: dict[str, str] = field(default_factory=dict)
    """exported name -> local name"""
    gaps: list[RouteGap] = field(default_factory=list)


Node = tuple[str, str]
Resolve = Callable[[str, str], str | None]
"""(importing file, module as written) -> the file it names, None when not in the snapshot"""


def link(files: Mapping[str, FileRouters], resolve: Resolve, framework: str) -> list[Route]:
    """Every registration with the prefixes of the mounts above its router."""

    def target(file: str, name: str, seen: frozenset[Node] = frozenset()) -> Node:
        """The router a local name is, following imports and exports to where it is made."""
        known = files[file]
        if name in known.imports and (file, name) not in seen:
            module, exported = known.imports[name]
            found = follow(file, module, exported, seen | {(file, name)})
            if found is not None:
                return found
        return file, name

    def follow(file: str, module: str, exported: str, seen: frozenset[Node]) -> Node | None:
        """What `module` (imported by `file`) exports as `exported`, through a module that
        re-exports another whole (`module.exports = require("./routes")`)."""
        other = resolve(file, module)
        if other is None or other not in files:
            return None
        known = files[other]
        star = known.imports.get(known.exports.get("*", ""))
        if exported not in known.exports and star is not None and (other, "*") not in seen:
            return follow(other, star[0], exported, seen | {(other, "*")})
        return target(other, known.exports.get(exported, exported), seen)

    parents: dict[Node, list[tuple[Node, Mount]]] = {}
    for file, known in files.items():
        for mount in known.mounts:
            child = target(file, mount.child)
            parents.setdefault(child, []).append(((file, mount.parent), mount))

    def prefixes(node: Node, seen: frozenset[Node]) -> list[str]:
        """Every full prefix a router is served under."""
        own = files[node[0]].prefixes.get(node[1], "") if node[0] in files else ""
        above = parents.get(node, [])
        if not above or node in seen:
            return [own]
        found = []
        for parent, mount in above:
            inner = mount.prefix if mount.replaces else join(mount.prefix, own)
            for outer in prefixes(target(*parent), seen | {node}):
                found.append(join(outer, inner))
        return sorted(set(found))

    routes: list[Route] = []
    for file, known in files.items():
        for reg in known.registrations:
            for prefix in prefixes(target(file, reg.router), frozenset()):
                routes.append(Route(reg.method, join(prefix, reg.path), file, reg.line, framework))
    return routes
