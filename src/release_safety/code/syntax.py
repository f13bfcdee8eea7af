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
