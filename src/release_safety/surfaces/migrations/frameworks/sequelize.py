"""Sequelize migrations (`migrations/<timestamp>-<name>.js`, as sequelize-cli runs them): the
SQL Sequelize 6's PostgreSQL query interface sends for `up` (never `down`), each statement at
its call's line.

`queryInterface.createTable` / `addColumn` / `removeColumn` / `changeColumn` /
`renameColumn` / `renameTable` / `dropTable` / `addIndex` / `removeIndex` and
`queryInterface.sequelize.query` with a literal, their SQL as Sequelize writes it
(fixtures/frameworks/sequelize, captured from Sequelize itself): `SERIAL` for an auto-increment
key, `VARCHAR(255)` for `STRING`, `TIMESTAMP WITH TIME ZONE` for `DATE`, `changeColumn` as its
NOT NULL, DEFAULT and TYPE changes one after the other, indexes named `<table>_<fields>`.
sequelize-cli runs a migration outside any transaction (each statement commits on its own);
the statements a `queryInterface.sequelize.transaction(async (t) => { ... })` runs are in one.
An `ENUM`, a call into the service's code or a value computed at run time is an unknown
statement naming it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from release_safety.code.jsvalues import Dynamic, Unknown, known
from release_safety.code.parsers import script_dialect
from release_safety.code.syntax import call_arguments, node_text, shown
from release_safety.code.tsnodes import WRAPPERS, key_name, string_value
from release_safety.surfaces.migrations.frameworks.emit import (
    Out,
    parsed,
    quote,
    read_safely,
    scalar,
)
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

FRAMEWORK = "sequelize"
_TYPES = {
    "STRING": "VARCHAR(255)",
    "CHAR": "CHAR(255)",
    "TEXT": "TEXT",
    "CITEXT": "CITEXT",
    "INTEGER": "INTEGER",
    "BIGINT": "BIGINT",
    "SMALLINT": "SMALLINT",
    "FLOAT": "FLOAT",
    "REAL": "REAL",
    "DOUBLE": "DOUBLE PRECISION",
    "DECIMAL": "DECIMAL",
    "BOOLEAN": "BOOLEAN",
    "DATE": "TIMESTAMP WITH TIME ZONE",
    "DATEONLY": "DATE",
    "TIME": "TIME",
    "UUID": "UUID",
    "JSON": "JSON",
    "JSONB": "JSONB",
    "BLOB": "BYTEA",
    "INET": "INET",
}
_SIZED = {"STRING": "VARCHAR", "CHAR": "CHAR"}
_SERIAL = {"INTEGER": "SERIAL", "BIGINT": "BIGSERIAL", "SMALLINT": "SMALLSERIAL"}


@dataclass(frozen=True)
class _Type:
    """`Sequelize.STRING(100)`: a data type and its arguments."""

    name: str
    args: tuple[object, ...] = ()


def extract_sequelize(text: str, path: str) -> Extracted:
    """The statements a Sequelize migration's `up` sends, and whether they run in one
    transaction."""
    return read_safely(FRAMEWORK, lambda: _extract(text, path))


def _extract(text: str, path: str) -> Extracted:
    root = parsed(script_dialect(path), text)
    up = _up_function(root)
    if up is None:
        return Extracted([Statement(None, 1, "sequelize: no up function found")])
    params = up.child_by_field_name("parameters")
    names = [node_text(p) for p in params.named_children] if params is not None else []
    reader = _Reader(Out(FRAMEWORK), names[0] if names else "queryInterface", names[1:2])
    reader.run(up.child_by_field_name("body"))
    return Extracted(reader.out.statements, reader.transactional, reader.transactional)


def _up_function(root: Node) -> Node | None:
    """The `up` of `module.exports = { up(...) {...} }`, `up: async (...) => {...}` or an
    exported `function up`."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "method_definition" and node_text(node.child_by_field_name("name")) == "up":
            return node
        if node.type == "pair" and key_name(node.child_by_field_name("key")) == "up":
            value = node.child_by_field_name("value")
            if value is not None and value.type in (
                "arrow_function",
                "function_expression",
                "function",
            ):
                return value
        if (
            node.type == "function_declaration"
            and node_text(node.child_by_field_name("name")) == "up"
        ):
            return node
        stack.extend(reversed(node.named_children))
    return None


