"""An `os.Environ()` scan whose key is only matched against a literal set, read as exactly the
variables of that set (miniflux's config parser).

The entries of `os.Environ()` are followed, within its package, wherever they go: handed to a
function (`p.parseLines(os.Environ())`), held in a variable, ranged over by a loop that splits
each at `=` (`key, value, ok := strings.Cut(line, "=")`, `strings.SplitN(line, "=", 2)`). The
key is then followed through the functions of the package it is handed to
(`cp.parseLine(key, value)`), trimmed (`strings.TrimSpace`) or named in a message (`fmt`,
`log`, `slog`, `errors`). Each variable is a literal (or a constant) the key is matched with:

- a `switch key` case (`case "LOG_FILE":`): its default is the second argument of the first
  function of the package handed the value in that case (`parseString(value,
  defaultLogFile)`; negated for `!parseBool(value, defaultHSTS)`), else the value a struct
  literal of the package starts the field it sets with (`&options{baseURL: defaultBaseURL}`);
  its site the first assignment there;
- a `key == "X"` test: its default read the same way in its branch; a branch that only logs
  (a deprecation warning) reads nothing;
- a lookup `field, ok := table[key]` (an unknown key yields `!ok` and is ignored), the table
  the one map literal of the package given that name (`options: map[string]*configValue{...}`),
  its keys all literals: the default an entry's field named `Default*`, else its `parsed*`
  literal, else its `raw*` literal; the site the function of the package that reads the entry
  by its literal key (`LogFile()`).

Anything else the key or the entries meet (a prefix test, a store into a map, a call the scan
cannot follow, a table with a computed key or one the package adds to, entries handed to
another package) leaves the scan not understood, as before: a
blocking `Gap`, naming the prefix when the scan tests one (`strings.HasPrefix(key, "APP_")`).
"""

from __future__ import annotations

import operator as ops
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property, partial

from tree_sitter import Node, Query, QueryCursor, Tree

from release_safety.code.golang import string_value
from release_safety.code.memo import Memo
from release_safety.code.parsers import language, parser
from release_safety.code.syntax import node_text
from release_safety.git.snapshot import Snapshot
from release_safety.surfaces.config.reads import EnvRead, Gap

_TREES: Memo[str, Tree] = Memo(256)
"""Per blob id: the file's syntax tree (only the files of a package that reads `Environ`)."""
_SCANS: Memo[
    tuple[str, int, tuple[tuple[str, str], ...]], tuple[tuple[str, EnvRead | Gap], ...]
] = Memo(256)
"""Per scan and the content of its package: what it reads."""
_MESSAGES = frozenset({"fmt", "log", "slog", "errors"})
"""Packages a key may be handed to for a message, which reads nothing."""
_TRIMS = frozenset({"TrimSpace", "Trim", "TrimSuffix", "TrimPrefix", "TrimRight", "TrimLeft"})
_SPLITS = frozenset({"Cut", "SplitN", "Split"})
_LOGGING = re.compile(r"(?:^|\.)(?:Warn|Warning|Info|Debug|Error|Print)\w*$")
_SCALARS = frozenset(
    {
        *("interpreted_string_literal", "raw_string_literal", "int_literal", "float_literal"),
        *("rune_literal", "true", "false"),
    }
)
_FLIPPED = {"true": "false", "false": "true"}
_DEPTH = 8
"""Functions followed from `os.Environ()` to the table, at most."""


@dataclass(frozen=True)
class _Name:
    """One literal the key is matched with, where it is written."""

    name: str
    path: str
    line: int
    default: str | None
    site: str | None


@dataclass
class _Scan:
    """What the key meets: the literals, the prefixes it is tested with, and whether it met
    anything not understood."""

    names: list[_Name] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)
    stray: bool = False


