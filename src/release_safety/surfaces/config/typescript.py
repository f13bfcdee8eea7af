"""TypeScript and JavaScript sources, parsed with tree-sitter: `process.env.X`,
`process.env['X']`, `const { X = 'd' } = process.env`, and the env-schema libraries
`tsschemas` reads (envalid, zod, t3-env).

A default is the last operand of a `||` / `??` chain when it is not itself an env read
(`Number(process.env.PORT) || 3000` included: single-argument calls are looked through).
Other env reads in the chain are fallbacks of the first (`process.env.NEW ?? process.env.OLD`).
A read is required when asserted non-null (`process.env.X!`) or guarded by
`if (!process.env.X) throw ...`, or by `const x = process.env.X; if (!x) throw ...` (or
`process.exit(...)`) within the next three statements. Computed keys (`process.env[name]`)
and the repository's reader functions are `ts_resolve`'s, across files. A source that copies
the whole environment outside an env schema (`{ ...process.env }`, `Object.entries(process.env)`,
`for (k in process.env)`) reads names it does not write: a blocking gap, so the surface is not
checked (what it did resolve is kept in the coverage).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import replace

from tree_sitter import Node

from release_safety.code.parsers import tree
from release_safety.code.syntax import call_arguments, error_line, node_text
from release_safety.code.tsnodes import (
    WRAPPERS,
    Declared,
    deno_env,
    is_process_env,
    key_name,
    literal_of,
    written,
)
from release_safety.surfaces.config.reads import EnvRead, Gap, Reading, SourceError
from release_safety.surfaces.config.tsschemas import schema_kind, schema_reads

_SITES = {
    "variable_declarator": "name",
    "pair": "key",
    "assignment_expression": "left",
    "public_field_definition": "name",
    "property_signature": "name",
}


def parse(
    source: bytes, dialect: str, table: str | None = None, copies_named: bool = False
) -> Reading:
    """Every env read of a TypeScript / JavaScript source, and a blocking gap where it copies
    the whole environment; with `table`, the entries of the
    object literal of that name too (each key a variable, its value the default).
    `copies_named`: the settings name a table of defaults, so a copy of the whole environment
    reads names written there."""
    root = tree(dialect, source).root_node
    if root.has_error:
        raise SourceError("syntax error", error_line(root))
    # every read, schema and copy the walk finds is named `env` (`createEnv` too): without a
    # table, only the subtrees holding the word are walked
    named = [found.start() for found in re.finditer(b"env", source.lower())]
    if table is None and not named:
        return []
    reads: list[EnvRead] = []
    gaps: list[EnvRead | Gap] = []
    consts = Declared(root, source)
    schemas: list[tuple[Node, str]] = []
    tables: list[Node] = []
    kept: list[tuple[int, Node]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if table is None and not _holds(named, node):
            continue
        name = _env_name(node)
        if name is not None:
            chain = _chain_reads(node, name)
            empty = len(chain) == 1 and chain[0].default in (None, "")
            declarator = _kept_in(node) if empty else None
            if declarator is not None and not chain[0].required:
                kept.append((len(reads), declarator))
            reads += chain
        elif node.type == "variable_declarator":
            reads += _destructured(node)
            value = node.child_by_field_name("value")
            if value is not None and node_text(node.child_by_field_name("name")) == table:
                tables.append(value)
        elif (kind := schema_kind(node)) is not None:
            schemas.append((node, kind))
        elif not copies_named and _copies_env(node) and not _in_schema(node):
            gaps.append(_copy_gap(node))
        stack.extend(reversed(node.named_children))
    _kept_defaults(reads, kept)
    for call, kind in schemas:
        reads += schema_reads(call, kind, consts)
    if table is not None:
        if len(tables) != 1:
            found = "no" if not tables else f"{len(tables)}"
            raise SourceError(f"{found} object literals named {table} (defaults_table)")
        reads += _table_reads(tables[0], table)
    reads = [_through_constant(read, consts) for read in reads]
    return [*sorted(set(reads), key=lambda read: (read.line, read.name)), *gaps]


def _holds(offsets: list[int], node: Node) -> bool:
    """Whether the node's text holds one of the (sorted) byte offsets."""
    at = bisect_left(offsets, node.start_byte)
    return at < len(offsets) and offsets[at] < node.end_byte


_LITERALS = frozenset({"string", "number", "template_string", "true", "false"})