@dataclass
class _Reader:
    out: Out
    interface: str
    types: list[str]
    transactional: bool = False

    def run(self, body: Node | None) -> None:
        if body is None:
            return
        if body.type != "statement_block":  # an arrow function's expression body
            self.statement(body)
            return
        for statement in body.named_children:
            if statement.type not in ("comment", "empty_statement"):
                self.statement(statement)

    def statement(self, node: Node) -> None:
        line = node.start_point.row + 1
        wrapped = node.type in ("expression_statement", "return_statement")
        call = _unwrapped(node.named_children[0] if wrapped and node.named_children else node)
        function = call.child_by_field_name("function") if call is not None else None
        if call is None or call.type != "call_expression" or function is None:
            self.out.unknown(line, f"`{shown(node)}`, not a query interface call")
            return
        name = node_text(function)
        if name == f"{self.interface}.sequelize.transaction":
            self.transaction(call, line)
            return
        if name == f"{self.interface}.sequelize.query":
            written = call_arguments(call)
            sql = string_value(written[0]) if written else None
            self.out.script(line, sql if sql is not None else Unknown(f"`{shown(call)}`"))
            return
        method = name.removeprefix(f"{self.interface}.")
        handler = _HANDLERS.get(method) if name.startswith(f"{self.interface}.") else None
        if handler is None:
            self.out.unknown(line, f"the call `{shown(call)}`, not modelled")
            return
        args = [self.value(a) for a in call_arguments(call)]
        self.out.guarded(line, lambda: handler(self, line, args))

    def transaction(self, call: Node, line: int) -> None:
        """`sequelize.transaction(async (t) => { ... })`: its statements in one transaction."""
        args = call_arguments(call)
        callback = args[-1] if args else None
        if callback is None or callback.type not in ("arrow_function", "function_expression"):
            self.out.unknown(line, f"the transaction `{shown(call)}`, not modelled")
            return
        self.transactional = True
        self.run(callback.child_by_field_name("body"))

    def value(self, node: Node) -> object:
        """A literal, an object or array of them, or a data type (`Sequelize.STRING(100)`)."""
        kind = node.type
        if kind in ("string", "template_string"):
            text = string_value(node)
            return text if text is not None else Unknown(f"`{shown(node)}`")
        if kind == "number":
            number = float(node_text(node).replace("_", ""))
            return int(number) if number.is_integer() else number
        if kind in ("true", "false"):
            return kind == "true"
        if kind == "null":
            return None
        if kind == "unary_expression" and node_text(node).startswith("-"):
            value = self.value(node.named_children[-1])
            return -value if isinstance(value, int | float) else Unknown(f"`{shown(node)}`")
        if kind == "array":
            return [self.value(c) for c in node.named_children if c.type != "comment"]
        if kind == "object":
            found: dict[str, object] = {}
            for pair in node.named_children:
                if pair.type != "pair":
                    return Unknown(f"`{shown(pair)}` in an object")
                found[key_name(pair.child_by_field_name("key"))] = self.value(
                    pair.child_by_field_name("value")  # type: ignore[arg-type]
                )
            return found
        written = self.data_type(node)
        return written if written is not None else Unknown(f"`{shown(node)}`, computed at run time")

    def data_type(self, node: Node) -> _Type | None:
        target = node.child_by_field_name("function") if node.type == "call_expression" else node
        if target is None or target.type != "member_expression":
            return None
        owner = node_text(target.child_by_field_name("object"))
        if owner not in (*self.types, "Sequelize", "DataTypes", "Sequelize.DataTypes"):
            return None
        name = node_text(target.child_by_field_name("property"))
        args = call_arguments(node) if node.type == "call_expression" else []
        return _Type(name, tuple(self.value(a) for a in args))