class _Package:
    """The Go files of one folder (tests left out), parsed on demand."""

    def __init__(self, snapshot: Snapshot, blobs: Mapping[str, str], files: list[str]) -> None:
        self.roots: dict[str, Node] = {}
        for path in files:
            if path.endswith("_test.go"):
                continue
            tree = _TREES.get(blobs[path], partial(_parse, snapshot, path))
            if tree.root_node.has_error:
                raise _NotUnderstood
            self.roots[path] = tree.root_node
        self.functions: dict[str, list[tuple[str, Node]]] = {}
        self.consts: dict[str, str] = {}
        for path, root in self.roots.items():
            for node in root.named_children:
                if node.type in ("function_declaration", "method_declaration"):
                    name = node_text(node.child_by_field_name("name"))
                    self.functions.setdefault(name, []).append((path, node))
                elif node.type in ("const_declaration", "var_declaration"):
                    self.consts.update(_constants(node))

    def function(self, name: str) -> tuple[str, Node] | None:
        """The one function or method of the package of that name."""
        found = self.functions.get(name, [])
        return found[0] if len(found) == 1 else None

    def value(self, node: Node) -> str | None:
        """A literal or a constant of the package, as text."""
        if node.type in _SCALARS:
            return _scalar(node)
        if node.type == "identifier":
            return self.consts.get(node_text(node))
        return None

    def default(self, node: Node) -> str:
        """A default as written: a literal, a constant, a list of them joined by `,`, else the
        source text."""
        body = node.child_by_field_name("body") if node.type == "composite_literal" else None
        if body is not None:
            items = [_element(e) for e in body.named_children if e.type != "comment"]
            values = [self.value(i) for i in items if i is not None]
            if len(values) == len(body.named_children) and all(v is not None for v in values):
                return ",".join(v for v in values if v is not None)
        found = self.value(node)
        return found if found is not None else node_text(node)

    @cached_property
    def _found(self) -> dict[str, list[tuple[str, Node]]]:
        """The package's map literals (`map`), index expressions (`index`) and the fields given
        in struct literals (`keyed`), by tree-sitter rather than a walk in Python."""
        found: dict[str, list[tuple[str, Node]]] = {"map": [], "index": [], "keyed": []}
        for path, root in sorted(self.roots.items()):
            for kind, nodes in QueryCursor(_query()).captures(root).items():
                found[kind] += [(path, node) for node in sorted(nodes, key=lambda n: n.start_byte)]
        return found

    @cached_property
    def _initials(self) -> dict[str, list[Node]]:
        """Struct field -> the values struct literals of the package give it."""
        found: dict[str, list[Node]] = {}
        for _, node in self._found["keyed"]:
            key, value = (
                node.child_by_field_name("key"),
                _element(node.child_by_field_name("value")),
            )
            if key is not None and value is not None:
                found.setdefault(node_text(key), []).append(value)
        return found

    def initial(self, field: str) -> str | None:
        """The value the one struct literal of the package that sets `field` starts it with
        (`&options{baseURL: defaultBaseURL}`)."""
        given = self._initials.get(field, [])
        return self.default(given[0]) if len(given) == 1 else None

    def tables(self, name: str) -> list[tuple[str, Node]]:
        """Map literals of the package given the name `name` (a field, a variable)."""
        return [(path, node) for path, node in self._found["map"] if _named(node) == name]

    def stored(self, table: str) -> bool:
        """Whether the package adds to (or replaces in) the table: `table[k] = v`."""
        return any(
            statement.child_by_field_name("left") == node.parent
            for _, node in self._found["index"]
            if _last_name(node.child_by_field_name("operand")) == table
            and (statement := _up(node).parent) is not None
            and statement.type == "assignment_statement"
        )

    @cached_property
    def _accessors(self) -> dict[tuple[str, str], str]:
        """(table, key) -> the first function that returns `table["key"]`."""
        found: dict[tuple[str, str], str] = {}
        for path, node in self._found["index"]:
            key = _scalar(node.child_by_field_name("index"))
            table = _last_name(node.child_by_field_name("operand"))
            function = _enclosing(node)
            if key is None or table is None or function is None:
                continue
            if _under(node, "return_statement"):
                name = node_text(function.child_by_field_name("name"))
                found.setdefault((table, key), f"{path}#{name}()")
        return found

    def accessor(self, table: str, key: str) -> str | None:
        """The function that returns the entry `table["key"]`: the variable's site."""
        return self._accessors.get((table, key))


