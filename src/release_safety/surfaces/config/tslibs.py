"""Config libraries of TypeScript / JavaScript services that name their variables in calls:

- env-var: `env.get('X')` with `.default('d')`, `.required()` (`.required(false)` is not),
  and the `as*()` parsers;
- convict: `convict({ port: { default: 8080, env: 'PORT', format: 'port' }, db: {...} })`,
  each setting with an `env` a variable, its `default` the default (convict refuses a schema
  without defaults, so none is required);
- @nestjs/config: `config.get('X', default)` and `config.getOrThrow('X')` (required) on a
  receiver named for the configuration (`this.configService`), for names written as
  environment variables (a dotted or lower-case key is a value of a `registerAs` factory, whose
  `process.env` reads are read where they are written); a Joi `validationSchema` of
  `ConfigModule.forRoot`, each key a variable with `.default(d)` or `.required()`.

A schema the file does not spell out (imported, computed) is a blocking `Gap`.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from release_safety.code.syntax import call_arguments, node_text
from release_safety.code.tsnodes import WRAPPERS, key_name, literal_of
from release_safety.code.tsnodes import written as written_value
from release_safety.surfaces.config.reads import EnvRead, Gap

MODELLED = {"env-var", "convict", "@nestjs/config"}
"""The modules this reader models (module name as imported)."""

_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_CONFIG_RECEIVER = re.compile(r"config", re.IGNORECASE)


def library_reads(
    root: Node, imports: dict[str, tuple[str, str]], consts: dict[str, Node]
) -> list[EnvRead | Gap]:
    """What the modelled libraries a file imports (`imports`: local name -> (module, name))
    read, with the file's `const` values (`consts`) to follow a schema named by a constant."""
    modules = {spec for spec, _ in imports.values()} & MODELLED
    if not modules:
        return []
    local = {name: spec for name, (spec, _) in imports.items() if spec in MODELLED}
    found: list[EnvRead | Gap] = []
    pending = [root]
    while pending:
        node = pending.pop()
        pending += node.named_children
        if node.type == "call_expression":
            found += _call(node, local, modules, consts)
        elif node.type == "pair" and "@nestjs/config" in modules and _schema_pair(node):
            found += _joi(node.child_by_field_name("value"), consts)
    return found


def _schema_pair(pair: Node) -> bool:
    return key_name(pair.child_by_field_name("key")) == "validationSchema"


def _call(
    call: Node, local: dict[str, str], modules: set[str], consts: dict[str, Node]
) -> list[EnvRead | Gap]:
    callee = call.child_by_field_name("function")
    args = call_arguments(call)
    text = node_text(callee)
    if local.get(text) == "convict" and args:
        return _convict(_resolved(args[0], consts), consts)
    if callee is None or callee.type != "member_expression":
        return []
    receiver = node_text(callee.child_by_field_name("object"))
    method = node_text(callee.child_by_field_name("property"))
    line = call.start_point.row + 1
    if local.get(receiver) == "env-var" and method == "get" and args:
        return [_env_var(call, args[0], line)]
    if "@nestjs/config" in modules and method in ("get", "getOrThrow") and args:
        last = receiver.rsplit(".", 1)[-1]
        name = literal_of(args[0])
        if not _CONFIG_RECEIVER.search(last) or (
            name is not None and not _ENV_NAME.fullmatch(name)
        ):
            return []
        if name is None:
            return [
                Gap(
                    line,
                    f"`{node_text(call)[:80]}`: ConfigService reads a name the tool cannot follow",
                    f"Call {receiver}.{method} with the variable's name as a string literal.",
                )
            ]
        default = written_value(args[1]) if method == "get" and len(args) > 1 else None
        if default is not None and args[1].type == "object":
            default = None  # options (`{ infer: true }`), not a default
        return [EnvRead(name, line, default=default, required=method == "getOrThrow")]
    return []


