"""NestJS: `@Controller('cats')` classes and their `@Get(':id')`, `@Post()`, ... methods
(`@All` answers every method; a path list registers each), under the prefix the application
sets with `app.setGlobalPrefix('api')`. A path that is not a literal, or modules mounted under
paths by `RouterModule`, is a gap."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

from tree_sitter import Node

from release_safety.code.memo import Memo
from release_safety.code.parsers import parse
from release_safety.code.syntax import node_text
from release_safety.code.tsnodes import literal_of
from release_safety.surfaces.rest.routes.model import (
    ANY,
    METHODS,
    Files,
    Found,
    Route,
    RouteGap,
    join,
)

NAME = "nestjs"
EXTENSIONS = (".ts", ".js")
_VERBS = {m.capitalize(): m for m in METHODS} | {"All": ANY}


@dataclass
class _Reading:
    routes: list[tuple[str, str, int]] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)
    gaps: list[RouteGap] = field(default_factory=list)


_FILES: Memo[str, _Reading] = Memo(20_000)


def wanted(path: str, head: bytes) -> bool:
    return path.endswith(EXTENSIONS) and b"@nestjs/" in head


def read(snapshot: Files, paths: Sequence[str], prefix: str) -> Found:
    """The routes of the NestJS controllers among `paths`."""
    readings: dict[str, _Reading] = {}
    files: dict[str, str | None] = {}
    for path in paths:
        if path.endswith(".d.ts"):
            continue
        blob = snapshot.blob_id(path)
        reading = _FILES.get(blob or path, partial(_read_file, snapshot, path))
        if reading.routes or reading.prefixes or reading.gaps:
            readings[path] = reading
            files[path] = blob
    globals_ = sorted({p for r in readings.values() for p in r.prefixes}) or [""]
    gaps = [gap for reading in readings.values() for gap in reading.gaps]
    if len(globals_) > 1:
        gaps.append(
            RouteGap(
                sorted(readings)[0],
                1,
                f"several global prefixes are set ({', '.join(globals_)})",
                "Write one `app.setGlobalPrefix('...')` with a literal, or name the prefix in "
                "[rest] routes (prefix).",
            )
        )
    base = join(prefix, globals_[0])
    routes = [
        Route(method, join(base, route), path, line, NAME)
        for path, reading in readings.items()
        for method, route, line in reading.routes
    ]
    return routes, gaps, files


def _read_file(snapshot: Files, path: str) -> _Reading:
    source = snapshot.read(path)
    reading = _Reading()
    if b"@nestjs/" not in source:
        return reading
    stack = [parse("ts", source)]
    while stack:
        node = stack.pop()
        if node.type == "class_declaration":
            _controller(node, path, reading)
        elif node.type == "call_expression":
            _global_prefix(node, path, reading)
        stack.extend(node.named_children)
    return reading


def _decorators(node: Node) -> list[tuple[str, list[Node], int]]:
    """(name, arguments, line) of each decorator on a class (also on its export) or member."""
    found = []
    owner = (
        node.parent if node.parent is not None and node.parent.type == "export_statement" else None
    )
    for holder in (owner, node):
        if holder is None:
            continue
        for child in holder.named_children:
            if child.type == "decorator":
                found.append(_decorator(child))
    return found


def _decorator(node: Node) -> tuple[str, list[Node], int]:
    inner = node.named_children[0] if node.named_children else node
    line = node.start_point.row + 1
    if inner.type == "call_expression":
        args = inner.child_by_field_name("arguments")
        listed = [a for a in args.named_children if a.type != "comment"] if args else []
        return node_text(inner.child_by_field_name("function")), listed, line
    return node_text(inner), [], line


def _paths(args: list[Node]) -> list[str] | None:
    """The paths a decorator's argument names ('' for none); None when one is not a literal."""
    if not args:
        return [""]
    first = args[0]
    if first.type == "object":
        for pair in first.named_children:
            if pair.type == "pair" and node_text(pair.child_by_field_name("key")) == "path":
                value = pair.child_by_field_name("value")
                return _paths([value]) if value is not None else None
        return [""]
    items = first.named_children if first.type == "array" else [first]
    found = [literal_of(item) for item in items]
    return None if any(f is None for f in found) else [f for f in found if f is not None]


def _controller(node: Node, path: str, reading: _Reading) -> None:
    controller = [d for d in _decorators(node) if d[0] == "Controller"]
    if not controller:
        return
    _, args, line = controller[0]
    bases = _paths(args)
    if bases is None:
        reading.gaps.append(_gap(path, line, "`@Controller(...)` with a path computed at run time"))
        return
    body = node.child_by_field_name("body")
    pending: list[tuple[str, list[Node], int]] = []
    for child in body.named_children if body is not None else []:
        if child.type == "decorator":
            pending.append(_decorator(child))
            continue
        if child.type == "method_definition":
            for verb, verb_args, verb_line in pending:
                if verb not in _VERBS:
                    continue
                routes = _paths(verb_args)
                if routes is None:
                    reading.gaps.append(
                        _gap(path, verb_line, f"`@{verb}(...)` with a path computed at run time")
                    )
                    continue
                for base in bases:
                    for route in routes:
                        reading.routes.append((_VERBS[verb], join(base, route), verb_line))
        pending = []


def _global_prefix(call: Node, path: str, reading: _Reading) -> None:
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "member_expression":
        return
    member = node_text(callee.child_by_field_name("property"))
    line = call.start_point.row + 1
    if member == "setGlobalPrefix":
        args = call.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        literal = literal_of(first) if first is not None else None
        if literal is None:
            reading.gaps.append(_gap(path, line, "a global prefix computed at run time"))
        else:
            reading.prefixes.append(literal)
    elif member == "register" and node_text(callee.child_by_field_name("object")) == "RouterModule":
        reading.gaps.append(
            _gap(path, line, "`RouterModule.register(...)` mounts modules under paths")
        )


def _gap(path: str, line: int, what: str) -> RouteGap:
    return RouteGap(
        path,
        line,
        f"{what}",
        f"Write the path as a literal at {path}:{line}, or name the prefix in [rest] routes "
        "(prefix), so the reader can list the routes.",
    )
