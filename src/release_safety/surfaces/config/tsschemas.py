"""Env-schema libraries of TypeScript / JavaScript services: envalid's
`cleanEnv(process.env, { X: str({ default: 'd' }) })`, zod's
`z.object({ X: z.string().default('d') }).parse(process.env)` and t3-env's
`createEnv({ server: { X: z.string() }, runtimeEnv: process.env })`.

Each key of the schema is a variable. envalid: the spec's `default` is the default, and a
validator without one is required (envalid refuses to start without it outside development;
`devDefault` does not count). zod: the outermost `.default(d)` / `.catch(d)` is the default,
`.optional()` / `.nullish()` make it optional, anything else is required. A schema written as
an object literal, a `const` or a helper function of the same file is read (spreads, `.extend`,
`.merge`, `z.preprocess` included); one this file does not spell out (imported, computed) hides
what the service reads: the source is refused (SourceError), and the surface not checked.
"""

from __future__ import annotations

from collections.abc import Mapping

from tree_sitter import Node

from release_safety.code.syntax import call_arguments, node_text
from release_safety.code.tsnodes import (
    WRAPPERS,
    is_process_env,
    key_name,
    written,
)
from release_safety.surfaces.config.reads import EnvRead, SourceError


def _method(call: Node) -> tuple[str, Node | None]:
    """A call's method name and the object it is called on (`a.b.parse(x)`: parse, `a.b`)."""
    callee = call.child_by_field_name("function")
    if callee is not None and callee.type == "member_expression":
        prop = callee.child_by_field_name("property")
        return node_text(prop), callee.child_by_field_name("object")
    return node_text(callee), None


def schema_kind(node: Node) -> str | None:
    """The env-schema call `node` is: envalid's `cleanEnv(process.env, validators)`, zod's
    `schema.parse(process.env)` (or `safeParse`, their `Async` forms), t3-env's
    `createEnv({ server: {...}, runtimeEnv: ... })`; else None."""
    if node.type != "call_expression":
        return None
    method, _ = _method(node)
    args = call_arguments(node)
    if method == "cleanEnv" and len(args) >= 2 and is_process_env(args[0]):
        return "envalid"
    if method in _ZOD_PARSE and args and is_process_env(args[0]):
        return "zod"
    if method == "createEnv" and args and args[0].type == "object":
        return "t3"
    return None


_ZOD_PARSE = {"parse", "safeParse", "parseAsync", "safeParseAsync"}

_ZOD_OPTIONAL = {"optional", "nullish"}

_ZOD_DEFAULT = {"default", "catch"}

_ZOD_OBJECT = {"object", "strictObject", "looseObject"}

_ZOD_SAME = {
    "passthrough",
    "strict",
    "strip",
    "readonly",
    "describe",
    "refine",
    "superRefine",
    "transform",
    "brand",
}
"""Methods of an object schema that keep the fields it reads from the input."""

_T3_GROUPS = {"server", "client", "shared"}

_ZOD_CALL = "schema.parse(process.env)"
"""How errors name a zod schema's parse."""


def schema_reads(call: Node, kind: str, consts: Mapping[str, Node]) -> list[EnvRead]:
    """The variables an env-schema call of that kind (`schema_kind`) reads, each with its
    default (required without one)."""
    line = call.start_point.row + 1
    if kind == "envalid":
        fields = _fields(call_arguments(call)[1], consts, "cleanEnv(process.env, {})", line)
        return [_envalid(pair) for pair in fields]
    if kind == "zod":
        _, schema = _method(call)
        return [_zod(pair, consts) for pair in _zod_fields(schema, consts, line)]
    groups = [
        entry.child_by_field_name("value")
        for entry in call_arguments(call)[0].named_children
        if entry.type == "pair" and key_name(entry.child_by_field_name("key")) in _T3_GROUPS
    ]
    return [
        _zod(pair, consts)
        for group in groups
        if group is not None
        for pair in _fields(group, consts, "createEnv", line)
    ]


def _resolved(node: Node, consts: Mapping[str, Node], seen: set[str]) -> Node:
    """`node` through wrappers and the `const`s of this file it names."""
    for _ in range(16):
        while node.type in WRAPPERS and node.named_child_count:
            node = node.named_children[0]
        name = node_text(node) if node.type == "identifier" else None
        if name is None or name not in consts or name in seen:
            return node
        seen.add(name)
        node = consts[name]
    return node


def _unseen(what: str, node: Node | None, line: int) -> SourceError:
    shown = node_text(node) if node is not None else "nothing"
    where = node.start_point.row + 1 if node is not None else line
    return SourceError(
        f"{what}: `{shown[:60]}` is not written in this file, so the variables it reads are "
        "not known",
        where,
    )