@cache
def _query() -> Query:
    return Query(
        language("go"),
        "(composite_literal type: (map_type)) @map\n(index_expression) @index\n"
        "(composite_literal type: (type_identifier) body: (literal_value (keyed_element) @keyed))",
    )


def _parse(snapshot: Snapshot, path: str) -> Tree:
    return parser("go").parse(snapshot.read(path))


class _NotUnderstood(Exception):
    """A shape the scan does not model."""


def reads(
    snapshot: Snapshot, blobs: Mapping[str, str], files: list[str], path: str, line: int
) -> list[tuple[str, EnvRead | Gap]]:
    """The variables the `os.Environ()` read at `path:line` takes (`files`: its package's),
    or a blocking gap when its scan is not one the reader models; once per package content."""
    key = (path, line, tuple(sorted((f, blobs[f]) for f in files)))
    return list(_SCANS.get(key, partial(_read, snapshot, blobs, files, path, line)))


def _read(
    snapshot: Snapshot, blobs: Mapping[str, str], files: list[str], path: str, line: int
) -> tuple[tuple[str, EnvRead | Gap], ...]:
    scan = _Scan()
    try:
        package = _Package(snapshot, blobs, files)
        calls = _descendants(package.roots.get(path), "call_expression")
        at = [c for c in calls if c.start_point.row + 1 == line and _callee(c)[1] == "Environ"]
        if len(at) != 1:
            raise _NotUnderstood
        _entries(package, path, at[0], scan, 0)
    except _NotUnderstood:
        scan.stray = True
    if scan.stray or scan.prefixes or not scan.names:
        return ((path, _gap(path, line, scan.prefixes)),)
    via = f"os.Environ() scan at {path}:{line}"
    return tuple(
        (name.path, EnvRead(name.name, name.line, name.default, site=name.site, via=via))
        for name in scan.names
    )


def _gap(path: str, line: int, prefixes: list[str]) -> Gap:
    """The scan not understood: the variables it takes are named nowhere the tool reads."""
    taken = " or ".join(f"`{p}`" for p in sorted(set(prefixes)))
    what = (
        f"os.Environ() is read: it takes the variables starting with {taken}, which are named "
        "nowhere the tool reads"
        if taken
        else "os.Environ() is read: the variables it takes (a prefix scan, a pattern) are named "
        "nowhere the tool reads"
    )
    way_out = (
        'read each variable by its name (`os.Getenv("APP_PORT")`), or match the key with a '
        "literal set (`switch key { case ... }`, a map literal); or list the variables it "
        "takes, with their defaults, in an env example file named in `config.sources` and "
        f"leave {path} out of the sources (`exclude`)"
    )
    return Gap(line, what, way_out, blocking=True)


def _entries(package: _Package, path: str, node: Node, scan: _Scan, depth: int) -> None:
    """Follow a value holding the environment's entries (`os.Environ()`, a parameter or a
    variable holding it) to the loops that split them."""
    if depth > _DEPTH:
        raise _NotUnderstood
    parent = _up(node)
    if parent.type == "argument_list":
        _handed(package, parent, node, scan, depth, _entries_in)
    elif parent.type == "range_clause" and parent.child_by_field_name("right") == node:
        _loop(package, path, parent, scan, depth)
    elif parent.type == "expression_list" and _declares(parent):
        name = _declared(parent, node)
        function = _enclosing(node)
        if name is None or function is None:
            raise _NotUnderstood
        _entries_in(package, path, function.child_by_field_name("body"), name, None, scan, depth)
    else:
        raise _NotUnderstood