def _resolved(node: Node, consts: dict[str, Node]) -> Node:
    for _ in range(8):
        while node.type in WRAPPERS and node.named_child_count:
            node = node.named_children[0]
        if node.type != "identifier" or node_text(node) not in consts:
            return node
        node = consts[node_text(node)]
    return node


def _env_var(call: Node, arg: Node, line: int) -> EnvRead | Gap:
    """`env.get('X').default('d').required().asInt()`: the chain above the `get` call."""
    name = literal_of(arg)
    if name is None:
        return Gap(
            line,
            f"`{node_text(call)[:80]}`: env-var reads a name the tool cannot follow",
            "Call env.get with the variable's name as a string literal.",
        )
    default, required = None, False
    node = call
    while node.parent is not None and node.parent.type == "member_expression":
        outer = node.parent.parent
        if outer is None or outer.type != "call_expression":
            break
        method = node_text(node.parent.child_by_field_name("property"))
        args = call_arguments(outer)
        if method == "default" and args:
            default = written_value(args[0])
        elif method == "required":
            required = not args or node_text(args[0]) != "false"
        node = outer
    return EnvRead(name, line, default=default, required=required and default is None)


def _convict(schema: Node, consts: dict[str, Node]) -> list[EnvRead | Gap]:
    """Every setting of a convict schema with an `env`, nested settings included."""
    line = schema.start_point.row + 1
    if schema.type != "object":
        return [_unseen("convict", schema, line)]
    found: list[EnvRead | Gap] = []
    pending = [schema]
    while pending:
        node = pending.pop()
        entries = {
            key_name(pair.child_by_field_name("key")): pair.child_by_field_name("value")
            for pair in node.named_children
            if pair.type == "pair"
        }
        env = entries.get("env")
        if env is not None:
            name = literal_of(env)
            default = entries.get("default")
            if name is None:
                found.append(_unseen("convict env", env, env.start_point.row + 1))
            else:
                shown = None if default is None else written_value(default)
                found.append(EnvRead(name, env.start_point.row + 1, default=shown))
        for value in entries.values():
            if value is not None and value.type in ("object", "identifier"):
                resolved = _resolved(value, consts)
                if resolved.type == "object" and resolved is not env:
                    pending.append(resolved)
    return found


def _joi(schema: Node | None, consts: dict[str, Node]) -> list[EnvRead | Gap]:
    """`Joi.object({ PORT: Joi.number().default(3000), KEY: Joi.string().required() })`."""
    if schema is None:
        return []
    node = _resolved(schema, consts)
    line = node.start_point.row + 1
    args = call_arguments(node) if node.type == "call_expression" else []
    fields = _resolved(args[0], consts) if args else None
    if fields is None or fields.type != "object":
        return [_unseen("validationSchema", node, line)]
    found: list[EnvRead | Gap] = []
    for pair in fields.named_children:
        if pair.type != "pair":
            continue
        name = key_name(pair.child_by_field_name("key"))
        value = pair.child_by_field_name("value")
        default, required = None, False
        for call in _chain(value):
            method = node_text(call.child_by_field_name("function")).rsplit(".", 1)[-1]
            call_args = call_arguments(call)
            if method == "default" and call_args and default is None:
                default = written_value(call_args[0])
            required |= method == "required"
        found.append(EnvRead(name, pair.start_point.row + 1, default=default, required=required))
    return found


def _chain(node: Node | None) -> list[Node]:
    """The calls of a method chain, outermost first."""
    calls = []
    while node is not None and node.type == "call_expression":
        calls.append(node)
        callee = node.child_by_field_name("function")
        node = callee.child_by_field_name("object") if callee is not None else None
    return calls


def _unseen(what: str, node: Node, line: int) -> Gap:
    return Gap(
        line,
        f"{what}: `{node_text(node)[:60]}` is not written in this file, so the variables it "
        "reads are not known",
        f"Write the {what} schema as an object literal in this file, or name the file that "
        "defines it in `config.sources`.",
        blocking=True,
    )