def _fields(spec: Node, consts: Mapping[str, Node], what: str, line: int) -> list[Node]:
    """The `NAME: ...` pairs of an object literal (or a `const` holding one), spreads of such
    objects included; anything this file does not spell out is a SourceError."""
    pairs: list[Node] = []
    pending, seen = [spec], set[str]()
    while pending:
        node = _resolved(pending.pop(), consts, seen)
        if node.type != "object":
            raise _unseen(what, node, line)
        for entry in node.named_children:
            if entry.type == "spread_element" and entry.named_child_count:
                pending.append(entry.named_children[0])
            elif entry.type == "pair":
                pairs.append(entry)
            elif entry.type != "comment":
                raise _unseen(what, entry, line)
    return pairs


def _zod_fields(schema: Node | None, consts: Mapping[str, Node], line: int) -> list[Node]:
    """The fields of a zod object schema: `z.object({...})`, through `.extend({...})`,
    `.merge(other)`, `.strict()` and the like."""
    pairs: list[Node] = []
    pending: list[Node | None] = [schema]
    seen: set[str] = set()
    while pending:
        item = pending.pop()
        node = _resolved(item, consts, seen) if item is not None else None
        if node is None or node.type != "call_expression":
            raise _unseen(_ZOD_CALL, node, line)
        method, target = _method(node)
        args = call_arguments(node)
        if method in _ZOD_OBJECT and args:
            pairs += _fields(args[0], consts, _ZOD_CALL, line)
        elif method == "extend" and args:
            pairs += _fields(args[0], consts, _ZOD_CALL, line)
            pending.append(target)
        elif method == "merge" and args:
            pending += [target, args[0]]
        elif method in _ZOD_SAME:
            pending.append(target)
        else:
            raise _unseen(_ZOD_CALL, node, line)
    return pairs


def _envalid(pair: Node) -> EnvRead:
    """`NAME: str({ default: 'd' })`: the variable, its default, required without one."""
    key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
    name = key_name(key)
    line = pair.start_point.row + 1
    if value is None or value.type != "call_expression":
        raise SourceError(
            f"cleanEnv validator of {name} is not a call: its spec is not known", line
        )
    args = call_arguments(value)
    spec = args[0] if args else None
    if spec is not None and spec.type != "object":
        raise SourceError(f"cleanEnv validator of {name}: its spec is not an object literal", line)
    default = None
    for entry in spec.named_children if spec is not None else []:
        key, value = entry.child_by_field_name("key"), entry.child_by_field_name("value")
        if entry.type == "pair" and key_name(key) == "default" and value is not None:
            default = written(value)
    return EnvRead(name=name, line=line, default=default, required=default is None)


def _zod(pair: Node, consts: Mapping[str, Node]) -> EnvRead:
    """`NAME: z.string().default('d')`: the outermost `.default` / `.catch` is the default;
    `.optional()` / `.nullish()` make it optional; otherwise it is required. The chain is
    followed into `z.preprocess(fn, schema)`'s schema and into the body of a helper of this
    file (`const optionalString = () => z.string().optional()`)."""
    name = key_name(pair.child_by_field_name("key"))
    line = pair.start_point.row + 1
    value = pair.child_by_field_name("value")
    seen: set[str] = set()
    node = _resolved(value, consts, seen) if value is not None else None
    optional = False
    for _ in range(64):
        if node is None or node.type != "call_expression":
            break
        method, target = _method(node)
        args = call_arguments(node)
        if method in _ZOD_DEFAULT and args:
            return EnvRead(name=name, line=line, default=written(args[0]))
        optional |= method in _ZOD_OPTIONAL
        if target is None:
            node = _helper_body(method, consts, seen)
        elif method == "preprocess" and node_text(target) in _ZOD_ROOTS and len(args) >= 2:
            node = _resolved(args[1], consts, seen)
        else:
            node = _resolved(target, consts, seen)
    if node is None or node_text(node) not in _ZOD_ROOTS:
        raise _unseen(f"the schema of {name}", value, line)
    return EnvRead(name=name, line=line, required=not optional)


_ZOD_ROOTS = {"z", "zod", "z.coerce", "zod.coerce"}


def _helper_body(name: str, consts: Mapping[str, Node], seen: set[str]) -> Node | None:
    """What a helper function of this file returns (an arrow's expression body, or a body of
    one `return`), None when `name` is no such helper."""
    helper = consts.get(name)
    if helper is None or name in seen:
        return None
    seen.add(name)
    if helper.type not in ("arrow_function", "function_expression", "function_declaration"):
        return None
    body = helper.child_by_field_name("body")
    if body is not None and body.type == "statement_block":
        returns = [part for part in body.named_children if part.type == "return_statement"]
        if len(returns) != 1 or len(body.named_children) != 1 or not returns[0].named_child_count:
            return None
        body = returns[0].named_children[0]
    return _resolved(body, consts, seen) if body is not None else None
