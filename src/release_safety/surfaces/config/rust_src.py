"""Rust sources, parsed with tree-sitter-rust:

- `std::env::var("X")` / `env::var_os(X)` (a literal or a `const` of the file), with the
  default of `.unwrap_or("d")`, `.unwrap_or_else(|_| "d".into())`, `.unwrap_or_default()`;
  `.unwrap()`, `.expect(..)` and `?` make it required; `.or_else(|_| env::var("OLD"))` is a
  fallback read;
- clap's `#[arg(env = "X", default_value = "d")]` / `#[clap(env, default_value_t = 5)]` on a
  struct field (a bare `env` names the field in upper case); a field that is not an `Option`,
  a `bool` or a `Vec` and has no default is required;
- figment's `Env::prefixed("APP_")` (`.split("__")`) and config-rs's
  `Environment::with_prefix("APP")` (`.prefix_separator`, else `.separator`, else `_`, as
  config-rs joins them), with the files the code loads (`include_str!("../config.default.toml")`,
  `Toml::file(..)`, `File::with_name(..)`): the surface reads such a file's keys as
  `PREFIX` + KEY; config-rs `set_default("key", v)` and envy are read by `rust_resolve`;
- what `rust_resolve` follows across files: the calls of every function (with the default or
  `?` / `.expect` on their result), each function's parameters, the file's string constants,
  its structs' fields with their serde options, envy loads, and the unmodelled config crates
  it uses (`envconfig`, `confy`, `twelf`, `serde_env`, `econf`, `dotenv_config`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from tree_sitter import Node

from release_safety.code.parsers import parser
from release_safety.code.syntax import error_line, node_text
from release_safety.surfaces.config.reads import EnvRead, SourceError

_VAR = re.compile(r"(?:(?:::)?std::)?env::var(?:_os)?")
_REQUIRED = {"unwrap", "expect"}
_PASS = {"ok", "map", "and_then", "parse", "map_err", "as_deref", "as_ref", "to_string"}
_FALLBACK = {"or_else", "or"}
_UNMODELLED = {"envconfig", "confy", "twelf", "serde_env", "econf", "dotenv_config"}
"""Crates that load configuration from the environment and are not modelled."""
_STOPS = re.compile(r"\b(?:panic|unreachable|todo|unimplemented)!|process::exit")
ENV_VAR = "<env::var>"
_MENTIONS = re.compile(
    rb"env::var|Env::prefixed|Environment::with_prefix|include_(?:str|bytes)!|::file\(|"
    rb"File::with_name|#\[(?:arg|clap)\([^\]]*\benv\b|envy::|set_default|"
    + b"|".join(re.escape(name.encode()) for name in sorted(_UNMODELLED))
)
"""What a file that reads configuration itself mentions: one that does not and that the
parser cannot read only loses its calls of reader functions (a gap, not an error)."""
_ON_ITS_OWN = re.compile(
    _MENTIONS.pattern + rb"|\benv\b|Env::prefixed|Environment::with_prefix|include_(?:str|bytes)|"
    rb"(?:Toml|Yaml|Json)::file|File::from|envy::|set_default"
)
"""What a file whose facts say something by themselves holds: any read, loader, config file,
envy load, config-rs default or unmodelled crate `parse` finds is written with one of these
(the `env` of clap's `#[arg(env)]` too). A file without them can matter only through names
other files give (`rust_resolve.depended_on`, `naming`)."""
_HINTS = (
    b"env",
    b"Env",
    b"include_",
    b"::file",
    b"File::",
    b"set_default",
    b"confy",
    b"twelf",
    b"econf",
)
"""One of these is in every text `_ON_ITS_OWN` finds something in (`env` in `envconfig`,
`serde_env`, `dotenv_config`, `envy::` and clap's `env`; `Env` in `Environment`)."""
_LITERALS = {"integer_literal", "float_literal", "boolean_literal"}
_LOADERS = re.compile(r"(?:Toml|Yaml|Json)::file|File::with_name|File::from")


@dataclass(frozen=True)
class Loader:
    """Where the code takes environment overrides of a config file from."""

    prefix: str
    separator: str | None


@dataclass(frozen=True)
class Arg:
    """An argument as written: a string literal's value, another literal's text, or an
    identifier."""

    text: str
    string: str | None = None
    literal: str | None = None
    ident: str | None = None


@dataclass(frozen=True)
class RustCall:
    """A call of a function (`env_or("X", 5)`, `config::env_or(..)`; `ENV_VAR` for an
    `env::var` whose name is not a literal or constant of the file), with what the methods
    called on its result say: a default (`.unwrap_or(d)`) or required (`?`, `.expect`)."""

    callee: str
    args: tuple[Arg, ...]
    line: int
    scope: str | None
    params: tuple[str, ...]
    default: Arg | None
    required: bool
    site: str | None


@dataclass(frozen=True)
class RustField:
    name: str
    kind: str
    line: int
    rename: str | None
    default: str | None
    """`#[serde(default)]` (`Default::default()`) or `default = "path"` (the path)."""


@dataclass(frozen=True)
class RustStruct:
    fields: tuple[RustField, ...]
    default: bool
    """`#[serde(default)]` on the struct: every field has its default."""


@dataclass(frozen=True)
class Envy:
    """`envy::from_env::<T>()` or `envy::prefixed("APP_").from_env::<T>()`."""

    prefix: str
    struct: str
    line: int


@dataclass(frozen=True)
class RustFacts:
    reads: tuple[EnvRead, ...]
    loaders: tuple[Loader, ...]
    files: tuple[tuple[str, bool], ...]
    """Config files the code names: (path as written, relative to the source file)."""
    calls: tuple[RustCall, ...] = ()
    functions: tuple[tuple[str, tuple[str, ...], str | None], ...] = ()
    """Each function: (name, parameters, a literal it returns as a whole body's tail)."""
    consts: tuple[tuple[str, str], ...] = ()
    structs: tuple[tuple[str, RustStruct], ...] = ()
    envy: tuple[Envy, ...] = ()
    defaults: tuple[tuple[str, str, int], ...] = ()
    """config-rs `set_default("key", value)`: (key, value, line)."""
    unmodelled: tuple[tuple[str, int], ...] = ()
    """Config crates used and not modelled: (crate, line of first use)."""
    unparsed: int | None = None
    """Where the parser gave up on a file that mentions no configuration of its own."""
    words: frozenset[str] = frozenset()
    """The identifiers of such a file (does it name a reader function?)."""


def _string(node: Node | None) -> str | None:
    if node is None or node.type not in ("string_literal", "raw_string_literal"):
        return None
    return "".join(node_text(c) for c in node.named_children if c.type == "string_content")


def parse(source: bytes) -> RustFacts:
    """The configuration facts of one Rust file."""
    tree = parser("rust").parse(source)
    root = tree.root_node
    if root.has_error and _MENTIONS.search(source):
        raise SourceError("syntax error", error_line(root))
    if root.has_error:
        return RustFacts((), (), (), unparsed=error_line(root), words=words(source))
    nodes = _walk(root)
    consts: dict[str, str] = {}
    for item in (n for n in nodes if n.type in ("const_item", "static_item")):
        value = _string(item.child_by_field_name("value"))
        if value is not None:
            consts[node_text(item.child_by_field_name("name"))] = value
    reads: list[EnvRead] = []
    loaders: list[Loader] = []
    files: list[tuple[str, bool]] = []
    calls: list[RustCall] = []
    envy: list[Envy] = []
    defaults: list[tuple[str, str, int]] = []
    consumed: set[int] = set()
    for node in nodes:
        if node.type == "call_expression":
            function = node_text(node.child_by_field_name("function"))
            if _VAR.fullmatch(function):
                if node.id in consumed:
                    continue
                if _first_string(node, consts) is not None:
                    reads += _var_read(node, consts, consumed)
                else:
                    calls.append(_call(node, ENV_VAR, consts))
            elif function.endswith("Env::prefixed"):
                loaders += _loader(node, "", "split")
            elif function.endswith("Environment::with_prefix"):
                loaders += _loader(node, "_", "separator")
            elif _LOADERS.search(function):
                path = _first_string(node, consts)
                if path is not None:
                    files.append((path, False))
            elif "envy::" in function:
                envy += _envy(node)
            elif function.endswith(".set_default"):
                defaults += _set_default(node, consts)
            elif (target := node.child_by_field_name("function")) is not None:
                callee = _callee(target)
                arguments = node.child_by_field_name("arguments")
                if callee and arguments is not None and arguments.named_children:
                    calls.append(_call(node, callee, consts))
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
    return RustFacts(
        ordered,
        tuple(loaders),
        tuple(files),
        tuple(calls),
        tuple(_function(n) for n in nodes if n.type == "function_item"),
        tuple(sorted(consts.items())),
        tuple(_struct(n) for n in nodes if n.type == "struct_item"),
        tuple(envy),
        tuple(defaults),
        tuple(_unmodelled(nodes)),
    )


def words(source: bytes) -> frozenset[str]:
    """The identifiers a file writes (and any word of its comments and strings)."""
    return frozenset(re.findall(r"[A-Za-z_]\w*", source.decode("utf-8", errors="replace")))


def on_its_own(source: bytes) -> bool:
    """Whether the file's facts may say something by themselves (it must be parsed); else it is
    parsed only when it names what other files depend on (`naming`)."""
    hinted = any(hint in source for hint in _HINTS)  # `in` is far faster than the search
    return hinted and _ON_ITS_OWN.search(source) is not None


def naming(names: frozenset[str]) -> Callable[[bytes], bool]:
    """Whether a file writes one of the identifiers `names` (or a word of its comments and
    strings does: more files parsed, never fewer)."""
    if not names:
        return lambda source: False
    alternatives = b"|".join(re.escape(name.encode()) for name in sorted(names))
    search = re.compile(rb"(?<!\w)(?:" + alternatives + rb")(?!\w)").search
    return lambda source: search(source) is not None


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
    default, required, end, fallbacks = _effect(call, consts, consumed)
    site = _site(end)
    line = call.start_point.row + 1
    text = default.text if default is not None else None
    primary = EnvRead(name, line, text, required and text is None, site)
    return [primary, *(EnvRead(other, at, text, False, site, name) for other, at in fallbacks)]


def _effect(
    call: Node, consts: dict[str, str], consumed: set[int]
) -> tuple[Arg | None, bool, Node, list[tuple[str, int]]]:
    """What the methods called on a call's result say: (its default, required, the last call
    of the chain, the fallback `env::var` reads of `.or_else(..)` with their lines)."""
    default: Arg | None = None
    required = False
    fallbacks: list[tuple[str, int]] = []
    end = call
    for method, node in _method_chain(call):
        end = node
        args = node.child_by_field_name("arguments") if method != "?" else None
        if method in _REQUIRED or method == "?":
            required = True
            break
        if method == "unwrap_or_default":
            default = Arg("", "")
            break
        if method in ("unwrap_or", "unwrap_or_else") and args is not None:
            if _STOPS.search(node_text(args)):
                required = True
            else:
                default = _default_arg(args)
            break
        if method in _FALLBACK and args is not None:
            for inner in (n for n in _walk(args) if n.type == "call_expression"):
                if _VAR.fullmatch(node_text(inner.child_by_field_name("function"))):
                    other = _first_string(inner, consts)
                    consumed.add(inner.id)
                    if other:
                        fallbacks.append((other, inner.start_point.row + 1))
            continue
        if method not in _PASS:
            break
    return default, required, end, fallbacks


def _default_arg(args: Node) -> Arg:
    """A default as an argument: a parameter it names (`.unwrap_or(default)`), else as
    written (`_literal_in`)."""
    value = args.named_children[0] if args.named_children else args
    if value.type == "closure_expression":
        value = value.child_by_field_name("body") or value
    if value.type == "identifier":
        return Arg(node_text(value), ident=node_text(value))
    text = _literal_in(args)
    return Arg(text, literal=text)


def _arg(node: Node, consts: dict[str, str]) -> Arg:
    text = node_text(node)
    if node.type == "reference_expression" and node.named_children:
        return replace(_arg(node.named_children[-1], consts), text=text)
    string = _string(node)
    if string is not None:
        return Arg(text, string, string)
    if node.type in _LITERALS or (node.type == "unary_expression" and "-" in text):
        return Arg(text, literal=text)
    if node.type == "identifier":
        return Arg(text, string=consts.get(text), ident=text)
    return Arg(text)


def _callee(function: Node) -> str | None:
    """The name a call's function ends with (`env_or`, `config::env_or`, `Self::get`)."""
    if function.type == "identifier":
        return node_text(function)
    if function.type == "scoped_identifier":
        return node_text(function.child_by_field_name("name")) or None
    if function.type == "generic_function":
        inner = function.child_by_field_name("function")
        return _callee(inner) if inner is not None else None
    return None


def _call(node: Node, callee: str, consts: dict[str, str] | None = None) -> RustCall:
    arguments = node.child_by_field_name("arguments")
    args = tuple(_arg(a, consts or {}) for a in (arguments.named_children if arguments else []))
    default, required, end, _ = _effect(node, consts or {}, set())
    scope: str | None = None
    params: tuple[str, ...] = ()
    current = node.parent
    while current is not None:
        if current.type in ("closure_expression", "function_item"):
            if current.type == "function_item":
                scope = node_text(current.child_by_field_name("name"))
                params = _params(current)
            break
        current = current.parent
    return RustCall(
        callee, args, node.start_point.row + 1, scope, params, default, required, _site(end)
    )


def _params(function: Node) -> tuple[str, ...]:
    found = function.child_by_field_name("parameters")
    return tuple(
        node_text(p.child_by_field_name("pattern"))
        for p in (found.named_children if found is not None else [])
        if p.type == "parameter"
    )


def _function(node: Node) -> tuple[str, tuple[str, ...], str | None]:
    """(name, parameters, the literal its body ends with: `fn default_port() -> u16 { 80 }`)."""
    body = node.child_by_field_name("body")
    tail = body.named_children[-1] if body is not None and body.named_children else None
    literal = None
    if tail is not None and (tail.type in _LITERALS or _string(tail) is not None):
        literal = _string(tail) if _string(tail) is not None else node_text(tail)
    return node_text(node.child_by_field_name("name")), _params(node), literal


def _serde(node: Node) -> dict[str, str | None]:
    """The `#[serde(..)]` options on an item (from the attributes before it)."""
    options: dict[str, str | None] = {}
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type == "attribute_item":
        attribute = sibling.named_children[0] if sibling.named_children else None
        if attribute is not None and node_text(attribute.named_children[0]) == "serde":
            tokens = attribute.child_by_field_name("arguments")
            options.update(_options(tokens) if tokens is not None else {})
        sibling = sibling.prev_named_sibling
    return options


def _struct(node: Node) -> tuple[str, RustStruct]:
    body = node.child_by_field_name("body")
    fields = []
    for field in body.named_children if body is not None else []:
        if field.type != "field_declaration":
            continue
        serde = _serde(field)
        default = None
        if "default" in serde:
            default = serde["default"] or "Default::default()"
        fields.append(
            RustField(
                node_text(field.child_by_field_name("name")),
                node_text(field.child_by_field_name("type")),
                field.start_point.row + 1,
                serde.get("rename"),
                default,
            )
        )
    name = node_text(node.child_by_field_name("name"))
    return name, RustStruct(tuple(fields), "default" in _serde(node))


def _envy(call: Node) -> list[Envy]:
    """`envy::from_env::<T>()`, `envy::prefixed("P").from_env::<T>()`, or `T` from a `let`."""
    function = call.child_by_field_name("function")
    kind = None
    if function is not None and function.type == "generic_function":
        kind = node_text(function.child_by_field_name("type_arguments")).strip("<> ")
        function = function.child_by_field_name("function")
    if function is None:
        return []
    prefix = ""
    if function.type == "field_expression":
        value = function.child_by_field_name("value")
        field = node_text(function.child_by_field_name("field"))
        if value is None or field != "from_env" or value.type != "call_expression":
            return []
        if node_text(value.child_by_field_name("function")) != "envy::prefixed":
            return []
        prefix = _first_string(value, {}) or ""
    elif node_text(function) != "envy::from_env":
        return []
    current = call.parent
    while kind is None and current is not None:
        if current.type == "let_declaration":
            kind = node_text(current.child_by_field_name("type")) or None
        elif current.type in ("block", "function_item"):
            break
        current = current.parent
    struct = re.sub(r"<.*$", "", kind or "", flags=re.DOTALL).rpartition("::")[2]
    return [Envy(prefix, struct, call.start_point.row + 1)] if struct else []


def _set_default(call: Node, consts: dict[str, str]) -> list[tuple[str, str, int]]:
    arguments = call.child_by_field_name("arguments")
    args = arguments.named_children if arguments is not None else []
    key = _first_string(call, consts)
    if key is None or len(args) < 2:
        return []
    value = _string(args[1])
    return [(key, value if value is not None else node_text(args[1]), call.start_point.row + 1)]


def _unmodelled(nodes: list[Node]) -> list[tuple[str, int]]:
    """Each unmodelled config crate the file uses, with the line of its first use."""
    first: dict[str, int] = {}
    for node in nodes:
        if node.type not in ("use_declaration", "scoped_identifier", "scoped_type_identifier"):
            continue
        root = node_text(node).removeprefix("use ").lstrip(":").partition("::")[0].strip()
        if root in _UNMODELLED and root not in first:
            first[root] = node.start_point.row + 1
    return sorted(first.items(), key=lambda item: item[1])


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
    given: str | None = None
    for method, node in _method_chain(call):
        args = node.child_by_field_name("arguments")
        value = _first_string(node, {}) if args is not None else None
        if method == split_method:
            separator = value
        elif method == "prefix_separator" and value is not None:
            given = value
    if given is None and separator is not None and split_method == "separator":
        given = separator  # config-rs: the prefix is joined by the separator when one is set
    return [Loader(prefix + (given or joiner) if prefix else "", separator)]


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
        if not part or not re.fullmatch(r"[A-Za-z_]\w*", node_text(part[0])):
            continue  # `default` is a keyword token, not an identifier
        key = node_text(part[0])
        if len(part) >= 3 and part[1].type == "=":
            value = _string(part[2])
            options[key] = value if value is not None else "".join(node_text(p) for p in part[2:])
        else:
            options[key] = None
    return options
