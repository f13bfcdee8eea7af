"""Routes read from code, judged as a REST surface: a route (or a method of it) the previous
release served and this one does not is breaking; a route that moved to another file or
framework style with the same method and path is nothing; an added route is quiet. A
registration the reader could not read (a path computed at run time, routes from a loop) is
unknown when the release touches its file. Beside a spec, the routes cross-check it (drift)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from release_safety.code.memo import Memo
from release_safety.contract.finding import Finding, Rule, register
from release_safety.surfaces.rest.routes.model import ANY, Route, RouteGap, RouteReading

ROUTE_REMOVED = register(
    Rule(
        id="route-removed",
        surface="rest",
        severity="breaking",
        title="A route the previous release served is gone",
        why="Clients of the previous release still call it and get 404 or 405; a service "
        "without an OpenAPI document breaks them as surely as one with.",
        unsafe="pages/api/websites/[id].ts at 1.0.0; no route serves /api/websites/{id} at 1.1.0",
        safe="Keep serving the route (moved to the new router with the same method and path), "
        "deprecated, until clients have moved.",
    )
)
ROUTE_DYNAMIC = register(
    Rule(
        id="route-registration-dynamic",
        surface="rest",
        severity="unknown",
        title="Routes registered at run time",
        why="A path computed at run time, routes from a list or a loop, a plugin that "
        "registers its own: the reader cannot tell which routes exist, so a removal there "
        "would go unseen. Unknown when the release touches the file.",
        unsafe="for (const r of routes) app.get(r.path, r.handler)",
        safe="app.get('/api/users/:id', getUser)",
    )
)
SPEC_DRIFT = register(
    Rule(
        id="route-spec-drift",
        surface="rest",
        severity="advisory",
        title="The code's routes and the OpenAPI document disagree",
        why="The document stays the contract, but a route it does not describe, or an "
        "operation no route serves, means one of the two is wrong.",
        unsafe="app.get('/api/v2/users') in the code; no `/api/v2/users` in openapi.yaml",
        safe="Describe every route the code serves in the document, and serve every operation "
        "it describes.",
    )
)
RULES = (ROUTE_REMOVED, ROUTE_DYNAMIC, SPEC_DRIFT)
_DRIFT_SHOWN = 20


def _serves(templates: Mapping[str, set[str]], route: Route) -> bool:
    """True when a route of `templates` (template -> methods) answers `route`."""
    for template in _variants(route.template):
        methods = templates.get(template, set())
        if ANY in methods or route.method in methods or (route.method == ANY and methods):
            return True
    return False


def _variants(template: str) -> list[str]:
    """The templates a route answers: an optional catch-all or optional parameter also
    answers without it."""
    if template.endswith(("/{*?}", "/{?}")):
        shorter = template.rsplit("/", 1)[0] or "/"
        return [template, template[: -len("?}")] + "}", shorter]
    return [template]


def _index(routes: Iterable[Route]) -> dict[str, set[str]]:
    index: dict[str, set[str]] = {}
    for route in routes:
        for template in _variants(route.template):
            index.setdefault(template, set()).add(route.method)
    return index


def compare_routes(
    old: RouteReading, new: RouteReading, old_ref: str, new_ref: str, touched: set[str]
) -> list[Finding]:
    """Removed routes (breaking) and the gaps in files the release touches (unknown)."""
    findings: list[Finding] = []
    served = _index(new.routes)
    seen: set[tuple[str, str]] = set()
    for route in old.routes:
        key = (route.method, route.template)
        if key in seen or _serves(served, route):
            continue
        seen.add(key)
        where = _expected(route, new.routes)
        message = (
            f"{route.shown} removed: served by {route.file}:{route.line} at {old_ref}, "
            f"no route serves it at {new_ref} (expected {where})"
        )
        hint = (
            f"Restore {route.shown} {where}, deprecated if it is to go, until clients of "
            f"{old_ref} have moved; if the removal is intended, declare it: a "
            "`release-safety: breaking <reason>` comment beside the change, or an entry in "
            "release-safety.declarations.json."
        )
        findings.append(ROUTE_REMOVED.finding("rest", message, route.file, route.line, hint))
    for gap in new.gaps:
        if gap.file in touched:
            findings.append(_gap_finding(gap))
    return findings


def _gap_finding(gap: RouteGap) -> Finding:
    return ROUTE_DYNAMIC.finding(
        "rest",
        f"routes not readable: {gap.what}",
        gap.file,
        gap.line,
        gap.way_out,
    )


def _expected(route: Route, routes: Sequence[Route]) -> str:
    """Where the route would be expected now: beside the route sharing the longest start of
    its path, or where its framework puts it."""
    parts = route.template.split("/")
    best: Route | None = None
    best_length = 1
    for other in routes:
        shared = 0
        for mine, theirs in zip(parts, other.template.split("/"), strict=False):
            if mine != theirs:
                break
            shared += 1
        if shared > best_length or (shared == best_length and best is not None and other < best):
            best, best_length = other, shared
    if route.framework == "nextjs":
        folder = _next_folder(route, routes)
        if folder is not None:
            return f"at {folder}/{route.path.strip('/')}/route.ts"
    if best is not None:
        return f"beside {best.shown} in {best.file}:{best.line}"
    return "in the service's route registrations"


def _next_folder(route: Route, routes: Sequence[Route]) -> str | None:
    """The app router's folder at the new ref (from its routes), else the app's at the old."""
    for other in routes:
        parts = other.file.split("/")
        if other.framework == "nextjs" and parts[-1].startswith("route.") and "app" in parts:
            return "/".join(parts[: parts.index("app") + 1])
    marker = "/pages/api/"
    file = "/" + route.file
    if marker in file:
        return (file.split(marker)[0] + "/app").lstrip("/")
    return None


_DriftKey = tuple[tuple[Route, ...], tuple[tuple[str, str], ...], tuple[str, ...], str]
_DRIFT: Memo[_DriftKey, list[Finding]] = Memo(8)
"""`spec_drift` per routes, operations, servers and document: most releases of a backfill
change neither the routes nor the document (harbor: asked 92 times, made 15)."""


def spec_drift(
    routes: Sequence[Route],
    operations: Iterable[tuple[str, str]],
    servers: Sequence[str],
    spec: str,
) -> list[Finding]:
    """Advisories where the code's routes and the document's operations (method, path)
    disagree; the document's server paths are tried as mount prefixes."""
    key = (tuple(routes), tuple(operations), tuple(servers), spec)
    return list(_DRIFT.get(key, lambda: _drift(*key)))


