"""Go sources, parsed with tree-sitter-go: `os.Getenv("X")`, `os.LookupEnv("X")`,
`cmp.Or(os.Getenv("NEW"), os.Getenv("OLD"), "d")`, and struct tags (`envconfig:"X"
default:"y" required:"true"`, `env:"X,required" envDefault:"y"`).

A default for `v := os.Getenv("X")` is the literal assigned to `v` by the statement right after
it when that statement is `if v == "" { v = "d" }` (or `if !ok { v = "d" }` after
`v, ok := os.LookupEnv("X")`). `os.Getenv` never fails, so such reads are optional; a tag with
`required` makes the variable required.
"""

from __future__ import annotations

import re
from functools import cache

import tree_sitter_go
from tree_sitter import Language, Node, Parser

from release_safety.surfaces.config.reads import EnvRead, SourceError
from release_safety.surfaces.config.syntax import error_line, node_text

_GETTERS = {"Getenv", "LookupEnv"}
_TAG = re.compile(r'(\w+):"((?:[^"\\]|\\.)*)"')


@cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_go.language()))


def parse(source: bytes) -> list[EnvRead]:
    """Every env read of a Go source file."""
    tree = _parser().parse(source)
    if tree.root_node.has_error:
        raise SourceError("syntax error", error_line(tree.root_node))
    os_names = _os_names(tree.root_node)
    reads: list[EnvRead] = []
    consumed: set[int] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "call_expression" and node.id not in consumed:
            reads += _call_reads(node, os_names, consumed)
        elif node.type == "field_declaration":
            reads += _tag_reads(node)
        stack.extend(reversed(node.named_children))
    return sorted(set(reads), key=lambda r: (r.line, r.name))


def _string(node: Node | None) -> str | None:
    """The value of a Go string literal, else None."""
    if node is None or node.type not in ("interpreted_string_literal", "raw_string_literal"):
        return None
    return node_text(node)[1:-1]


def _os_names(root: Node) -> set[str]:
    """The names the `os` package goes by in this file."""
    names = {"os"}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "import_spec" and _string(node.child_by_field_name("path")) == "os":
            alias = node.child_by_field_name("name")
            if alias is not None and alias.type == "package_identifier":
                names.add(node_text(alias))
        elif node.type in ("source_file", "import_declaration", "import_spec_list"):
            stack.extend(node.named_children)
    return names


def _env_name(node: Node, os_names: set[str]) -> tuple[str, str] | None:
    """(variable, getter) for `os.Getenv("X")` / `os.LookupEnv("X")`, else None."""
    function = node.child_by_field_name("function")
    if node.type != "call_expression" or function is None:
        return None
    if function.type != "selector_expression":
        return None
    operand, field = function.child_by_field_name("operand"), function.child_by_field_name("field")
    if node_text(operand) not in os_names or node_text(field) not in _GETTERS:
        return None
    args = node.child_by_field_name("arguments")
    name = _string(args.named_children[0]) if args is not None and args.named_children else None
    return (name, node_text(field)) if name else None


def _call_reads(node: Node, os_names: set[str], consumed: set[int]) -> list[EnvRead]:
    args = node.child_by_field_name("arguments")
    if node_text(node.child_by_field_name("function")) == "cmp.Or" and args is not None:
        return _cmp_or(node, args.named_children, os_names, consumed)
    found = _env_name(node, os_names)
    if found is None:
        return []
    site, default = _assignment(node, found[1])
    return [EnvRead(name=found[0], line=node.start_point.row + 1, default=default, site=site)]


def _cmp_or(node: Node, args: list[Node], os_names: set[str], consumed: set[int]) -> list[EnvRead]:
    """`cmp.Or(os.Getenv("NEW"), os.Getenv("OLD"), "d")`: the first non-empty value wins."""
    hits = [(arg, _env_name(arg, os_names)) for arg in args]
    named = [(arg, found[0]) for arg, found in hits if found is not None]
    if not named:
        return []
    default = _string(args[-1]) if hits[-1][1] is None else None
    site, _ = _assignment(node, "Getenv")
    primary = named[0][1]
    reads = []
    for arg, name in named:
        consumed.add(arg.id)
        reads.append(
            EnvRead(
                name=name,
                line=arg.start_point.row + 1,
                default=default,
                site=site,
                fallback_for=None if name == primary else primary,
            )
        )
    return reads


def _assignment(call: Node, getter: str) -> tuple[str | None, str | None]:
    """(site, default): the variable assigned from `call` and the default set right after."""
    values = call.parent
    statement = values.parent if values is not None else None
    if statement is None or statement.type not in (
        "short_var_declaration",
        "assignment_statement",
        "var_spec",
    ):
        return None, None
    left = statement.child_by_field_name("left") or statement.child_by_field_name("name")
    targets = [node_text(n) for n in left.named_children] if left is not None else []
    if statement.type == "var_spec":
        targets = [node_text(n) for n in statement.children_by_field_name("name")]
    if not targets:
        return None, None
    variable = targets[0]
    guard = statement.next_named_sibling
    if guard is None or guard.type != "if_statement":
        return variable, None
    condition = re.sub(r"\s+", "", node_text(guard.child_by_field_name("condition")))
    guards = {f'{variable}==""', f'""=={variable}', f"len({variable})==0"}
    if getter == "LookupEnv" and len(targets) > 1:
        guards.add(f"!{targets[1]}")
    if condition not in guards:
        return variable, None
    body = guard.child_by_field_name("consequence")
    for assignment in _statements(body):
        if assignment.type == "assignment_statement":
            lhs = node_text(assignment.child_by_field_name("left"))
            rhs = assignment.child_by_field_name("right")
            if lhs == variable and rhs is not None and rhs.named_child_count == 1:
                value = rhs.named_children[0]
                default = _string(value)
                return variable, default if default is not None else node_text(value)
    return variable, None


def _statements(block: Node | None) -> list[Node]:
    if block is None:
        return []
    found: list[Node] = []
    for child in block.named_children:
        found += child.named_children if child.type == "statement_list" else [child]
    return found


def _tag_reads(field: Node) -> list[EnvRead]:
    tag = _string(field.child_by_field_name("tag"))
    if not tag:
        return []
    pairs = dict(_TAG.findall(tag))
    line = field.start_point.row + 1
    site = node_text(field.child_by_field_name("name")) or None
    if "envconfig" in pairs:
        name = pairs["envconfig"].split(",")[0]
        default = pairs.get("default")
        required = pairs.get("required") == "true"
    elif "env" in pairs:
        name, *options = pairs["env"].split(",")
        default = pairs.get("envDefault")
        required = "required" in options or "notEmpty" in options
    else:
        return []
    if not name or name == "-":
        return []
    return [
        EnvRead(
            name=name,
            line=line,
            default=default,
            required=required and default is None,
            site=site,
        )
    ]
