"""The interpreter of a knex migration file: tree-sitter's syntax tree of a `.ts` / `.js` file,
run far enough to know which SQL knex sends.

Module constants, template literals, concatenation, array helpers, local functions and
callbacks are evaluated; calls on the knex objects (`schema_builder`) compile to SQL. Whatever
depends on run time (query results, imported values, unknown helpers) becomes a statement
without SQL and with the reason. Statements that run only under a condition (a `hasTable` /
`hasColumn` guard, an `if`, a loop over values only known at run time) are emitted as if they
run, with the condition in `reason`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from tree_sitter import Node

from release_safety.code.jsvalues import (
    UNDEFINED,
    Dynamic,
    Unknown,
    binary,
    builtin_call,
    is_plain,
    js_str,
    json_stringify,
    string_method,
    truthy,
    unknown_part,
)
from release_safety.code.parsers import parse as parsed
from release_safety.code.tsnodes import unescape
from release_safety.surfaces.migrations.frameworks.knex.schema_builder import (
    ColumnProxy,
    Fn,
    ForeignProxy,
    Guard,
    Knex,
    QueryBuilder,
    Runnable,
    SchemaBuilder,
    TableProxy,
)
from release_safety.surfaces.migrations.frameworks.knex.sql import Out
from release_safety.surfaces.migrations.sql.statements import Statement

ReadModule = Callable[[str], "str | None"]


class Exports(Protocol):
    """Where the interpreter finds what another file exports (`modules.Modules`)."""

    def exports_of(self, origin: str) -> dict[str, object] | None: ...


MAX_STEPS = 200_000


MAX_UNROLL = 1_000


MAX_DEPTH = 40


def parse(text: str, path: str) -> tuple[bytes, Node]:
    dialect = "js" if path.endswith((".js", ".cjs", ".mjs", ".jsx")) else "ts"
    source = text.encode("utf-8", "surrogatepass")
    return source, parsed(dialect, source)


class TooManySteps(Exception):
    """The evaluation took more steps than MAX_STEPS."""


class _Return(Exception):
    def __init__(self, value: object) -> None:
        super().__init__("return")
        self.value = value


@dataclass
class Scope:
    """Variables of a module, function or block."""

    parent: Scope | None = None
    names: dict[str, object] = field(default_factory=dict)

    def lookup(self, name: str) -> object:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return _GLOBALS.get(name, Unknown(f"'{name}' is not defined in this file"))

    def lookup_local(self, name: str) -> object:
        return self.names.get(name, UNDEFINED)

    def assign(self, name: str, value: object) -> None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                scope.names[name] = value
                return
            scope = scope.parent
        self.names[name] = value


@dataclass(eq=False)
class Closure:
    """A function of the migration file with the scope it was defined in."""

    node: Node
    scope: Scope


@dataclass(frozen=True)
class Builtin:
    """A global the interpreter models (Promise, JSON, Object, String, ...)."""

    name: str


# The knex objects a call can be made on: the instance, knex.fn and the builders.
_KNEX_OBJECTS = (Knex, Fn, SchemaBuilder, QueryBuilder, TableProxy, ColumnProxy, ForeignProxy)
_EVALUATORS = frozenset({"eval", "Function", "globalThis.eval", "window.eval"})
"""What runs text as code: whatever it holds may call knex (the migration's `knex` is in reach)."""


_GLOBALS: dict[str, object] = {
    name: Builtin(name)
    for name in ("Promise", "JSON", "Object", "String", "Number", "Array", "console", "Boolean")
}


_GLOBALS["undefined"] = UNDEFINED


class Interpreter:
    """Runs the parts of a migration file that decide which SQL knex sends."""

    def __init__(self, source: bytes, modules: Exports) -> None:
        self.source = source
        self.modules = modules
        self.module = Scope()
        self.exports: dict[str, object] = {}
        self.statements: list[Statement] = []
        self.notes: list[str] = []
        self.line = 1
        self.literal_line: int | None = None
        self.transactional = True
        self.steps = 0
        self.depth = 0

    # -- helpers --------------------------------------------------------------------------

    def text(self, node: Node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def snippet(self, node: Node) -> str:
        text = " ".join(self.text(node).split())
        return text if len(text) <= 80 else text[:77] + "..."

    def emit(self, outs: list[Out]) -> None:
        note = "; ".join(self.notes) if self.notes else None
        for out in outs:
            if out.sql is None:
                reason = out.reason if note is None else f"{out.reason}; {note}"
                self.statements.append(Statement(None, out.line, reason))
            else:
                self.statements.append(Statement(out.sql, out.line, note))

    def execute(self, value: object) -> object:
        """Await a value: a builder runs its statements (once)."""
        if isinstance(value, Runnable):
            self.emit(value.run())
            return Unknown("the result of a query")
        return value

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise TooManySteps

    # -- module ---------------------------------------------------------------------------

    def run_module(self, root: Node) -> None:
        self._hoist(root, self.module)
        for child in root.named_children:
            self.module_statement(child)

    def module_statement(self, node: Node) -> None:
        if node.type == "export_statement":
            declaration = node.child_by_field_name("declaration")
            value = node.child_by_field_name("value")
            if declaration is not None:
                self.statement(declaration, self.module)
                for name in self._declared_names(declaration):
                    self.exports[name] = self.module.lookup(name)
            elif value is not None:
                exported = self.eval(value, self.module)
                if isinstance(exported, dict):
                    self.exports.update(exported)
            else:
                self._export_clause(node)
        elif node.type == "import_statement":
            self._import(node)
        elif node.type == "expression_statement":
            expression = node.named_children[0] if node.named_children else None
            if expression is not None and expression.type == "assignment_expression":
                self._module_assignment(expression)
        else:
            self.statement(node, self.module)

    def _export_clause(self, node: Node) -> None:
        for spec in _descendants(node, "export_specifier"):
            name = spec.child_by_field_name("name")
            alias = spec.child_by_field_name("alias")
            if name is not None:
                exported = self.text(alias if alias is not None else name)
                self.exports[exported] = self.module.lookup(self.text(name))

    def _import(self, node: Node) -> None:
        source = node.child_by_field_name("source")
        if source is None or any(c.type == "type" for c in node.children):
            return
        origin = unescape(self.text(source)[1:-1])
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        for child in clause.named_children if clause is not None else []:
            if child.type == "identifier":
                self._bind_import(self.text(child), origin, "default")
            elif child.type == "namespace_import" and child.named_children:
                self._bind_import(self.text(child.named_children[-1]), origin, None)
            elif child.type == "named_imports":
                for spec in child.named_children:
                    name = spec.child_by_field_name("name")
                    alias = spec.child_by_field_name("alias")
                    if spec.type == "import_specifier" and name is not None:
                        local = self.text(alias if alias is not None else name)
                        self._bind_import(local, origin, self.text(name))

    def _bind_import(self, local: str, origin: str, exported: str | None) -> None:
        exports = self.modules.exports_of(origin)
        code = origin if origin.startswith(".") else None
        if exports is None:
            value: object = Unknown(f"'{local}' is imported from '{origin}'", code)
        elif exported is None:  # a namespace: its functions and classes keep their origin
            value = {k: _of(v, code) for k, v in exports.items()}
        else:
            missing = Unknown(f"'{local}' is not a constant of '{origin}'")
            value = _of(exports.get(exported, missing), code)  # a function or class of it
        self.module.names[local] = value

    def _module_assignment(self, node: Node) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None or right is None:
            return
        target = self.text(left).replace(" ", "")
        if target in ("module.exports", "exports"):
            value = self.eval(right, self.module)
            if isinstance(value, dict):
                self.exports.update(value)
            return
        for prefix in ("module.exports.", "exports."):
            if target.startswith(prefix):
                self.exports[target[len(prefix) :]] = self.eval(right, self.module)
                return
        self.eval(node, self.module)

    def _declared_names(self, node: Node) -> list[str]:
        if node.type in ("lexical_declaration", "variable_declaration"):
            names = []
            for declarator in node.named_children:
                name = declarator.child_by_field_name("name")
                if name is not None and name.type == "identifier":
                    names.append(self.text(name))
            return names
        name = node.child_by_field_name("name")
        return [self.text(name)] if name is not None else []

    def _hoist(self, block: Node, scope: Scope) -> None:
        for child in block.named_children:
            target = (
                child.child_by_field_name("declaration")
                if child.type == "export_statement"
                else child
            )
            if target is not None and target.type in (
                "function_declaration",
                "generator_function_declaration",
            ):
                name = target.child_by_field_name("name")
                if name is not None:
                    scope.names[self.text(name)] = Closure(target, scope)

    # -- statements -----------------------------------------------------------------------

    def block(self, node: Node, scope: Scope) -> None:
        inner = Scope(scope)
        self._hoist(node, inner)
        for child in node.named_children:
            self.statement(child, inner)

    def statement(self, node: Node, scope: Scope) -> None:
        self.step()
        kind = node.type
        if kind == "expression_statement":
            for child in node.named_children:
                self.execute(self.eval(child, scope))
        elif kind in ("lexical_declaration", "variable_declaration"):
            for declarator in node.named_children:
                if declarator.type == "variable_declarator":
                    self._declare(declarator, scope)
        elif kind == "statement_block":
            self.block(node, scope)
        elif kind == "else_clause":
            self._statements(node.named_children, scope)
        elif kind == "return_statement":
            value = self.eval(node.named_children[0], scope) if node.named_children else UNDEFINED
            raise _Return(self.execute(value))
        elif kind == "throw_statement":
            raise _Return(UNDEFINED)
        elif kind == "if_statement":
            self._if(node, scope)
        elif kind == "for_in_statement":
            self._for_in(node, scope)
        elif kind in ("for_statement", "while_statement", "do_statement"):
            self._loop(node, scope)
        elif kind == "try_statement":
            self._try(node, scope)
        elif kind == "switch_statement":
            self._switch(node, scope)
        elif kind == "enum_declaration":
            self._enum(node, scope)
        elif kind in ("function_declaration", "generator_function_declaration"):
            name = node.child_by_field_name("name")
            if name is not None:
                scope.names[self.text(name)] = Closure(node, scope)
        elif kind == "labeled_statement":
            body = node.child_by_field_name("body")
            if body is not None:
                self.statement(body, scope)

    def _declare(self, declarator: Node, scope: Scope) -> None:
        name = declarator.child_by_field_name("name")
        value_node = declarator.child_by_field_name("value")
        value = self.eval(value_node, scope) if value_node is not None else UNDEFINED
        if name is not None:
            self.bind(name, value, scope)

    def bind(self, pattern: Node, value: object, scope: Scope) -> None:
        """Bind a declaration or parameter pattern (identifier, destructuring, default)."""
        kind = pattern.type
        if kind in ("identifier", "shorthand_property_identifier_pattern", "this"):
            scope.names[self.text(pattern)] = value
        elif kind in ("required_parameter", "optional_parameter"):
            inner = pattern.child_by_field_name("pattern")
            default = pattern.child_by_field_name("value")
            if default is not None and value is UNDEFINED:
                value = self.eval(default, scope)
            if inner is not None:
                self.bind(inner, value, scope)
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            left = pattern.child_by_field_name("left")
            right = pattern.child_by_field_name("right")
            if value is UNDEFINED and right is not None:
                value = self.eval(right, scope)
            if left is not None:
                self.bind(left, value, scope)
        elif kind == "object_pattern":
            for child in pattern.named_children:
                self._bind_property(child, value, scope)
        elif kind == "array_pattern":
            for index, child in enumerate(pattern.named_children):
                item = value[index] if isinstance(value, list) and index < len(value) else None
                self.bind(child, item if item is not None else unknown_part(value), scope)
        elif kind == "rest_pattern":
            for child in pattern.named_children:
                self.bind(child, unknown_part(value), scope)

    def _part(self, value: object, key: str, node: Node) -> object:
        """`key` taken out of `value` by destructuring: a knex object's member as `.key`
        reads it (a method taken out of its builder is not followed: unknown SQL)."""
        if isinstance(value, dict):
            return value.get(key, UNDEFINED)
        if isinstance(value, _KNEX_OBJECTS):
            part = self.member(value, key, node)
            if isinstance(part, Unknown):
                self.line = node.start_point[0] + 1
                return self._dynamic(f"`{key}` is taken out of a knex object and not followed")
            return part
        return unknown_part(value)

    def _bind_property(self, child: Node, value: object, scope: Scope) -> None:
        if child.type == "shorthand_property_identifier_pattern":
            key = self.text(child)
            scope.names[key] = self._part(value, key, child)
        elif child.type == "pair_pattern":
            key_node = child.child_by_field_name("key")
            target = child.child_by_field_name("value")
            key = self._property_key(key_node, scope) if key_node is not None else ""
            item = self._part(value, key, child)
            if target is not None:
                self.bind(target, item, scope)
        elif child.type == "object_assignment_pattern":
            left = child.child_by_field_name("left")
            right = child.child_by_field_name("right")
            if left is not None:
                key = self.text(left)
                item = self._part(value, key, child)
                if item is UNDEFINED and right is not None:
                    item = self.eval(right, scope)
                self.bind(left, item, scope)
        else:
            self.bind(child, unknown_part(value), scope)

    def _noted(self, note: str, run: object) -> None:
        """Run `run()` with a note on its statements; a `return` inside ends only this branch."""
        self.notes.append(note)
        try:
            assert callable(run)
            run()
        except _Return:
            pass
        finally:
            self.notes.pop()

    def _if(self, node: Node, scope: Scope) -> None:
        condition = node.child_by_field_name("condition")
        consequence = node.child_by_field_name("consequence")
        alternative = node.child_by_field_name("alternative")
        value = self.eval(condition, scope) if condition is not None else UNDEFINED
        if isinstance(value, bool):
            chosen = consequence if value else alternative
            if chosen is not None:
                self.statement(chosen, scope)
            return
        shown = self.snippet(condition) if condition is not None else "?"
        if isinstance(value, Guard):
            note = f"guarded by {value.text}; assumed to run"
        else:
            note = f"runs only if {shown}"
        if consequence is not None:
            self._noted(note, lambda: self.statement(consequence, scope))
        if alternative is not None:
            self._noted(f"runs only if not {shown}", lambda: self.statement(alternative, scope))

    def _for_in(self, node: Node, scope: Scope) -> None:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        body = node.child_by_field_name("body")
        operator = node.child_by_field_name("operator")
        if left is None or right is None or body is None:
            return
        iterable = self.eval(right, scope)
        of = operator is None or self.text(operator) == "of"
        items: object = iterable
        if isinstance(iterable, dict):
            items = list(iterable.keys()) if not of else Unknown("iterating an object")
        if isinstance(items, list) and len(items) <= MAX_UNROLL:
            for item in items:
                inner = Scope(scope)
                self.bind(left, item, inner)
                try:
                    self.statement(body, inner)
                except _Return:
                    return
            return
        inner = Scope(scope)
        self.bind(left, Unknown(f"an item of {self.snippet(right)}"), inner)
        note = f"inside a loop over {self.snippet(right)}; runs once per item"
        self._noted(note, lambda: self.statement(body, inner))

    def _loop(self, node: Node, scope: Scope) -> None:
        inner = Scope(scope)
        initializer = node.child_by_field_name("initializer")
        if initializer is not None:
            self.statement(initializer, inner)
            for name in inner.names:
                inner.names[name] = Unknown(f"loop variable '{name}'")
        body = node.child_by_field_name("body")
        if body is not None:
            self._noted(
                "inside a loop; runs once per iteration", lambda: self.statement(body, inner)
            )

    def _try(self, node: Node, scope: Scope) -> None:
        body = node.child_by_field_name("body")
        handler = node.child_by_field_name("handler")
        finalizer = node.child_by_field_name("finalizer")
        if body is not None:
            self.statement(body, scope)
        if handler is not None:
            catch_body = handler.child_by_field_name("body")
            if catch_body is not None:
                self._noted(
                    "runs only if an earlier statement fails",
                    lambda: self.statement(catch_body, scope),
                )
        if finalizer is not None:
            final_body = finalizer.child_by_field_name("body")
            if final_body is not None:
                self.statement(final_body, scope)

    def _switch(self, node: Node, scope: Scope) -> None:
        body = node.child_by_field_name("body")
        value = node.child_by_field_name("value")
        shown = self.snippet(value) if value is not None else "?"
        for case in body.named_children if body is not None else []:
            statements = [c for c in case.named_children if c != case.child_by_field_name("value")]
            note = f"runs only for one case of switch {shown}"
            self._noted(note, lambda s=statements: self._statements(s, scope))

    def _statements(self, nodes: list[Node], scope: Scope) -> None:
        for node in nodes:
            self.statement(node, scope)

    def _enum(self, node: Node, scope: Scope) -> None:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        members: dict[str, object] = {}
        counter = 0
        for member in body.named_children if body is not None else []:
            if member.type == "enum_assignment":
                key_node = member.child_by_field_name("name")
                value_node = member.child_by_field_name("value")
                key = self._property_key(key_node, scope) if key_node is not None else ""
                value = self.eval(value_node, scope) if value_node is not None else counter
                members[key] = value
                counter = value + 1 if isinstance(value, int) else counter
            elif member.type in ("property_identifier", "string"):
                members[self._property_key(member, scope)] = counter
                counter += 1
        if name is not None:
            scope.names[self.text(name)] = members

    # -- expressions ----------------------------------------------------------------------

    def eval(self, node: Node, scope: Scope) -> object:
        self.step()
        kind = node.type
        handler = _EXPRESSIONS.get(kind)
        if handler is not None:
            return handler(self, node, scope)
        if kind in _TRANSPARENT:
            inner = node.named_children[0] if node.named_children else None
            return self.eval(inner, scope) if inner is not None else UNDEFINED
        return Unknown(f"{kind} is not evaluated")

    def _string(self, node: Node, scope: Scope) -> object:
        return unescape(self.text(node)[1:-1])

    def _template(self, node: Node, scope: Scope) -> object:
        parts: list[str] = []
        position = node.start_byte + 1
        for child in node.named_children:
            if child.type != "template_substitution":
                continue
            parts.append(
                unescape(self.source[position : child.start_byte].decode("utf-8", "replace"))
            )
            inner = child.named_children[0] if child.named_children else None
            value = self.eval(inner, scope) if inner is not None else UNDEFINED
            if isinstance(value, Unknown):
                return Unknown(f"template part ${{{self.snippet(inner or child)}}}: {value.reason}")
            try:
                parts.append(js_str(value))
            except Dynamic as exc:
                return Unknown(f"template part ${{{self.snippet(inner or child)}}}: {exc.reason}")
            position = child.end_byte
        parts.append(unescape(self.source[position : node.end_byte - 1].decode("utf-8", "replace")))
        return "".join(parts)

    def _number(self, node: Node, scope: Scope) -> object:
        text = self.text(node).replace("_", "").lower()
        try:
            if text.startswith(("0x", "0o", "0b")):
                return int(text, 0)
            number = float(text.rstrip("n"))
        except ValueError:
            return Unknown(f"number {text}")
        return (
            int(number) if number.is_integer() and "." not in text and "e" not in text else number
        )

    def _identifier(self, node: Node, scope: Scope) -> object:
        return scope.lookup(self.text(node))

    def _array(self, node: Node, scope: Scope) -> object:
        items: list[object] = []
        for child in node.named_children:
            if child.type == "spread_element":
                spread = self.eval(child.named_children[0], scope)
                if not isinstance(spread, list):
                    return Unknown(f"spread of {self.snippet(child)}")
                items.extend(spread)
            elif child.type != "comment":
                items.append(self.eval(child, scope))
        return items

    def _object(self, node: Node, scope: Scope) -> object:
        result: dict[str, object] = {}
        for child in node.named_children:
            if child.type == "pair":
                key_node = child.child_by_field_name("key")
                value_node = child.child_by_field_name("value")
                if key_node is None or value_node is None:
                    continue
                key = self._property_key(key_node, scope)
                if isinstance(key, Unknown):
                    return Unknown(f"computed key {self.snippet(key_node)}")
                result[key] = self.eval(value_node, scope)
            elif child.type == "shorthand_property_identifier":
                result[self.text(child)] = scope.lookup(self.text(child))
            elif child.type == "method_definition":
                name = child.child_by_field_name("name")
                if name is not None:
                    result[self.text(name)] = Closure(child, scope)
            elif child.type == "spread_element":
                spread = self.eval(child.named_children[0], scope)
                if not isinstance(spread, dict):
                    return Unknown(f"spread of {self.snippet(child)}")
                result.update(spread)
        return result

    def _property_key(self, node: Node, scope: Scope) -> str:
        if node.type == "string":
            value = self._string(node, scope)
            assert isinstance(value, str)
            return value
        if node.type == "computed_property_name":
            inner = node.named_children[0] if node.named_children else None
            value = self.eval(inner, scope) if inner is not None else UNDEFINED
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                return js_str(value)
            raise Dynamic(f"computed key {self.snippet(node)}")
        return self.text(node)

    def _object_safe(self, node: Node, scope: Scope) -> object:
        try:
            return self._object(node, scope)
        except Dynamic as exc:
            return Unknown(exc.reason)

    def _function(self, node: Node, scope: Scope) -> object:
        return Closure(node, scope)

    def _await(self, node: Node, scope: Scope) -> object:
        inner = node.named_children[0] if node.named_children else None
        if inner is None:
            return UNDEFINED
        value = self.execute(self.eval(inner, scope))
        if isinstance(value, Unknown) and value.origin and inner.type in _CALLS:
            reason = (
                f"dynamic SQL: awaits {self.snippet(_callee(inner))}, code of '{value.origin}'"
                " that is not followed: it may run SQL on a connection of its own"
            )
            self.statements.append(Statement(None, self.line, reason))
        return value

    def _new(self, node: Node, scope: Scope) -> object:
        """`new X(...)` of a class not defined in this file: an opaque call."""
        constructor = _callee(node)
        arguments = node.child_by_field_name("arguments")
        callee = self.eval(constructor, scope)
        args = self._arguments(arguments, scope) if arguments is not None else []
        self.line = constructor.start_point[0] + 1
        if self.snippet(constructor) in _EVALUATORS:
            return self._dynamic("new Function() runs code built at run time, with knex in reach")
        return self._opaque_call(f"new {self.snippet(constructor)}", args, callee)

    def _binary(self, node: Node, scope: Scope) -> object:
        left_node = node.child_by_field_name("left")
        right_node = node.child_by_field_name("right")
        operator_node = node.child_by_field_name("operator")
        if left_node is None or right_node is None or operator_node is None:
            return Unknown("incomplete expression")
        operator = self.text(operator_node)
        left = self.eval(left_node, scope)
        if operator in ("&&", "||", "??"):
            return self._logical(operator, left, right_node, scope)
        right = self.eval(right_node, scope)
        if isinstance(left, Unknown):
            return left
        if isinstance(right, Unknown):
            return right
        try:
            return binary(operator, left, right)
        except (Dynamic, TypeError, ValueError, ZeroDivisionError, OverflowError):
            return Unknown(f"value of {self.snippet(node)}")

    def _logical(self, operator: str, left: object, right_node: Node, scope: Scope) -> object:
        if isinstance(left, Unknown | Guard) or not is_plain(left):
            self.eval(right_node, scope)
            return left if isinstance(left, Guard) else Unknown("a run-time condition")
        if operator == "&&":
            return self.eval(right_node, scope) if truthy(left) else left
        if operator == "||":
            return left if truthy(left) else self.eval(right_node, scope)
        return self.eval(right_node, scope) if left is None or left is UNDEFINED else left

    def _unary(self, node: Node, scope: Scope) -> object:
        argument = node.child_by_field_name("argument")
        operator = node.child_by_field_name("operator")
        value = self.eval(argument, scope) if argument is not None else UNDEFINED
        op = self.text(operator) if operator is not None else ""
        if isinstance(value, Guard):
            return value
        if op == "!" and is_plain(value):
            return not truthy(value)
        if op == "-" and isinstance(value, int | float) and not isinstance(value, bool):
            return -value
        if op == "typeof" and isinstance(value, str):
            return "string"
        return Unknown(f"value of {self.snippet(node)}")

    def _ternary(self, node: Node, scope: Scope) -> object:
        """The chosen branch; on a condition known only at run time, each branch runs under
        a note (as `if` does: what either may send is judged) and the value is unknown."""
        condition = node.child_by_field_name("condition")
        value = self.eval(condition, scope) if condition is not None else UNDEFINED
        chosen = "consequence" if truthy(value) else "alternative"
        if is_plain(value):
            branch = node.child_by_field_name(chosen)
            return self.eval(branch, scope) if branch is not None else UNDEFINED
        shown = self.snippet(condition) if condition is not None else "?"
        for side, note in (("consequence", "runs only if"), ("alternative", "runs only if not")):
            branch = node.child_by_field_name(side)
            if branch is not None:
                self._noted(f"{note} {shown}", lambda b=branch: self.execute(self.eval(b, scope)))
        return Unknown(f"value of {self.snippet(node)}")

    def _assign(self, node: Node, scope: Scope) -> object:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        value = self.eval(right, scope) if right is not None else UNDEFINED
        if left is not None and left.type == "identifier":
            if node.type == "augmented_assignment_expression":
                operator = node.child_by_field_name("operator")
                current = scope.lookup(self.text(left))
                op = self.text(operator)[:-1] if operator is not None else "+"
                try:
                    value = (
                        current
                        if isinstance(current, Unknown)
                        else value
                        if isinstance(value, Unknown)
                        else binary(op, current, value)
                    )
                except (Dynamic, TypeError, ValueError, ZeroDivisionError):
                    value = Unknown(f"value of {self.snippet(node)}")
            scope.assign(self.text(left), value)
        elif left is not None and left.type == "member_expression":
            target = self.eval(left.child_by_field_name("object") or left, scope)
            prop = left.child_by_field_name("property")
            if isinstance(target, dict) and prop is not None:
                target[self.text(prop)] = value
        return value

    def _sequence(self, node: Node, scope: Scope) -> object:
        value: object = UNDEFINED
        for child in node.named_children:
            value = self.eval(child, scope)
        return value

    def _member(self, node: Node, scope: Scope) -> object:
        obj_node = node.child_by_field_name("object")
        prop_node = node.child_by_field_name("property")
        if obj_node is None or prop_node is None:
            return Unknown("incomplete member expression")
        obj = self.eval(obj_node, scope)
        return self.member(obj, self.text(prop_node), node)

    def _dynamic(self, reason: str) -> Unknown:
        """A statement knex sends that cannot be followed: unknown, never nothing."""
        self.statements.append(Statement(None, self.line, f"dynamic SQL: {reason}"))
        return Unknown(reason)

    def member(self, obj: object, name: str, node: Node) -> object:
        if isinstance(obj, dict):
            return obj.get(name, UNDEFINED)
        if isinstance(obj, list | str) and name == "length":
            return len(obj)
        if isinstance(obj, Knex):
            return obj.get(name)
        if isinstance(obj, Unknown):
            return obj
        return Unknown(f"{self.snippet(node)} is not known statically")

    def _subscript(self, node: Node, scope: Scope) -> object:
        obj_node = node.child_by_field_name("object")
        index_node = node.child_by_field_name("index")
        if obj_node is None or index_node is None:
            return Unknown("incomplete subscript")
        obj = self.eval(obj_node, scope)
        index = self.eval(index_node, scope)
        if isinstance(obj, _KNEX_OBJECTS):
            if isinstance(index, str):
                return self.member(obj, index, node)
            self.line = node.start_point[0] + 1
            return self._dynamic(f"{self.snippet(node)} names a knex member at run time")
        if isinstance(obj, list) and isinstance(index, int) and not isinstance(index, bool):
            return obj[index] if 0 <= index < len(obj) else UNDEFINED
        if isinstance(obj, dict) and isinstance(index, str | int) and not isinstance(index, bool):
            return obj.get(js_str(index), UNDEFINED)
        return Unknown(f"{self.snippet(node)} is not known statically")

    def _call(self, node: Node, scope: Scope) -> object:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None or arguments.type != "arguments":
            return Unknown("a tagged template or incomplete call")
        if function.type == "member_expression":
            obj_node = function.child_by_field_name("object")
            prop = function.child_by_field_name("property")
            if obj_node is None or prop is None:
                return Unknown("incomplete call")
            receiver = self.eval(obj_node, scope)
            args = self._arguments(arguments, scope)
            self.line = prop.start_point[0] + 1
            return self.call_method(receiver, self.text(prop), args, arguments)
        if function.type == "subscript_expression":  # `knex.schema['dropTable'](...)`
            obj_node = function.child_by_field_name("object")
            index_node = function.child_by_field_name("index")
            receiver = self.eval(obj_node, scope) if obj_node is not None else UNDEFINED
            if isinstance(receiver, _KNEX_OBJECTS) and index_node is not None:
                name = self.eval(index_node, scope)
                args = self._arguments(arguments, scope)
                self.line = function.start_point[0] + 1
                if isinstance(name, str):
                    return self.call_method(receiver, name, args, arguments)
                return self._dynamic(
                    f"{self.snippet(function)} calls a knex method chosen at run time"
                )
        callee = self.eval(function, scope)
        args = self._arguments(arguments, scope)
        self.line = function.start_point[0] + 1
        return self.call_value(callee, args, self.snippet(function))

    def _arguments(self, node: Node, scope: Scope) -> list[object]:
        args: list[object] = []
        for child in node.named_children:
            if child.type == "comment":
                continue
            if child.type == "spread_element":
                spread = self.eval(child.named_children[0], scope)
                args.extend(spread if isinstance(spread, list) else [spread])
            else:
                args.append(self.eval(child, scope))
        self.literal_line = (
            node.named_children[0].start_point[0] + 1
            if node.named_children and node.named_children[0].type in ("string", "template_string")
            else None
        )
        return args

    # -- calls ----------------------------------------------------------------------------

    def invoke(self, function: object, args: list[object]) -> object:
        """Call a function of the file (a callback, a helper, `up`)."""
        if isinstance(function, Builtin):
            return self.call_value(function, args, function.name)
        if not isinstance(function, Closure):
            return Unknown("a function not defined in this file")
        if self.depth >= MAX_DEPTH:
            raise TooManySteps
        node = function.node
        scope = Scope(function.scope)
        params = node.child_by_field_name("parameters")
        single = node.child_by_field_name("parameter")
        patterns = [single] if single is not None else (params.named_children if params else [])
        patterns = [p for p in patterns if p.type != "comment"]
        if node.type != "arrow_function":
            scope.names["this"] = args[0] if args else UNDEFINED
        for index, pattern in enumerate(patterns):
            if pattern.type == "rest_pattern":
                self.bind(pattern.named_children[0], args[index:], scope)
            else:
                self.bind(pattern, args[index] if index < len(args) else UNDEFINED, scope)
        body = node.child_by_field_name("body")
        if body is None:
            return UNDEFINED
        self.depth += 1
        try:
            if body.type == "statement_block":
                self._hoist(body, scope)
                for child in body.named_children:
                    self.statement(child, scope)
                return UNDEFINED
            return self.eval(body, scope)
        except _Return as returned:
            return returned.value
        finally:
            self.depth -= 1

    def call_method(self, receiver: object, name: str, args: list[object], node: Node) -> object:
        if name == "then" and isinstance(receiver, Runnable | Guard):
            result = self.execute(receiver) if isinstance(receiver, Runnable) else receiver
            return self.execute(self.invoke(args[0], [result])) if args else result
        if name in ("catch", "finally") and isinstance(receiver, Runnable | Guard):
            return receiver
        if isinstance(receiver, Knex) and name == "transaction" and args:
            return self._transaction(args[0])
        if isinstance(receiver, _KNEX_OBJECTS):
            try:
                return receiver.call(name, args, self)
            except Dynamic as exc:
                self.statements.append(Statement(None, self.line, f"dynamic SQL: {exc.reason}"))
                return Unknown(exc.reason)
        if isinstance(receiver, Builtin):
            return _builtin_method(self, receiver.name, name, args)
        if isinstance(receiver, list):
            return self._list_method(receiver, name, args)
        if isinstance(receiver, str):
            return string_method(receiver, name, args)
        if isinstance(receiver, dict) and isinstance(receiver.get(name), Closure):
            return self.invoke(receiver[name], args)
        if isinstance(receiver, dict) and isinstance(receiver.get(name), Unknown):
            return self._opaque_call(f".{name}()", args, receiver[name])
        return self._opaque_call(f".{name}()", args, receiver)

    def _transaction(self, callback: object) -> object:
        """`knex.transaction(async (trx) => ...)`: in a migration that runs without a
        transaction, an explicit one (BEGIN ... COMMIT); inside the migration's own
        transaction, a savepoint that changes nothing for locks."""
        line = self.line
        if not self.transactional:
            self.statements.append(Statement("BEGIN", line, None))
        result = self.execute(self.invoke(callback, [Knex()]))
        if not self.transactional:
            self.statements.append(Statement("COMMIT", line, None))
        return result

    def call_value(self, callee: object, args: list[object], shown: str) -> object:
        if isinstance(callee, Closure):
            return self.invoke(callee, args)
        if isinstance(callee, Knex):
            return callee.call_self(args, self)
        if isinstance(callee, Builtin):
            return builtin_call(callee.name, args)
        if shown in _EVALUATORS:
            return self._dynamic(f"{shown}() runs code built at run time, with knex in reach")
        if shown == "require" and args and isinstance(args[0], str):
            exports = self.modules.exports_of(args[0])
            if exports is None:
                code = args[0] if args[0].startswith(".") else None
                return Unknown(f"a value imported from '{args[0]}'", code)
            return exports.get("default", exports)
        return self._opaque_call(shown, args, callee)

    def _opaque_call(self, shown: str, args: list[object], receiver: object) -> object:
        """A call whose target is not in this file: knex handed to it is a dynamic statement;
        callbacks handed to it are run once, as they may run. A result of repository code
        keeps its origin, unless knex was handed to it (that statement is already unknown)."""
        handed = any(_holds_knex(a) for a in args)
        if handed:
            reason = f"dynamic SQL: knex is passed to {shown}, which is not defined in this file"
            self.statements.append(Statement(None, self.line, reason))
        for arg in args:
            if isinstance(arg, Closure):
                note = f"inside a callback given to {shown}; runs as often as it is called"
                self._noted(
                    note, lambda a=arg: self.execute(self.invoke(a, [Unknown("callback argument")]))
                )
        if isinstance(receiver, Unknown):
            origin = None if handed else receiver.origin
            return Unknown(f"result of {shown} on {receiver.reason}", origin)
        return Unknown(f"result of {shown}")

    def _list_method(self, items: list[object], name: str, args: list[object]) -> object:
        callback = args[0] if args else UNDEFINED
        if name in ("map", "forEach", "flatMap", "filter") and isinstance(callback, Closure):
            if len(items) > MAX_UNROLL:
                raise TooManySteps
            results = [
                self.invoke(callback, [item, index, items]) for index, item in enumerate(items)
            ]
            if name == "forEach":
                for result in results:
                    self.execute(result)
                return UNDEFINED
            if name == "filter":
                return Unknown("a filtered list")
            if name == "flatMap":
                return [
                    r
                    for result in results
                    for r in (result if isinstance(result, list) else [result])
                ]
            return results
        if name in ("push", "unshift"):
            if name == "push":
                items.extend(args)
            else:
                items[:0] = args
            return len(items)
        if name == "join":
            separator = js_str(args[0]) if args and args[0] is not UNDEFINED else ","
            try:
                return separator.join(
                    "" if v is None or v is UNDEFINED else js_str(v) for v in items
                )
            except Dynamic as exc:
                return Unknown(exc.reason)
        if name == "concat":
            out = list(items)
            for arg in args:
                out.extend(arg if isinstance(arg, list) else [arg])
            return out
        if name == "includes":
            return args[0] in items if args and is_plain(args[0]) else Unknown("includes")
        if name == "slice":
            start = args[0] if args and isinstance(args[0], int) else 0
            end = args[1] if len(args) > 1 and isinstance(args[1], int) else len(items)
            return items[start:end]
        return self._opaque_call(f".{name}()", args, Unknown("a list"))


def _descendants(node: Node, kind: str) -> list[Node]:
    found: list[Node] = []
    stack = list(node.named_children)
    while stack:
        current = stack.pop()
        if current.type == kind:
            found.append(current)
        else:
            stack.extend(current.named_children)
    return found


def _builtin_method(
    interpreter: Interpreter, namespace: str, name: str, args: list[object]
) -> object:
    first = args[0] if args else UNDEFINED
    if namespace == "Promise" and name in ("all", "allSettled", "race", "any"):
        items = first if isinstance(first, list) else [first]
        return [interpreter.execute(item) for item in items]
    if namespace == "Promise" and name == "resolve":
        return first
    if namespace == "JSON" and name == "stringify":
        try:
            return json_stringify(first)
        except Dynamic as exc:
            return Unknown(exc.reason)
    if namespace == "Object" and isinstance(first, dict):
        if name == "keys":
            return list(first.keys())
        if name == "values":
            return list(first.values())
        if name == "entries":
            return [[k, v] for k, v in first.items()]
    if namespace == "Array" and name == "isArray":
        return isinstance(first, list) if is_plain(first) else Unknown("Array.isArray")
    if namespace == "console":
        return UNDEFINED
    return interpreter._opaque_call(f"{namespace}.{name}()", args, Unknown(namespace))


def _constant(value: object) -> Callable[[Interpreter, Node, Scope], object]:
    return lambda interpreter, node, scope: value


_EXPRESSIONS: dict[str, Callable[[Interpreter, Node, Scope], object]] = {
    "string": Interpreter._string,
    "template_string": Interpreter._template,
    "number": Interpreter._number,
    "true": _constant(True),
    "false": _constant(False),
    "null": _constant(None),
    "undefined": _constant(UNDEFINED),
    "identifier": Interpreter._identifier,
    "this": Interpreter._identifier,
    "array": Interpreter._array,
    "object": Interpreter._object_safe,
    "arrow_function": Interpreter._function,
    "function_expression": Interpreter._function,
    "function": Interpreter._function,
    "generator_function": Interpreter._function,
    "await_expression": Interpreter._await,
    "binary_expression": Interpreter._binary,
    "unary_expression": Interpreter._unary,
    "ternary_expression": Interpreter._ternary,
    "assignment_expression": Interpreter._assign,
    "augmented_assignment_expression": Interpreter._assign,
    "sequence_expression": Interpreter._sequence,
    "member_expression": Interpreter._member,
    "subscript_expression": Interpreter._subscript,
    "call_expression": Interpreter._call,
    "new_expression": Interpreter._new,
}

_CALLS = frozenset(["call_expression", "new_expression"])


def _of(value: object, origin: str | None) -> object:
    """An imported value; one only known at run time is code of `origin` (when relative)."""
    if isinstance(value, Unknown) and origin is not None:
        return Unknown(value.reason, origin)
    return value


def _callee(node: Node) -> Node:
    """The function a call or `new` expression calls (the node itself when it has none)."""
    return node.child_by_field_name("function") or node.child_by_field_name("constructor") or node


def _holds_knex(value: object, depth: int = 0) -> bool:
    """knex itself or a builder, or one inside an object or list (`{ knex, schema }`)."""
    if isinstance(value, Knex | Runnable):
        return True
    if depth >= 3:
        return False
    if isinstance(value, dict):
        return any(_holds_knex(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_holds_knex(v, depth + 1) for v in value)
    return False


_TRANSPARENT = frozenset(
    [
        "parenthesized_expression",
        "as_expression",
        "satisfies_expression",
        "non_null_expression",
        "type_assertion",
        "expression_statement",
    ]
)
