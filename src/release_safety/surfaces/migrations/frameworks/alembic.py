"""Alembic revisions (`versions/<rev>_<name>.py`): the SQL its PostgreSQL implementation emits
for `upgrade()` (never `downgrade()`), each statement at its call's line.

`op.*` calls with SQLAlchemy columns and types rendered as SQLAlchemy's PostgreSQL dialect
writes them (fixtures/frameworks/alembic, captured with `alembic upgrade --sql`): `SERIAL` for
an integer primary key, `VARCHAR(n)`, identifiers bare unless they need quotes, `alter_column`
as one statement per change (type, nullability, default, name). `batch_alter_table` runs its
operations directly on PostgreSQL. Alembic runs the revisions of an upgrade in one transaction;
an `autocommit_block()` runs outside it. Anything else (`op.get_bind()`, a loop, a condition, a
call into the service's code) is an unknown statement naming it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from release_safety.code import python
from release_safety.code.jsvalues import Dynamic, Unknown, known
from release_safety.surfaces.migrations.frameworks.emit import (
    Out,
    literal,
    quote_if_needed,
    read_safely,
)
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

FRAMEWORK = "alembic"
ReadModule = Callable[[str], "str | None"]

_TYPES = {
    "Integer": "INTEGER",
    "INTEGER": "INTEGER",
    "BigInteger": "BIGINT",
    "BIGINT": "BIGINT",
    "SmallInteger": "SMALLINT",
    "SMALLINT": "SMALLINT",
    "Text": "TEXT",
    "TEXT": "TEXT",
    "UnicodeText": "TEXT",
    "Boolean": "BOOLEAN",
    "BOOLEAN": "BOOLEAN",
    "Date": "DATE",
    "DATE": "DATE",
    "Float": "FLOAT",
    "FLOAT": "FLOAT",
    "REAL": "REAL",
    "Double": "DOUBLE PRECISION",
    "DOUBLE_PRECISION": "DOUBLE PRECISION",
    "LargeBinary": "BYTEA",
    "BYTEA": "BYTEA",
    "JSON": "JSON",
    "JSONB": "JSONB",
    "UUID": "UUID",
    "Uuid": "UUID",
    "Interval": "INTERVAL",
    "INTERVAL": "INTERVAL",
    "INET": "INET",
    "CIDR": "CIDR",
    "MACADDR": "MACADDR",
    "TSVECTOR": "TSVECTOR",
    "CITEXT": "CITEXT",
    "HSTORE": "HSTORE",
    "MONEY": "MONEY",
    "OID": "OID",
}
_SIZED = {"String": "VARCHAR", "VARCHAR": "VARCHAR", "Unicode": "VARCHAR", "CHAR": "CHAR"}
_NUMERIC = {"Numeric": "NUMERIC", "NUMERIC": "NUMERIC", "DECIMAL": "DECIMAL"}
_STAMPS = {"DateTime": "TIMESTAMP", "TIMESTAMP": "TIMESTAMP", "Time": "TIME", "TIME": "TIME"}
_SERIAL = {"INTEGER": "SERIAL", "BIGINT": "BIGSERIAL", "SMALLINT": "SMALLSERIAL"}


def extract_alembic(text: str, path: str, *, read_module: ReadModule | None = None) -> Extracted:
    """The statements an Alembic revision's `upgrade()` emits, and whether they run in the
    upgrade's transaction. `read_module` reads the repository's files: a column type of the
    service's own (a `TypeDecorator`) is read there."""
    return read_safely(FRAMEWORK, lambda: _extract(text, read_module))


def _extract(text: str, read_module: ReadModule | None) -> Extracted:
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        line = exc.lineno or 1
        return Extracted([Statement(None, line, f"alembic revision does not parse (line {line})")])
    upgrade = next(
        (s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == "upgrade"), None
    )
    reader = _Reader(Out(FRAMEWORK), python.constants(tree), python.imports(tree), read_module)
    if upgrade is None:
        reader.out.unknown(1, "no upgrade() function")
    else:
        reader.run(upgrade.body, None)
    transactional = not reader.autocommit
    return Extracted(reader.out.statements, transactional, transactional)