def _unwrapped(node: Node | None) -> Node | None:
    """An expression without the `await`, parentheses and casts around it."""
    while node is not None and node.type in WRAPPERS:
        node = node.named_children[0] if node.named_children else None
    return node


def _name(value: object) -> str:
    value = known(value)
    if isinstance(value, dict) and "tableName" in value:
        value = value["tableName"]
    if not isinstance(value, str):
        raise Dynamic(f"the name {value!r}, not a string")
    return value


def _type_sql(value: object) -> str:
    value = known(value)
    if not isinstance(value, _Type):
        raise Dynamic(f"the type {value!r}, not a data type")
    if value.name == "ARRAY" and value.args:
        return _type_sql(value.args[0]) + "[]"
    if value.name in _SIZED and value.args:
        return f"{_SIZED[value.name]}({known(value.args[0])})"
    if value.name == "DECIMAL" and value.args:
        return f"DECIMAL({','.join(str(known(a)) for a in value.args)})"
    if value.name not in _TYPES:
        raise Dynamic(f"the data type {value.name}, not modelled")
    return _TYPES[value.name]


def _attribute(column: str, spec: object, create: bool) -> tuple[str, bool]:
    """A column definition as Sequelize writes it, and whether it is a primary key."""
    spec = known(spec)
    options = spec if isinstance(spec, dict) else {"type": spec}
    unmodelled = sorted(
        set(options)
        - {"type", "allowNull", "defaultValue", "unique", "primaryKey", "autoIncrement"}
        - {"comment", "field"}
    )
    if unmodelled:
        raise Dynamic(f"the attribute option {unmodelled[0]}, not modelled")
    sql_type = _type_sql(options.get("type"))
    serial = known(options.get("autoIncrement")) is True
    if serial:
        sql_type = _SERIAL.get(sql_type, sql_type)
    sql = f"{quote(column)} {sql_type}"
    if known(options.get("allowNull", True)) is False and not serial:
        sql += " NOT NULL"
    if "defaultValue" in options:
        default = scalar(known(options["defaultValue"]), ("true", "false"))
        if default is None:
            raise Dynamic(f"the default {options['defaultValue']!r}, not modelled")
        sql += f" DEFAULT {default}"
    if known(options.get("unique")) is True:
        sql += " UNIQUE"
    primary = known(options.get("primaryKey")) is True
    if primary and not create:
        sql += " PRIMARY KEY"
    return sql, primary


def _create_table(reader: _Reader, line: int, args: list[object]) -> None:
    table = _name(args[0])
    attributes = known(args[1]) if len(args) > 1 else {}
    if not isinstance(attributes, dict):
        raise Dynamic("createTable's attributes, not an object")
    columns: list[str] = []
    keys: list[str] = []
    for column, spec in attributes.items():
        sql, primary = _attribute(column, spec, create=True)
        columns.append(sql)
        keys += [column] if primary else []
    if keys:
        columns.append(f"PRIMARY KEY ({', '.join(quote(k) for k in keys)})")
    reader.out.sql(line, f"CREATE TABLE IF NOT EXISTS {quote(table)} ({', '.join(columns)})")


def _add_column(reader: _Reader, line: int, args: list[object]) -> None:
    table, column = _name(args[0]), _name(args[1])
    sql, _ = _attribute(column, args[2] if len(args) > 2 else None, create=False)
    reader.out.sql(line, f'ALTER TABLE "public".{quote(table)} ADD COLUMN {sql}')


def _remove_column(reader: _Reader, line: int, args: list[object]) -> None:
    table, column = _name(args[0]), _name(args[1])
    reader.out.sql(line, f'ALTER TABLE "public".{quote(table)} DROP COLUMN {quote(column)}')


