"""Helpers over tree-sitter syntax trees shared by the TypeScript and Go readers."""

from __future__ import annotations

from tree_sitter import Node


def error_line(root: Node) -> int:
    """The 1-based line of the first syntax error under `root` (1 when none is located)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return node.start_point.row + 1
        stack.extend(reversed([child for child in node.children if child.has_error]))
    return 1


def node_text(node: Node | None) -> str:
    """A node's source text (empty for no node)."""
    return node.text.decode("utf-8", errors="replace") if node is not None and node.text else ""


def one_line(text: str, width: int = 60) -> str:
    """Source as a finding names it: on one line, `width` characters at most."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def shown(node: Node | None) -> str:
    """A construct as a finding names it: its source, on one line, 60 characters at most."""
    return one_line(node_text(node))