def _kept_in(read: Node) -> Node | None:
    """The declarator of the module's or function's own `const` a read's value is kept in
    (`const corsMaxAge = process.env.CORS_MAX_AGE`, `... || ''`), else None (an exported one
    is used elsewhere too)."""
    top = _climb(read)
    while _logical(top.parent) and top.parent is not None:
        top = _climb(top.parent, calls=False)
    declarator = top.parent
    if declarator is None or declarator.type != "variable_declarator":
        return None
    name = declarator.child_by_field_name("name")
    declaration = declarator.parent
    if (
        declarator.child_by_field_name("value") != top
        or name is None
        or name.type != "identifier"
        or declaration is None
        or declaration.type != "lexical_declaration"
        or not node_text(declaration).startswith("const ")
        or declaration.parent is None
        or declaration.parent.type == "export_statement"
    ):
        return None
    return declarator


_USES = frozenset({"identifier", "shorthand_property_identifier"})


def _kept_defaults(reads: list[EnvRead], kept: list[tuple[int, Node]]) -> None:
    """A read kept in a `const` with no default of its own, or an empty one, takes the default
    every use of the const gives (`corsMaxAge || '86400'`; after `|| ''` only `||` replaces
    the empty value, not `??`), when every use gives the same one; a use without one
    (`if (corsMaxAge)`, `{ corsMaxAge }`, passed on) leaves the read as it is. One walk per
    scope the consts are declared in."""
    by_scope: dict[tuple[int, int], tuple[Node, list[tuple[int, Node]]]] = {}
    for index, declarator in kept:
        declaration = declarator.parent
        scope = declaration.parent if declaration is not None else None
        if scope is not None:
            key = (scope.start_byte, scope.end_byte)
            by_scope.setdefault(key, (scope, []))[1].append((index, declarator))
    for scope, declared in by_scope.values():
        names = {node_text(d.child_by_field_name("name")): d for _, d in declared}
        uses: dict[str, list[Node]] = {}
        stack = [scope]
        while stack:
            node = stack.pop()
            if node.type in _USES and node.parent is not None:
                text = node_text(node)
                if text in names and node.parent != names[text]:
                    uses.setdefault(text, []).append(node)
            stack.extend(node.named_children)
        for index, declarator in declared:
            empty = reads[index].default == ""
            found = {
                _use_default(use, empty)
                for use in uses.get(node_text(declarator.child_by_field_name("name")), [])
            }
            if len(found) == 1 and None not in found:
                reads[index] = replace(reads[index], default=found.pop())


def _use_default(use: Node, empty: bool) -> str | None:
    """The default a use of a kept value gives it: the last operand of the `||` / `??` chain
    it opens (`corsMaxAge || '86400'`, `Number(port) || 3000`; of a `||` chain only when the
    value may be `empty`), else None."""
    if use.type != "identifier":
        return None
    first = _climb(use)
    top = first
    while _logical(top.parent) and top.parent is not None:
        top = _climb(top.parent, calls=False)
    operands = _operands(top) if _logical(top) else [top]
    last = operands[-1]
    if len(operands) < 2 or operands[0] != first or _read_in(last) is not None:
        return None
    if empty and "??" in _operators(top):
        return None
    return written(last)


def _operators(node: Node) -> list[str]:
    """The operators of a `||` / `??` chain."""
    if not _logical(node):
        return []
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    operator = node_text(node.child_by_field_name("operator"))
    return [*(_operators(left) if left else []), operator, *(_operators(right) if right else [])]


def _through_constant(read: EnvRead, consts: Mapping[str, Node]) -> EnvRead:
    """A default written as a `const` of the module holding a literal (`DEFAULT_TTL` for
    `const DEFAULT_TTL = 86400`) is that literal: the same default however it is spelled."""
    value = consts.get(read.default or "")
    declarator = value.parent if value is not None else None
    declaration = declarator.parent if declarator is not None else None
    if (
        value is None
        or declarator is None
        or declarator.type != "variable_declarator"
        or declaration is None
        or declaration.type != "lexical_declaration"
        or not node_text(declaration).startswith("const ")
    ):
        return read
    while value.type in WRAPPERS and value.named_child_count:
        value = value.named_children[0]
    if value.type not in _LITERALS or (
        value.type == "template_string" and literal_of(value) is None
    ):
        return read
    return replace(read, default=written(value))


