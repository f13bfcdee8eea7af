"""Migrations written in Go as an ordered list (`go-embedded`): miniflux's
`var migrations = [...]func(tx *sql.Tx) error{ func(tx *sql.Tx) (err error) { sql := `...`;
_, err = tx.Exec(sql); return err }, ... }`, a `[]string` of SQL literals, or a
`map[int]string` / `map[int]func(...)` keyed by version. Each element is one migration; the
slice index (the map key) is its version, and the tool runs the elements past the database's
version in that order, each in a transaction of its own (miniflux's `Migrate`: `db.Begin()`,
the element, the version row, `Commit()`).

An element's statements are the SQL it passes to `Exec` / `ExecContext` / `MustExec` on its
transaction (or database) parameter: a string literal (raw or interpreted), a concatenation of
literals, or a local variable (`+=` too) or top-level constant bound to one; each statement sits
at its own line of the Go file. An element may name a top-level function of the file.
Error checks (`if err != nil { return err }`) and returns are read; anything else (SQL built at
run time, a query whose rows drive Go logic, a loop, a call into other code) is an unknown
statement at its line, naming the construct, never skipped.

What a release adds is the elements past the previous release's list (`added_part`: the file
with the shipped elements blanked, lines kept); a shipped element that changed is an edit
(`edited_line`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from tree_sitter import Node

from release_safety.code import golang
from release_safety.code.jsvalues import Unknown
from release_safety.code.parsers import parse
from release_safety.code.syntax import node_text, shown
from release_safety.contract.finding import Finding
from release_safety.surfaces.migrations.frameworks.emit import Out, parsed, read_safely
from release_safety.surfaces.migrations.rules.ids import RuleId
from release_safety.surfaces.migrations.sql.lexer import tokenize
from release_safety.surfaces.migrations.sql.sqlfile import split_sql
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

FRAMEWORK = "go-embedded"
_HANDLE = re.compile(r"\b(?:sql|sqlx|pgx|pgxpool)\.(?:Tx|DB|Conn|Pool)\b")
"""A parameter through which a migration function sends SQL (database/sql, sqlx, pgx)."""
_DDL = re.compile(
    r"\b(?:CREATE|ALTER|DROP)\s+(?:TABLE|INDEX|UNIQUE\s+INDEX|TYPE|SCHEMA|SEQUENCE|VIEW|EXTENSION)\b",
    re.IGNORECASE,
)
UNKNOWN_STATEMENT = RuleId.MIGRATION_STATEMENT_UNKNOWN
_EXEC = frozenset({"Exec", "MustExec", "ExecContext", "MustExecContext"})
_STRING_SHAPES = ("identifier", "binary_expression", "parenthesized_expression")
_LISTS = ("slice_type", "array_type", "implicit_length_array_type", "map_type")


@dataclass(frozen=True)
class Element:
    """One migration of the list: its version key (the index, or the map key), its first line,
    its bytes in the file (the element with its comma), its text, and what it is made of
    (`parts`: the element, the function it names, the constants it passes, each with its name)
    whose `shape` says whether an edit is one the database sees."""

    key: str
    line: int
    start: int
    end: int
    value: Node
    text: str
    parts: tuple[tuple[str, Node], ...]

    def same(self, other: Element) -> bool:
        """True when `other` sends what this one sends: the same text, or the same Go tokens
        and SQL tokens (a comment or the spacing changed)."""
        texts = [(name, node_text(node)) for name, node in self.parts]
        if texts == [(name, node_text(node)) for name, node in other.parts]:
            return True
        mine = [(name, _shape(node)) for name, node in self.parts]
        return mine == [(name, _shape(node)) for name, node in other.parts]


@dataclass(frozen=True)
class MigrationList:
    """The ordered list of migrations a Go file declares: its name, first and last line, its
    kind (functions or SQL strings), its elements as written, and the file's top-level
    functions and string constants they may name."""

    name: str
    line: int
    end: int
    kind: Literal["funcs", "strings"]
    elements: list[Element]
    functions: dict[str, Node]
    constants: dict[str, tuple[object, Node | None]]


def _kind(literal: Node) -> Literal["funcs", "strings"] | None:
    """What a composite literal lists, when it may be migrations: functions taking a database
    handle, or strings of which one holds DDL."""
    kind = literal.child_by_field_name("type")
    if kind is None or kind.type not in _LISTS:
        return None
    if kind.type == "map_type":
        key = kind.child_by_field_name("key")
        if key is None or not node_text(key).startswith(("int", "uint")):
            return None
        element = kind.child_by_field_name("value")
    else:
        element = kind.child_by_field_name("element")
    if element is None:
        return None
    if element.type == "function_type":
        parameters = element.child_by_field_name("parameters")
        return "funcs" if _HANDLE.search(node_text(parameters)) else None
    if node_text(element) == "string" and _DDL.search(
        node_text(literal.child_by_field_name("body"))
    ):
        return "strings"
    return None


def _declared(root: Node) -> tuple[dict[str, Node], dict[str, Node]]:
    """The file's top-level functions, and its top-level constants and variables of one
    value that is not a composite literal (the expression), by name."""
    functions: dict[str, Node] = {}
    constants: dict[str, Node] = {}
    for child in root.named_children:
        name = child.child_by_field_name("name")
        if child.type == "function_declaration" and name is not None:
            functions[node_text(name)] = child
        if child.type not in ("const_declaration", "var_declaration"):
            continue
        for spec in child.named_children:
            names = spec.children_by_field_name("name")
            value = spec.child_by_field_name("value")
            values = value.named_children if value is not None else []
            if len(names) == 1 and len(values) == 1 and values[0].type != "composite_literal":
                constants[node_text(names[0])] = values[0]
    return functions, constants


def _names(node: Node) -> list[str]:
    """The identifiers used under a node, in order."""
    found: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "identifier":
            found.append(node_text(current))
        stack.extend(reversed(current.children))
    return found


def _lists(root: Node) -> list[tuple[str, Node, Literal["funcs", "strings"]]]:
    """The top-level `var name = <list of migrations>` of a file, in order."""
    found = []
    for declaration in root.named_children:
        if declaration.type != "var_declaration":
            continue
        for spec in declaration.named_children:
            name, value = spec.child_by_field_name("name"), spec.child_by_field_name("value")
            literal = (
                value.named_children[0] if value is not None and value.named_children else None
            )
            if name is None or literal is None or literal.type != "composite_literal":
                continue
            kind = _kind(literal)
            if kind is not None:
                found.append((node_text(name), literal, kind))
    return found


def _element_end(node: Node) -> int:
    """The byte after an element and the comma that follows it."""
    after = node.next_sibling
    return after.end_byte if after is not None and after.type == "," else node.end_byte


def _elements(body: Node, functions: dict[str, Node], constants: dict[str, Node]) -> list[Element]:
    entries = [c for c in body.named_children if c.type in ("literal_element", "keyed_element")]
    out = []
    for index, entry in enumerate(entries):
        key = str(index)
        value = entry
        if entry.type == "keyed_element":
            parts = entry.named_children
            key = node_text(parts[0]).strip() if parts else key
            value = parts[-1] if parts else entry
        if value.type == "literal_element" and value.named_children:
            value = value.named_children[0]
        made = [("", entry)]
        named = functions.get(node_text(value)) if value.type == "identifier" else None
        if named is not None:
            made.append((node_text(value), named))
        used = _names(entry) + (_names(named) if named is not None else [])
        seen: set[str] = set()
        while used:  # the constants it passes, and those they are built from
            name = used.pop(0)
            if name in constants and name not in seen:
                seen.add(name)
                made.append((name, constants[name]))
                used += _names(constants[name])
        line = entry.start_point.row + 1
        end = _element_end(entry)
        text = node_text(entry)
        out.append(Element(key, line, entry.start_byte, end, value, text, tuple(made)))
    return out


def _shape(node: Node) -> tuple[object, ...]:
    """A node's Go tokens without comments and without a function's signature (what it is
    handed and returns sends nothing: `func(tx *sql.Tx, _ string)` made `func(tx *sql.Tx)`),
    each string literal as its SQL tokens (kind and text, comments and spacing left out) when
    it reads as SQL, else as its value."""
    found: list[object] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "comment" or _signature(current):
            continue
        value = golang.string_value(current)
        if value is not None:
            try:
                found.append(tuple((t.kind, t.text) for t in tokenize(value)))
            except ValueError:
                found.append(value)
        elif current.child_count == 0:
            found.append(node_text(current))
        else:
            stack.extend(reversed(current.children))
    return tuple(found)


def _signature(node: Node) -> bool:
    """True for the parameters or the result of a function literal or declaration."""
    parent = node.parent
    if parent is None or parent.type not in ("func_literal", "function_declaration"):
        return False
    return node in (parent.child_by_field_name("parameters"), parent.child_by_field_name("result"))


class Unreadable(ValueError):
    """A Go file too deeply nested to read."""


def migration_list(text: str) -> MigrationList | None:
    """The first list of migrations a Go file declares at top level, else None (also for a
    file that does not parse: the file is then not taken for this shape); Unreadable for one
    nested too deep to read."""
    try:
        return _migration_list(text)
    except RecursionError as exc:
        raise Unreadable("nesting too deep") from exc


@lru_cache(maxsize=8)
def _migration_list(text: str) -> MigrationList | None:
    """`migration_list`, remembered per text (a release reads both refs' lists several
    times: edits, additions, the statements)."""
    root = parse("go", text.encode("utf-8", "surrogatepass"))
    found = _lists(root)
    if not found:
        return None
    name, literal, kind = found[0]
    body = literal.child_by_field_name("body")
    functions, constants = _declared(root)
    elements = _elements(body, functions, constants) if body is not None else []
    first, last = literal.start_point.row + 1, literal.end_point.row + 1
    return MigrationList(name, first, last, kind, elements, functions, _scope(constants))


def _scope(constants: dict[str, Node]) -> dict[str, tuple[object, Node | None]]:
    """The top-level constants' string values (an Unknown for one built otherwise), each with
    its literal when it is one."""
    scope: dict[str, tuple[object, Node | None]] = {}
    for name, node in constants.items():
        value = golang.string_expression(node, {n: v for n, (v, _) in scope.items()})
        scope[name] = (value, node if node.type in golang.STRINGS else None)
    return scope


_DDL_WORDS = ("create", "alter", "drop")
_DDL_AFTER = re.compile(
    r"(?:create|alter|drop)\s+(?:table|index|unique\s+index|type|schema|sequence|view|extension)\b"
)


def _has_ddl(text: str) -> bool:
    """`_DDL.search(text)` without a case-insensitive scan of the whole text: each of `_DDL`'s
    first words found lowercased, then matched there, at a word's start (`_DDL_AFTER` on ASCII
    text; on other text `_DDL` itself, which a long s matches as `s`). No character but the
    ASCII ones lowercases to a letter of the first words, so they are found where `_DDL`
    finds them, at the same place when lowercasing keeps the length (else the whole text is
    searched: a vendored Go file with an accent cost a millisecond)."""
    lowered = text.lower()
    ascii_ = text.isascii()
    if not ascii_ and len(lowered) != len(text):
        return _DDL.search(text) is not None
    for word in _DDL_WORDS:
        at = lowered.find(word)
        while at >= 0:
            if ascii_:
                before = lowered[at - 1] if at else " "
                if not (before.isalnum() or before == "_") and _DDL_AFTER.match(lowered, at):
                    return True
            elif _DDL.match(text, at):
                return True
            at = lowered.find(word, at + 1)
    return False


def holds_migrations(text: str) -> bool:
    """True when a Go file declares a list of migrations (the shape, whatever its name)."""
    if "func" not in text and "`" not in text and '"' not in text:
        return False
    # every `_HANDLE` holds `sql` or `pgx`: substring tests first, many times faster than the
    # pattern, and rarer in Go code than the types (`.DB`) it names
    handle = ("sql" in text or "pgx" in text) and _HANDLE.search(text)
    if not (handle or _has_ddl(text)):
        return False
    try:
        return migration_list(text) is not None
    except Unreadable:
        return True  # a file of this shape the reader cannot read: unknown where it is read


def _ordered(listed: MigrationList) -> list[Element] | str:
    """The elements in the order they run; a string says why it is not known (a map key that
    is not an integer literal)."""
    keys = []
    for element in listed.elements:
        try:
            keys.append((int(element.key, 0), element))
        except ValueError:
            return f"the key `{element.key}` at line {element.line}, not an integer literal"
    return [element for _, element in sorted(keys, key=lambda k: k[0])]


def extract_goembedded(text: str, path: str) -> Extracted:
    """The statements of every migration a Go file lists, in the order they run, each
    migration in a transaction of its own."""
    return read_safely(FRAMEWORK, lambda: _extract(text))


def _extract(text: str) -> Extracted:
    root = parsed("go", text)
    found = _lists(root)
    out = Out(FRAMEWORK)
    if not found:
        out.unknown(
            1,
            "no list of migrations (`var ... = []func(tx *sql.Tx) error{...}` or a "
            "list of SQL strings) found in this file",
        )
        return Extracted(out.statements)
    if len(found) > 1:
        names = ", ".join(f"`{name}`" for name, _, _ in found)
        out.unknown(
            found[1][1].start_point.row + 1,
            f"{len(found)} lists of migrations in one file ({names}): which one runs "
            "on this database is not known",
        )
        return Extracted(out.statements)
    listed = _migration_list(text)
    assert listed is not None
    ordered = _ordered(listed)
    if isinstance(ordered, str):
        out.unknown(listed.line, f"the order of `{listed.name}` is not known: {ordered}")
        return Extracted(out.statements)
    wrapped = listed.kind == "funcs"
    for position, element in enumerate(ordered):
        if position:  # each migration commits before the next one starts
            out.sql(element.line, "COMMIT")
        if listed.kind == "strings":
            _sql(out, element.value, listed.constants, element.line)
        else:
            _Function(out, listed.functions, listed.constants).element(element)
    return Extracted(out.statements, True, wrapped)


def _sql(out: Out, node: Node, scope: dict[str, tuple[object, Node | None]], line: int) -> None:
    """The statements of a SQL argument, each at its line of the Go file when the SQL is one
    raw literal (else at `line`)."""
    values = {name: value for name, (value, _) in scope.items()}
    value = golang.string_expression(node, values)
    if isinstance(value, Unknown):
        out.unknown(line, f"SQL {value.reason}")
        return
    literal = scope[node_text(node)][1] if node.type == "identifier" else node
    try:
        parts = split_sql(value) if isinstance(value, str) else []
    except ValueError as exc:
        out.unknown(line, f"SQL that does not split into statements: {exc}")
        return
    raw = literal is not None and literal.type == "raw_string_literal"
    for part in parts:
        if not part.sql:
            continue
        if raw:
            assert literal is not None
            first = part.line == 1
            at = literal.start_point.row + part.line
            column = part.column + (literal.start_point.column + 1 if first else 0)
            out.statements.append(Statement(part.sql, at, column=column))
        else:
            out.sql(line, part.sql)


@dataclass
class _Function:
    """A migration function's body read statement by statement."""

    out: Out
    functions: dict[str, Node]
    constants: dict[str, tuple[object, Node | None]]
    handles: set[str] = field(default_factory=set)
    scope: dict[str, tuple[object, Node | None]] = field(default_factory=dict)

    def element(self, element: Element) -> None:
        value = element.value
        if value.type == "identifier" and node_text(value) in self.functions:
            value = self.functions[node_text(value)]
        if value.type not in ("func_literal", "function_declaration"):
            what = "a call into other code" if value.type == "call_expression" else "a value"
            self.out.unknown(
                element.line,
                f"migration {element.key} is `{shown(element.value)}`, {what} the reader "
                "does not follow",
            )
            return
        parameters = value.child_by_field_name("parameters")
        handles: set[str] = set()
        for parameter in parameters.named_children if parameters is not None else []:
            if _HANDLE.search(node_text(parameter.child_by_field_name("type"))):
                handles.update(node_text(n) for n in parameter.children_by_field_name("name"))
        body = value.child_by_field_name("body")
        self.scope, self.handles = dict(self.constants), handles
        self.block(body)

    def block(self, block: Node | None) -> bool:
        """Reads a block's statements; True when it returned."""
        return any(self.statement(statement) for statement in _statements(block))

    def statement(self, node: Node) -> bool:
        line = node.start_point.row + 1
        kind = node.type
        if kind == "return_statement":
            values = node.named_children[0].named_children if node.named_children else []
            if any(v.type not in ("identifier", "nil") for v in values):
                self._unknown(node, "a return of a computed value")
            return True
        if kind == "expression_statement":
            call = node.named_children[0] if node.named_children else None
            if call is None or not self._exec(call):
                self._unknown(node, "Go code the reader does not model")
            return False
        if kind in ("short_var_declaration", "assignment_statement"):
            self._assign(node, line)
            return False
        if kind == "var_declaration":
            for spec in node.named_children:
                self._bind(
                    spec.children_by_field_name("name"), spec.child_by_field_name("value"), node
                )
            return False
        if kind == "if_statement" and self._error_check(node):
            return False
        self._unknown(node, "Go logic around the SQL (a condition, a loop, a query's rows)")
        return False

    def _unknown(self, node: Node, what: str) -> None:
        self.out.unknown(node.start_point.row + 1, f"`{shown(node)}`, {what}")

    def _exec(self, call: Node) -> bool:
        """Emits an Exec call's statements; False for any other expression."""
        if call.type != "call_expression":
            return False
        function = call.child_by_field_name("function")
        if function is None or function.type != "selector_expression":
            return False
        operand, field = (
            function.child_by_field_name("operand"),
            function.child_by_field_name("field"),
        )
        if node_text(operand) not in self.handles or node_text(field) not in _EXEC:
            return False
        arguments = call.child_by_field_name("arguments")
        args = [a for a in arguments.named_children if a.type != "comment"] if arguments else []
        if node_text(field).endswith("Context"):
            args = args[1:]
        line = call.start_point.row + 1
        if not args:
            self.out.unknown(line, f"`{shown(call)}` without SQL")
            return True
        _sql(self.out, args[0], self.scope, line)
        return True

    def _assign(self, node: Node, line: int) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        values = right.named_children if right is not None else []
        if len(values) == 1 and self._exec(values[0]):
            return
        names = left.named_children if left is not None else []
        operator = node_text(node.child_by_field_name("operator"))
        if node.type == "assignment_statement" and operator == "+=" and len(names) == 1:
            before = self.scope.get(node_text(names[0]), (None, None))[0]
            self._bind(names, right, node, before if isinstance(before, str) else None)
        elif node.type == "short_var_declaration" or operator == "=":
            self._bind(names, right, node)
        else:
            self._unknown(node, f"`{operator}`, Go code the reader does not model")

    def _bind(
        self, names: list[Node], right: Node | None, node: Node, prefix: str | None = ""
    ) -> None:
        """Binds each name to its string value (after `prefix`, for `+=`; None: a `+=` to a
        name bound to no string)."""
        values = right.named_children if right is not None else []
        if len(values) != len(names) or not names or prefix is None:
            self._unknown(node, "Go code the reader does not model")
            return
        for name, value in zip(names, values, strict=True):
            if name.type != "identifier":
                self._unknown(node, "Go code the reader does not model")
                return
            found = golang.string_expression(value, {n: v for n, (v, _) in self.scope.items()})
            literal = value if value.type in golang.STRINGS and not prefix else None
            found = prefix + found if isinstance(found, str) else found
            self.scope[node_text(name)] = (found, literal)
            if isinstance(found, Unknown) and value.type not in _STRING_SHAPES:
                self._unknown(node, "Go code the reader does not model")
                return

    def _error_check(self, node: Node) -> bool:
        """True for `if [init;] err != nil { return ... }` (its init an Exec call, emitted)."""
        condition = node.child_by_field_name("condition")
        if condition is None or " ".join(node_text(condition).split()) not in (
            "err != nil",
            "err!=nil",
        ):
            return False
        if node.child_by_field_name("alternative") is not None:
            return False
        statements = _statements(node.child_by_field_name("consequence"))
        if not all(s.type == "return_statement" for s in statements):
            return False
        initializer = node.child_by_field_name("initializer")
        if initializer is not None:
            right = initializer.child_by_field_name("right")
            values = right.named_children if right is not None else []
            if len(values) != 1 or not self._exec(values[0]):
                return False
        return True


