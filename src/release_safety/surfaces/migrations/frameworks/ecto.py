"""Ecto migrations (`priv/repo/migrations/<version>_<name>.exs`): the SQL ecto_sql's PostgreSQL
adapter writes for `change` (or `up`; never `down`), each statement at its command's line.

Written from ecto_sql's own code (`Ecto.Adapters.Postgres.Connection.execute_ddl`, and the SQL
its tests expect; Hex is not reachable here, so no Ecto ran): `create table` with the `id
bigserial` key and `PRIMARY KEY (...)` last, `alter table` as one `ALTER TABLE` of every change
(`ADD COLUMN`, `ALTER COLUMN ... TYPE`, `DROP COLUMN`, a reference's `ADD CONSTRAINT
"<table>_<column>_fkey"`), `timestamps()` as `timestamp(0) NOT NULL`, indexes named
`<table>_<columns>_index`. Read as Ecto runs them: in a transaction unless the module sets
`@disable_ddl_transaction true`. Anything else (a function's result, `execute(fn -> ...)`, a
condition) is an unknown statement naming it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from release_safety.code import elixir
from release_safety.code.jsvalues import Dynamic, known
from release_safety.code.literals import Symbol, name_of
from release_safety.code.syntax import shown
from release_safety.surfaces.migrations.frameworks.emit import (
    Out,
    parsed,
    quote,
    read_safely,
    scalar,
)
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

FRAMEWORK = "ecto"
_NAMED = {
    "id": "integer",
    "identity": "bigint",
    "serial": "serial",
    "bigserial": "bigserial",
    "binary_id": "uuid",
    "string": "varchar",
    "bitstring": "varbit",
    "binary": "bytea",
    "map": "jsonb",
    "time_usec": "time",
    "utc_datetime": "timestamp",
    "utc_datetime_usec": "timestamp",
    "naive_datetime": "timestamp",
    "naive_datetime_usec": "timestamp",
    "duration": "interval",
}
_SECONDS = {"time", "utc_datetime", "naive_datetime"}
_REFERENCE_TYPES = {"serial": "integer", "bigserial": "bigint", "identity": "bigint"}
_ON_DELETE = {
    "nilify_all": " ON DELETE SET NULL",
    "default_all": " ON DELETE SET DEFAULT",
    "delete_all": " ON DELETE CASCADE",
    "restrict": " ON DELETE RESTRICT",
}
_ON_UPDATE = {
    "nilify_all": " ON UPDATE SET NULL",
    "update_all": " ON UPDATE CASCADE",
    "restrict": " ON UPDATE RESTRICT",
}


def extract_ecto(text: str, path: str) -> Extracted:
    """The statements an Ecto migration's `change` (or `up`) runs, and whether they run in a
    transaction."""
    return read_safely(FRAMEWORK, lambda: _extract(text))


def _extract(text: str) -> Extracted:
    root = parsed("elixir", text)
    module = next((n for n in root.named_children if elixir.call_name(n) == "defmodule"), None)
    body = elixir.do_block(module) if module is not None else None
    if body is None:
        return Extracted([Statement(None, 1, "ecto: no migration module found")])
    attributes = elixir.attributes(body)
    functions: dict[str, Node] = {}
    for statement in elixir.statements(body):
        if elixir.call_name(statement) == "def":
            positional, _ = elixir.arguments(statement)
            head = positional[0] if positional else None
            name = elixir.call_name(head) if head is not None else None
            if name is not None:
                functions[name] = statement
    reader = _Reader(Out(FRAMEWORK), {f"@{k}": v for k, v in attributes.items()})
    function = functions.get("change") or functions.get("up")
    if function is None:
        reader.out.unknown(_line(module or root), "no `change` or `up` function")
    else:
        for statement in elixir.statements(elixir.do_block(function)):
            reader.statement(statement)
    transactional = attributes.get("disable_ddl_transaction") is not True
    return Extracted(reader.out.statements, transactional, transactional)


def _line(node: Node) -> int:
    return node.start_point.row + 1


@dataclass(frozen=True)
class _Object:
    """`table(:posts, opts)`, `index(:posts, [:a], opts)`, `constraint(...)`, `references(...)`
    as written, their arguments evaluated."""

    kind: str
    args: list[object]
    options: dict[str, object]


@dataclass
class _Reader:
    out: Out
    scope: dict[str, object]

    def value(self, node: Node) -> object:
        """A literal, or one of Ecto's objects (`table(:posts)`, `references(:users)`,
        `fragment("now()")`)."""
        name = elixir.call_name(node) if node.type == "call" else None
        if name in ("table", "index", "unique_index", "constraint", "references", "fragment"):
            positional, keywords = elixir.arguments(node)
            args = [self.value(a) for a in positional]
            options = {k: self.value(v) for k, v in keywords.items()}
            last = args[-1] if args else None
            if isinstance(last, dict) and not options:  # a keyword list as the last argument
                args.pop()
                options = {str(k): v for k, v in last.items()}
            return _Object(name or "", args, options)
        return elixir.evaluate(node, self.scope)

    def statement(self, node: Node) -> None:
        line = _line(node)
        name = elixir.call_name(node) if node.type == "call" else None
        if name in ("flush",):
            return
        handler = _COMMANDS.get(name or "")
        if handler is None:
            self.out.unknown(line, f"`{shown(node)}`, not a migration command")
            return
        self.out.guarded(line, lambda: handler(self, node, line))


def _name(value: object) -> str:
    value = known(value)
    found = name_of(value)
    if found is None:
        raise Dynamic(f"the name {value!r}, not an atom or a string")
    return found


def _object(value: object, *kinds: str) -> _Object:
    value = known(value)
    if not isinstance(value, _Object) or value.kind not in kinds:
        raise Dynamic(f"{value!r}, not {' or '.join(kinds)}(...)")
    return value


def _column_type(kind: object, options: dict[str, object]) -> str:
    """`column_type_name`: an atom's database type with its size, precision or scale."""
    kind = known(kind)
    if isinstance(kind, tuple) and len(kind) == 2 and kind[0] == Symbol("array"):
        return _column_type(kind[1], options) + "[]"
    name = _name(kind)
    sql = _NAMED.get(name, name)
    if name in _SECONDS:
        return f"{sql}(0)"
    size, precision = known(options.get("size")), known(options.get("precision"))
    if name.endswith("_usec") or name == "duration":
        return f"{sql}({precision})" if precision is not None else sql
    if size is not None:
        return f"{sql}({size})"
    if precision is not None:
        return f"{sql}({precision},{known(options.get('scale')) or 0})"
    if name == "string":
        return f"{sql}(255)"
    if name == "identity":
        return f"{sql} GENERATED BY DEFAULT AS IDENTITY"
    return sql


