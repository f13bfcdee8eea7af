"""What one Go source file says about configuration, parsed with tree-sitter-go, before any
resolution across files (`go_resolve` joins the files of a ref):

- `os.Environ()` read for its variables (a prefix scan; handed to a child process as its
  `Env`, it is not read);
- calls (`os.Getenv(name)`, `os.LookupEnv(name)`, and any call that may be a wrapper such as
  `getEnv("X", "d")` or `utils.ReadEnv(key)`), with their arguments, the variable, field or
  function result their value goes to, and the default set right after
  (`if v == "" { v = "d" }`, `if !ok { return d }`);
- functions (their parameters, and whether they stop the program: `panic`, `log.Fatal`);
- string constants, struct types with their fields and tags, methods (a type with its own
  decoder), `//go:embed` variables, `envconfig.Process` / `env.Parse` / `kong.Parse` calls with
  the struct they fill, viper calls, urfave/cli flags (`EnvVars`, `Sources`, `Value`,
  `Required`), keyed composite literals (`{EnvKey: "X", DefaultValue: "d"}`), and every call
  into a config library (`LIBRARIES`: koanf and configx loaders, and the libraries not
  modelled).

Facts depend on the file's bytes only, so they are parsed once per blob id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cache

from tree_sitter import Node, Query, QueryCursor

from release_safety.code.golang import string_value
from release_safety.code.parsers import language, parser
from release_safety.code.syntax import error_line, node_text
from release_safety.surfaces.config.reads import SourceError

ENVCONFIG = "github.com/kelseyhightower/envconfig"
CAARLOS0 = re.compile(r"github\.com/caarlos0/env(?:/v\d+)?")
VIPER = "github.com/spf13/viper"
KONG = "github.com/alecthomas/kong"
URFAVE = re.compile(r"github\.com/urfave/cli(?:/v\d+)?")
LIBRARIES = {
    "github.com/knadh/koanf": ("koanf", "koanf"),
    "github.com/ory/x/configx": ("ory/x configx", "configx"),
    "github.com/ilyakaznacheev/cleanenv": ("cleanenv", "cleanenv"),
    "github.com/sethvargo/go-envconfig": ("sethvargo/go-envconfig", "sethvargo"),
    "github.com/joeshaw/envdecode": ("envdecode", "envdecode"),
    "github.com/vrischmann/envconfig": ("vrischmann/envconfig", "vrischmann"),
    "github.com/Netflix/go-env": ("Netflix/go-env", "Netflix"),
    "github.com/jessevdk/go-flags": ("go-flags", "jessevdk"),
    "github.com/peterbourgon/ff": ("peterbourgon/ff", "peterbourgon"),
    "github.com/gookit/config": ("gookit/config", "gookit"),
    "github.com/heetch/confita": ("confita", "confita"),
    "github.com/kkyr/fig": ("kkyr/fig", "kkyr"),
    "github.com/cristalhq/aconfig": ("aconfig", "aconfig"),
}
"""Config libraries whose calls are kept, import path prefix -> (name, a word every file
importing it has); the first two are modelled as the files they load, the others are not."""
_TESTING = re.compile(r"\btesting\.(?:T|TB|B|F)\b")
_TAG = re.compile(r'(\w+):"((?:[^"\\]|\\.)*)"')
_STOPS = re.compile(r"\b(?:panic|log\.Fatal\w*|os\.Exit|klog\.Fatal\w*|logger\.Fatal\w*)\(")
_SITE_THROUGH = {"argument_list", "call_expression", "parenthesized_expression", "unary_expression"}

Arg = tuple[str, str]
"""An argument as written: (`str`, value), (`ident`, name), (`sel`, `x.Name`) or (`expr`,
source text)."""


@dataclass(frozen=True)
class Call:
    """A call that may read the environment."""

    qualifier: str | None
    name: str
    args: tuple[Arg, ...]
    line: int
    site: str | None
    default: Arg | None = None
    enclosing: str | None = None
    chain: tuple[int, int] | None = None
    """(group, position) of the reads of which the first non-empty value wins:
    `cmp.Or(...)`'s operands, or `v := os.Getenv("A"); if v == "" { v = os.Getenv("B") }`."""
    start: int = 0
    default_from: int | None = None
    """The start of the call that gives the default (`v = os.Getenv("B")`), if one does."""


