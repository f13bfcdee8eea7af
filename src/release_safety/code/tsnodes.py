"""Small readers of tree-sitter TypeScript / JavaScript nodes the config readers share."""

from __future__ import annotations

import re

from tree_sitter import Node

from release_safety.code.syntax import node_text

WRAPPERS = {
    "parenthesized_expression",
    "non_null_expression",
    "as_expression",
    "satisfies_expression",
    "type_assertion",
    "await_expression",
}


def is_process_env(node: Node | None) -> bool:
    if node is None or node.type != "member_expression":
        return False
    obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
    return node_text(obj) == "process" and node_text(prop) == "env"


def literal_of(node: Node | None) -> str | None:
    """The value of a string literal (or a template with no substitutions), else None."""
    if node is None:
        return None
    if node.type == "string":
        return "".join(node_text(part) for part in node.named_children)
    if node.type == "template_string" and not any(
        child.type == "template_substitution" for child in node.named_children
    ):
        return node_text(node)[1:-1]
    return None


def written(node: Node) -> str:
    """A default as written: a string's value, a number's value, else the expression's source
    text with `DEFAULTS['PORT']` written as `DEFAULTS.PORT` (one value, however it is spelled)."""
    literal = literal_of(node)
    if literal is not None:
        return literal
    return _number(node_text(node)) if node.type == "number" else _dotted(node)


def _number(text: str) -> str:
    """A number literal as its value (`1e3`, `1_000` and `1000` are one default)."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        return text
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


def _dotted(node: Node) -> str:
    """A member chain with each literal subscript that is a name written as `.name`."""
    if node.type == "member_expression":
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is not None and prop is not None and node_text(node).count("?.") == 0:
            return f"{_dotted(obj)}.{node_text(prop)}"
    if node.type == "subscript_expression":
        obj, key = node.child_by_field_name("object"), literal_of(node.child_by_field_name("index"))
        if obj is not None and key is not None and key.isidentifier() and key.isascii():
            return f"{_dotted(obj)}.{key}"
    return node_text(node)


def key_name(node: Node | None) -> str:
    """An object key as written: `X`, `'X'` or `"X"` all name X."""
    return "" if node is None else literal_of(node) or node_text(node)


def call_arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [] if args is None else args.named_children


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])")


def unescape(text: str) -> str:
    """A JavaScript string literal's escapes (`\\n`, `\\u{1F600}`, a line continuation)."""

    def one(match: re.Match[str]) -> str:
        body = match.group(1)
        if body.startswith("u{"):
            return chr(int(body[2:-1], 16))
        if body[0] in "ux" and len(body) > 1:
            return chr(int(body[1:], 16))
        if body in ("\n", "\r\n", "\r", "\u2028", "\u2029"):
            return ""
        return _ESCAPES.get(body, body)

    return _ESCAPE.sub(one, text)


def string_value(node: Node | None) -> str | None:
    """The value of a string literal or a template without substitutions, escapes processed;
    None for anything else."""
    if node is None or node.type not in ("string", "template_string"):
        return None
    if any(child.type == "template_substitution" for child in node.named_children):
        return None
    return unescape(node_text(node)[1:-1])