def _entries_in(
    package: _Package,
    path: str,
    scope: Node | None,
    name: str,
    value: str | None,
    scan: _Scan,
    depth: int,
) -> None:
    """Every use of the variable `name` holding the entries, in `scope` (a function's body)."""
    for use in _uses(scope, name):
        if not _is_target(use):
            _entries(package, path, use, scan, depth + 1)


def _loop(package: _Package, path: str, clause: Node, scan: _Scan, depth: int) -> None:
    """`for _, line := range entries { key, value, ok := strings.Cut(line, "=") ... }`."""
    left = clause.child_by_field_name("left")
    body = clause.parent.child_by_field_name("body") if clause.parent is not None else None
    names = left.named_children if left is not None else []
    if len(names) != 2 or body is None:
        raise _NotUnderstood
    for use in _uses(body, node_text(names[1])):
        call = _call_of(use)
        if call is None:
            raise _NotUnderstood
        qualifier, called = _callee(call)
        if qualifier in _MESSAGES:
            continue
        if qualifier == "strings" and called == "HasPrefix":
            scan.prefixes.append(_second(package, call))
        elif qualifier == "strings" and called in _SPLITS and _second(package, call) == "=":
            key, value = _split_into(call, called)
            _key(package, path, body, key, value, scan, depth)
        else:
            raise _NotUnderstood


def _split_into(call: Node, called: str) -> tuple[str, str | None]:
    """The key and value variables a split assigns: `key, value, ok := strings.Cut(...)`, or
    `parts := strings.SplitN(...)` then `key := parts[0]` (`value := parts[1]`, either maybe
    trimmed: `strings.TrimSpace(parts[0])`); `len(parts)` may be tested, nothing else."""
    statement = _statement_of(call)
    targets = _targets(statement) if statement is not None else []
    if called == "Cut" and len(targets) >= 2:
        return targets[0], targets[1]
    scope = statement.parent if statement is not None else None
    if len(targets) != 1 or scope is None:
        raise _NotUnderstood
    parts: dict[str, str] = {}
    for use in _uses(scope, targets[0]):
        parent = _up(use)
        counted = _call_of(use)
        if _is_target(use) or (counted is not None and _callee(counted) == (None, "len")):
            continue
        at = node_text(parent.child_by_field_name("index"))
        if parent.type != "index_expression" or at not in ("0", "1"):
            raise _NotUnderstood
        held = _up(parent)
        if held.type == "argument_list" and held.parent is not None:
            qualifier, trim = _callee(held.parent)
            if qualifier != "strings" or trim not in _TRIMS:
                raise _NotUnderstood
            held = _up(held.parent)
        statement = held.parent if held.type == "expression_list" else None
        named = _targets(statement) if statement is not None else []
        if statement is None or statement.child_by_field_name("right") != held or len(named) != 1:
            raise _NotUnderstood
        parts[at] = named[0]
    if "0" not in parts:
        raise _NotUnderstood
    return parts["0"], parts.get("1")


def _key(
    package: _Package,
    path: str,
    scope: Node | None,
    key: str,
    value: str | None,
    scan: _Scan,
    depth: int,
) -> None:
    """Every use of the key variable in `scope`: each must match it with a literal set."""
    if depth > _DEPTH or scope is None:
        raise _NotUnderstood
    for use in _uses(scope, key):
        parent = _up(use)
        if _is_target(use):
            _reassigned(use, key)
        elif parent.type == "expression_switch_statement":
            _cases(package, path, parent, value, scan)
        elif parent.type == "binary_expression":
            _compared(package, path, parent, use, value, scan)
        elif parent.type == "index_expression" and parent.child_by_field_name("index") == use:
            _lookup(package, parent, scan)
        elif parent.type == "argument_list" and parent.parent is not None:
            call = parent.parent
            qualifier, called = _callee(call)
            if qualifier in _MESSAGES or _logs(call):
                continue
            if qualifier == "strings" and called == "HasPrefix":
                scan.prefixes.append(_second(package, call))
            elif not (qualifier == "strings" and called in _TRIMS and _trimmed_into(call, key)):
                _handed(package, parent, use, scan, depth, _key, value)
        else:
            raise _NotUnderstood