@dataclass(frozen=True)
class TypeRef:
    """A field's type: a named type (`T`, `pkg.T`, pointers dropped) or an inline struct."""

    qualifier: str | None
    name: str
    inline: tuple[Field, ...] | None = None


@dataclass(frozen=True)
class Field:
    name: str | None
    """None for an embedded field."""
    type: TypeRef | None
    tags: tuple[tuple[str, str], ...]
    line: int

    def tag(self, key: str) -> str | None:
        return dict(self.tags).get(key)


@dataclass(frozen=True)
class Bind:
    """`envconfig.Process(prefix, &spec)`, caarlos0's `env.Parse(&spec, env.Options{...})` or
    `kong.Parse(&cli)`: `call` as written, at `line`."""

    library: str
    prefix: Arg | None
    target: TypeRef | None
    call: str = ""
    line: int = 0


@dataclass(frozen=True)
class LibCall:
    """A call into a config library (`LIBRARIES`): `file.Provider("config.yaml")`."""

    library: str
    call: Call


@dataclass(frozen=True)
class Flag:
    """A urfave/cli flag read from the environment: `&cli.StringFlag{EnvVars: []string{"X"},
    Value: "d", Required: true}`."""

    names: tuple[Arg, ...]
    value: Arg | None
    required: bool
    line: int
    name: str | None


@dataclass(frozen=True)
class Keyed:
    """A keyed composite literal's string-valued keys: `{EnvKey: "X", DefaultValue: "d"}`."""

    fields: tuple[tuple[str, Arg], ...]
    line: int


@dataclass(frozen=True)
class GoFacts:
    imports: tuple[tuple[str, str], ...]
    consts: tuple[tuple[str, str], ...]
    functions: tuple[tuple[str, tuple[str, ...], bool], ...]
    """(name, parameters, stops the program)."""
    calls: tuple[Call, ...]
    structs: tuple[tuple[str, tuple[Field, ...]], ...]
    binds: tuple[Bind, ...]
    viper: tuple[Call, ...]
    keyed: tuple[Keyed, ...]
    methods: tuple[tuple[str, str], ...] = ()
    """(receiver type, method name)."""
    embeds: tuple[tuple[str, str], ...] = ()
    """(variable, file pattern) of `//go:embed` variables."""
    libraries: tuple[LibCall, ...] = ()
    flags: tuple[Flag, ...] = ()
    tests: frozenset[str] = frozenset()
    """Functions only tests can call: they take a `*testing.T` (`TB`, `B`, `F`)."""
    environ: tuple[tuple[int, str | None], ...] = ()
    """(line, enclosing function) of each `os.Environ()` whose variables the program reads
    (not one handed to a child process as its `Env`)."""


_CAPTURES = """
(const_spec) @const
(var_spec) @var
(function_declaration) @function
(type_spec type: (struct_type)) @struct
(call_expression) @call
(literal_value (keyed_element)) @keyed
(parameter_declaration) @param
(short_var_declaration) @short
(method_declaration) @method
(composite_literal) @composite
"""


@cache
def _query() -> Query:
    """The nodes the facts are made of, found by tree-sitter rather than a walk in Python."""
    return Query(language("go"), _CAPTURES)


def arg_of(node: Node) -> Arg:
    """An expression as an `Arg`."""
    value = string_value(node)
    if value is not None:
        return ("str", value)
    if node.type == "identifier":
        return ("ident", node_text(node))
    if node.type == "selector_expression":
        operand = node.child_by_field_name("operand")
        if operand is not None and operand.type == "identifier":
            return ("sel", node_text(node))
    return ("expr", node_text(node))