def _drift(
    routes: Sequence[Route],
    operations: Sequence[tuple[str, str]],
    servers: Sequence[str],
    spec: str,
) -> list[Finding]:
    """`spec_drift` itself."""
    bases = sorted({urlsplit(s).path.rstrip("/") for s in servers} | {""})
    documented: dict[str, set[str]] = {}
    shown: dict[tuple[str, str], str] = {}
    for method, path in operations:
        for base in bases:
            route = Route(method.upper(), base + path, spec, 0)
            documented.setdefault(route.template, set()).add(route.method)
        shown[(method.upper(), Route(method, path, spec, 0).template)] = path
    code = _index(routes)
    undocumented = [r for r in routes if r.method != "HEAD" and not _serves(documented, r)]
    unserved = [
        (method.upper(), path)
        for method, path in operations
        if not any(_serves(code, Route(method.upper(), base + path, spec, 0)) for base in bases)
    ]
    findings = []
    for route in sorted(set(undocumented))[:_DRIFT_SHOWN]:
        findings.append(
            SPEC_DRIFT.finding(
                "rest",
                f"{route.shown} is served by the code but not described in {spec}",
                route.file,
                route.line,
                f"Describe {route.shown} in {spec}, or name the code's mount prefix in "
                "[rest] routes (prefix) if the document's paths sit under one.",
            )
        )
    for method, path in sorted(set(unserved))[:_DRIFT_SHOWN]:
        findings.append(
            SPEC_DRIFT.finding(
                "rest",
                f"{method} {path} is described in {spec} but no route the code registers serves it",
                spec,
                None,
                f"Serve {method} {path} or remove it from {spec}; if the code registers it in "
                "a way the reader does not follow, name the sources in [rest] routes.",
            )
        )
    more = len(set(undocumented)) + len(set(unserved)) - len(findings)
    if more > 0:
        findings.append(
            SPEC_DRIFT.finding(
                "rest", f"and {more} more disagreements between the code's routes and {spec}", spec
            )
        )
    return findings