def way_out(finding: Finding) -> Finding:
    """A finding on a Go list with the way out written for Go: an unknown statement's SQL
    moved into a literal, or the statement acknowledged in a Go comment."""
    if finding.rule != UNKNOWN_STATEMENT or not finding.message.startswith(f"{FRAMEWORK}:"):
        return finding
    hint = (
        f"Pass the SQL of line {finding.line} to Exec as a string literal (or a variable or "
        "constant bound to one) in a function literal of the list, so it is read; or accept "
        "it above the line: `// release-safety: acknowledge(migration-statement-unknown): "
        "<what it does and why it is safe>`."
    )
    return finding.replace(hint=hint)


def _statements(block: Node | None) -> list[Node]:
    """A block's statements, comments left out."""
    found: list[Node] = []
    for child in [] if block is None else block.named_children:
        if child.type == "statement_list":
            found.extend(_statements(child))
        elif child.type != "comment":
            found.append(child)
    return found


def _blank(text: bytes) -> bytes:
    return re.sub(rb"[^\n]", b" ", text)


def added_part(old: str, new: str) -> str:
    """`new` with the elements `old` shipped blanked (lines kept): what the release adds (all
    of `new` when either cannot be read: the reader then says why)."""
    try:
        before, after = migration_list(old), migration_list(new)
    except Unreadable:
        return new
    if before is None or after is None:
        return new
    shipped = {element.key for element in before.elements}
    data = bytearray(new.encode("utf-8", "surrogatepass"))
    for element in after.elements:
        if element.key in shipped:
            data[element.start : element.end] = _blank(bytes(data[element.start : element.end]))
    return data.decode("utf-8", "surrogatepass")


def edited_line(old: str, new: str, first_change: Callable[[str, str], int]) -> int | None:
    """The first line of a shipped element the release changed (`first_change`: the 1-based
    line of an element's text where it first differs) or removed (the list's closing line),
    1 when the list itself is gone or cannot be read; None when every shipped one is as it
    shipped."""
    try:
        before, after = migration_list(old), migration_list(new)
    except Unreadable:
        return 1
    if before is None:
        return None if after is None else 1
    if after is None:
        return 1
    now = {element.key: element for element in after.elements}
    changed = []
    for element in before.elements:
        kept = now.get(element.key)
        if kept is None:  # removed: where the list now ends
            changed.append(after.end)
        elif not kept.same(element):
            changed.append(kept.line - 1 + first_change(element.text, kept.text))
    return min(changed, default=None)
