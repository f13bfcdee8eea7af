"""goose migrations written in Go, found by what the import is: the package
`github.com/pressly/goose` (any major version) under its own name, an alias
(`g.AddMigration`), a dot import (`AddMigration`), and its registration functions taken as
values (`add := goose.AddMigrationContext`) are all the same registration."""

from __future__ import annotations

import re

from tree_sitter import Node

from release_safety.code.parsers import parser
from release_safety.code.syntax import node_text

_PACKAGE = re.compile(r"github\.com/pressly/goose(?:/v\d+)?")
_REGISTER = re.compile(r"Add(?:Named)?Migration\w*")


def _names(root: Node) -> tuple[set[str], bool]:
    """The names the file gives goose's package, and whether it dot-imports it."""
    names: set[str] = set()
    dotted = False
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "import_spec":
            path = node.child_by_field_name("path")
            if path is None or not _PACKAGE.fullmatch(node_text(path).strip('"`')):
                continue
            name = node.child_by_field_name("name")
            written = node_text(name) if name is not None else "goose"
            dotted |= written == "."
            if written not in (".", "_"):
                names.add(written)
        elif node.type in ("source_file", "import_declaration", "import_spec_list"):
            stack.extend(node.named_children)
    return names, dotted


def registration_line(text: str) -> int | None:
    """The line of the first reference to goose's `Add...Migration...` in a Go file that
    imports goose, however the import is named; None when there is none."""
    if "pressly/goose" not in text:
        return None
    root = parser("go").parse(text.encode()).root_node
    names, dotted = _names(root)
    lines: list[int] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "selector_expression":
            operand, field = node.child_by_field_name("operand"), node.child_by_field_name("field")
            if node_text(operand) in names and _REGISTER.fullmatch(node_text(field)):
                lines.append(node.start_point.row + 1)
                continue
        elif dotted and node.type == "identifier" and _REGISTER.fullmatch(node_text(node)):
            lines.append(node.start_point.row + 1)
        stack.extend(node.named_children)
    return min(lines) if lines else None
