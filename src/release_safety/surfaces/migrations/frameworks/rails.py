"""Rails (ActiveRecord) migrations, `db/migrate/<version>_<name>.rb`: the SQL the PostgreSQL
adapter sends for the `change` method (or `up`; never `down`), each statement at its call's line.

Read as ActiveRecord runs them: in a transaction unless the class says
`disable_ddl_transaction!`; `reversible` runs its `up` block; `change_table` runs each of its
block's calls. The SQL is ActiveRecord's own (fixtures/frameworks/rails, captured from
ActiveRecord): `ADD "c" type DEFAULT x NOT NULL` in one statement, `bigserial primary key` ids,
`fk_rails_<digest>` foreign keys, `index_<table>_on_<columns>` indexes. A call it does not model,
a model class, a loop or a condition is an unknown statement naming it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from tree_sitter import Node

from release_safety.code import ruby
from release_safety.code.jsvalues import Dynamic, known
from release_safety.code.literals import Proc, Symbol, name_of
from release_safety.code.syntax import shown
from release_safety.surfaces.migrations.frameworks.emit import (
    Out,
    parsed,
    quote,
    read_safely,
    scalar,
)
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

FRAMEWORK = "rails"

_TYPES = {
    "primary_key": "bigserial primary key",
    "string": "character varying",
    "text": "text",
    "integer": "integer",
    "bigint": "bigint",
    "float": "float",
    "decimal": "decimal",
    "numeric": "numeric",
    "datetime": "timestamp",
    "timestamp": "timestamp",
    "timestamptz": "timestamp with time zone",
    "time": "time",
    "date": "date",
    "binary": "bytea",
    "boolean": "boolean",
    "json": "json",
    "jsonb": "jsonb",
    "uuid": "uuid",
    "inet": "inet",
    "cidr": "cidr",
    "macaddr": "macaddr",
    "citext": "citext",
    "hstore": "hstore",
    "interval": "interval",
    "money": "money",
    "xml": "xml",
    "tsvector": "tsvector",
    "ltree": "ltree",
    "point": "point",
    "daterange": "daterange",
    "numrange": "numrange",
    "tsrange": "tsrange",
    "tstzrange": "tstzrange",
    "int4range": "int4range",
    "int8range": "int8range",
    "bit": "bit",
    "bit_varying": "bit varying",
    "oid": "oid",
    "serial": "serial",
    "bigserial": "bigserial",
}
_INTEGER_LIMITS = {1: "smallint", 2: "smallint", 3: "integer", 4: "integer"}
_COLUMN_OPTIONS = {
    "enum_type",
    "default",
    "null",
    "limit",
    "precision",
    "scale",
    "array",
    "comment",
    "collation",
    "index",
    "foreign_key",
    "if_not_exists",
    "if_exists",
    "first",
    "after",
    "using",
}


def extract_rails(text: str, path: str) -> Extracted:
    """The statements a Rails migration's `change` (or `up`) sends, and whether they run in a
    transaction."""
    return read_safely(FRAMEWORK, lambda: _extract(text))


def _extract(text: str) -> Extracted:
    root = parsed("ruby", text)
    migration = _migration_class(root)
    if migration is None:
        return Extracted([Statement(None, 1, "rails: no ActiveRecord::Migration class found")])
    version = _version(migration)
    constants = ruby.constants(root)
    transactional = True
    methods: dict[str, Node] = {}
    for statement in ruby.statements(migration):
        if ruby.call_name(statement) == "disable_ddl_transaction!":
            transactional = False
        elif statement.type in ("method", "singleton_method"):  # `def up`, `def self.up`
            name = statement.child_by_field_name("name")
            methods[shown(name) if name is not None else ""] = statement
    body = methods.get("change") or methods.get("up")
    reader = _Reader(Out(FRAMEWORK), dict(constants), version)
    if body is None:
        reader.out.unknown(migration.start_point.row + 1, "no `change` or `up` method")
    else:
        reader.run(ruby.statements(body))
    return Extracted(reader.out.statements, transactional, transactional)


def _migration_class(root: Node) -> Node | None:
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "class":
            superclass = node.child_by_field_name("superclass")
            if superclass is not None and "ActiveRecord::Migration" in shown(superclass):
                return node
        stack.extend(reversed(node.named_children))
    return None


def _version(migration: Node) -> float:
    """The `[6.1]` of `ActiveRecord::Migration[6.1]` (datetime columns differ from 7.0 on)."""
    superclass = shown(migration.child_by_field_name("superclass") or migration)
    number = superclass.rpartition("[")[2].rstrip("]")
    try:
        return float(number)
    except ValueError:
        return 7.0


def _line(node: Node) -> int:
    return node.start_point.row + 1


@dataclass(frozen=True)
class _Call:
    """A migration method call with its arguments evaluated; `node` for its block."""

    line: int
    args: list[object]
    options: dict[str, object]
    node: Node

    def arg(self, index: int) -> object:
        if index >= len(self.args):
            raise Dynamic(f"`{shown(self.node)}` without its argument {index + 1}")
        return self.args[index]


@dataclass
class _Reader:
    out: Out
    scope: dict[str, object]
    version: float

    def run(self, statements: list[Node]) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: Node) -> None:
        line = _line(node)
        if node.type == "assignment":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and left.type == "identifier":
                self.scope[shown(left)] = ruby.evaluate(right, self.scope)
                return
        name = ruby.call_name(node)
        if node.type != "call" or ruby.receiver(node) is not None or name is None:
            self.out.unknown(line, f"`{shown(node)}`, not a migration method")
            return
        handler = _HANDLERS.get(name)
        if handler is None:
            self.out.unknown(line, f"the call `{shown(node)}`, not modelled")
            return
        self.out.guarded(line, lambda: handler(self, self.call(node)))

    def call(self, node: Node, first: list[object] | None = None) -> _Call:
        """A call with its arguments evaluated (`first` put before them: change_table's table)."""
        positional, keywords = ruby.arguments(node)
        args = [*(first or []), *(ruby.evaluate(arg, self.scope) for arg in positional)]
        options = {k: ruby.evaluate(v, self.scope) for k, v in keywords.items()}
        return _Call(_line(node), args, options, node)

    def column_type(self, kind: object, options: dict[str, object]) -> str:
        name = _name(kind)
        if name == "enum":
            if "enum_type" not in options:
                raise Dynamic("an enum column without its enum_type")
            sql = _name(options["enum_type"])
            return sql + "[]" if known(options.get("array")) is True else sql
        sql = _TYPES.get(name, name)
        limit, precision, scale = (known(options.get(k)) for k in ("limit", "precision", "scale"))
        if name == "integer" and isinstance(limit, int):
            sql = _INTEGER_LIMITS.get(limit, "bigint")
        elif name in ("string", "binary", "bit", "bit_varying") and isinstance(limit, int):
            sql = f"{sql}({limit})"
        elif name in ("decimal", "numeric") and isinstance(precision, int):
            sql = f"{sql}({precision},{scale})" if isinstance(scale, int) else f"{sql}({precision})"
        elif name in ("datetime", "timestamp", "time") and "precision" in options:
            sql = f"{sql}({precision})" if isinstance(precision, int) else sql
        elif name == "datetime" and self.version >= 7.0:
            sql = "timestamp(6)"
        return sql + "[]" if known(options.get("array")) is True else sql

    def generated(self, column: object, options: dict[str, object]) -> str:
        expression = known(options.get("as"))
        if not isinstance(expression, str) or known(options.get("stored")) is not True:
            raise Dynamic("a virtual column that is not stored, or without `as:`")
        kind = options.get("type", Symbol("string"))
        rest = {k: v for k, v in options.items() if k not in ("as", "stored", "type")}
        sql = f"{quote(_name(column))} {self.column_type(kind, rest)}"
        return f"{sql} GENERATED ALWAYS AS ({expression}) STORED"

    def column(self, column: object, kind: object, options: dict[str, object]) -> str:
        """A column definition as ActiveRecord writes it: type, DEFAULT, NOT NULL; a `virtual`
        one is `GENERATED ALWAYS AS (expression) STORED`."""
        if _name(kind) == "virtual":
            return self.generated(column, options)
        unmodelled = sorted(set(options) - _COLUMN_OPTIONS)
        if unmodelled:
            raise Dynamic(f"the column option {unmodelled[0]}: not modelled")
        sql = f"{quote(_name(column))} {self.column_type(kind, options)}"
        if "collation" in options:
            sql += f" COLLATE {quote(_name(options['collation']))}"
        default = options.get("default")
        if default is not None:
            sql += f" DEFAULT {_default(default, known(options.get('array')) is True)}"
        if known(options.get("null")) is False:
            sql += " NOT NULL"
        return sql


def _name(value: object) -> str:
    """A table, column or type name given as a symbol or a string."""
    value = known(value)
    name = name_of(value)
    if name is None:
        raise Dynamic(f"the name {value!r}, not a symbol or a string")
    return name


def _default(value: object, array: bool) -> str:
    """A column default as ActiveRecord quotes it."""
    value = known(value)
    if isinstance(value, Proc) and isinstance(value.value, str):
        return value.value  # a block's string is SQL, written as is
    written = scalar(value.name if isinstance(value, Symbol) else value)
    if written is not None:
        return written
    if isinstance(value, list) and array:
        inner = ",".join(str(_plain(v)) for v in value)
        return "'{" + inner + "}'"
    if isinstance(value, dict | list):
        return "'" + json.dumps(_plain(value), separators=(",", ":")).replace("'", "''") + "'"
    raise Dynamic(f"the default {value!r}, not modelled")


def _plain(value: object) -> object:
    if isinstance(value, Symbol):
        return value.name
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def _columns(value: object) -> list[str]:
    value = known(value)
    return [_name(v) for v in value] if isinstance(value, list) else [_name(value)]


def _index_name(table: str, columns: list[str]) -> str:
    return f"index_{table}_on_{'_and_'.join(columns)}"


def _plural(name: str) -> str:
    """ActiveSupport's plural of a reference name for its most common forms."""
    if name.endswith("y") and name[-2:-1] not in tuple("aeiou"):
        return name[:-1] + "ies"
    if name.endswith(("s", "x", "z", "ch", "sh")):
        return name + "es"
    return name + "s"


def _singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith(("ses", "xes", "zes", "ches", "shes")):
        return name[:-2]
    return name.removesuffix("s")


# The handlers: each emits the statements one call sends.


def _create_table(reader: _Reader, call: _Call) -> None:
    table, options = _name(call.arg(0)), call.options
    definitions: list[str] = []
    constraints: list[str] = []
    after: list[Callable[[], None]] = []
    id_kind = known(options.get("id", Symbol("primary_key")))
    primary = quote(_name(options.get("primary_key", "id")))
    if id_kind is not False:
        kind = _name(id_kind)
        if kind == "primary_key":
            definitions.append(f"{primary} bigserial primary key")
        elif kind == "uuid":
            definitions.append(f"{primary} uuid DEFAULT gen_random_uuid() NOT NULL PRIMARY KEY")
        elif kind in ("integer", "serial"):
            definitions.append(f"{primary} serial primary key")
        else:
            definitions.append(f"{primary} {_TYPES.get(kind, kind)} NOT NULL PRIMARY KEY")
    block = ruby.block(call.node)
    if block is not None:
        variable = next(iter(ruby.block_parameters(block)), "t")
        for statement in ruby.statements(block):
            _table_definition(reader, table, variable, statement, definitions, constraints, after)
    force = known(options.get("force"))
    if force:
        cascade = " CASCADE" if force == Symbol("cascade") else ""
        reader.out.sql(call.line, f"DROP TABLE IF EXISTS {quote(table)}{cascade}")
    exists = " IF NOT EXISTS" if known(options.get("if_not_exists")) else ""
    body = ", ".join([*definitions, *constraints])
    reader.out.sql(call.line, f"CREATE TABLE{exists} {quote(table)} ({body})")
    for emit in after:
        emit()


def _table_definition(
    reader: _Reader,
    table: str,
    variable: str,
    statement: Node,
    definitions: list[str],
    constraints: list[str],
    after: list[Callable[[], None]],
) -> None:
    """One `t.<type> ...` of a create_table block: a column definition, a constraint (written
    after the columns), or a statement run after the table is created (an index)."""
    target, method = ruby.receiver(statement), ruby.call_name(statement)
    if target is None or shown(target) != variable or method is None:
        raise Dynamic(f"`{shown(statement)}` in create_table, not modelled")
    call = reader.call(statement)
    options = call.options
    if method == "timestamps":
        definitions.extend(_timestamps(options))
    elif method in ("references", "belongs_to"):
        for ref in call.args:
            columns, indexed, foreign = _reference(reader, table, _name(ref), options)
            definitions.extend(columns)
            if foreign is not None:
                constraints.append(_foreign_key_clause(*foreign))
            if indexed is not None:
                after.append(partial(_emit_index, reader, call.line, table, *indexed))
    elif method == "index":
        after.append(partial(_emit_index, reader, call.line, table, _columns(call.arg(0)), options))
    elif method == "check_constraint":
        constraints.append(_check(table, call.arg(0), options))
    else:
        args = list(call.args)
        kind = args.pop(1) if method == "column" and len(args) > 1 else Symbol(method)
        for column in args:
            definitions.append(reader.column(column, kind, _without_index(options)))
            if known(options.get("index")):
                after.append(partial(_emit_index, reader, call.line, table, [_name(column)], {}))


def _timestamps(options: dict[str, object]) -> list[str]:
    precision = known(options.get("precision", 6))
    stamp = "timestamp" if precision is None else f"timestamp({precision})"
    null = "" if known(options.get("null")) is True else " NOT NULL"
    return [f'"created_at" {stamp}{null}', f'"updated_at" {stamp}{null}']


def _without_index(options: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in options.items() if k != "index"}


_Index = tuple[list[str], dict[str, object]]
_Foreign = tuple[str, str, str, dict[str, object]]


def _reference(
    reader: _Reader, table: str, ref: str, options: dict[str, object]
) -> tuple[list[str], _Index | None, _Foreign | None]:
    """What `references :user` defines: its columns, its index, its foreign key."""
    kind = options.get("type", Symbol("bigint"))
    column_options: dict[str, object] = {k: options[k] for k in ("null", "default") if k in options}
    columns = [reader.column(f"{ref}_id", kind, column_options)]
    indexed = [f"{ref}_id"]
    if known(options.get("polymorphic")):
        columns.append(reader.column(f"{ref}_type", Symbol("string"), column_options))
        indexed = [f"{ref}_type", f"{ref}_id"]
    index = known(options.get("index", True))
    index_options = index if isinstance(index, dict) else {}
    foreign = known(options.get("foreign_key"))
    fk: _Foreign | None = None
    if foreign:
        to = foreign.get("to_table") if isinstance(foreign, dict) else None
        target = _name(to) if to is not None else _plural(ref)
        fk = (table, target, f"{ref}_id", foreign if isinstance(foreign, dict) else {})
    return columns, None if index is False else (indexed, index_options), fk


def _foreign_key_clause(table: str, target: str, column: str, options: dict[str, object]) -> str:
    default = f"fk_rails_{_digest(f'{table}_{column}_fk')}"
    name = _name(options["name"]) if "name" in options else default
    primary = quote(_name(options.get("primary_key", "id")))
    sql = f"CONSTRAINT {quote(name)}\nFOREIGN KEY ({quote(column)})\n"
    sql += f"  REFERENCES {quote(target)} ({primary})"
    for key, clause in (("on_delete", "ON DELETE"), ("on_update", "ON UPDATE")):
        action = known(options.get(key))
        if action is not None:
            sql += f" {clause} {_ACTIONS[_name(action)]}"
    return sql + ("\n NOT VALID" if known(options.get("validate", True)) is False else "")


_ACTIONS = {"cascade": "CASCADE", "nullify": "SET NULL", "restrict": "RESTRICT"}
_INDEX_OPTIONS = {"name", "unique", "algorithm", "where", "using", "if_not_exists", "order"}


def _emit_index(
    reader: _Reader, line: int, table: str, columns: list[str], options: dict[str, object]
) -> None:
    unmodelled = sorted(set(options) - _INDEX_OPTIONS)
    if unmodelled:
        raise Dynamic(f"the index option {unmodelled[0]}: not modelled")
    name = _name(options["name"]) if "name" in options else _index_name(table, columns)
    unique = "UNIQUE " if known(options.get("unique")) else ""
    concurrently = " CONCURRENTLY" if _concurrently(options) else ""
    exists = " IF NOT EXISTS" if known(options.get("if_not_exists")) else ""
    using = f" USING {_name(options['using'])}" if "using" in options else ""
    where = f" WHERE {known(options['where'])}" if "where" in options else ""
    order = known(options.get("order"))
    listed = ", ".join(quote(c) + _direction(order, c) for c in columns)
    on = f"{quote(table)}{using} ({listed}){where}"
    reader.out.sql(line, f"CREATE {unique}INDEX{concurrently}{exists} {quote(name)} ON {on}")


def _direction(order: object, column: str) -> str:
    """` DESC` / ` ASC` of a column, from `order: :desc` or `order: { column: :desc }`."""
    if isinstance(order, dict):
        order = order.get(column)
    return "" if order is None else f" {_name(order).upper()}"


def _concurrently(options: dict[str, object]) -> bool:
    return known(options.get("algorithm")) == Symbol("concurrently")


def _check(table: str, expression: object, options: dict[str, object]) -> str:
    expression = known(expression)
    if not isinstance(expression, str):
        raise Dynamic("a check constraint whose expression is not a string")
    return f"CONSTRAINT {quote(_check_name(table, expression, options))} CHECK ({expression})" + (
        "" if known(options.get("validate", True)) else " NOT VALID"
    )


def _check_name(table: str, expression: object, options: dict[str, object]) -> str:
    if "name" in options:
        return _name(options["name"])
    return f"chk_rails_{_digest(f'{table}_{known(expression)}_chk')}"


def _alter(reader: _Reader, call: _Call, action: str) -> None:
    reader.out.sql(call.line, f"ALTER TABLE {quote(_name(call.arg(0)))} {action}")


def _add_column(reader: _Reader, call: _Call) -> None:
    _alter(reader, call, f"ADD {reader.column(call.arg(1), call.arg(2), call.options)}")


def _remove_column(reader: _Reader, call: _Call) -> None:
    exists = " IF EXISTS" if known(call.options.get("if_exists")) else ""
    _alter(reader, call, f"DROP COLUMN{exists} {quote(_name(call.arg(1)))}")


def _remove_columns(reader: _Reader, call: _Call) -> None:
    _alter(reader, call, ", ".join(f"DROP COLUMN {quote(_name(c))}" for c in call.args[1:]))


def _change_column(reader: _Reader, call: _Call) -> None:
    column, options = quote(_name(call.arg(1))), call.options
    change = f"ALTER COLUMN {column} TYPE {reader.column_type(call.arg(2), options)}"
    if "using" in options:
        change += f" USING {known(options['using'])}"
    parts = [change]
    if "default" in options:
        default = known(options["default"])
        parts.append(
            f"ALTER COLUMN {column} DROP DEFAULT"
            if default is None
            else f"ALTER COLUMN {column} SET DEFAULT {_default(default, False)}"
        )
    if "null" in options:
        parts.append(
            f"ALTER COLUMN {column} {'DROP' if known(options['null']) else 'SET'} NOT NULL"
        )
    _alter(reader, call, ", ".join(parts))


def _change_column_null(reader: _Reader, call: _Call) -> None:
    table, column = quote(_name(call.arg(0))), quote(_name(call.arg(1)))
    null = known(call.arg(2))
    if len(call.args) > 3 and known(call.args[3]) is not None and not null:
        fill = _default(call.args[3], False)
        reader.out.sql(call.line, f"UPDATE {table} SET {column}={fill} WHERE {column} IS NULL")
    _alter(reader, call, f"ALTER COLUMN {column} {'DROP' if null else 'SET'} NOT NULL")


def _change_column_default(reader: _Reader, call: _Call) -> None:
    column = quote(_name(call.arg(1)))
    value = known(call.args[2]) if len(call.args) > 2 else call.options.get("to")
    if isinstance(value, dict) and "to" in value:
        value = value["to"]
    value = known(value)
    change = "DROP DEFAULT" if value is None else f"SET DEFAULT {_default(value, False)}"
    _alter(reader, call, f"ALTER COLUMN {column} {change}")


def _rename_column(reader: _Reader, call: _Call) -> None:
    old, new = quote(_name(call.arg(1))), quote(_name(call.arg(2)))
    _alter(reader, call, f"RENAME COLUMN {old} TO {new}")


def _rename_table(reader: _Reader, call: _Call) -> None:
    _alter(reader, call, f"RENAME TO {quote(_name(call.arg(1)))}")


def _drop_table(reader: _Reader, call: _Call) -> None:
    exists = " IF EXISTS" if known(call.options.get("if_exists")) else ""
    cascade = " CASCADE" if known(call.options.get("force")) == Symbol("cascade") else ""
    tables = ", ".join(quote(_name(t)) for t in call.args)
    reader.out.sql(call.line, f"DROP TABLE{exists} {tables}{cascade}")


def _add_index(reader: _Reader, call: _Call) -> None:
    table = _name(call.arg(0))
    _emit_index(reader, call.line, table, _columns(call.arg(1)), call.options)


def _remove_index(reader: _Reader, call: _Call) -> None:
    table, options = _name(call.arg(0)), call.options
    if "name" in options:
        name = _name(options["name"])
    else:
        columns = options.get("column", call.args[1] if len(call.args) > 1 else None)
        if columns is None:
            raise Dynamic("remove_index without a column or a name")
        name = _index_name(table, _columns(columns))
    concurrently = " CONCURRENTLY" if _concurrently(options) else ""
    exists = " IF EXISTS" if known(options.get("if_exists")) else ""
    reader.out.sql(call.line, f"DROP INDEX{concurrently}{exists}  {quote(name)}")


def _add_reference(reader: _Reader, call: _Call) -> None:
    table = _name(call.arg(0))
    for ref in call.args[1:]:
        columns, indexed, foreign = _reference(reader, table, _name(ref), call.options)
        for column in columns:
            reader.out.sql(call.line, f"ALTER TABLE {quote(table)} ADD {column}")
        if indexed is not None:
            _emit_index(reader, call.line, table, *indexed)
        if foreign is not None:
            reader.out.sql(
                call.line, f"ALTER TABLE {quote(table)} ADD {_foreign_key_clause(*foreign)}"
            )


def _remove_reference(reader: _Reader, call: _Call) -> None:
    table = _name(call.arg(0))
    for ref in call.args[1:]:
        name = _name(ref)
        drops = [f"DROP COLUMN {quote(name + '_id')}"]
        if known(call.options.get("polymorphic")):
            drops.append(f"DROP COLUMN {quote(name + '_type')}")
        reader.out.sql(call.line, f"ALTER TABLE {quote(table)} {', '.join(drops)}")


def _add_foreign_key(reader: _Reader, call: _Call) -> None:
    table, target, options = _name(call.arg(0)), _name(call.arg(1)), call.options
    column = _name(options["column"]) if "column" in options else f"{_singular(target)}_id"
    clause = _foreign_key_clause(table, target, column, options)
    reader.out.sql(call.line, f"ALTER TABLE {quote(table)} ADD {clause}")


def _foreign_key_name(call: _Call) -> str:
    table, options = _name(call.arg(0)), call.options
    if "name" in options:
        return _name(options["name"])
    if "column" in options:
        column = _name(options["column"])
    elif len(call.args) > 1:
        column = f"{_singular(_name(call.args[1]))}_id"
    else:
        raise Dynamic(f"`{shown(call.node)}` without a table, a column or a name")
    return f"fk_rails_{_digest(f'{table}_{column}_fk')}"


def _remove_foreign_key(reader: _Reader, call: _Call) -> None:
    _alter(reader, call, f"DROP CONSTRAINT {quote(_foreign_key_name(call))}")


def _add_check_constraint(reader: _Reader, call: _Call) -> None:
    _alter(reader, call, f"ADD {_check(_name(call.arg(0)), call.arg(1), call.options)}")


def _remove_check_constraint(reader: _Reader, call: _Call) -> None:
    expression = call.args[1] if len(call.args) > 1 else None
    if expression is None and "name" not in call.options:
        raise Dynamic(f"`{shown(call.node)}` without an expression or a name")
    name = _check_name(_name(call.arg(0)), expression, call.options)
    _alter(reader, call, f"DROP CONSTRAINT {quote(name)}")


def _validate_foreign_key(reader: _Reader, call: _Call) -> None:
    _alter(reader, call, f"VALIDATE CONSTRAINT {quote(_foreign_key_name(call))}")


def _validate_check_constraint(reader: _Reader, call: _Call) -> None:
    if "name" not in call.options and len(call.args) < 2:
        raise Dynamic(f"`{shown(call.node)}` without an expression or a name")
    name = _check_name(_name(call.arg(0)), call.args[-1], call.options)
    _alter(reader, call, f"VALIDATE CONSTRAINT {quote(name)}")


def _add_timestamps(reader: _Reader, call: _Call) -> None:
    _alter(reader, call, ", ".join(f"ADD {c}" for c in _timestamps(call.options)))


def _execute(reader: _Reader, call: _Call) -> None:
    reader.out.script(call.line, call.arg(0))


def _create_enum(reader: _Reader, call: _Call) -> None:
    values = known(call.arg(1))
    if not isinstance(values, list):
        raise Dynamic("create_enum whose values are not a list")
    labels = ", ".join(_default(_name(v), False) for v in values)
    reader.out.sql(call.line, f"CREATE TYPE {quote(_name(call.arg(0)))} AS ENUM ({labels})")


def _rename_index(reader: _Reader, call: _Call) -> None:
    old, new = quote(_name(call.arg(1))), quote(_name(call.arg(2)))
    reader.out.sql(call.line, f"ALTER INDEX {old} RENAME TO {new}")


def _enable_extension(reader: _Reader, call: _Call) -> None:
    reader.out.sql(call.line, f"CREATE EXTENSION IF NOT EXISTS {quote(_name(call.arg(0)))}")


def _reversible(reader: _Reader, call: _Call) -> None:
    """`reversible do |dir| dir.up { ... }; dir.down { ... } end`: the up blocks run."""
    block = ruby.block(call.node)
    variable = next(iter(ruby.block_parameters(block)), None) if block is not None else None
    if block is None or variable is None:
        raise Dynamic(f"`{shown(call.node)}` without a block taking the direction")
    for statement in ruby.statements(block):
        target, method = ruby.receiver(statement), ruby.call_name(statement)
        inner = ruby.block(statement) if statement.type == "call" else None
        ours = target is not None and shown(target) == variable
        if not ours or method not in ("up", "down") or inner is None:
            reader.out.unknown(_line(statement), f"`{shown(statement)}` in reversible")
        elif method == "up":
            reader.run(ruby.statements(inner))


def _block_runs(reader: _Reader, call: _Call) -> None:
    """`say_with_time "..." do ... end`: its block runs."""
    block = ruby.block(call.node)
    if block is not None:
        reader.run(ruby.statements(block))


def _say(reader: _Reader, call: _Call) -> None:
    """Prints a message: no SQL."""


_TABLE_METHODS = {
    "remove": "remove_columns",
    "rename": "rename_column",
    "index": "add_index",
    "remove_index": "remove_index",
    "change": "change_column",
    "change_default": "change_column_default",
    "change_null": "change_column_null",
    "references": "add_reference",
    "belongs_to": "add_reference",
    "remove_references": "remove_reference",
    "remove_belongs_to": "remove_reference",
    "timestamps": "add_timestamps",
    "check_constraint": "add_check_constraint",
    "remove_check_constraint": "remove_check_constraint",
    "foreign_key": "add_foreign_key",
    "remove_foreign_key": "remove_foreign_key",
    "column": "add_column",
}


def _change_table(reader: _Reader, call: _Call) -> None:
    """`change_table :t do |t| ... end`: each call of the block as the migration method it
    stands for, with the table first (`t.remove :c` is `remove_columns :t, :c`)."""
    table = call.arg(0)
    if known(call.options.get("bulk")):
        raise Dynamic("change_table bulk: true, not modelled")
    block = ruby.block(call.node)
    variable = next(iter(ruby.block_parameters(block)), "t") if block is not None else "t"
    for statement in ruby.statements(block) if block is not None else []:
        reader.out.guarded(
            _line(statement), partial(_table_call, reader, table, variable, statement)
        )


def _table_call(reader: _Reader, table: object, variable: str, statement: Node) -> None:
    target, method = ruby.receiver(statement), ruby.call_name(statement)
    if target is None or shown(target) != variable or method is None:
        raise Dynamic(f"`{shown(statement)}` in change_table, not modelled")
    call = reader.call(statement, [table])
    standing = _TABLE_METHODS.get(method)
    if standing is not None and standing in _HANDLERS:
        _HANDLERS[standing](reader, call)
    elif method in _TYPES or method in ("enum", "virtual"):
        for column in call.args[1:]:
            added = _Call(
                call.line, [table, column, Symbol(method)], _without_index(call.options), statement
            )
            _add_column(reader, added)
            if known(call.options.get("index")):
                _emit_index(reader, call.line, _name(table), [_name(column)], {})
    else:
        raise Dynamic(f"`{shown(statement)}` in change_table, not modelled")


_HANDLERS: dict[str, Callable[[_Reader, _Call], None]] = {
    "create_table": _create_table,
    "add_column": _add_column,
    "remove_column": _remove_column,
    "remove_columns": _remove_columns,
    "change_column": _change_column,
    "change_column_null": _change_column_null,
    "change_column_default": _change_column_default,
    "rename_column": _rename_column,
    "rename_table": _rename_table,
    "drop_table": _drop_table,
    "add_index": _add_index,
    "remove_index": _remove_index,
    "add_reference": _add_reference,
    "add_belongs_to": _add_reference,
    "remove_reference": _remove_reference,
    "remove_belongs_to": _remove_reference,
    "add_foreign_key": _add_foreign_key,
    "remove_foreign_key": _remove_foreign_key,
    "add_check_constraint": _add_check_constraint,
    "remove_check_constraint": _remove_check_constraint,
    "validate_foreign_key": _validate_foreign_key,
    "validate_check_constraint": _validate_check_constraint,
    "add_timestamps": _add_timestamps,
    "execute": _execute,
    "enable_extension": _enable_extension,
    "create_enum": _create_enum,
    "rename_index": _rename_index,
    "reversible": _reversible,
    "say_with_time": _block_runs,
    "say": _say,
    "change_table": _change_table,
}
