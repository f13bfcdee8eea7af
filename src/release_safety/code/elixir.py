"""Elixir sources, parsed with tree-sitter-elixir: calls (`add :name, :string, null: false`),
their arguments and `do` blocks, module attributes (`@disable_ddl_transaction true`), and the
value of a literal (strings, heredocs and sigils with their escapes, atoms, numbers, lists,
keyword lists, maps, tuples). A value computed at run time is `Unknown`, its reason naming the
construct.
"""

from __future__ import annotations

from collections.abc import Mapping

from tree_sitter import Node

from release_safety.code.jsvalues import Unknown
from release_safety.code.literals import Symbol, unescape
from release_safety.code.parsers import parse as parsed
from release_safety.code.syntax import node_text, shown

_RAW_SIGILS = {"S", "C"}
_STRING_SIGILS = {"s", "S", "c", "C"}


def parse(source: bytes) -> Node:
    """The root of an Elixir source's syntax tree (check `root.has_error`)."""
    return parsed("elixir", source)


def call_name(node: Node) -> str | None:
    """The function a call names as written: `add`, `Ecto.Migration.execute`,
    `repo().query!`; a bare identifier is a call without arguments."""
    if node.type == "identifier":
        return node_text(node)
    if node.type != "call":
        return None
    target = node.child_by_field_name("target")
    return node_text(target) if target is not None else None


def arguments(call: Node) -> tuple[list[Node], dict[str, Node]]:
    """A call's positional arguments and its trailing keyword arguments by name
    (`null: false` gives `null`)."""
    args = next((c for c in call.named_children if c.type == "arguments"), None)
    positional: list[Node] = []
    keywords: dict[str, Node] = {}
    for arg in args.named_children if args is not None else []:
        if arg.type == "keywords":
            keywords.update(_keywords(arg))
        elif arg.type != "comment":
            positional.append(arg)
    return positional, keywords


def _keywords(node: Node) -> dict[str, Node]:
    found: dict[str, Node] = {}
    for pair in node.named_children:
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if pair.type == "pair" and key is not None and value is not None:
            found[_key(key)] = value
    return found


def _key(key: Node) -> str:
    """`null:` and `"null":` both name null."""
    text = node_text(key).strip().removesuffix(":")
    return text[1:-1] if text.startswith('"') and text.endswith('"') else text


def do_block(call: Node) -> Node | None:
    """A call's `do ... end` block."""
    return next((c for c in call.named_children if c.type == "do_block"), None)


def statements(block: Node | None) -> list[Node]:
    """The expressions of a `do` block, in order (comments left out)."""
    if block is None:
        return []
    return [c for c in block.named_children if c.type not in ("comment", "else_block")]


def attribute(node: Node) -> tuple[str, Node | None] | None:
    """`@name value` as (name, value node); `@name` alone gives (name, None)."""
    if node.type != "unary_operator" or not node_text(node).startswith("@"):
        return None
    operand = node.child_by_field_name("operand")
    if operand is None:
        return None
    if operand.type == "identifier":
        return node_text(operand), None
    if operand.type == "call":
        positional, _ = arguments(operand)
        return call_name(operand) or "", positional[0] if len(positional) == 1 else None
    return None


def attributes(module_body: Node | None) -> dict[str, object]:
    """The module attributes a module's body sets, by name, with their values (an attribute
    set twice keeps its last literal, as a module reading it after both would see)."""
    found: dict[str, object] = {}
    for statement in statements(module_body):
        written = attribute(statement)
        if written is not None and written[1] is not None:
            found[written[0]] = evaluate(written[1], {f"@{k}": v for k, v in found.items()})
    return found