_Follow = Callable[[_Package, str, Node | None, str, str | None, _Scan, int], None]
"""What is done with a value handed to a function: (package, file, the function's body, the
parameter's name, the value variable's name there, the scan, the depth)."""


def _handed(
    package: _Package,
    arguments: Node,
    given: Node,
    scan: _Scan,
    depth: int,
    then: _Follow,
    value: str | None = None,
) -> None:
    """A value handed to a function of the package: follow its parameter there (and the
    value variable's, when it is handed too)."""
    call = arguments.parent
    _, called = _callee(call) if call is not None else (None, "")
    found = package.function(called) if called else None
    if found is None:
        raise _NotUnderstood
    path, function = found
    params = _parameters(function)
    args = [a for a in arguments.named_children if a.type != "comment"]
    if given not in args or len(args) != len(params):
        raise _NotUnderstood
    handed = [p for p, a in zip(params, args, strict=True) if value and node_text(a) == value]
    then(
        package,
        path,
        function.child_by_field_name("body"),
        params[args.index(given)],
        next(iter(handed), None),
        scan,
        depth + 1,
    )


def _cases(package: _Package, path: str, switch: Node, value: str | None, scan: _Scan) -> None:
    """`switch key { case "A", "B": ... }`: each case's literals, with the case's default."""
    for case in switch.named_children:
        if case.type != "expression_case":
            continue
        values = case.child_by_field_name("value")
        literals = values.named_children if values is not None else []
        for literal in literals:
            if package.value(literal) is None or literal.type not in (*_SCALARS, "identifier"):
                raise _NotUnderstood
            default, site = _read_in(package, case, value)
            scan.names.append(_name(package, literal, path, default, site))


def _compared(
    package: _Package, path: str, test: Node, use: Node, value: str | None, scan: _Scan
) -> None:
    """`key == "X"` (or `!=`): the literal, with the default of the branch it guards; a
    branch that only logs (a deprecation warning) reads nothing."""
    operator = node_text(test.child_by_field_name("operator"))
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    other = right if left == use else left
    if operator not in ("==", "!=") or other is None or package.value(other) is None:
        raise _NotUnderstood
    branch = test.parent.child_by_field_name("consequence") if test.parent else None
    if test.parent is None or test.parent.type != "if_statement":
        branch = None
    if operator == "==" and branch is not None and _only_logs(branch):
        return
    default, site = _read_in(package, branch, value) if branch is not None else (None, None)
    scan.names.append(_name(package, other, path, default, site))


def _lookup(package: _Package, index: Node, scan: _Scan) -> None:
    """`field, ok := table[key]`: the table's literal keys, each with its entry's default."""
    statement = _statement_of(index)
    if statement is None or statement.type != "short_var_declaration":
        raise _NotUnderstood
    if len(_targets(statement)) != 2:
        raise _NotUnderstood
    name = _last_name(index.child_by_field_name("operand"))
    tables = package.tables(name) if name else []
    if name is None or len(tables) != 1 or package.stored(name):
        raise _NotUnderstood
    path, table = tables[0]
    body = table.child_by_field_name("body")
    for entry in body.named_children if body is not None else []:
        if entry.type == "comment":
            continue
        key = _element(entry.child_by_field_name("key")) if entry.type == "keyed_element" else None
        written = package.value(key) if key is not None else None
        if key is None or written is None:
            raise _NotUnderstood
        given = _element(entry.child_by_field_name("value"))
        default = _entry_default(package, given) if given is not None else None
        scan.names.append(_name(package, key, path, default, package.accessor(name, written)))