def _default(value: object, kind: object) -> str:
    value = known(value)
    if isinstance(value, _Object) and value.kind == "fragment" and value.args:
        return str(known(value.args[0]))
    written = scalar(value, ("true", "false"))
    if written is not None:
        return written
    if isinstance(value, list) and isinstance(kind, tuple):
        items = ",".join(_default(v, kind[1]) for v in value)
        return f"ARRAY[{items}]::{_NAMED.get(_name(kind[1]), _name(kind[1]))}[]"
    if isinstance(value, dict):
        return "'" + json.dumps(value, separators=(",", ":")).replace("'", "''") + "'"
    raise Dynamic(f"the default {value!r}, not modelled")


def _options(kind: object, options: dict[str, object]) -> str:
    """`column_options`: DEFAULT, NULL / NOT NULL, COLLATE."""
    sql = ""
    if "default" in options:
        sql += f" DEFAULT {_default(options['default'], known(kind))}"
    null = known(options.get("null"))
    sql += " NOT NULL" if null is False else " NULL" if null is True else ""
    if "collation" in options:
        sql += f' COLLATE "{_name(options["collation"])}"'
    return sql


def _reference(table: str, column: str, ref: _Object) -> tuple[str, str]:
    """The column type of a reference and its `CONSTRAINT ... FOREIGN KEY` clause."""
    target = _name(ref.args[0]) if ref.args else ""
    options = ref.options
    kind = known(options.get("type", Symbol("bigserial")))
    named = _name(kind)
    column_type = _REFERENCE_TYPES.get(named) or _column_type(kind, options)
    name = _name(options["name"]) if "name" in options else f"{table}_{column}_fkey"
    key = _name(options.get("column", Symbol("id")))
    clause = (
        f"CONSTRAINT {quote(name)} FOREIGN KEY ({quote(column)}) "
        f"REFERENCES {quote(target)}({quote(key)})"
    )
    on_delete, on_update = known(options.get("on_delete")), known(options.get("on_update"))
    clause += _ON_DELETE.get(_name(on_delete), "") if on_delete is not None else ""
    clause += _ON_UPDATE.get(_name(on_update), "") if on_update is not None else ""
    clause += " NOT VALID" if known(options.get("validate")) is False else ""
    return column_type, clause