def _change_column(reader: _Reader, line: int, args: list[object]) -> None:
    table, column = quote(_name(args[0])), quote(_name(args[1]))
    spec = known(args[2]) if len(args) > 2 else None
    options = spec if isinstance(spec, dict) else {"type": spec}
    alter = f"ALTER TABLE {table} ALTER COLUMN {column}"
    if "allowNull" in options:
        null = known(options["allowNull"])
        reader.out.sql(line, f"{alter} {'DROP' if null is not False else 'SET'} NOT NULL")
    if "defaultValue" in options:
        default = scalar(known(options["defaultValue"]), ("true", "false"))
        if default is None:
            raise Dynamic(f"the default {options['defaultValue']!r}, not modelled")
        reader.out.sql(line, f"{alter} SET DEFAULT {default}")
    else:
        reader.out.sql(line, f"{alter} DROP DEFAULT")
    reader.out.sql(line, f"{alter} TYPE {_type_sql(options.get('type'))}")


def _rename_column(reader: _Reader, line: int, args: list[object]) -> None:
    table, old, new = (quote(_name(a)) for a in args[:3])
    reader.out.sql(line, f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")


def _rename_table(reader: _Reader, line: int, args: list[object]) -> None:
    old, new = (quote(_name(a)) for a in args[:2])
    reader.out.sql(line, f"ALTER TABLE {old} RENAME TO {new}")


def _drop_table(reader: _Reader, line: int, args: list[object]) -> None:
    options = known(args[1]) if len(args) > 1 else {}
    cascade = " CASCADE" if isinstance(options, dict) and known(options.get("cascade")) else ""
    reader.out.sql(line, f"DROP TABLE IF EXISTS {quote(_name(args[0]))}{cascade}")


def _underscored(text: str) -> str:
    """Sequelize's `underscore` of an index name (`Users_name` gives `users_name`)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", text).lower()


def _add_index(reader: _Reader, line: int, args: list[object]) -> None:
    table = _name(args[0])
    fields = known(args[1]) if len(args) > 1 else None
    options = known(args[2]) if len(args) > 2 else {}
    if isinstance(fields, dict):  # addIndex(table, { fields, ... })
        options, fields = fields, fields.get("fields")
    if not isinstance(fields, list) or not isinstance(options, dict):
        raise Dynamic("addIndex's fields, not a list of names")
    names = [_name(f) for f in fields]
    name = (
        _name(options["name"]) if "name" in options else _underscored(f"{table}_{'_'.join(names)}")
    )
    unique = "UNIQUE " if known(options.get("unique")) else ""
    concurrently = "CONCURRENTLY " if known(options.get("concurrently")) else ""
    columns = ", ".join(quote(n) for n in names)
    reader.out.sql(
        line, f"CREATE {unique}INDEX {concurrently}{quote(name)} ON {quote(table)} ({columns})"
    )


def _remove_index(reader: _Reader, line: int, args: list[object]) -> None:
    table, named = _name(args[0]), known(args[1]) if len(args) > 1 else None
    name = named if isinstance(named, str) else None
    if isinstance(named, list):
        name = _underscored(f"{table}_{'_'.join(_name(f) for f in named)}")
    if name is None:
        raise Dynamic("removeIndex without an index name or fields")
    reader.out.sql(line, f"DROP INDEX IF EXISTS {quote(name)}")


_HANDLERS: dict[str, Callable[[_Reader, int, list[object]], None]] = {
    "createTable": _create_table,
    "addColumn": _add_column,
    "removeColumn": _remove_column,
    "changeColumn": _change_column,
    "renameColumn": _rename_column,
    "renameTable": _rename_table,
    "dropTable": _drop_table,
    "addIndex": _add_index,
    "removeIndex": _remove_index,
}