def _entry_default(package: _Package, given: Node) -> str | None:
    """An entry's default: the entry itself when it is a literal, else its field named
    `Default*`, else its `parsed*` literal, else its `raw*` literal."""
    if given.type == "unary_expression":
        given = given.child_by_field_name("operand") or given
    if given.type == "composite_literal":
        given = given.child_by_field_name("body") or given
    if given.type != "literal_value":
        return package.value(given)
    fields: dict[str, Node] = {}
    for element in given.named_children:
        if element.type == "keyed_element":
            key, value = element.child_by_field_name("key"), element.child_by_field_name("value")
            inner = _element(value) if value is not None else None
            if key is not None and inner is not None:
                fields[node_text(key)] = inner
    for wanted in ("default", "parsed", "raw"):
        for name, value in fields.items():
            if not name.lower().startswith(wanted):
                continue
            if wanted == "default":
                return package.default(value)
            literal = package.value(value)
            if literal is not None:
                return literal
    return None


def _name(package: _Package, node: Node, path: str, default: str | None, site: str | None) -> _Name:
    """A variable the key is matched with, written at `node` (a literal or a constant)."""
    name = package.value(node)
    if not name:
        raise _NotUnderstood
    return _Name(name, path, node.start_point.row + 1, default, site)


def _read_in(package: _Package, branch: Node, value: str | None) -> tuple[str | None, str | None]:
    """(default, site) of a branch that reads the value: the second argument of the first call
    handed the value (`parseString(value, defaultLogFile)`), else the value the field it sets
    starts with in a struct literal of the package; the site is the first assignment's
    target."""
    default = site = None
    if value is not None:
        handed = (c for c in _descendants(branch, "call_expression") if _helper(c, value))
        call = next(handed, None)
        default = package.default(_arguments(call)[1]) if call is not None else None
        parent = call.parent if call is not None else None
        if default in _FLIPPED and parent is not None and node_text(parent).startswith("!"):
            default = _FLIPPED[default]  # `hsts = !parseBool(value, defaultHSTS)`
    for statement in _descendants(branch, "assignment_statement"):
        left = statement.child_by_field_name("left")
        site = node_text(left.named_children[0]) if left and left.named_children else None
        break
    if default is None and site is not None and "." in site:
        default = package.initial(site.rpartition(".")[2])
    return default, site


def _helper(call: Node, value: str) -> bool:
    """A parse helper of the package handed the value first and its fallback second
    (`strings.TrimSuffix(value, "/")` is no helper)."""
    args = _arguments(call)
    function = call.child_by_field_name("function")
    named = function is not None and function.type == "identifier"
    return named and len(args) >= 2 and node_text(args[0]) == value


# syntax helpers ---------------------------------------------------------------------------


def _descendants(node: Node | None, kind: str) -> Iterator[Node]:
    """Every node of type `kind` under `node`, in source order."""
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        if current.type == kind:
            yield current
        stack.extend(reversed(current.named_children))


def _uses(scope: Node | None, name: str) -> list[Node]:
    """The identifiers `name` under `scope` (keys of struct literals left out)."""
    return [
        node
        for node in _descendants(scope, "identifier")
        if node_text(node) == name and not _literal_key(node)
    ]


def _literal_key(node: Node) -> bool:
    parent = node.parent
    keyed = parent.parent if parent is not None else None
    return (
        parent is not None
        and parent.type == "literal_element"
        and keyed is not None
        and keyed.type == "keyed_element"
        and keyed.child_by_field_name("key") == parent
    )


def _up(node: Node) -> Node:
    """The parent, through parentheses."""
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    if parent is None:
        raise _NotUnderstood
    return parent


def _callee(call: Node) -> tuple[str | None, str]:
    function = call.child_by_field_name("function")
    if function is not None and function.type == "selector_expression":
        operand = function.child_by_field_name("operand")
        qualifier = node_text(operand) if operand is not None else None
        return qualifier, node_text(function.child_by_field_name("field"))
    return None, node_text(
        function
    ) if function is not None and function.type == "identifier" else ""


