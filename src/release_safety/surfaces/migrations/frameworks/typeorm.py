"""TypeORM migrations (`<timestamp>-<Name>.ts|js`): the SQL the `up` method of the migration
class sends through `queryRunner.query(...)` (never `down`), each statement at its call's line.

TypeORM sends a query's text as written (the migrations it generates are nothing else), so a
string literal, a template without substitutions or a constant of the file is the SQL; a text
computed at run time, and the `Table*` builders (`queryRunner.createTable(new Table(...))`,
`addColumn`, ...), are unknown statements naming the call. TypeORM runs its migrations in a
transaction unless the class sets `transaction = false`.
"""

from __future__ import annotations

from tree_sitter import Node

from release_safety.code.parsers import script_dialect
from release_safety.code.syntax import call_arguments, node_text, shown
from release_safety.code.tsnodes import WRAPPERS, string_value
from release_safety.surfaces.migrations.frameworks.emit import Out, parsed, read_safely
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

FRAMEWORK = "typeorm"
_SKIPPED = {"comment", "empty_statement"}


def extract_typeorm(text: str, path: str) -> Extracted:
    """The statements a TypeORM migration's `up` sends, and whether they run in a
    transaction."""
    return read_safely(FRAMEWORK, lambda: _extract(text, path))


def _extract(text: str, path: str) -> Extracted:
    root = parsed(script_dialect(path), text)
    up = _up_method(root)
    if up is None:
        return Extracted([Statement(None, 1, "typeorm: no migration class with an up method")])
    owner, method = up
    transactional = _field(owner, "transaction") != "false"
    params = method.child_by_field_name("parameters")
    names = [
        node_text(p if p.type == "identifier" else p.child_by_field_name("pattern"))
        for p in (params.named_children if params is not None else [])
    ]
    runner = names[0] if names else "queryRunner"
    out = Out(FRAMEWORK)
    body = method.child_by_field_name("body")
    constants: dict[str, str] = {}
    for statement in body.named_children if body is not None else []:
        if statement.type not in _SKIPPED:
            _statement(out, statement, runner, constants)
    return Extracted(out.statements, transactional, transactional)


def _up_method(root: Node) -> tuple[Node, Node] | None:
    """The class body holding an `up` method, and that method."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "class_body":
            for member in node.named_children:
                name = member.child_by_field_name("name")
                if member.type == "method_definition" and node_text(name) == "up":
                    return node, member
        stack.extend(reversed(node.named_children))
    return None


def _field(body: Node, name: str) -> str | None:
    """The source of a class field's value (`transaction = false` gives `false`)."""
    for member in body.named_children:
        if member.type in ("public_field_definition", "field_definition"):
            key = member.child_by_field_name("name") or member.child_by_field_name("property")
            if node_text(key) == name:
                return node_text(member.child_by_field_name("value"))
    return None


def _statement(out: Out, node: Node, runner: str, constants: dict[str, str]) -> None:
    line = node.start_point.row + 1
    if node.type == "lexical_declaration" and node_text(node).startswith("const"):
        for declarator in node.named_children:
            value = string_value(declarator.child_by_field_name("value"))
            name = node_text(declarator.child_by_field_name("name"))
            if value is None:
                out.unknown(line, f"`{shown(declarator)}`, computed at run time")
                return
            constants[name] = value
        return
    call = node.named_children[0] if node.type == "expression_statement" else None
    while call is not None and call.type in WRAPPERS:
        call = call.named_children[0] if call.named_children else None
    function = call.child_by_field_name("function") if call is not None else None
    if call is None or call.type != "call_expression" or function is None:
        out.unknown(line, f"`{shown(node)}`, not a query")
        return
    if node_text(function) != f"{runner}.query":
        out.unknown(line, f"the call `{shown(call)}`, not modelled")
        return
    args = call_arguments(call)
    sql = string_value(args[0]) if args else None
    if sql is None and args and args[0].type == "identifier":
        sql = constants.get(node_text(args[0]))
    if sql is None:
        written = shown(args[0]) if args else "nothing"
        out.unknown(line, f"the query `{written}`, computed at run time")
        return
    out.script(line, sql)