@dataclass
class _Reader:
    out: Out
    scope: dict[str, object]
    imports: dict[str, str]
    read_module: ReadModule | None
    autocommit: bool = False

    def run(self, body: list[ast.stmt], batch: tuple[str, str] | None) -> None:
        """The statements of a body; `batch` is (variable, table) inside batch_alter_table."""
        for statement in body:
            self.statement(statement, batch)

    def statement(self, node: ast.stmt, batch: tuple[str, str] | None) -> None:
        line = node.lineno
        if isinstance(node, ast.Pass) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ):
            return
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            value = python.evaluate(node.value, self.scope)
            for target in node.targets:
                self.scope[target.id] = value  # type: ignore[attr-defined]
            return
        if isinstance(node, ast.With) and len(node.items) == 1:
            self.block(node, batch)
            return
        call = node.value if isinstance(node, ast.Expr) else None
        name = python.call_name(call) if isinstance(call, ast.Call) else None
        if not isinstance(call, ast.Call) or name is None:
            self.out.unknown(line, f"`{python.shown(node)}`, not an operation")
            return
        owner, _, method = name.rpartition(".")
        table = None
        if batch is not None and owner == batch[0]:
            table = batch[1]
        elif owner != "op":
            self.out.unknown(line, f"the call `{python.shown(call)}`, not an operation")
            return
        handler = _HANDLERS.get(method)
        if handler is None:
            self.out.unknown(line, f"the operation `{python.shown(call)}`, not modelled")
            return
        self.out.guarded(line, lambda: handler(self, _Call(self, call, table)))

    def block(self, node: ast.With, batch: tuple[str, str] | None) -> None:
        item = node.items[0]
        opened = item.context_expr
        name = python.call_name(opened) or ""
        if name == "op.batch_alter_table" and isinstance(opened, ast.Call):
            variable = item.optional_vars
            table = python.argument(opened, 0, "table_name")
            value = python.evaluate(table, self.scope) if table is not None else None
            if isinstance(variable, ast.Name) and isinstance(value, str):
                self.run(node.body, (variable.id, value))
                return
        elif _autocommit(opened):
            self.autocommit = True
            self.run(node.body, batch)
            return
        self.out.unknown(node.lineno, f"the block `with {python.shown(opened)}`, not modelled")


def _autocommit(node: ast.expr) -> bool:
    """`op.get_context().autocommit_block()`."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "autocommit_block"
        and python.call_name(node.func.value) == "op.get_context"
    )


class _Call:
    """An operation's arguments, evaluated; in a batch, the table comes first."""

    def __init__(self, reader: _Reader, node: ast.Call, table: str | None) -> None:
        self.reader = reader
        self.node = node
        self.table = table
        self.line = node.lineno

    def arg(self, index: int, name: str, default: object = Unknown("")) -> object:
        found = python.argument(self.node, index, name)
        if found is None:
            if isinstance(default, Unknown):
                raise Dynamic(f"`{python.shown(self.node)}` without {name}")
            return default
        named = (python.call_name(found) or "").rpartition(".")[2] == "f"  # op.f, batch_op.f
        if named and isinstance(found, ast.Call) and found.args:
            found = found.args[0]  # a name given as is, not run through the naming convention
        return python.evaluate(found, self.reader.scope)

    def node_arg(self, index: int, name: str) -> ast.expr | None:
        return python.argument(self.node, index, name)

    def option(self, name: str, default: object = None) -> object:
        found = python.keywords(self.node).get(name)
        return default if found is None else python.evaluate(found, self.reader.scope)

    def shift(self) -> int:
        """How many leading arguments the batch's table takes (none in a batch)."""
        return 0 if self.table is not None else 1

    def table_name(self, index: int = 0, name: str = "table_name") -> str:
        return self.table if self.table is not None else _name(self.arg(index, name))


def _name(value: object) -> str:
    value = known(value)
    if not isinstance(value, str):
        raise Dynamic(f"the name {value!r}, not a string")
    return value


def _ident(value: object) -> str:
    return quote_if_needed(_name(value))