def parse(source: bytes) -> GoFacts:
    """The configuration facts of one Go file."""
    tree = parser("go").parse(source)
    root = tree.root_node
    if root.has_error:
        raise SourceError("syntax error", error_line(root))
    found = QueryCursor(_query()).captures(root)
    imports = _imports(root)
    consts = [
        pair
        for spec in [*found.get("const", []), *found.get("var", [])]
        if _top_level(spec)
        for pair in _constants(spec)
    ]
    functions = [_function(node) for node in found.get("function", [])]
    structs = [
        (node_text(node.child_by_field_name("name")), _fields(body))
        for node in found.get("struct", [])
        if (body := node.child_by_field_name("type")) is not None
    ]
    keyed = [k for node in found.get("keyed", []) if (k := _keyed(node)) is not None]
    types = _variable_types(found)
    viper_aliases = {a for a, p in imports.items() if p == VIPER}
    calls: list[Call] = []
    binds: list[Bind] = []
    viper: list[Call] = []
    libraries: list[LibCall] = []
    environ: list[tuple[int, str | None]] = []
    for node in found.get("call", []):
        callee = _callee(node)
        if callee is None:
            continue
        qualifier, name = callee
        library = imports.get(qualifier or "", "")
        known = next((p for p in LIBRARIES if library.startswith(p)), None)
        if name == "Environ" and library in _ENVIRON:
            if not _child_env(node):
                environ.append((node.start_point.row + 1, _enclosing(node)))
        elif known is not None:
            libraries.append(LibCall(known, _built(node)))
        elif library in (ENVCONFIG, KONG) or CAARLOS0.fullmatch(library):
            bind = _bind(node, _built(node), library, types)
            if bind is not None:
                binds.append(bind)
        elif viper_aliases and (qualifier in viper_aliases or name in _VIPER_METHODS):
            viper.append(_built(node))
        elif name == "Or" and qualifier == "cmp":
            calls += _cmp_or(node)
        elif _has_arguments(node):  # a call without any reads nothing: not built
            calls.append(_built(node))
    calls = _fallback_chains(calls)
    chained = {(c.line, c.qualifier, c.name, c.args) for c in calls if c.chain is not None}
    calls = [
        c
        for c in calls
        if c.chain is not None or (c.line, c.qualifier, c.name, c.args) not in chained
    ]
    return GoFacts(
        imports=tuple(sorted(imports.items())),
        consts=tuple(consts),
        functions=tuple(functions),
        calls=tuple(calls),
        structs=tuple(structs),
        binds=tuple(binds),
        viper=tuple(viper),
        keyed=tuple(keyed),
        methods=tuple(_method(node) for node in found.get("method", [])),
        embeds=tuple(_embeds(root)),
        libraries=tuple(libraries),
        tests=frozenset(
            node_text(node.child_by_field_name("name"))
            for node in found.get("function", [])
            if _TESTING.search(node_text(node.child_by_field_name("parameters")))
        ),
        flags=tuple(
            flag
            for node in found.get("composite", [])
            if (flag := _flag(node, imports)) is not None
        ),
        environ=tuple(environ),
    )


_ENVIRON = frozenset({"os", "syscall"})
"""Packages whose `Environ()` returns the whole environment."""


def _child_env(call: Node) -> bool:
    """`cmd.Env = os.Environ()`, `cmd.Env = append(os.Environ(), ...)` or `Env: os.Environ()`:
    the environment handed on to a child process, not read."""
    node = call
    parent = node.parent
    if parent is not None and parent.type == "argument_list":
        outer = parent.parent
        function = outer.child_by_field_name("function") if outer is not None else None
        if outer is None or node_text(function) != "append":
            return False
        node, parent = outer, outer.parent
    if parent is not None and parent.type == "keyed_element":
        return node_text(parent.named_children[0]) == "Env" if parent.named_children else False
    if parent is not None and parent.type == "expression_list":
        statement = parent.parent
        if statement is not None and statement.type == "assignment_statement":
            left = node_text(statement.child_by_field_name("left"))
            return left.endswith(".Env")
    return False


