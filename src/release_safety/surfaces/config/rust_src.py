"""Rust sources, parsed with tree-sitter-rust:

- `std::env::var("X")` / `env::var_os(X)` (a literal or a `const` of the file), with the
  default of `.unwrap_or("d")`, `.unwrap_or_else(|_| "d".into())`, `.unwrap_or_default()`;
  `.unwrap()`, `.expect(..)` and `?` make it required; `.or_else(|_| env::var("OLD"))` is a
  fallback read;
- clap's `#[arg(env = "X", default_value = "d")]` / `#[clap(env, default_value_t = 5)]` on a
  struct field (a bare `env` names the field in upper case); a field that is not an `Option`,
  a `bool` or a `Vec` and has no default is required;
- figment's `Env::prefixed("APP_")` (`.split("__")`) and config-rs's
  `Environment::with_prefix("APP")` (`.prefix_separator`, `.separator`), with the files the
  code loads (`include_str!("../config.default.toml")`, `Toml::file(..)`,
  `File::with_name(..)`): the surface reads such a file's keys as `PREFIX` + KEY.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import tree_sitter_rust
from tree_sitter import Language, Node, Parser

from release_safety.surfaces.config.reads import EnvRead, SourceError
from release_safety.surfaces.config.syntax import error_line, node_text

_VAR = re.compile(r"(?:(?:::)?std::)?env::var(?:_os)?")
_REQUIRED = {"unwrap", "expect"}
_PASS = {"ok", "map", "and_then", "parse", "map_err", "as_deref", "as_ref", "to_string"}
_FALLBACK = {"or_else", "or"}
_MENTIONS = re.compile(
    rb"env::var|Env::prefixed|Environment::with_prefix|include_(?:str|bytes)!|::file\(|"
    rb"File::with_name|#\[(?:arg|clap)\([^\]]*\benv\b"
)
_LITERALS = {"integer_literal", "float_literal", "boolean_literal"}
_LOADERS = re.compile(r"(?:Toml|Yaml|Json)::file|File::with_name|File::from")


@dataclass(frozen=True)
class Loader:
    """Where the code takes environment overrides of a config file from."""

    prefix: str
    separator: str | None


@dataclass(frozen=True)
class RustFacts:
    reads: tuple[EnvRead, ...]
    loaders: tuple[Loader, ...]
    files: tuple[tuple[str, bool], ...]
    """Config files the code names: (path as written, relative to the source file)."""


@cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_rust.language()))


def _string(node: Node | None) -> str | None:
    if node is None or node.type not in ("string_literal", "raw_string_literal"):
        return None
    return "".join(node_text(c) for c in node.named_children if c.type == "string_content")


def parse(source: bytes) -> RustFacts:
    """The configuration facts of one Rust file."""
    if not _MENTIONS.search(source):
        return RustFacts((), (), ())
    tree = _parser().parse(source)
    root = tree.root_node
    if root.has_error:
        raise SourceError("syntax error", error_line(root))
    consts: dict[str, str] = {}
    for item in (n for n in _walk(root) if n.type in ("const_item", "static_item")):
        value = _string(item.child_by_field_name("value"))
        if value is not None:
            consts[node_text(item.child_by_field_name("name"))] = value
    reads: list[EnvRead] = []
    loaders: list[Loader] = []
    files: list[tuple[str, bool]] = []
    consumed: set[int] = set()
    for node in _walk(root):
        if node.type == "call_expression":
            function = node_text(node.child_by_field_name("function"))
            if _VAR.fullmatch(function) and node.id not in consumed:
                reads += _var_read(node, consts, consumed)
            elif function.endswith("Env::prefixed"):
                loaders += _loader(node, "", "split")
            elif function.endswith("Environment::with_prefix"):
                loaders += _loader(node, "_", "separator")
            elif _LOADERS.search(function):
                path = _first_string(node, consts)
                if path is not None:
                    files.append((path, False))
        elif node.type == "macro_invocation" and node_text(node.child_by_field_name("macro")) in (
            "include_str",
            "include_bytes",
        ):
            path = next((_string(c) for c in _walk(node) if c.type == "string_literal"), None)
            if path is not None:
                files.append((path, True))
        elif node.type == "field_declaration":
            reads += _clap(node)
    ordered = tuple(sorted(set(reads), key=lambda r: (r.line, r.name)))
    return RustFacts(ordered, tuple(loaders), tuple(files))


def _walk(root: Node) -> list[Node]:
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(node.named_children))
    return found


def _first_string(call: Node, consts: dict[str, str]) -> str | None:
    args = call.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    if first is None:
        return None
    literal = _string(first)
    return literal if literal is not None else consts.get(node_text(first))


def _method_chain(node: Node) -> list[tuple[str, Node]]:
    """The methods called on `node`'s value, in order: (name, call node); `?` as ("?", node)."""
    chain: list[tuple[str, Node]] = []
    current = node
    while current.parent is not None:
        parent = current.parent
        if parent.type == "try_expression":
            chain.append(("?", parent))
            current = parent
            continue
        if parent.type == "field_expression" and parent.child_by_field_name("value") == current:
            call = parent.parent
            if call is None or call.type != "call_expression":
                break
            chain.append((node_text(parent.child_by_field_name("field")), call))
            current = call
            continue
        if parent.type == "generic_function":
            current = parent
            continue
        break
    return chain