def _type(node: ast.expr | None, reader: _Reader) -> str:
    """A SQLAlchemy type as the PostgreSQL dialect writes it."""
    if node is None:
        raise Dynamic("a column without a type")
    call = node if isinstance(node, ast.Call) else None
    name = (python.dotted(call.func) if call is not None else python.dotted(node)) or ""
    kind = name.rpartition(".")[2]
    args = [python.evaluate(a, reader.scope) for a in call.args] if call is not None else []
    options = (
        {k: python.evaluate(v, reader.scope) for k, v in python.keywords(call).items()}
        if call is not None
        else {}
    )
    if kind in _TYPES:
        return _TYPES[kind]
    if kind in _SIZED:
        length = known(options.get("length", args[0] if args else None))
        return f"{_SIZED[kind]}({length})" if isinstance(length, int) else _SIZED[kind]
    if kind in _NUMERIC:
        precision = known(options.get("precision", args[0] if args else None))
        scale = known(options.get("scale", args[1] if len(args) > 1 else None))
        if isinstance(precision, int):
            sizes = f"{precision}, {scale}" if isinstance(scale, int) else f"{precision}"
            return f"{_NUMERIC[kind]}({sizes})"
        return _NUMERIC[kind]
    if kind in _STAMPS:
        zone = known(options.get("timezone", args[0] if args else False))
        return f"{_STAMPS[kind]} {'WITH' if zone else 'WITHOUT'} TIME ZONE"
    if kind == "ARRAY" and call is not None and call.args:
        return _type(call.args[0], reader) + "[]"
    decorated = _decorated(name, reader)
    if decorated is not None:
        return _type(decorated, reader)
    raise Dynamic(f"the type `{python.shown(node)}`, not modelled")


def _decorated(name: str, reader: _Reader) -> ast.expr | None:
    """The PostgreSQL type of the service's own `TypeDecorator` class `name`: what its
    `load_dialect_impl` returns for `dialect.name == "postgresql"`, else its `impl`."""
    if reader.read_module is None:
        return None
    found = python.find_class(name, reader.imports, reader.read_module)
    if found is None:
        return None
    cls, _ = found
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == "load_dialect_impl":
            for branch in ast.walk(node):
                if isinstance(branch, ast.If) and "postgresql" in ast.unparse(branch.test):
                    returned = branch.body[0] if branch.body else None
                    if isinstance(returned, ast.Return) and isinstance(returned.value, ast.Call):
                        inner = returned.value
                        return inner.args[0] if inner.args else None
            return None  # chosen at run time otherwise
    for node in cls.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "impl" for t in node.targets
        ):
            return node.value
    return None


def _default(node: ast.expr, reader: _Reader) -> str:
    """A `server_default` as SQLAlchemy writes it: a string quoted, `text()` and `func.x()`
    as written."""
    name = python.call_name(node) or ""
    if name.endswith("text") and isinstance(node, ast.Call) and node.args:
        return _name(python.evaluate(node.args[0], reader.scope))
    if ".func." in f".{name}" and isinstance(node, ast.Call) and not node.args:
        return f"{name.rpartition('.')[2]}()"
    value = known(python.evaluate(node, reader.scope))
    if isinstance(value, str):
        return literal(value)
    raise Dynamic(f"the server default `{python.shown(node)}`, not modelled")


@dataclass
class _Column:
    name: str
    sql_type: str
    nullable: bool
    default: str | None
    primary: bool
    autoincrement: object
    foreign: list[tuple[str, str]]
    unique: bool
    index: bool

    def definition(self, serial: bool = False) -> str:
        kind = _SERIAL.get(self.sql_type, self.sql_type) if serial else self.sql_type
        sql = f"{quote_if_needed(self.name)} {kind}"
        if self.default is not None:
            sql += f" DEFAULT {self.default}"
        return sql + ("" if self.nullable else " NOT NULL")


