"""Python sources, read with `ast` (never imported): dotted names of calls, their arguments,
module-level constants and the value of a literal (strings with implicit concatenation, numbers,
booleans, None, lists, tuples, dicts). A value computed at run time is `Unknown`, its reason
naming the construct."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from release_safety.code.jsvalues import Unknown


def shown(node: ast.AST) -> str:
    """A construct as a finding names it: its source, on one line, 60 characters at most."""
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= 60 else text[:57] + "..."


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