def _arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def _call_of(use: Node) -> Node | None:
    """The call `use` is an argument of."""
    parent = use.parent
    if parent is None or parent.type != "argument_list" or parent.parent is None:
        return None
    return parent.parent


def _second(package: _Package, call: Node) -> str:
    """The second argument of a call, a literal (`strings.Cut(line, "=")`)."""
    args = _arguments(call)
    found = package.value(args[1]) if len(args) > 1 else None
    if found is None:
        raise _NotUnderstood
    return found


def _statement_of(node: Node) -> Node | None:
    """The declaration or assignment whose right side is `node`."""
    parent = node.parent
    if parent is None or parent.type != "expression_list":
        return None
    statement = parent.parent
    if statement is None or statement.child_by_field_name("right") != parent:
        return None
    return (
        statement if statement.type in ("short_var_declaration", "assignment_statement") else None
    )


def _targets(statement: Node) -> list[str]:
    left = statement.child_by_field_name("left")
    return [node_text(n) for n in left.named_children] if left is not None else []


def _declares(values: Node) -> bool:
    statement = values.parent
    return statement is not None and statement.type in ("short_var_declaration", "var_spec")


def _declared(values: Node, node: Node) -> str | None:
    """The variable declared with `node` as its value (`lines := os.Environ()`)."""
    statement = values.parent
    if statement is None or len(values.named_children) != 1:
        return None
    if statement.type == "var_spec":
        names = [node_text(n) for n in statement.children_by_field_name("name")]
    else:
        names = _targets(statement)
    return names[0] if len(names) == 1 else None


def _is_target(use: Node) -> bool:
    """`use` is a variable being declared or assigned (`key, value, ok := ...`)."""
    values = use.parent
    statement = values.parent if values is not None else None
    return (
        values is not None
        and statement is not None
        and statement.type in ("short_var_declaration", "assignment_statement")
        and statement.child_by_field_name("left") == values
    )


def _reassigned(use: Node, name: str) -> None:
    """The key declared (the split's own target) or trimmed (`key = strings.TrimSpace(key)`);
    anything else assigned to it is not understood."""
    values = use.parent
    statement = values.parent if values is not None else None
    if values is None or statement is None or statement.type == "short_var_declaration":
        return
    position = values.named_children.index(use)
    right = statement.child_by_field_name("right")
    given = right.named_children if right is not None else []
    if len(given) != len(values.named_children) or given[position].type != "call_expression":
        raise _NotUnderstood
    qualifier, called = _callee(given[position])
    args = _arguments(given[position])
    if qualifier != "strings" or called not in _TRIMS or not args or node_text(args[0]) != name:
        raise _NotUnderstood


def _logs(call: Node) -> bool:
    """A logger's method (`logger.Warn(...)`, `log.Printf(...)`)."""
    return bool(_LOGGING.search(node_text(call.child_by_field_name("function"))))


def _trimmed_into(call: Node, name: str) -> bool:
    """`strings.TrimSpace(key)` assigned back to `key`."""
    statement = _statement_of(call)
    if statement is None:
        parent = call.parent
        statement = parent.parent if parent is not None else None
        if statement is None or statement.type != "assignment_statement":
            return False
    return name in _targets(statement)


def _parameters(function: Node) -> list[str]:
    params = function.child_by_field_name("parameters")
    names: list[str] = []
    for declaration in params.named_children if params is not None else []:
        names += [node_text(n) for n in declaration.children_by_field_name("name")]
    return names


def _enclosing(node: Node) -> Node | None:
    current = node.parent
    while current is not None:
        if current.type in ("function_declaration", "method_declaration"):
            return current
        current = current.parent
    return None


def _under(node: Node, kind: str) -> bool:
    current = node.parent
    while current is not None and current.type not in (
        "function_declaration",
        "method_declaration",
    ):
        if current.type == kind:
            return True
        current = current.parent
    return False