def _column(node: ast.expr, reader: _Reader) -> _Column:
    if not isinstance(node, ast.Call) or (python.call_name(node) or "").rpartition(".")[2] != (
        "Column"
    ):
        raise Dynamic(f"`{python.shown(node)}`, not a Column")
    options = python.keywords(node)
    name = _name(python.evaluate(node.args[0], reader.scope)) if node.args else None
    if name is None:
        raise Dynamic(f"`{python.shown(node)}` without a name")
    type_node = node.args[1] if len(node.args) > 1 else options.get("type_")
    foreign: list[tuple[str, str]] = []
    for extra in node.args[2:]:
        if (python.call_name(extra) or "").endswith("ForeignKey") and isinstance(extra, ast.Call):
            target = _name(python.evaluate(extra.args[0], reader.scope))
            table, _, column = target.rpartition(".")
            foreign.append((table, column))
        else:
            raise Dynamic(f"the column argument `{python.shown(extra)}`, not modelled")
    unmodelled = sorted(
        set(options)
        - {"nullable", "server_default", "primary_key", "autoincrement", "unique", "index"}
        - {"type_", "comment", "default", "doc", "info", "onupdate"}
    )
    if unmodelled:
        raise Dynamic(f"the column option {unmodelled[0]}, not modelled")
    primary = python.evaluate(options["primary_key"]) if "primary_key" in options else False
    nullable = python.evaluate(options["nullable"]) if "nullable" in options else not primary
    default = options.get("server_default")
    return _Column(
        name=name,
        sql_type=_type(type_node, reader),
        nullable=bool(known(nullable)),
        default=None if default is None else _default(default, reader),
        primary=bool(known(primary)),
        autoincrement=known(python.evaluate(options["autoincrement"]))
        if "autoincrement" in options
        else "auto",
        foreign=foreign,
        unique=bool(known(python.evaluate(options["unique"]))) if "unique" in options else False,
        index=bool(known(python.evaluate(options["index"]))) if "index" in options else False,
    )


def _names(value: object) -> list[str]:
    value = known(value)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [_name(v) for v in value]
    raise Dynamic(f"the columns {value!r}, not a list of names")


def _idents(value: object) -> str:
    return ", ".join(quote_if_needed(n) for n in _names(value))


def _create_table(reader: _Reader, call: _Call) -> None:
    table = _name(call.arg(0, "table_name"))
    columns: list[_Column] = []
    constraints: list[str] = []
    after: list[str] = []
    for node in call.node.args[1:]:
        kind = (python.call_name(node) or "").rpartition(".")[2]
        if kind == "Column":
            columns.append(_column(node, reader))
        elif kind == "PrimaryKeyConstraint" and isinstance(node, ast.Call):
            for column in columns:
                if column.name in _names([python.evaluate(a, reader.scope) for a in node.args]):
                    column.primary, column.nullable = True, False
        elif kind in ("UniqueConstraint", "ForeignKeyConstraint", "CheckConstraint"):
            constraints.append(_constraint(node, reader))
        else:
            raise Dynamic(f"`{python.shown(node)}` in create_table, not modelled")
    primary = [c for c in columns if c.primary]
    serial = (
        primary[0]
        if len(primary) == 1
        and primary[0].sql_type in _SERIAL
        and primary[0].autoincrement in ("auto", True)
        and primary[0].default is None
        and not primary[0].foreign
        else None
    )
    body = [c.definition(c is serial) for c in columns]
    if primary:
        body.append(f"PRIMARY KEY ({', '.join(quote_if_needed(c.name) for c in primary)})")
    for column in columns:
        for target, key in column.foreign:
            name = quote_if_needed(column.name)
            body.append(f"FOREIGN KEY({name}) REFERENCES {_ident(target)} ({_ident(key)})")
        if column.unique:
            body.append(f"UNIQUE ({quote_if_needed(column.name)})")
        if column.index:
            index = f"ix_{table}_{column.name}"
            after.append(
                f"CREATE INDEX {quote_if_needed(index)} ON {_ident(table)} "
                f"({quote_if_needed(column.name)})"
            )
    body.extend(constraints)
    reader.out.sql(call.line, f"CREATE TABLE {_ident(table)} ({', '.join(body)})")
    for sql in after:
        reader.out.sql(call.line, sql)


