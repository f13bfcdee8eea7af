"""Small readers of tree-sitter TypeScript / JavaScript nodes the config readers share."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

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


ENV_OWNERS = frozenset({"process", "Bun", "import.meta"})
"""What `X.env` is the environment of: Node's `process.env`, Bun's `Bun.env`, and
`import.meta.env` (Vite, Astro, SvelteKit, Bun)."""


def is_process_env(node: Node | None) -> bool:
    """`process.env`, `Bun.env` or `import.meta.env`: an object of the environment."""
    if node is None or node.type != "member_expression":
        return False
    obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
    return node_text(obj) in ENV_OWNERS and node_text(prop) == "env"


def deno_env(node: Node | None) -> str | None:
    """`get` or `toObject` (any method) for a call `Deno.env.<method>(...)`, else None."""
    if node is None or node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    if function is None or function.type != "member_expression":
        return None
    owner = function.child_by_field_name("object")
    if node_text(owner) != "Deno.env":
        return None
    return node_text(function.child_by_field_name("property")) or None


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


class Declared(Mapping[str, Node]):
    """What a source declares by name: the value of `const X = ...` (`let`, `var`, any scope)
    and `function X` itself; of one name, the last a walk in document order meets. Each name
    is looked up when asked, from its occurrences in the text, not by walking the tree."""

    def __init__(self, root: Node, source: bytes) -> None:
        self.root = root
        self.source = source
        self._found: dict[str, Node | None] = {}

    def __getitem__(self, name: str) -> Node:
        if name not in self._found:
            self._found[name] = self._last(name) if name else None
        found = self._found[name]
        if found is None:
            raise KeyError(name)
        return found

    def _last(self, name: str) -> Node | None:
        last = None
        for match in re.finditer(re.escape(name.encode()), self.source):
            node = self.root.named_descendant_for_byte_range(match.start(), match.end())
            parent = node.parent if node is not None else None
            if (
                node is None
                or parent is None
                or (node.start_byte, node.end_byte) != match.span()
                or parent.child_by_field_name("name") != node
            ):
                continue
            if parent.type == "function_declaration":
                last = parent
            elif parent.type == "variable_declarator":
                last = parent.child_by_field_name("value") or last
        return last

    def __iter__(self) -> Iterator[str]:
        names: list[str] = []
        pending = [self.root]
        while pending:
            node = pending.pop()
            pending.extend(reversed(node.named_children))
            if node.type in ("function_declaration", "variable_declarator"):
                names.append(node_text(node.child_by_field_name("name")))
        return iter([name for name in dict.fromkeys(names) if name in self])

    def __len__(self) -> int:
        return len(set(self))
