"""Ruby sources, parsed with tree-sitter-ruby: calls, their arguments and blocks, constants,
and the value of a literal (strings with their escapes, heredocs, symbols, numbers, arrays and
hashes). A value computed at run time is `Unknown`, its reason naming the construct.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from tree_sitter import Node

from release_safety.code.jsvalues import Unknown
from release_safety.code.literals import Proc, Symbol, dedent, unescape
from release_safety.code.parsers import parse as parsed
from release_safety.code.syntax import node_text, shown

_STRING_METHODS: dict[str, Callable[[str], str]] = {
    "squish": lambda s: " ".join(s.split()),
    "strip": str.strip,
    "freeze": lambda s: s,
    "dup": lambda s: s,
    "to_s": lambda s: s,
    "chomp": lambda s: s.removesuffix("\n"),
}
_SINGLE_QUOTED = re.compile(r"\\([\\'])")
_SKIPPED = {"comment", "heredoc_body", "empty_statement"}


def parse(source: bytes) -> Node:
    """The root of a Ruby source's syntax tree (check `root.has_error`)."""
    return parsed("ruby", source)


def call_name(node: Node) -> str | None:
    """The method a call statement names (`add_column`, `disable_ddl_transaction!`, `t.string`
    gives `string`); a bare identifier is a call without arguments."""
    if node.type == "identifier":
        return node_text(node)
    if node.type != "call":
        return None
    method = node.child_by_field_name("method")
    return node_text(method) if method is not None else None


def receiver(call: Node) -> Node | None:
    """What a call is sent to (`t` in `t.string`), None for a call on self."""
    return call.child_by_field_name("receiver") if call.type == "call" else None


def arguments(call: Node) -> tuple[list[Node], dict[str, Node]]:
    """A call's positional arguments and its keyword arguments by name (`default: 1`,
    `:default => 1` and a trailing `{default: 1}` all give `default`)."""
    args = call.child_by_field_name("arguments") if call.type == "call" else None
    positional: list[Node] = []
    keywords: dict[str, Node] = {}
    for arg in args.named_children if args is not None else []:
        if arg.type == "comment" or arg.type == "block_argument":
            continue
        if arg.type == "pair":
            _keyword(arg, keywords)
        else:
            positional.append(arg)
    if positional and positional[-1].type == "hash" and not keywords:
        for pair in positional.pop().named_children:
            if pair.type == "pair":
                _keyword(pair, keywords)
    return positional, keywords


def _keyword(pair: Node, keywords: dict[str, Node]) -> None:
    key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
    if key is None or value is None:
        return
    name = node_text(key) if key.type == "hash_key_symbol" else None
    if name is None:
        literal = evaluate(key)
        name = (
            literal.name
            if isinstance(literal, Symbol)
            else literal
            if isinstance(literal, str)
            else None
        )
    if name is not None:
        keywords[name] = value


def block(call: Node) -> Node | None:
    """A call's `do ... end` or `{ ... }` block."""
    return call.child_by_field_name("block") if call.type == "call" else None


def block_parameters(block_node: Node) -> list[str]:
    """The names a block takes (`t` in `do |t|`)."""
    params = block_node.child_by_field_name("parameters")
    if params is None:
        return []
    return [node_text(p) for p in params.named_children if p.type == "identifier"]


def statements(node: Node) -> list[Node]:
    """The statements of a class, method or block body, in order (comments and heredoc bodies
    left out)."""
    body = node.child_by_field_name("body")
    if body is None:
        body = next(
            (c for c in node.named_children if c.type in ("body_statement", "block_body")), None
        )
    if body is None:
        return []
    return [child for child in body.named_children if child.type not in _SKIPPED]


def constants(root: Node) -> dict[str, object]:
    """The constants assigned a literal outside any method (`TABLE = :users`), by name; a
    constant assigned twice, or assigned what is not a literal, is Unknown."""
    found: dict[str, object] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("method", "singleton_method"):
            continue
        if node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and left.type == "constant":
                name = node_text(left)
                found[name] = (
                    Unknown(f"the constant {name}, assigned twice")
                    if name in found
                    else evaluate(right, found)
                )
            continue
        stack.extend(reversed(node.named_children))
    return found


def evaluate(node: Node, names: Mapping[str, object] | None = None) -> object:
    """The value of a literal; `names` gives constants (and local variables) their values. What
    is computed at run time is Unknown naming it."""
    scope = names or {}
    kind = node.type
    if kind in ("string", "bare_string"):
        quoted = node_text(node).startswith(("'", "%q"))
        return _string(node, raw=quoted, quoted=quoted, scope=scope)
    if kind == "chained_string":
        parts = [evaluate(part, scope) for part in node.named_children]
        unknown = next((p for p in parts if isinstance(p, Unknown)), None)
        return unknown or "".join(str(p) for p in parts)
    if kind == "heredoc_beginning":
        return _heredoc(node, scope)
    if kind == "lambda" or (kind == "call" and call_name(node) in ("lambda", "proc")):
        return _proc(node, scope)
    if kind == "simple_symbol":
        return Symbol(node_text(node).removeprefix(":"))
    if kind == "hash_key_symbol":
        return Symbol(node_text(node))
    if kind in ("delimited_symbol", "bare_symbol"):
        text = _string(node, raw=False)
        return Symbol(text) if isinstance(text, str) else text
    if kind == "integer":
        return _integer(node_text(node))
    if kind == "float":
        return float(node_text(node).replace("_", ""))
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "nil":
        return None
    if kind in ("array", "string_array", "symbol_array"):
        items = [evaluate(item, scope) for item in node.named_children if item.type != "comment"]
        return next((item for item in items if isinstance(item, Unknown)), items)
    if kind == "hash":
        return _hash(node, scope)
    if kind in ("constant", "identifier", "scope_resolution"):
        name = node_text(node)
        if name in scope:
            return scope[name]
        return Unknown(f"the {'variable' if kind == 'identifier' else 'constant'} {name}")
    if kind == "parenthesized_statements" and len(node.named_children) == 1:
        return evaluate(node.named_children[0], scope)
    if kind == "unary" and node_text(node).startswith("-") and node.named_children:
        operand = evaluate(node.named_children[-1], scope)
        if isinstance(operand, int | float) and not isinstance(operand, bool):
            return -operand
    if kind == "call":
        return _method_on_literal(node, scope)
    if kind == "binary" and node.child_by_field_name("operator") is not None:
        return _concatenation(node, scope)
    return Unknown(f"`{shown(node)}`, computed at run time")