def _constraint(node: ast.expr, reader: _Reader) -> str:
    assert isinstance(node, ast.Call)
    kind = (python.call_name(node) or "").rpartition(".")[2]
    options = python.keywords(node)
    name = python.evaluate(options["name"], reader.scope) if "name" in options else None
    head = f"CONSTRAINT {_ident(name)} " if name is not None else ""
    values = [python.evaluate(a, reader.scope) for a in node.args]
    if kind == "UniqueConstraint":
        return f"{head}UNIQUE ({_idents(values)})"
    if kind == "CheckConstraint" and values:
        return f"{head}CHECK ({_name(values[0])})"
    if kind == "ForeignKeyConstraint" and len(values) == 2:
        targets = _names(values[1])
        table = targets[0].rpartition(".")[0]
        keys = ", ".join(quote_if_needed(t.rpartition(".")[2]) for t in targets)
        return f"{head}FOREIGN KEY({_idents(values[0])}) REFERENCES {_ident(table)} ({keys})"
    raise Dynamic(f"the constraint `{python.shown(node)}`, not modelled")


def _add_column(reader: _Reader, call: _Call) -> None:
    table = call.table_name()
    node = call.node_arg(call.shift(), "column")
    if node is None:
        raise Dynamic(f"`{python.shown(call.node)}` without a column")
    column = _column(node, reader)
    reader.out.sql(call.line, f"ALTER TABLE {_ident(table)} ADD COLUMN {column.definition()}")
    for target, key in column.foreign:
        name = quote_if_needed(column.name)
        reader.out.sql(
            call.line,
            f"ALTER TABLE {_ident(table)} ADD FOREIGN KEY({name}) "
            f"REFERENCES {_ident(target)} ({_ident(key)})",
        )


def _drop_column(reader: _Reader, call: _Call) -> None:
    table = call.table_name()
    column = call.arg(call.shift(), "column_name")
    reader.out.sql(call.line, f"ALTER TABLE {_ident(table)} DROP COLUMN {_ident(column)}")


def _alter_column(reader: _Reader, call: _Call) -> None:
    table = _ident(call.table_name())
    column = _ident(call.arg(call.shift(), "column_name"))
    alter = f"ALTER TABLE {table} ALTER COLUMN {column}"
    options = python.keywords(call.node)
    if "type_" in options:
        using = call.option("postgresql_using")
        tail = f" USING {_name(using)}" if using is not None else ""
        reader.out.sql(call.line, f"{alter} TYPE {_type(options['type_'], reader)}{tail}")
    if "nullable" in options:
        null = known(call.option("nullable"))
        reader.out.sql(call.line, f"{alter} {'DROP' if null else 'SET'} NOT NULL")
    if "server_default" in options:
        node = options["server_default"]
        if isinstance(node, ast.Constant) and node.value in (None, False):
            reader.out.sql(call.line, f"{alter} DROP DEFAULT")
        else:
            reader.out.sql(call.line, f"{alter} SET DEFAULT {_default(node, reader)}")
    if "new_column_name" in options:
        new = _ident(call.option("new_column_name"))
        reader.out.sql(call.line, f"ALTER TABLE {table} RENAME {column} TO {new}")


def _create_index(reader: _Reader, call: _Call) -> None:
    name = _ident(call.arg(0, "index_name"))
    table = call.table if call.table is not None else _name(call.arg(1, "table_name"))
    columns = call.arg(2 - (0 if call.table is None else 1), "columns")
    unique = "UNIQUE " if known(call.option("unique", False)) else ""
    concurrently = " CONCURRENTLY" if known(call.option("postgresql_concurrently")) else ""
    exists = " IF NOT EXISTS" if known(call.option("if_not_exists")) else ""
    using = call.option("postgresql_using")
    method = f" USING {_name(using)}" if using is not None else ""
    where = python.keywords(call.node).get("postgresql_where")
    clause = f" WHERE {_default_text(where, reader)}" if where is not None else ""
    reader.out.sql(
        call.line,
        f"CREATE {unique}INDEX{concurrently}{exists} {name} ON {_ident(table)}{method} "
        f"({_idents(columns)}){clause}",
    )


def _default_text(node: ast.expr, reader: _Reader) -> str:
    name = python.call_name(node) or ""
    if name.endswith("text") and isinstance(node, ast.Call) and node.args:
        return _name(python.evaluate(node.args[0], reader.scope))
    raise Dynamic(f"the expression `{python.shown(node)}`, not modelled")


