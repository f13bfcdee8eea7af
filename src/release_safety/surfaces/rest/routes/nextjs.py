"""Next.js: the pages router's `pages/api/**` (one handler answering every method) and the app
router's `app/**/route.ts` (one route per exported `GET`, `POST`, ...), under each folder that
holds a Next.js app. Route groups `(x)` and parallel slots `@x` add no segment, a `_private`
folder holds no route, `[id]`, `[...slug]` and `[[...slug]]` are parameters."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from tree_sitter import Node

from release_safety.code.memo import Memo
from release_safety.code.parsers import tree
from release_safety.code.syntax import node_text
from release_safety.surfaces.rest.routes.model import (
    ANY,
    METHODS,
    Files,
    Found,
    Route,
    RouteGap,
    join,
    read_each,
)

_EXPORTS: Memo[str, Exports] = Memo(20_000)

NAME = "nextjs"
EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs")
_CONFIGS = tuple(f"next.config{ext}" for ext in (".js", ".mjs", ".ts", ".cjs"))


def roots(snapshot: Files, paths: Sequence[str]) -> list[str]:
    """The folders holding a Next.js app: a `next.config.*` beside them ('' for the root)."""
    return sorted({posixpath.dirname(p) for p in paths if posixpath.basename(p) in _CONFIGS})


def _under(root: str, path: str) -> str | None:
    """`path` relative to `root`, None when it is not inside."""
    if not root:
        return path
    return path[len(root) + 1 :] if path.startswith(root + "/") else None


def _split(relative: str) -> tuple[str, list[str]] | None:
    """('pages' | 'app', the folders below the router's folder and the file name), or None."""
    parts = relative.split("/")
    if parts[0] == "src":
        parts = parts[1:]
    if len(parts) >= 3 and parts[0] == "pages" and parts[1] == "api":
        return "pages", parts[1:]
    if len(parts) >= 2 and parts[0] == "app":
        return "app", parts[1:]
    return None


def _stem(name: str) -> str | None:
    for ext in EXTENSIONS:
        if name.endswith(ext) and not name.endswith(f".d{ext}"):
            return name[: -len(ext)]
    return None


def route_path(relative: str) -> tuple[str, str] | None:
    """(router, URL path template) of a file relative to the app's folder, None when the file
    is no API route (`pages/api/users/[id].ts` -> ('pages', '/api/users/[id]'),
    `app/(admin)/api/x/route.ts` -> ('app', '/api/x'))."""
    split = _split(relative)
    if split is None:
        return None
    router, parts = split
    stem = _stem(parts[-1])
    if stem is None or any(p.startswith((".", "_")) for p in parts):
        return None
    if any(mark in stem for mark in (".test", ".spec")):
        return None
    folders = parts[:-1]
    if router == "pages":
        segments = [*folders, *([] if stem == "index" else [stem])]
    elif stem == "route":
        segments = [f for f in folders if not (f.startswith("(") and f.endswith(")"))]
        segments = [f for f in segments if not f.startswith("@")]
    else:
        return None
    return router, "/" + "/".join(segments)


def read(snapshot: Files, paths: Sequence[str], root: str, prefix: str) -> Found:
    """The API routes of the Next.js app in `root` (every path of the snapshot given)."""
    routes: list[Route] = []
    gaps: list[RouteGap] = []
    placed: dict[str, tuple[str, str]] = {}
    for path in paths:
        relative = _under(root, path)
        found = route_path(relative) if relative is not None else None
        if found is not None:
            placed[path] = found
    files = {path: snapshot.blob_id(path) for path in placed}
    unread = [
        path
        for path, (router, _) in placed.items()
        if router != "pages" and (files[path] or path) not in _EXPORTS
    ]
    texts = dict(read_each(snapshot, unread))
    for path, (router, url) in placed.items():
        url = join(prefix, url)
        if router == "pages":
            routes.append(Route(ANY, url, path, 1, NAME))
            continue
        methods, missed = _exported(snapshot, path, files[path], texts)
        routes += [Route(m, url, path, line, NAME) for m, line in methods]
        gaps += [RouteGap(path, line, what, way_out) for line, what, way_out in missed]
    return routes, gaps, files


Exports = tuple[list[tuple[str, int]], list[tuple[int, str, str]]]


def _exported(snapshot: Files, path: str, blob: str | None, texts: dict[str, bytes]) -> Exports:
    """What a route file exports, once per blob (its bytes from `texts` when read there)."""
    return _EXPORTS.get(
        blob or path, lambda: exported_methods(texts.get(path) or snapshot.read(path), path)
    )


def exported_methods(source: bytes, path: str) -> Exports:
    """The HTTP methods a route file exports, each with its line, and the exports that may name
    methods the reader cannot see (`export * from`)."""
    dialect = "tsx" if path.endswith((".tsx", ".jsx")) else "ts"
    root = tree(dialect, source).root_node
    methods: list[tuple[str, int]] = []
    missed: list[tuple[int, str, str]] = []
    for node in root.named_children:
        if node.type != "export_statement":
            continue
        line = node.start_point.row + 1
        for name in _export_names(node):
            if name in METHODS:
                methods.append((name, line))
        if node.child_by_field_name("source") is not None and not _has_clause(node):
            missed.append(
                (
                    line,
                    f"`{node_text(node)[:60]}` re-exports every name of another module, "
                    "HTTP method handlers included",
                    f"Write the exports of {path} by name (`export {{ GET, POST }} from ...`).",
                )
            )
    return sorted(set(methods)), missed


def _has_clause(node: Node) -> bool:
    return any(child.type == "export_clause" for child in node.named_children)


def _export_names(node: Node) -> list[str]:
    """The names an `export` statement exports."""
    names: list[str] = []
    declaration = node.child_by_field_name("declaration")
    if declaration is not None:
        if declaration.type in ("function_declaration", "generator_function_declaration"):
            names.append(node_text(declaration.child_by_field_name("name")))
        for declarator in declaration.named_children:
            if declarator.type != "variable_declarator":
                continue
            target = declarator.child_by_field_name("name")
            if target is not None and target.type == "identifier":
                names.append(node_text(target))
            elif target is not None:
                names += _pattern_names(target)
    for child in node.named_children:
        if child.type == "export_clause":
            for spec in child.named_children:
                alias = spec.child_by_field_name("alias") or spec.child_by_field_name("name")
                names.append(node_text(alias))
    return names


def _pattern_names(node: Node) -> list[str]:
    """The names a destructuring pattern binds (`{ handlers: { GET, POST }, auth }`)."""
    if node.type == "pair_pattern":
        value = node.child_by_field_name("value")
        return _pattern_names(value) if value is not None else []
    if node.type == "object_pattern":
        return [n for child in node.named_children for n in _pattern_names(child)]
    if node.type == "object_assignment_pattern":
        return _pattern_names(node.named_children[0])
    return [node_text(node)]