def _method(node: Node) -> tuple[str, str]:
    """(receiver type, name) of a method declaration."""
    receiver = node.child_by_field_name("receiver")
    declared = receiver.named_children[0] if receiver and receiver.named_children else None
    kind = _type_ref(declared.child_by_field_name("type")) if declared is not None else None
    return (kind.name if kind else ""), node_text(node.child_by_field_name("name"))


def _embeds(root: Node) -> list[tuple[str, str]]:
    """`//go:embed config.schema.json` then `var ConfigSchema []byte`: (variable, file)."""
    found = []
    for node in root.named_children:
        comment = node.prev_named_sibling
        if node.type != "var_declaration" or comment is None or comment.type != "comment":
            continue
        written = node_text(comment).removeprefix("//go:embed").strip()
        if node_text(comment).startswith("//go:embed") and written:
            found += [
                (node_text(name), written.split()[0])
                for spec in node.named_children
                for name in spec.children_by_field_name("name")
            ]
    return found


def _flag(node: Node, imports: dict[str, str]) -> Flag | None:
    """A urfave/cli flag literal that names environment variables."""
    kind = _type_ref(node.child_by_field_name("type"))
    if kind is None or kind.qualifier is None or not kind.name.endswith("Flag"):
        return None
    if not URFAVE.fullmatch(imports.get(kind.qualifier, "")):
        return None
    body = node.child_by_field_name("body")
    names: list[Arg] = []
    value = name = None
    required = False
    for element in body.named_children if body is not None else []:
        if element.type != "keyed_element" or element.named_child_count != 2:
            continue
        key, given = (
            c.named_children[0] if c.named_children else c for c in element.named_children
        )
        field = node_text(key)
        if field == "EnvVar":  # v1: "X,Y"
            text = string_value(given)
            names += [("str", n.strip()) for n in (text or "").split(",") if n.strip()]
        elif field in ("EnvVars", "Sources"):
            inner = given.child_by_field_name("body" if field == "EnvVars" else "arguments")
            elements = inner.named_children if inner is not None else []
            names += [
                arg_of(e.named_children[0] if e.type == "literal_element" else e) for e in elements
            ]
        elif field == "Value":
            value = arg_of(given)
        elif field == "Required":
            required = node_text(given) == "true"
        elif field == "Name":
            name = string_value(given)
    if not names:
        return None
    return Flag(tuple(names), value, required, node.start_point.row + 1, name)


def _imports(root: Node) -> dict[str, str]:
    """alias -> import path (the alias is the path's last element unless renamed)."""
    found: dict[str, str] = {}
    for declaration in (c for c in root.named_children if c.type == "import_declaration"):
        specs = [
            spec
            for child in declaration.named_children
            for spec in (child.named_children if child.type == "import_spec_list" else [child])
            if spec.type == "import_spec"
        ]
        for spec in specs:
            path = string_value(spec.child_by_field_name("path")) or ""
            alias = spec.child_by_field_name("name")
            name = node_text(alias) if alias is not None else _default_alias(path)
            found[name] = path
    return found


def _default_alias(path: str) -> str:
    parts = path.split("/")
    last = parts[-1]
    if re.fullmatch(r"v\d+", last) and len(parts) > 1:
        last = parts[-2]
    return last.removeprefix("go-").split(".")[0].replace("-", "_")