def _drop_index(reader: _Reader, call: _Call) -> None:
    name = _ident(call.arg(0, "index_name"))
    concurrently = " CONCURRENTLY" if known(call.option("postgresql_concurrently")) else ""
    exists = " IF EXISTS" if known(call.option("if_exists")) else ""
    reader.out.sql(call.line, f"DROP INDEX{concurrently}{exists} {name}")


def _drop_table(reader: _Reader, call: _Call) -> None:
    reader.out.sql(call.line, f"DROP TABLE {_ident(call.arg(0, 'table_name'))}")


def _rename_table(reader: _Reader, call: _Call) -> None:
    old, new = _ident(call.arg(0, "old_table_name")), _ident(call.arg(1, "new_table_name"))
    reader.out.sql(call.line, f"ALTER TABLE {old} RENAME TO {new}")


def _create_foreign_key(reader: _Reader, call: _Call) -> None:
    shift = 0 if call.table is None else 1
    name = _ident(call.arg(0, "constraint_name"))
    source = call.table if call.table is not None else _name(call.arg(1, "source_table"))
    referent = _ident(call.arg(2 - shift, "referent_table"))
    local, remote = call.arg(3 - shift, "local_cols"), call.arg(4 - shift, "remote_cols")
    sql = (
        f"ALTER TABLE {_ident(source)} ADD CONSTRAINT {name} FOREIGN KEY({_idents(local)}) "
        f"REFERENCES {referent} ({_idents(remote)})"
    )
    for option, clause in (("ondelete", "ON DELETE"), ("onupdate", "ON UPDATE")):
        action = call.option(option)
        if action is not None:
            sql += f" {clause} {_name(action)}"
    if known(call.option("postgresql_not_valid")):
        sql += " NOT VALID"
    reader.out.sql(call.line, sql)


def _create_unique_constraint(reader: _Reader, call: _Call) -> None:
    name = _ident(call.arg(0, "constraint_name"))
    table = call.table if call.table is not None else _name(call.arg(1, "table_name"))
    columns = call.arg(2 - (0 if call.table is None else 1), "columns")
    reader.out.sql(
        call.line, f"ALTER TABLE {_ident(table)} ADD CONSTRAINT {name} UNIQUE ({_idents(columns)})"
    )


def _create_check_constraint(reader: _Reader, call: _Call) -> None:
    name = _ident(call.arg(0, "constraint_name"))
    table = call.table if call.table is not None else _name(call.arg(1, "table_name"))
    node = call.node_arg(2 - (0 if call.table is None else 1), "condition")
    if node is None:
        raise Dynamic(f"`{python.shown(call.node)}` without a condition")
    condition = python.evaluate(node, reader.scope)
    text = condition if isinstance(condition, str) else _default_text(node, reader)
    reader.out.sql(call.line, f"ALTER TABLE {_ident(table)} ADD CONSTRAINT {name} CHECK ({text})")


def _drop_constraint(reader: _Reader, call: _Call) -> None:
    name = _ident(call.arg(0, "constraint_name"))
    table = call.table if call.table is not None else _name(call.arg(1, "table_name"))
    reader.out.sql(call.line, f"ALTER TABLE {_ident(table)} DROP CONSTRAINT {name}")


def _execute(reader: _Reader, call: _Call) -> None:
    node = call.node_arg(0, "sqltext")
    if node is None:
        raise Dynamic("op.execute without SQL")
    name = python.call_name(node) or ""
    if name.endswith("text") and isinstance(node, ast.Call) and node.args:
        node = node.args[0]
    reader.out.script(call.line, python.evaluate(node, reader.scope))


_HANDLERS: dict[str, Callable[[_Reader, _Call], None]] = {
    "create_table": _create_table,
    "drop_table": _drop_table,
    "rename_table": _rename_table,
    "add_column": _add_column,
    "drop_column": _drop_column,
    "alter_column": _alter_column,
    "create_index": _create_index,
    "drop_index": _drop_index,
    "create_foreign_key": _create_foreign_key,
    "create_unique_constraint": _create_unique_constraint,
    "create_check_constraint": _create_check_constraint,
    "drop_constraint": _drop_constraint,
    "execute": _execute,
}
