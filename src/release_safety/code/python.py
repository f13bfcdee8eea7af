"""Python sources, read with `ast` (never imported): dotted names of calls, their arguments,
module-level constants, imports (and the repository's classes they name), and the value of a
literal (strings with implicit concatenation, numbers, booleans, None, lists, tuples, dicts).
A value computed at run time is `Unknown`, its reason naming the construct."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

from release_safety.code.jsvalues import Unknown
from release_safety.code.syntax import one_line


def shown(node: ast.AST) -> str:
    """A construct as a finding names it: its source, on one line, 60 characters at most."""
    return one_line(ast.unparse(node))


def dotted(node: ast.AST | None) -> str | None:
    """`migrations.AddField` for an attribute chain of names, `op` for a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def call_name(node: ast.AST) -> str | None:
    """The dotted name a call calls (`op.add_column`), None for what is not such a call."""
    return dotted(node.func) if isinstance(node, ast.Call) else None


def keywords(call: ast.Call) -> dict[str, ast.expr]:
    """A call's keyword arguments by name (`**kwargs` left out)."""
    return {k.arg: k.value for k in call.keywords if k.arg is not None}


def argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    """The argument given at position `index` or as keyword `name`."""
    if index < len(call.args) and not any(
        isinstance(a, ast.Starred) for a in call.args[: index + 1]
    ):
        return call.args[index]
    return keywords(call).get(name)


def constants(tree: ast.Module) -> dict[str, object]:
    """The module-level names bound to a literal (`TABLE = "users"`); a name bound twice, or
    bound to what is not a literal, is Unknown."""
    found: dict[str, object] = {}
    for statement in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        for target in targets:
            if isinstance(target, ast.Name) and value is not None:
                name = target.id
                found[name] = (
                    Unknown(f"the name {name}, bound twice")
                    if name in found
                    else evaluate(value, found)
                )
    return found


def elements(node: ast.AST, names: Mapping[str, object] | None = None) -> list[object] | None:
    """Each item of a list or tuple literal evaluated on its own (an item computed at run time
    is Unknown while the others keep their values); None for what is not such a literal."""
    if not isinstance(node, ast.List | ast.Tuple):
        return None
    return [evaluate(item, names) for item in node.elts]


def evaluate(node: ast.AST, names: Mapping[str, object] | None = None) -> object:
    """The value of a literal; `names` gives module constants their values. What is computed
    at run time is Unknown naming it."""
    scope = names or {}
    if isinstance(node, ast.Constant) and not isinstance(node.value, bytes | complex):
        return node.value
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        items = [evaluate(item, scope) for item in node.elts]
        unknown = next((item for item in items if isinstance(item, Unknown)), None)
        return unknown or (tuple(items) if isinstance(node, ast.Tuple) else items)
    if isinstance(node, ast.Dict):
        result: dict[object, object] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                return Unknown(f"`{shown(value)}` unpacked into a dict")
            name = evaluate(key, scope)
            if isinstance(name, Unknown | list | dict):
                return Unknown(f"the key `{shown(key)}`")
            result[name] = evaluate(value, scope)
        return result
    if isinstance(node, ast.Name):
        return scope[node.id] if node.id in scope else Unknown(f"the name {node.id}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = evaluate(node.operand, scope)
        if isinstance(operand, int | float) and not isinstance(operand, bool):
            return -operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = evaluate(node.left, scope), evaluate(node.right, scope)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
    if isinstance(node, ast.JoinedStr):
        return Unknown(f"the f-string `{shown(node)}`")
    return Unknown(f"`{shown(node)}`, computed at run time")


def imports(tree: ast.Module) -> dict[str, str]:
    """The names a module's imports bind, with the dotted name each stands for: `import a.b`
    binds a (a), `import a.b as c` c (a.b), `from a.b import C as D` D (a.b.C). Relative
    imports are left out."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    head = alias.name.partition(".")[0]
                    bound[head] = head
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def module_paths(module: str) -> list[str]:
    """The repository files a module may be (`a.b`: a/b.py, a/b/__init__.py, under src/ too)."""
    base = module.replace(".", "/")
    return [f"{base}.py", f"{base}/__init__.py", f"src/{base}.py", f"src/{base}/__init__.py"]


MAX_IMPORT_DEPTH = 4


def find_class(
    dotted: str,
    bound: Mapping[str, str],
    read_module: Callable[[str], str | None],
    depth: int = 0,
) -> tuple[ast.ClassDef, dict[str, str]] | None:
    """The class a dotted name written in a module names, read from the repository's files
    through `read_module` (re-exports followed up to MAX_IMPORT_DEPTH), with the imports of the
    module that defines it; None when it is not the repository's own (a library's class)."""
    head, _, rest = dotted.partition(".")
    full = f"{bound[head]}.{rest}" if head in bound and rest else bound.get(head, dotted)
    module, _, name = full.rpartition(".")
    if not module or depth > MAX_IMPORT_DEPTH:
        return None
    for path in module_paths(module):
        text = read_module(path)
        if text is None:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            return None
        names = imports(tree)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return node, names
        if name in names:  # re-exported from another module
            return find_class(names[name], {}, read_module, depth + 1)
        return None
    return None