def _site(node: Node) -> str | None:
    current: Node | None = node
    for _ in range(12):
        if current is None:
            return None
        if current.type == "let_declaration":
            return node_text(current.child_by_field_name("pattern")) or None
        if current.type == "field_initializer":
            return node_text(current.child_by_field_name("field")) or None
        if current.type == "assignment_expression":
            return node_text(current.child_by_field_name("left")) or None
        if current.type in ("block", "function_item", "closure_expression"):
            return None
        current = current.parent
    return None


def _var_read(call: Node, consts: dict[str, str], consumed: set[int]) -> list[EnvRead]:
    name = _first_string(call, consts)
    if not name:
        return []
    default: str | None = None
    required = False
    fallbacks: list[EnvRead] = []
    end = call
    for method, node in _method_chain(call):
        end = node
        args = node.child_by_field_name("arguments") if method != "?" else None
        if method in _REQUIRED or method == "?":
            required = True
            break
        if method == "unwrap_or_default":
            default = ""
            break
        if method in ("unwrap_or", "unwrap_or_else") and args is not None:
            default = _literal_in(args)
            break
        if method in _FALLBACK and args is not None:
            for inner in (n for n in _walk(args) if n.type == "call_expression"):
                if _VAR.fullmatch(node_text(inner.child_by_field_name("function"))):
                    other = _first_string(inner, consts)
                    consumed.add(inner.id)
                    if other:
                        fallbacks.append(EnvRead(other, inner.start_point.row + 1))
            continue
        if method not in _PASS:
            break
    site = _site(end)
    line = call.start_point.row + 1
    primary = EnvRead(name, line, default, required and default is None, site)
    return [primary, *(EnvRead(f.name, f.line, default, False, site, name) for f in fallbacks)]


def _literal_in(args: Node) -> str:
    """A default as written: the argument's value, or a closure's result (`|_| "d".into()`,
    a block's tail expression); its first literal when it has one, else its text."""
    value = args.named_children[0] if args.named_children else args
    if value.type == "closure_expression":
        value = value.child_by_field_name("body") or value
    if value.type == "block":
        tail = value.named_children[-1] if value.named_children else value
        value = tail if not tail.type.endswith(("statement", "declaration")) else value
    for node in _walk(value):
        if node.type == "string_literal":
            return _string(node) or ""
        if node.type in _LITERALS:
            return node_text(node)
    return " ".join(node_text(value).split())


def _loader(call: Node, joiner: str, split_method: str) -> list[Loader]:
    prefix = _first_string(call, {})
    if prefix is None:
        return []
    separator: str | None = None
    for method, node in _method_chain(call):
        args = node.child_by_field_name("arguments")
        value = _first_string(node, {}) if args is not None else None
        if method == split_method:
            separator = value
        elif method == "prefix_separator" and value is not None:
            joiner = value
    return [Loader(prefix + joiner if prefix else "", separator)]


def _clap(field: Node) -> list[EnvRead]:
    """A clap argument read from the environment (`#[arg(env = "X")]`)."""
    attributes = []
    sibling = field.prev_named_sibling
    while sibling is not None and sibling.type == "attribute_item":
        attributes.append(sibling)
        sibling = sibling.prev_named_sibling
    options: dict[str, str | None] = {}
    for item in attributes:
        attribute = item.named_children[0] if item.named_children else None
        if attribute is None or node_text(attribute.named_children[0]) not in ("arg", "clap"):
            continue
        tokens = attribute.child_by_field_name("arguments")
        options.update(_options(tokens) if tokens is not None else {})
    if "env" not in options:
        return []
    name = node_text(field.child_by_field_name("name"))
    variable = options["env"] or name.upper()
    default = options.get("default_value") or options.get("default_value_t")
    kind = node_text(field.child_by_field_name("type"))
    optional = re.match(r"(?:Option|Vec)\s*<|bool$", kind) is not None
    required = options.get("required") == "true" or (
        not optional and default is None and options.get("required") != "false"
    )
    struct = field.parent.parent if field.parent is not None else None
    owner = node_text(struct.child_by_field_name("name")) if struct is not None else ""
    return [EnvRead(variable, field.start_point.row + 1, default, required, f"{owner}.{name}")]


def _options(tokens: Node) -> dict[str, str | None]:
    """`long, env = "X", default_value_t = 5` as {"long": None, "env": "X", ...}."""
    options: dict[str, str | None] = {}
    parts: list[list[Node]] = [[]]
    for child in tokens.children[1:-1]:
        if child.type == ",":
            parts.append([])
        else:
            parts[-1].append(child)
    for part in parts:
        if not part or part[0].type != "identifier":
            continue
        key = node_text(part[0])
        if len(part) >= 3 and part[1].type == "=":
            value = _string(part[2])
            options[key] = value if value is not None else "".join(node_text(p) for p in part[2:])
        else:
            options[key] = None
    return options