def _element(node: Node | None) -> Node | None:
    """The expression a `literal_element` holds."""
    if node is None:
        return None
    if node.type == "literal_element":
        return node.named_children[0] if node.named_children else None
    return node


def _named(literal: Node) -> str | None:
    """The name a map literal is given: `options: map[...]{...}`, `x.options = map...`,
    `var options = map...`, `options := map...`."""
    node = literal
    parent = node.parent
    if parent is not None and parent.type == "literal_element":
        keyed = parent.parent
        if keyed is None or keyed.type != "keyed_element":
            return None
        value = keyed.child_by_field_name("value")
        return node_text(keyed.child_by_field_name("key")) if value == parent else None
    if parent is None or parent.type != "expression_list" or len(parent.named_children) != 1:
        return None
    statement = parent.parent
    if statement is None:
        return None
    if statement.type == "var_spec":
        names = list(statement.children_by_field_name("name"))
        return node_text(names[0]) if len(names) == 1 else None
    if statement.type in ("short_var_declaration", "assignment_statement"):
        left = statement.child_by_field_name("left")
        targets = left.named_children if left is not None else []
        return _last_name(targets[0]) if len(targets) == 1 else None
    return None


def _last_name(node: Node | None) -> str | None:
    """`cp.options.options` -> `options`; `table` -> `table`."""
    if node is None:
        return None
    if node.type == "identifier":
        return node_text(node)
    if node.type == "selector_expression":
        return node_text(node.child_by_field_name("field"))
    return None


def _only_logs(branch: Node) -> bool:
    """A block whose statements only log (`slog.Warn("X is deprecated")`)."""
    statements = [s for s in _descendants(branch, "expression_statement")]
    blocks = [n for n in branch.named_children if n.type == "statement_list"]
    count = sum(len(b.named_children) for b in blocks)
    if not statements or count != len(statements):
        return False
    for statement in statements:
        call = statement.named_children[0] if statement.named_children else None
        if call is None or call.type != "call_expression":
            return False
        if _callee(call)[0] not in _MESSAGES and not _logs(call):
            return False
    return True


def _scalar(node: Node | None) -> str | None:
    """A Go literal's value as text (strings unquoted), else None."""
    if node is None or node.type not in _SCALARS:
        return None
    value = string_value(node)
    return node_text(node) if value is None else value


def _constants(declaration: Node) -> dict[str, str]:
    """The package-level constants and variables given one literal each."""
    found: dict[str, str] = {}
    for spec in _descendants(declaration, "const_spec"):
        found.update(_spec_values(spec))
    for spec in _descendants(declaration, "var_spec"):
        found.update(_spec_values(spec))
    return found


def _spec_values(spec: Node) -> dict[str, str]:
    names = [node_text(n) for n in spec.children_by_field_name("name")]
    values = spec.child_by_field_name("value")
    given = values.named_children if values is not None else []
    return {
        name: text
        for name, value in zip(names, given, strict=False)
        if (text := _scalar(value) if value.type in _SCALARS else _arithmetic(value)) is not None
    }


def _arithmetic(node: Node) -> str | None:
    """An integer constant written as arithmetic on literals (`24 * 60`), as its value."""
    if node.type == "int_literal":
        return node_text(node).replace("_", "")
    if node.type == "parenthesized_expression" and node.named_children:
        return _arithmetic(node.named_children[0])
    if node.type != "binary_expression":
        return None
    left = _arithmetic(node.child_by_field_name("left") or node)
    right = _arithmetic(node.child_by_field_name("right") or node)
    sign = node_text(node.child_by_field_name("operator"))
    if left is None or right is None or sign not in _INTEGER:
        return None
    return str(_INTEGER[sign](int(left, 0), int(right, 0)))


_INTEGER: dict[str, Callable[[int, int], int]] = {
    "+": ops.add,
    "-": ops.sub,
    "*": ops.mul,
}