@dataclass(frozen=True)
class _Change:
    action: str
    column: str
    kind: object
    options: dict[str, object]


def _changes(reader: _Reader, block: Node | None) -> list[_Change]:
    """The `add` / `modify` / `remove` / `timestamps` of a table block, in order."""
    changes: list[_Change] = []
    for statement in elixir.statements(block):
        action = elixir.call_name(statement) if statement.type == "call" else None
        positional, keywords = elixir.arguments(statement) if action else ([], {})
        args = [reader.value(a) for a in positional]
        options = {k: reader.value(v) for k, v in keywords.items()}
        if action == "timestamps":
            stamp = options.pop("type", Symbol("naive_datetime"))
            options.setdefault("null", False)
            for column in ("inserted_at", "updated_at"):
                written = options.pop(column, column)
                if written is not False:
                    changes.append(_Change("add", _name(written), stamp, dict(options)))
        elif action in ("add", "add_if_not_exists", "modify") and len(args) >= 2:
            changes.append(_Change(action, _name(args[0]), args[1], options))
        elif action in ("remove", "remove_if_exists") and args:
            kind = args[1] if len(args) > 1 else None
            changes.append(_Change(action, _name(args[0]), kind, options))
        else:
            raise Dynamic(f"`{shown(statement)}` in a table block, not modelled")
    return changes


def _create(reader: _Reader, node: Node, line: int) -> None:
    positional, _ = elixir.arguments(node)
    target = reader.value(positional[0]) if positional else None
    exists = " IF NOT EXISTS" if elixir.call_name(node) == "create_if_not_exists" else ""
    created = _object(target, "table", "index", "unique_index", "constraint")
    if created.kind == "table":
        _create_table(reader, node, line, created, exists)
    elif created.kind in ("index", "unique_index"):
        _create_index(reader, line, created, exists)
    else:
        table, name = _name(created.args[0]), _name(created.args[1])
        check = known(created.options.get("check"))
        if not isinstance(check, str):
            raise Dynamic("a constraint without a check expression, not modelled")
        valid = " NOT VALID" if known(created.options.get("validate")) is False else ""
        reader.out.sql(
            line, f"ALTER TABLE {quote(table)} ADD CONSTRAINT {quote(name)} CHECK ({check}){valid}"
        )