def evaluate(node: Node, names: Mapping[str, object] | None = None) -> object:
    """The value of a literal; `names` gives module attributes (`@table`) and variables their
    values. What is computed at run time is Unknown naming it."""
    scope = names or {}
    kind = node.type
    if kind in ("string", "charlist"):
        return _quoted(node, raw=False)
    if kind == "sigil":
        name = node_text(next((c for c in node.named_children if c.type == "sigil_name"), None))
        if name not in _STRING_SIGILS:
            return Unknown(f"the sigil `{shown(node)}`")
        return _quoted(node, raw=name in _RAW_SIGILS)
    if kind == "atom":
        return Symbol(node_text(node).removeprefix(":"))
    if kind == "quoted_atom":
        text = _quoted(node, raw=False)
        return Symbol(text) if isinstance(text, str) else text
    if kind == "integer":
        return int(node_text(node).replace("_", ""), 0)
    if kind == "float":
        return float(node_text(node).replace("_", ""))
    if kind == "boolean":
        return node_text(node) == "true"
    if kind == "nil":
        return None
    if kind == "list":
        return _list(node, scope)
    if kind == "tuple":
        items = [evaluate(c, scope) for c in node.named_children if c.type != "comment"]
        return next((i for i in items if isinstance(i, Unknown)), tuple(items))
    if kind == "keywords":
        return {k: evaluate(v, scope) for k, v in _keywords(node).items()}
    if kind == "map":
        content = next((c for c in node.named_children if c.type == "map_content"), None)
        return {} if content is None else _list(content, scope)
    if kind == "identifier" and node_text(node) in scope:
        return scope[node_text(node)]
    if kind == "unary_operator":
        return _unary(node, scope)
    if kind == "binary_operator" and _operator(node) == "<>":
        return _concatenation(node, scope)
    return Unknown(f"`{shown(node)}`, computed at run time")


def _list(node: Node, scope: Mapping[str, object]) -> object:
    items: list[object] = []
    pairs: dict[str, object] = {}
    for child in node.named_children:
        if child.type == "keywords":
            pairs.update({k: evaluate(v, scope) for k, v in _keywords(child).items()})
        elif child.type != "comment":
            items.append(evaluate(child, scope))
    unknown = next((v for v in [*items, *pairs.values()] if isinstance(v, Unknown)), None)
    if unknown is not None:
        return unknown
    if pairs and items:
        return Unknown(f"`{shown(node)}`, a list mixing values and keywords")
    return pairs if pairs else items


def _operator(node: Node) -> str:
    operator = node.child_by_field_name("operator")
    return node_text(operator)


def _unary(node: Node, scope: Mapping[str, object]) -> object:
    operand = node.child_by_field_name("operand")
    text = node_text(node)
    if operand is not None and text.startswith("@") and operand.type == "identifier":
        name = f"@{node_text(operand)}"
        return scope[name] if name in scope else Unknown(f"the module attribute {name}")
    if operand is not None and text.startswith("-"):
        value = evaluate(operand, scope)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return -value
    return Unknown(f"`{shown(node)}`, computed at run time")


def _concatenation(node: Node, scope: Mapping[str, object]) -> object:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is not None and right is not None:
        a, b = evaluate(left, scope), evaluate(right, scope)
        if isinstance(a, str) and isinstance(b, str):
            return a + b
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return a if isinstance(a, Unknown) else b
    return Unknown(f"`{shown(node)}`, computed at run time")


def _quoted(node: Node, raw: bool) -> str | Unknown:
    """A string's text; a heredoc (`\"\"\"`) loses the closing delimiter's indentation."""
    out: list[str] = []
    for child in node.named_children:
        if child.type == "interpolation":
            return Unknown(f"the interpolation `{shown(child)}`")
        if child.type == "escape_sequence":
            text = node_text(child)
            out.append(text if raw else unescape(text))
        elif child.type == "quoted_content":
            out.append(node_text(child))
    text = "".join(out)
    opening = node_text(node).split("\n", 1)[0]
    if not opening.endswith(('"""', "'''")):
        return text
    text = text.removeprefix("\n")
    last = text.rfind("\n")
    indent = len(text) - last - 1
    lines = text[: last + 1].split("\n")
    return "\n".join(line[indent:] if line[:indent].isspace() else line.lstrip() for line in lines)