def _copy_gap(node: Node) -> Gap:
    """A copy of the whole environment: the variables it passes on are named elsewhere."""
    shown = node_text(node).split("\n")[0][:60]
    if deno_env(node) == "get":
        return Gap(
            _line(node),
            f"`{shown}`: a computed name the tool cannot follow",
            "Read the variable by its name (`Deno.env.get('NAME')`).",
            blocking=True,
        )
    return Gap(
        _line(node),
        f"process.env is copied whole (`{shown}`): {_WHOLE}",
        "Set `defaults_table` on this source to the object literal that names the variables "
        "(`DEFAULTS`), or read each variable by its name.",
        blocking=True,
    )


def _table_reads(value: Node, table: str) -> list[EnvRead]:
    """`const DEFAULTS = { PORT: 8055, HOST: '0.0.0.0' }`: each key a variable, each value its
    default; a spread or a computed key names variables elsewhere (SourceError)."""
    while value.type in WRAPPERS and value.named_child_count:
        value = value.named_children[0]
    if value.type != "object":
        raise SourceError(f"{table} (defaults_table) is not an object literal", _line(value))
    reads: list[EnvRead] = []
    for entry in value.named_children:
        if entry.type == "comment":
            continue
        key = entry.child_by_field_name("key") if entry.type == "pair" else None
        default = entry.child_by_field_name("value") if entry.type == "pair" else None
        if key is None or default is None or key.type == "computed_property_name":
            shown = node_text(entry).split("\n")[0][:40]
            raise SourceError(
                f"{table} (defaults_table) has an entry not read: {shown}", _line(entry)
            )
        reads.append(EnvRead(name=key_name(key), line=_line(entry), default=written(default)))
    return reads


def _line(node: Node) -> int:
    return node.start_point.row + 1


_WHOLE = "the variables the service reads are named elsewhere (a table of defaults, a pattern)"
_OBJECT_READS = {"Object.entries", "Object.keys", "Object.values", "Object.assign"}


def _copies_env(node: Node) -> bool:
    """`{ ...process.env }`, `Object.entries(process.env)` (`keys`, `values`, `assign`),
    `for (const key in process.env)`, `Deno.env.toObject()` or `Deno.env.get(name)` with a
    computed name: variables taken that are not named here."""
    method = deno_env(node)
    if method is not None:
        return method == "toObject" or (method == "get" and _env_name(node) is None)
    if node.type == "spread_element":
        return is_process_env(node.named_children[0] if node.named_children else None)
    if node.type == "call_expression":
        function = node.child_by_field_name("function")
        if function is None or node_text(function) not in _OBJECT_READS:
            return False
        return any(is_process_env(arg) for arg in call_arguments(node))
    if node.type == "for_in_statement":
        operator = node.child_by_field_name("operator")
        return node_text(operator) == "in" and is_process_env(node.child_by_field_name("right"))
    return False


def _in_schema(node: Node) -> bool:
    """Inside an env-schema call, whose reads `tsschemas` names."""
    parent = node.parent
    while parent is not None:
        if schema_kind(parent) is not None:
            return True
        parent = parent.parent
    return False


def _env_name(node: Node) -> str | None:
    """The variable named by `process.env.X`, `process.env['X']` (`Bun.env`, `import.meta.env`
    alike) or `Deno.env.get('X')`, else None."""
    if deno_env(node) == "get":
        arguments = call_arguments(node)
        return literal_of(arguments[0]) if arguments else None
    if node.type == "member_expression" and is_process_env(node.child_by_field_name("object")):
        prop = node.child_by_field_name("property")
        return node_text(prop) if prop is not None and prop.type == "property_identifier" else None
    if node.type == "subscript_expression" and is_process_env(node.child_by_field_name("object")):
        return literal_of(node.child_by_field_name("index"))
    return None


def _climb(node: Node, calls: bool = True) -> Node:
    """From a read up through wrappers and single-argument calls (`Number(process.env.X)`);
    without `calls`, through wrappers only."""
    while node.parent is not None:
        parent = node.parent
        if parent.type in WRAPPERS:
            node = parent
        elif calls and parent.type == "arguments" and parent.named_child_count >= 1:
            call = parent.parent
            if call is None or call.type != "call_expression" or parent.named_children[0] != node:
                return node
            node = call
        else:
            return node
    return node


def _logical(node: Node | None) -> bool:
    if node is None or node.type != "binary_expression":
        return False
    operator = node.child_by_field_name("operator")
    return node_text(operator) in ("||", "??")


def _operands(node: Node) -> list[Node]:
    if not _logical(node):
        return [node]
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    return [*(_operands(left) if left else []), *(_operands(right) if right else [])]