def _create_table(reader: _Reader, node: Node, line: int, table: _Object, exists: str) -> None:
    name = _name(table.args[0])
    primary = known(table.options.get("primary_key", True))
    definitions: list[str] = []
    keys: list[str] = []
    if primary is not False:
        key = primary if isinstance(primary, dict) else {}
        column = _name(key.get("name", Symbol("id")))
        definitions.append(
            f"{quote(column)} {_column_type(key.get('type', Symbol('bigserial')), {})}"
        )
        keys.append(column)
    for change in _changes(reader, elixir.do_block(node)):
        if change.action != "add":
            raise Dynamic(f"`{change.action}` in create table, not modelled")
        if known(change.options.get("primary_key")) is True:
            keys.append(change.column)
        kind = known(change.kind)
        if isinstance(kind, _Object) and kind.kind == "references":
            column_type, clause = _reference(name, change.column, kind)
            options = _options(kind.options.get("type", Symbol("bigserial")), change.options)
            definitions.append(f"{quote(change.column)} {column_type}{options}, {clause}")
        else:
            definitions.append(
                f"{quote(change.column)} {_column_type(kind, change.options)}"
                f"{_options(kind, change.options)}"
            )
    if keys:
        definitions.append(f"PRIMARY KEY ({', '.join(quote(k) for k in keys)})")
    reader.out.sql(line, f"CREATE TABLE{exists} {quote(name)} ({', '.join(definitions)})")


def _index_name(index: _Object) -> str:
    if "name" in index.options:
        return _name(index.options["name"])
    columns = known(index.args[1]) if len(index.args) > 1 else []
    listed = columns if isinstance(columns, list) else [columns]
    parts = [_name(index.args[0]), *(_column_name(c) for c in listed), "index"]
    return "_".join(parts)


def _column_name(value: object) -> str:
    value = known(value)
    if isinstance(value, tuple) and len(value) == 2:
        value = value[1]
    return re.sub(r"[^\w]", "_", _name(value))


def _index_column(value: object) -> str:
    value = known(value)
    if isinstance(value, tuple) and len(value) == 2:
        direction = _name(value[0]).upper().replace("_", " ")
        return f"{_index_column(value[1])} {direction}"
    if isinstance(value, str):
        return value  # an expression, written as is
    return quote(_name(value))


def _create_index(reader: _Reader, line: int, index: _Object, exists: str) -> None:
    table = _name(index.args[0])
    columns = known(index.args[1]) if len(index.args) > 1 else []
    listed = columns if isinstance(columns, list) else [columns]
    options = index.options
    unique = "UNIQUE " if index.kind == "unique_index" or known(options.get("unique")) else ""
    concurrently = "CONCURRENTLY " if known(options.get("concurrently")) else ""
    using = f" USING {_name(options['using'])}" if "using" in options else ""
    where = f" WHERE {known(options['where'])}" if "where" in options else ""
    fields = ", ".join(_index_column(c) for c in listed)
    name = quote(_index_name(index))
    head = f"CREATE {unique}INDEX {concurrently}{exists.lstrip()}{' ' if exists else ''}"
    reader.out.sql(line, f"{head}{name} ON {quote(table)}{using} ({fields}){where}")


def _drop(reader: _Reader, node: Node, line: int) -> None:
    positional, keywords = elixir.arguments(node)
    first = reader.value(positional[0]) if positional else None
    target = _object(first, "table", "index", "unique_index", "constraint")
    exists = "IF EXISTS " if elixir.call_name(node) == "drop_if_exists" else ""
    mode = reader.value(keywords["mode"]) if "mode" in keywords else None
    cascade = " CASCADE" if known(mode) == Symbol("cascade") else ""
    if target.kind == "table":
        reader.out.sql(line, f"DROP TABLE {exists}{quote(_name(target.args[0]))}{cascade}")
    elif target.kind == "constraint":
        table, name = _name(target.args[0]), _name(target.args[1])
        reader.out.sql(
            line, f"ALTER TABLE {quote(table)} DROP CONSTRAINT {exists}{quote(name)}{cascade}"
        )
    else:
        concurrently = "CONCURRENTLY " if known(target.options.get("concurrently")) else ""
        reader.out.sql(
            line, f"DROP INDEX {concurrently}{exists}{quote(_index_name(target))}{cascade}"
        )