def _top_level(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.parent is not None and parent.parent.type == "source_file"


def _constants(spec: Node) -> list[tuple[str, str]]:
    names = [node_text(n) for n in spec.children_by_field_name("name")]
    values = spec.child_by_field_name("value")
    if values is None:
        return []
    found = []
    for name, value in zip(names, values.named_children, strict=False):
        text = string_value(value)
        if text is not None:
            found.append((name, text))
    return found


def _function(node: Node) -> tuple[str, tuple[str, ...], bool]:
    params = node.child_by_field_name("parameters")
    names: list[str] = []
    for declaration in params.named_children if params is not None else []:
        names += [node_text(n) for n in declaration.children_by_field_name("name")]
    body = node_text(node.child_by_field_name("body"))
    return node_text(node.child_by_field_name("name")), tuple(names), bool(_STOPS.search(body))


def _type_ref(node: Node | None) -> TypeRef | None:
    while node is not None and node.type in ("pointer_type", "parenthesized_type"):
        node = node.named_children[0] if node.named_children else None
    if node is None:
        return None
    if node.type == "type_identifier":
        return TypeRef(None, node_text(node))
    if node.type == "qualified_type":
        package = node_text(node.child_by_field_name("package"))
        return TypeRef(package, node_text(node.child_by_field_name("name")))
    if node.type == "struct_type":
        return TypeRef(None, "", _fields(node))
    return None


def _fields(struct: Node) -> tuple[Field, ...]:
    declarations = struct.named_children[0] if struct.named_children else None
    fields: list[Field] = []
    for declaration in declarations.named_children if declarations is not None else []:
        if declaration.type != "field_declaration":
            continue
        tag = string_value(declaration.child_by_field_name("tag")) or ""
        tags = tuple(_TAG.findall(tag))
        kind = _type_ref(declaration.child_by_field_name("type"))
        line = declaration.start_point.row + 1
        names = [node_text(n) for n in declaration.children_by_field_name("name")]
        fields += [Field(name, kind, tags, line) for name in names] or [
            Field(None, kind, tags, line)
        ]
    return tuple(fields)


def _callee(node: Node) -> tuple[str | None, str] | None:
    function = node.child_by_field_name("function")
    if function is None:
        return None
    if function.type == "index_expression":  # env.ParseAs[Config]()
        function = function.child_by_field_name("operand")
    if function is None:
        return None
    if function.type == "identifier":
        return None, node_text(function)
    if function.type == "selector_expression":
        operand = function.child_by_field_name("operand")
        return node_text(operand), node_text(function.child_by_field_name("field"))
    return None


def _enclosing(node: Node) -> str | None:
    current = node.parent
    while current is not None:
        if current.type == "function_declaration":
            return node_text(current.child_by_field_name("name"))
        if current.type in ("method_declaration", "func_literal"):
            return None
        current = current.parent
    return None


def _has_arguments(node: Node) -> bool:
    args = node.child_by_field_name("arguments")
    return args is not None and args.named_child_count > 0


def _built(node: Node) -> Call:
    """The call of a node whose callee is known (`_callee`)."""
    call = _call(node)
    assert call is not None
    return call


def _call(node: Node) -> Call | None:
    callee = _callee(node)
    if callee is None:
        return None
    args = node.child_by_field_name("arguments")
    values = tuple(arg_of(a) for a in args.named_children) if args is not None else ()
    site, default = _site(node)
    return Call(
        qualifier=callee[0],
        name=callee[1],
        args=values,
        line=node.start_point.row + 1,
        site=site,
        default=arg_of(default) if default is not None else None,
        enclosing=_enclosing(node),
        start=node.start_byte,
        default_from=default.start_byte if default and default.type == "call_expression" else None,
    )


def _fallback_chains(calls: list[Call]) -> list[Call]:
    """A call whose default is another call (`if v == "" { v = os.Getenv("B") }`) chained
    with it: the second is read when the first is empty."""
    starts = {c.start: c for c in calls}
    links = {c.start: starts[c.default_from] for c in calls if c.default_from in starts}
    if not links:
        return calls
    second = {inner.start: outer for outer, inner in links.items()}
    chained = []
    for call in calls:
        if call.start in links:
            call = replace(call, default=links[call.start].default, chain=(call.start, 0))
        elif call.start in second:
            outer = second[call.start]
            call = replace(call, site=starts[outer].site, chain=(outer, 1))
        chained.append(call)
    return chained


def _cmp_or(node: Node) -> list[Call]:
    """`cmp.Or(os.Getenv("NEW"), os.Getenv("OLD"), "d")`: each operand call, chained."""
    args = node.child_by_field_name("arguments")
    operands = list(args.named_children) if args is not None else []
    default = arg_of(operands[-1]) if operands and operands[-1].type != "call_expression" else None
    site, _ = _site(node)
    group = node.start_byte
    found = []
    for position, operand in enumerate(operands):
        call = _call(operand) if operand.type == "call_expression" else None
        if call is not None:
            found.append(replace(call, site=site, default=default, chain=(group, position)))
    return found


def _site(call: Node) -> tuple[str | None, Node | None]:
    """(site, default): where the call's value goes (a variable, a struct field, a function's
    result) and the default set by the statement right after it."""
    node = call
    while node.parent is not None and node.parent.type in _SITE_THROUGH:
        node = node.parent
    parent = node.parent
    if parent is None:
        return None, None
    if parent.type == "literal_element" and parent.parent is not None:
        keyed = parent.parent
        if keyed.type == "keyed_element" and keyed.named_children[-1] == parent:
            return node_text(keyed.named_children[0]), None
        return None, None
    statement = parent.parent if parent.type == "expression_list" else None
    if statement is not None and statement.type == "return_statement":
        function = _enclosing(statement)
        return (f"{function}()" if function else None), None
    if statement is None or statement.type not in (
        "short_var_declaration",
        "assignment_statement",
        "var_spec",
    ):
        return None, None
    if statement.type == "var_spec":
        targets = [node_text(n) for n in statement.children_by_field_name("name")]
    else:
        left = statement.child_by_field_name("left")
        targets = [node_text(n) for n in left.named_children] if left is not None else []
    if not targets:
        return None, None
    variable = targets[0]
    direct = node is call
    scope = statement.parent
    if scope is not None and scope.type == "if_statement":  # if v, ok := os.LookupEnv(k); ok
        return variable, (_default_after(scope, variable, targets) if direct else None)
    guard = statement.next_named_sibling
    if scope is not None and scope.type == "var_declaration":
        guard = scope.next_named_sibling
    default = _guarded_default(guard, variable, targets) if direct and guard else None
    return variable, default


def _guarded_default(guard: Node, variable: str, targets: list[str]) -> Node | None:
    """The value assigned or returned by `if v == "" { ... }` / `if !ok { ... }`."""
    if guard.type != "if_statement":
        return None
    condition = re.sub(r"\s+", "", node_text(guard.child_by_field_name("condition")))
    guards = {f'{variable}==""', f'""=={variable}', f"len({variable})==0"}
    if len(targets) > 1:
        guards.add(f"!{targets[1]}")
    if condition not in guards:
        return None
    return _assigned_or_returned(guard.child_by_field_name("consequence"), variable)


def _default_after(statement: Node, variable: str, targets: list[str]) -> Node | None:
    """`if v, ok := os.LookupEnv(k); ok { return v }; return d`: the statement after the
    `if`, when it returns or assigns the fallback."""
    condition = re.sub(r"\s+", "", node_text(statement.child_by_field_name("condition")))
    ok = targets[1] if len(targets) > 1 else None
    if condition in {f"!{ok}", f'{variable}==""'}:
        return _assigned_or_returned(statement.child_by_field_name("consequence"), variable)
    after = statement.next_named_sibling
    if after is not None and condition in {ok, f'{variable}!=""'}:
        return _assigned_or_returned(after, variable)
    return None


def _assigned_or_returned(block: Node | None, variable: str) -> Node | None:
    if block is None:
        return None
    candidates = [block] if block.type != "block" else _statements(block)
    for statement in candidates:
        if statement.type == "assignment_statement":
            left = node_text(statement.child_by_field_name("left"))
            right = statement.child_by_field_name("right")
            if left == variable and right is not None and right.named_child_count == 1:
                return right.named_children[0]
        elif statement.type == "return_statement" and statement.named_children:
            values = statement.named_children[0]
            if values.type == "expression_list" and values.named_child_count >= 1:
                return values.named_children[0]
    return None


def _statements(block: Node) -> list[Node]:
    found: list[Node] = []
    for child in block.named_children:
        found += child.named_children if child.type == "statement_list" else [child]
    return found


def _variable_types(found: dict[str, list[Node]]) -> dict[str, TypeRef]:
    """The declared type of each variable name in the file (`var c Config`, `c := Config{}`,
    `c := &Config{}`, a parameter `c *Config`); the last declaration of a name wins."""
    types: dict[str, TypeRef] = {}
    for node in [*found.get("var", []), *found.get("param", [])]:
        kind = _type_ref(node.child_by_field_name("type"))
        if kind is not None:
            for name in node.children_by_field_name("name"):
                types[node_text(name)] = kind
    for node in found.get("short", []):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None:
            for name, value in zip(left.named_children, right.named_children, strict=False):
                kind = _literal_type(value)
                if kind is not None:
                    types[node_text(name)] = kind
    return types


def _literal_type(node: Node) -> TypeRef | None:
    """The type of `T{}`, `&T{}` or `new(T)`."""
    if node.type == "unary_expression":
        operand = node.child_by_field_name("operand")
        return _literal_type(operand) if operand is not None else None
    if node.type == "composite_literal":
        return _type_ref(node.child_by_field_name("type"))
    if node.type == "call_expression" and node_text(node.child_by_field_name("function")) == "new":
        args = node.child_by_field_name("arguments")
        return _type_ref(args.named_children[0]) if args and args.named_children else None
    return None


def _bind(node: Node, call: Call, library: str, types: dict[str, TypeRef]) -> Bind | None:
    """A `Process` / `Parse` call with the struct type it fills."""
    args = node.child_by_field_name("arguments")
    operands = list(args.named_children) if args is not None else []
    label, line = f"{call.qualifier}.{call.name}", call.line
    if library == ENVCONFIG:
        if call.name not in ("Process", "MustProcess", "CheckDisallowed") or len(operands) < 2:
            return None
        return Bind("envconfig", arg_of(operands[0]), _target(operands[1], types), label, line)
    if library == KONG:
        if call.name not in ("Parse", "New", "Must") or not operands:
            return None
        return Bind("kong", None, _target(operands[0], types), label, line)
    if call.name.startswith("ParseAs"):
        function = node.child_by_field_name("function")
        index = function.child_by_field_name("index") if function is not None else None
        return Bind("env", _options_prefix(operands[:1]), _type_ref(index), label, line)
    if not call.name.startswith("Parse") or not operands:
        return None
    return Bind("env", _options_prefix(operands[1:]), _target(operands[0], types), label, line)


def _target(node: Node, types: dict[str, TypeRef]) -> TypeRef | None:
    literal = _literal_type(node)
    if literal is not None:
        return literal
    if node.type == "unary_expression":
        node = node.child_by_field_name("operand") or node
    return types.get(node_text(node))


def _options_prefix(operands: list[Node]) -> Arg | None:
    """The `Prefix` of caarlos0's `env.Options{Prefix: "APP_"}`."""
    for operand in operands:
        body = operand.child_by_field_name("body") if operand.type == "composite_literal" else None
        keyed = _keyed(body) if body is not None else None
        if keyed is not None:
            return dict(keyed.fields).get("Prefix")
    return None


_VIPER_METHODS = frozenset(
    {
        "SetEnvPrefix",
        "AutomaticEnv",
        "BindEnv",
        "SetDefault",
        "SetEnvKeyReplacer",
        "SetConfigFile",
        "SetConfigName",
        "ReadInConfig",
    }
)
"""viper's methods, on whatever value they are called (a `*viper.Viper` kept in a field)."""


def _keyed(body: Node) -> Keyed | None:
    fields: list[tuple[str, Arg]] = []
    for element in body.named_children:
        if element.type != "keyed_element" or element.named_child_count != 2:
            continue
        key, value = element.named_children
        key_node = key.named_children[0] if key.named_children else key
        value_node = value.named_children[0] if value.named_children else value
        if key_node.type in ("identifier", "field_identifier"):
            fields.append((node_text(key_node), arg_of(value_node)))
    if not any(arg[0] == "str" for _, arg in fields):
        return None
    return Keyed(tuple(fields), body.start_point.row + 1)