def _read_in(node: Node) -> tuple[str, Node] | None:
    """The env read an operand stands for (through wrappers and single-argument calls)."""
    for _ in range(8):
        name = _env_name(node)
        if name is not None:
            return name, node
        if node.type in WRAPPERS and node.named_child_count:
            node = node.named_children[0]
        elif node.type == "call_expression":
            args = node.child_by_field_name("arguments")
            if args is None or not args.named_child_count:
                return None
            node = args.named_children[0]
        else:
            return None
    return None


def _chain_reads(read: Node, name: str) -> list[EnvRead]:
    """The read at `read`, placed in its `||` / `??` chain (only the chain's first read reports
    the others, so each read is reported once)."""
    top = _climb(read)
    while _logical(top.parent) and top.parent is not None:
        # a chain that is a call's argument is whole: `resolve(process.env.X || DEFAULT)`
        top = _climb(top.parent, calls=False)
    operands = _operands(top) if _logical(top) else [top]
    found = [(hit, op) for op in operands if (hit := _read_in(op)) is not None]
    if not found or found[0][0][1] != read:
        return [] if found else [_read(read, name, None, None, top)]
    last = operands[-1]
    default = None if _read_in(last) is not None else written(last)
    primary = found[0][0][0]
    return [
        _read(node, hit_name, default if len(operands) > 1 else None, primary, top)
        for (hit_name, node), _ in found
    ]


def _read(node: Node, name: str, default: str | None, primary: str | None, top: Node) -> EnvRead:
    return EnvRead(
        name=name,
        line=node.start_point.row + 1,
        default=default,
        required=default is None and (_required(node) or _guarded(top)),
        site=site_of(top),
        fallback_for=primary if primary is not None and primary != name else None,
    )


def _required(node: Node) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "non_null_expression":
        return True
    if parent is None or parent.type != "unary_expression" or node_text(parent)[:1] != "!":
        return False
    condition = parent.parent
    if condition is not None and condition.type == "parenthesized_expression":
        statement = condition.parent
        if statement is not None and statement.type == "if_statement":
            return throws(statement)
    return False


def throws(statement: Node) -> bool:
    """An `if` whose consequence throws or exits the process."""
    body = statement.child_by_field_name("consequence")
    if body is None:
        return False
    parts = [body, *body.named_children]
    return any(
        part.type == "throw_statement" or node_text(part).startswith("process.exit(")
        for part in parts
    )


def _guarded(top: Node) -> bool:
    """`const key = process.env.KEY; if (!key) throw ...` within the next three statements."""
    declarator = top.parent
    if declarator is None or declarator.type != "variable_declarator":
        return False
    name = node_text(declarator.child_by_field_name("name"))
    statement = declarator.parent
    guards = {f"(!{name})", f"({name}===undefined)", f"({name}==null)", f"({name}==='')"}
    for _ in range(3):
        statement = statement.next_named_sibling if statement is not None else None
        if statement is None:
            return False
        condition = "".join(node_text(statement.child_by_field_name("condition")).split())
        if statement.type == "if_statement" and condition in guards and throws(statement):
            return True
    return False


def site_of(node: Node) -> str | None:
    """Where the value read at `node` goes: the assigned name, object key or field."""
    current: Node | None = node
    for _ in range(4):
        if current is None:
            return None
        field = _SITES.get(current.type)
        if field is not None:
            return node_text(current.child_by_field_name(field)) or None
        current = current.parent
    return None


def _destructured(node: Node) -> list[EnvRead]:
    """`const { A, B = 'd', C: local = 'e' } = process.env`."""
    pattern, value = node.child_by_field_name("name"), node.child_by_field_name("value")
    if pattern is None or pattern.type != "object_pattern" or not is_process_env(value):
        return []
    reads: list[EnvRead] = []
    for entry in pattern.named_children:
        name, default_node, site = None, None, None
        if entry.type == "shorthand_property_identifier_pattern":
            name = site = node_text(entry)
        elif entry.type == "object_assignment_pattern":
            name = site = node_text(entry.child_by_field_name("left"))
            default_node = entry.child_by_field_name("right")
        elif entry.type == "pair_pattern":
            name = key_name(entry.child_by_field_name("key"))
            target = entry.child_by_field_name("value")
            if target is not None and target.type == "assignment_pattern":
                default_node = target.child_by_field_name("right")
                target = target.child_by_field_name("left")
            site = node_text(target)
        if name:
            default = None if default_node is None else written(default_node)
            reads.append(
                EnvRead(name=name, line=entry.start_point.row + 1, default=default, site=site)
            )
    return reads
