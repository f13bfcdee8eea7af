"""Go, read through tree-sitter: the value of a string literal (raw or interpreted, as the Go
specification reads it), and of a string expression made of literals, `+` and names bound to
such expressions; anything else is `jsvalues.Unknown`, naming the construct."""

from __future__ import annotations

import re
from collections.abc import Mapping

from tree_sitter import Node

from release_safety.code.jsvalues import Unknown
from release_safety.code.syntax import node_text, shown

_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
}
_ESCAPE = re.compile(
    r"\\(?:([abfnrtv\\'\"])|x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})"
    r"|U([0-9A-Fa-f]{8})|([0-7]{3}))"
)
STRINGS = ("interpreted_string_literal", "raw_string_literal")


def _unescape(found: re.Match[str]) -> str:
    simple, hexa, short, long, octal = found.groups()
    if simple is not None:
        return _SIMPLE[simple]
    if octal is not None:
        return chr(int(octal, 8))
    return chr(int(hexa or short or long, 16))


def string_value(node: Node | None) -> str | None:
    """The value of a Go string literal (a raw one without its carriage returns, as Go drops
    them); None for any other node, or none."""
    if node is None or node.type not in STRINGS:
        return None
    inner = node_text(node)[1:-1]
    if node.type == "raw_string_literal":
        return inner.replace("\r", "")
    return _ESCAPE.sub(_unescape, inner)


def string_expression(node: Node, scope: Mapping[str, object]) -> object:
    """A string expression's value: literals, `+` of such expressions, parentheses and the
    names `scope` binds (to a str, or an Unknown); `Unknown` naming anything else."""
    value = string_value(node)
    if value is not None:
        return value
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return string_expression(node.named_children[0], scope)
    if _concatenation(node):
        operands = []  # `a + b + c` is ((a + b) + c): walked down its left side, not recursed
        while _concatenation(node):
            right, left = node.child_by_field_name("right"), node.child_by_field_name("left")
            assert right is not None and left is not None
            operands.append(right)
            node = left
        operands.append(node)
        texts: list[str] = []
        for operand in reversed(operands):
            part = string_expression(operand, scope)
            if not isinstance(part, str):
                return part
            texts.append(part)
        return "".join(texts)
    if node.type == "identifier" and node_text(node) in scope:
        return scope[node_text(node)]
    return Unknown(f"`{shown(node)}`, a string built at run time")


def _concatenation(node: Node) -> bool:
    operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    return operator is not None and operator.type == "+"
