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


def string_value(node: Node) -> str | None:
    """The value of a Go string literal (a raw one without its carriage returns, as Go drops
    them); None for any other node."""
    if node.type not in STRINGS:
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
    if node.type == "binary_expression":
        operator = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if operator is not None and operator.type == "+" and left and right:
            first, second = string_expression(left, scope), string_expression(right, scope)
            if isinstance(first, str) and isinstance(second, str):
                return first + second
            return first if isinstance(first, Unknown) else second
    if node.type == "identifier" and node_text(node) in scope:
        return scope[node_text(node)]
    return Unknown(f"`{shown(node)}`, a string built at run time")