def _hash(node: Node, scope: Mapping[str, object]) -> object:
    result: dict[object, object] = {}
    for pair in node.named_children:
        if pair.type != "pair":
            return Unknown(f"`{shown(pair)}` in a hash")
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if key is None or value is None:
            return Unknown(f"`{shown(pair)}` in a hash")
        name = evaluate(key, scope)
        if isinstance(name, Unknown):
            return name
        result[name.name if isinstance(name, Symbol) else name] = evaluate(value, scope)
    return result


def _integer(text: str) -> int:
    digits = text.replace("_", "")
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
        return int(digits, 8)
    return int(digits, 0)


def _string(
    node: Node, raw: bool, quoted: bool = False, scope: Mapping[str, object] | None = None
) -> str | Unknown:
    """A string's text: escapes processed unless `raw`; a single-quoted string (`quoted`) keeps
    only its `\\\\` and `\\'`; an interpolation of a known value is that value's `to_s`."""
    out: list[str] = []
    for child in node.named_children:
        if child.type == "interpolation":
            inner = [c for c in child.named_children if c.type != "comment"]
            value = evaluate(inner[0], scope) if len(inner) == 1 else None
            text = _to_s(value)
            if text is None:
                return Unknown(f"the interpolation `{shown(child)}`")
            out.append(text)
            continue
        text = node_text(child)
        if child.type == "escape_sequence":
            out.append(text if raw else unescape(text))
        elif child.type in ("string_content", "heredoc_content"):
            out.append(_SINGLE_QUOTED.sub(r"\1", text) if quoted else text)
    return "".join(out)


def _to_s(value: object) -> str | None:
    """Ruby's `to_s` of a literal value (None for what has no static text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, Symbol):
        return value.name
    return str(value) if isinstance(value, str | int | float) else None


def _heredoc(beginning: Node, scope: Mapping[str, object] | None = None) -> str | Unknown:
    """The text of the heredoc `<<~SQL` opens: the next unmatched body in the file."""
    root = beginning
    while root.parent is not None:
        root = root.parent
    openings: list[Node] = []
    bodies: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "heredoc_beginning":
            openings.append(node)
        elif node.type == "heredoc_body":
            bodies.append(node)
        stack.extend(reversed(node.children))
    openings.sort(key=lambda n: n.start_byte)
    bodies.sort(key=lambda n: n.start_byte)
    index = next(i for i, n in enumerate(openings) if n.id == beginning.id)
    if index >= len(bodies):
        return Unknown(f"the heredoc {node_text(beginning)} without a body")
    opening = node_text(beginning)
    raw = "'" in opening
    text = _string(bodies[index], raw, scope=scope)
    if isinstance(text, Unknown):
        return text
    text = text.removeprefix("\n")  # the rest of the opening line
    text = text[: text.rfind("\n") + 1]  # the closing line's indentation
    return dedent(text) if opening.startswith("<<~") else text


def _proc(node: Node, scope: Mapping[str, object]) -> object:
    """`-> { "now()" }`, `lambda { ... }`: a Proc of what its one statement returns."""
    body = node.child_by_field_name("body") if node.type == "lambda" else block(node)
    inner = statements(body) if body is not None else []
    if len(inner) != 1:
        return Unknown(f"the block `{shown(node)}`, computed at run time")
    value = evaluate(inner[0], scope)
    return value if isinstance(value, Unknown) else Proc(value)


def _method_on_literal(call: Node, scope: Mapping[str, object]) -> object:
    target, method = receiver(call), call_name(call)
    positional, keywords = arguments(call)
    if target is not None and method in _STRING_METHODS and not positional and not keywords:
        value = evaluate(target, scope)
        if isinstance(value, str):
            return _STRING_METHODS[method](value)
        if isinstance(value, Unknown):
            return value
    if target is not None and method == "to_sym" and not positional:
        value = evaluate(target, scope)
        return Symbol(value) if isinstance(value, str) else value
    return Unknown(f"the call `{shown(call)}`")


def _concatenation(node: Node, scope: Mapping[str, object]) -> object:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    operator = node_text(node.child_by_field_name("operator"))
    if operator == "+" and left is not None and right is not None:
        a, b = evaluate(left, scope), evaluate(right, scope)
        if isinstance(a, str) and isinstance(b, str):
            return a + b
    return Unknown(f"`{shown(node)}`, computed at run time")
