"""Python sources, parsed with `ast`: `os.environ["X"]` (required), `os.environ.get("X", d)`,
`os.getenv("X", d)`, `os.environ.setdefault("X", d)`, with `import os as o`,
`from os import environ, getenv` aliases, and `or` chains (`os.getenv("A") or "d"`).

A default that is itself an env read is a fallback (`os.getenv("NEW", os.getenv("OLD"))`); the
outer variable's default is then the innermost literal. Non-literal defaults are kept as their
source text. Keys that are not string literals name no variable and are skipped.
"""

from __future__ import annotations

import ast

from release_safety.surfaces.config.reads import EnvRead, SourceError

_GETTERS = {"get", "setdefault"}


class _Names:
    """How this module spells `os`, `os.environ` and `os.getenv`."""

    def __init__(self, tree: ast.Module) -> None:
        self.os = {"os"}
        self.environ: set[str] = set()
        self.getenv: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                self.os |= {a.asname or a.name for a in node.names if a.name == "os"}
            elif isinstance(node, ast.ImportFrom) and node.module == "os":
                for alias in node.names:
                    if alias.name == "environ":
                        self.environ.add(alias.asname or alias.name)
                    elif alias.name == "getenv":
                        self.getenv.add(alias.asname or alias.name)

    def is_environ(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.environ
        return (
            isinstance(node, ast.Attribute)
            and node.attr == "environ"
            and isinstance(node.value, ast.Name)
            and node.value.id in self.os
        )

    def is_getenv(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.getenv
        if not isinstance(node, ast.Attribute):
            return False
        if node.attr == "getenv":
            return isinstance(node.value, ast.Name) and node.value.id in self.os
        return node.attr in _GETTERS and self.is_environ(node.value)


def parse(text: str) -> list[EnvRead]:
    """Every env read of a Python module."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise SourceError(f"syntax error: {exc.msg}", exc.lineno or 1) from exc
    except (ValueError, RecursionError, MemoryError) as exc:
        raise SourceError(f"not parseable: {type(exc).__name__}") from exc
    names = _Names(tree)
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    reads: list[EnvRead] = []
    consumed: set[ast.AST] = set()
    for node in ast.walk(tree):
        if node in consumed:
            continue
        read = _read(node, names)
        if read is None:
            continue
        name, required, default_node = read
        fallback_nodes = _nested(default_node, names)
        later = _later_in_or(node, parents)
        for value in later:
            found = _read(value, names)
            if found is not None:
                fallback_nodes += [value, *_nested(found[2], names)]
        if later and _read(later[-1], names) is None:
            default_node = later[-1]
        elif fallback_nodes:
            default_node = fallback_nodes[-1]
        default = _default(default_node, names, text)
        site = _site(node, parents, text)
        reads.append(
            EnvRead(
                name=name,
                line=getattr(node, "lineno", 1),
                default=default,
                required=required and default is None,
                site=site,
            )
        )
        for fallback in fallback_nodes:
            consumed.add(fallback)
            found = _read(fallback, names)
            if found is not None:
                reads.append(
                    EnvRead(
                        name=found[0],
                        line=fallback.lineno,
                        default=default,
                        site=site,
                        fallback_for=name,
                    )
                )
    return sorted(set(reads), key=lambda r: (r.line, r.name))


def _key(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _read(node: ast.AST, names: _Names) -> tuple[str, bool, ast.expr | None] | None:
    """(name, required, default expression) when `node` reads one env variable."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and names.is_environ(node.value)
    ):
        key = _key(node.slice)
        return (key, True, None) if key else None
    if isinstance(node, ast.Call) and names.is_getenv(node.func) and node.args:
        key = _key(node.args[0])
        if not key:
            return None
        default = node.args[1] if len(node.args) > 1 else None
        for keyword in node.keywords:
            if keyword.arg in ("default", "value"):
                default = keyword.value
        return key, False, default
    return None


def _later_in_or(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[ast.expr]:
    """The operands after `node` in its `or` chain (`os.getenv("A") or os.getenv("B") or "d"`)."""
    parent = parents.get(node)
    if isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.Or):
        values = parent.values
        return values[[id(v) for v in values].index(id(node)) + 1 :]
    return []


def _nested(node: ast.expr | None, names: _Names) -> list[ast.expr]:
    """Env reads nested as defaults: `getenv("NEW", getenv("OLD", getenv("OLDER")))`."""
    found: list[ast.expr] = []
    while node is not None:
        read = _read(node, names)
        if read is None:
            break
        found.append(node)
        node = read[2]
    return found


def _default(node: ast.expr | None, names: _Names, text: str) -> str | None:
    while node is not None:
        read = _read(node, names)
        if read is None:
            break
        node = read[2]
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        return None if node.value is None else str(node.value)
    return ast.get_source_segment(text, node) or ast.dump(node)


def _site(node: ast.AST, parents: dict[ast.AST, ast.AST], text: str) -> str | None:
    current: ast.AST | None = node
    for _ in range(5):
        parent = parents.get(current) if current is not None else None
        if parent is None:
            return None
        if isinstance(parent, ast.Assign) and parent.targets:
            return ast.get_source_segment(text, parent.targets[0])
        if isinstance(parent, ast.AnnAssign | ast.AugAssign):
            return ast.get_source_segment(text, parent.target)
        if isinstance(parent, ast.keyword) and parent.arg:
            return parent.arg
        if isinstance(parent, ast.Dict) and current in parent.values:
            key = parent.keys[parent.values.index(current)]
            return ast.get_source_segment(text, key) if key is not None else None
        current = parent
    return None