def _alter(reader: _Reader, node: Node, line: int) -> None:
    positional, _ = elixir.arguments(node)
    table = _name(_object(reader.value(positional[0]) if positional else None, "table").args[0])
    parts: list[str] = []
    keys: list[str] = []
    for change in _changes(reader, elixir.do_block(node)):
        column = quote(change.column)
        kind = known(change.kind)
        reference = kind if isinstance(kind, _Object) and kind.kind == "references" else None
        if change.action in ("add", "add_if_not_exists"):
            exists = " IF NOT EXISTS" if change.action == "add_if_not_exists" else ""
            if known(change.options.get("primary_key")) is True:
                keys.append(change.column)
            if reference is not None:
                column_type, clause = _reference(table, change.column, reference)
                options = _options(
                    reference.options.get("type", Symbol("bigserial")), change.options
                )
                parts.append(f"ADD COLUMN{exists} {column} {column_type}{options}, ADD {clause}")
            else:
                parts.append(
                    f"ADD COLUMN{exists} {column} {_column_type(kind, change.options)}"
                    f"{_options(kind, change.options)}"
                )
        elif change.action == "modify":
            if "from" in change.options and isinstance(known(change.options["from"]), _Object):
                raise Dynamic("modify from a reference, not modelled")
            if reference is not None:
                raise Dynamic("modify to a reference, not modelled")
            sql = f"ALTER COLUMN {column} TYPE {_column_type(kind, change.options)}"
            null = known(change.options.get("null"))
            if null is not None:
                sql += f", ALTER COLUMN {column} {'DROP' if null else 'SET'} NOT NULL"
            if "default" in change.options:
                default = _default(change.options["default"], kind)
                sql += f", ALTER COLUMN {column} SET DEFAULT {default}"
            if "collation" in change.options:
                sql += f' COLLATE "{_name(change.options["collation"])}"'
            parts.append(sql)
        else:
            exists = " IF EXISTS" if change.action == "remove_if_exists" else ""
            if reference is not None:
                _, clause = _reference(table, change.column, reference)
                name = clause.split('"')[1]
                parts.append(f"DROP CONSTRAINT{exists} {quote(name)}, DROP COLUMN{exists} {column}")
            else:
                parts.append(f"DROP COLUMN{exists} {column}")
    if keys:
        parts.append(f"ADD PRIMARY KEY ({', '.join(quote(k) for k in keys)})")
    if parts:
        reader.out.sql(line, f"ALTER TABLE {quote(table)} {', '.join(parts)}")


def _rename(reader: _Reader, node: Node, line: int) -> None:
    positional, keywords = elixir.arguments(node)
    values = [reader.value(a) for a in positional]
    to = reader.value(keywords["to"]) if "to" in keywords else None
    first = _object(values[0] if values else None, "table", "index")
    if first.kind == "index":
        reader.out.sql(
            line, f"ALTER INDEX {quote(_index_name(first))} RENAME TO {quote(_name(to))}"
        )
    elif len(values) == 2:
        old, new = quote(_name(values[1])), quote(_name(to))
        reader.out.sql(line, f"ALTER TABLE {quote(_name(first.args[0]))} RENAME {old} TO {new}")
    else:
        new_table = _name(_object(to, "table").args[0])
        reader.out.sql(
            line, f"ALTER TABLE {quote(_name(first.args[0]))} RENAME TO {quote(new_table)}"
        )


def _execute(reader: _Reader, node: Node, line: int) -> None:
    positional, _ = elixir.arguments(node)
    if not positional:
        raise Dynamic("execute without SQL")
    reader.out.script(line, reader.value(positional[0]))


_COMMANDS: dict[str, Callable[[_Reader, Node, int], None]] = {
    "create": _create,
    "create_if_not_exists": _create,
    "drop": _drop,
    "drop_if_exists": _drop,
    "alter": _alter,
    "rename": _rename,
    "execute": _execute,
    "repo().query!": _execute,
    "repo().query": _execute,
}
