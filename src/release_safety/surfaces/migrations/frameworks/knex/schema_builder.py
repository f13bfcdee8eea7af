"""knex's objects as a migration's `up` sees them: the knex instance, `knex.schema`, query
builders for data changes and `knex.raw`, compiled to the SQL knex 3 sends to PostgreSQL."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Protocol

from release_safety.surfaces.migrations.frameworks.knex.sql import (
    Out,
    Raw,
    columnize,
    position_bindings,
    render_raw,
    wrap,
)
from release_safety.surfaces.migrations.frameworks.knex.table_compiler import (
    Column,
    Foreign,
    TableBuilder,
)
from release_safety.surfaces.migrations.frameworks.knex.values import (
    UNDEFINED,
    Dynamic,
    Unknown,
    js_str,
    known,
    truthy,
)
from release_safety.surfaces.migrations.sql.sqlfile import split_sql


class Host(Protocol):
    """What a builder needs from the interpreter: the current line and calling callbacks."""

    line: int
    literal_line: int | None

    def invoke(self, function: object, args: list[object]) -> object: ...


@dataclass(frozen=True)
class Guard:
    """The result of `hasTable` / `hasColumn`: true or false only at run time."""

    text: str


class Runnable(ABC):
    """A builder that runs statements when awaited; it runs them once."""

    done: bool = False

    @abstractmethod
    def statements(self) -> list[Out]:
        """The statements, bindings still as `?`."""

    def run(self) -> list[Out]:
        if self.done:
            return []
        self.done = True
        return [
            Out(position_bindings(o.sql), o.line, o.reason) if o.sql is not None else o
            for o in self.statements()
        ]


@dataclass(eq=False)
class KnexRaw(Raw, Runnable):
    """`knex.raw(sql, bindings)`: a statement when awaited, a fragment inside another call.

    Text holding several statements is split; when the text is a literal in the call, each
    statement gets its own line, otherwise the line of the call.
    """

    line: int = 1
    literal: bool = False

    def statements(self) -> list[Out]:
        try:
            return [Out(render_raw(self, []), self.line)]
        except Dynamic as exc:
            return [Out(None, self.line, f"dynamic SQL: {exc.reason}")]

    def run(self) -> list[Out]:
        outs = super().run()
        if len(outs) != 1 or outs[0].sql is None:
            return outs
        try:
            parts = split_sql(outs[0].sql)
        except ValueError:
            return outs
        return [Out(p.sql, self.line + (p.line - 1 if self.literal else 0)) for p in parts if p.sql]


def make_raw(args: list[object], line: int, literal_line: int | None = None) -> object:
    """`knex.raw(...)` from evaluated arguments: a KnexRaw, or a runnable dynamic statement."""
    sql = args[0] if args else UNDEFINED
    bindings = args[1] if len(args) > 1 else UNDEFINED
    if isinstance(sql, Unknown):
        return DynamicStatement(line, f"dynamic SQL: {sql.reason}")
    if isinstance(sql, Raw):
        return KnexRaw(sql.sql, list(sql.bindings), line=line)
    if literal_line is not None and isinstance(sql, str):
        line = literal_line
    if not isinstance(sql, str):
        return DynamicStatement(line, "dynamic SQL: knex.raw without a string")
    if isinstance(bindings, Unknown):
        return DynamicStatement(line, f"dynamic SQL bindings: {bindings.reason}")
    if isinstance(bindings, dict):
        try:
            sql, bindings = _named_bindings(sql, bindings)
        except Dynamic as exc:
            return DynamicStatement(line, f"dynamic SQL: {exc.reason}")
    values = (
        bindings if isinstance(bindings, list) else ([] if bindings is UNDEFINED else [bindings])
    )
    return KnexRaw(sql, values, line=line, literal=literal_line is not None)


_NAMED = re.compile(r"\\?(:(\w+):(?=::)|:(\w+):(?!:)|:(\w+))")


def _named_bindings(sql: str, values: dict[str, object]) -> tuple[str, list[object]]:
    """knex `replaceKeyBindings`: `:name` a value, `:name:` an identifier, `\\:` kept."""
    positional: list[object] = []

    def replace(match: re.Match[str]) -> str:
        whole, inner = match.group(0), match.group(1)
        if whole != inner:
            return inner
        key = match.group(2) or match.group(3) or match.group(4)
        if key not in values or values[key] is UNDEFINED:
            return whole
        if whole.endswith(":"):
            return columnize(values[key])
        positional.append(values[key])
        return "?"

    return _NAMED.sub(replace, sql), positional


@dataclass(eq=False)
class DynamicStatement(Runnable):
    """A statement knex runs whose text is not known statically."""

    line: int
    reason: str

    def statements(self) -> list[Out]:
        return [Out(None, self.line, self.reason)]


class Fn:
    """`knex.fn`."""

    def call(self, name: str, args: list[object], host: Host) -> object:
        if name == "now":
            precision = args[0] if args else UNDEFINED
            if isinstance(precision, int | float) and not isinstance(precision, bool):
                return Raw(f"CURRENT_TIMESTAMP({js_str(precision)})")
            return Raw("CURRENT_TIMESTAMP")
        if name == "uuid":
            return Raw("(gen_random_uuid())")
        return Unknown(f"knex.fn.{name}() is not translated")


class Knex:
    """The knex instance passed to `up` (or a transaction made from it)."""

    def get(self, name: str) -> object:
        if name == "schema":
            return SchemaBuilder()
        if name == "fn":
            return Fn()
        return Unknown(f"knex.{name} is not translated")

    def call_self(self, args: list[object], host: Host) -> object:
        builder = QueryBuilder(line=host.line)
        if args:
            builder.table = args[0]
        return builder

    def call(self, name: str, args: list[object], host: Host) -> object:
        if name == "raw":
            return make_raw(args, host.line, host.literal_line)
        if name == "transaction":
            return Knex()
        if name == "ref":
            return Raw(wrap(args[0] if args else UNDEFINED))
        if name in (
            "commit",
            "rollback",
            "destroy",
            "savepoint",
            "isTransaction",
            "executionPromise",
        ):
            return Unknown(f"knex.{name}()")
        if name in QUERY_METHODS or name in ("queryBuilder", "table", "from", "into"):
            return QueryBuilder(line=host.line).call(name, args, host)
        return DynamicStatement(host.line, f"knex.{name}() is not translated")


@dataclass(eq=False)
class SchemaBuilder(Runnable):
    """`knex.schema` and the calls chained on it."""

    schema: object = UNDEFINED
    outs: list[Out] = field(default_factory=list)

    def statements(self) -> list[Out]:
        return self.outs

    def _name(self, name: object) -> str:
        schema = known(self.schema)
        if truthy(schema):
            return wrap(f"{js_str(schema)}.{js_str(name)}")
        return wrap(name)

    def _emit(self, line: int, build: object) -> None:
        try:
            assert callable(build)
            self.outs.append(Out(build(), line))
        except Dynamic as exc:
            self.outs.append(Out(None, line, f"dynamic SQL: {exc.reason}"))

    def call(self, name: str, args: list[object], host: Host) -> object:
        line = host.line
        first = args[0] if args else UNDEFINED
        second = args[1] if len(args) > 1 else UNDEFINED
        if name == "withSchema":
            self.schema = first
        elif name in _TABLE_METHODS:
            self._table(_TABLE_METHODS[name], first, second, host)
        elif name in ("hasTable", "hasColumn"):
            shown = ", ".join(_show(a) for a in args)
            return Guard(f"knex.schema.{name}({shown})")
        elif name in ("dropTable", "dropTableIfExists"):
            exists = "if exists " if name.endswith("IfExists") else ""
            self._emit(line, lambda: f"drop table {exists}{self._name(first)}")
        elif name == "renameTable":
            self._emit(line, lambda: f"alter table {self._name(first)} rename to {wrap(second)}")
        elif name == "raw":
            raw = make_raw(args, line, host.literal_line)
            assert isinstance(raw, Runnable)
            self.outs.extend(raw.run())
        elif name in _SIMPLE:
            self._simple(name, first, second, line)
        else:
            self.outs.append(Out(None, line, f"knex.schema.{name}() is not translated"))
        return self

    def _simple(self, name: str, first: object, second: object, line: int) -> None:
        verb, noun = _SIMPLE[name]
        exists = " if exists" if name.endswith("IfExists") else ""
        exists = " if not exists" if name.endswith("IfNotExists") else exists
        if noun in ("schema", "extension"):
            cascade = " cascade" if noun == "schema" and second is True else ""
            self._emit(line, lambda: f"{verb} {noun}{exists} {wrap(first)}{cascade}")
        elif name == "refreshMaterializedView":
            concurrently = " concurrently" if second is True else ""
            self._emit(line, lambda: f"refresh materialized view{concurrently} {wrap(first)}")
        elif name == "renameView":
            self._emit(line, lambda: f"alter view {wrap(first)} rename to {wrap(second)}")
        else:
            self._emit(line, lambda: f"drop {noun}{exists} {self._name(first)}")

    def _table(self, method: str, name: object, callback: object, host: Host) -> None:
        line = host.line
        builder = TableBuilder(method=method, table=name, schema=self.schema)
        if callback is not UNDEFINED:
            host.invoke(callback, [TableProxy(builder)])
        try:
            known(name)
            self.outs.extend(builder.compile(line))
        except Dynamic as exc:
            self.outs.append(Out(None, line, f"dynamic table name: {exc.reason}"))


_TABLE_METHODS = {
    "createTable": "create",
    "createTableIfNotExists": "createIfNot",
    "table": "alter",
    "alterTable": "alter",
}


_SIMPLE = {
    "createSchema": ("create", "schema"),
    "createSchemaIfNotExists": ("create", "schema"),
    "dropSchema": ("drop", "schema"),
    "dropSchemaIfExists": ("drop", "schema"),
    "createExtension": ("create", "extension"),
    "createExtensionIfNotExists": ("create", "extension"),
    "dropExtension": ("drop", "extension"),
    "dropExtensionIfExists": ("drop", "extension"),
    "dropView": ("drop", "view"),
    "dropViewIfExists": ("drop", "view"),
    "dropMaterializedView": ("drop", "materialized view"),
    "dropMaterializedViewIfExists": ("drop", "materialized view"),
    "refreshMaterializedView": ("refresh", "materialized view"),
    "renameView": ("alter", "view"),
}


def _show(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, Unknown):
        return "<dynamic>"
    try:
        return js_str(value)
    except Dynamic:
        return "<dynamic>"


@dataclass(eq=False)
class TableProxy:
    """The table builder as the callback sees it; unknown calls become dynamic statements."""

    builder: TableBuilder

    def call(self, name: str, args: list[object], host: Host) -> object:
        result = self.builder.call(name, args, host.line)
        if isinstance(result, Column):
            return ColumnProxy(result)
        if isinstance(result, Foreign):
            return ForeignProxy(result)
        if result is None:
            self.builder.ops.append(("unsupported", [f"table.{name}()"], host.line))
        return self


@dataclass(eq=False)
class ColumnProxy:
    """A column builder as the callback sees it."""

    column: Column

    def call(self, name: str, args: list[object], host: Host) -> object:
        if not self.column.call(name, args, host.line):
            self.column.table.ops.append(("unsupported", [f"column .{name}()"], host.line))
        return self


@dataclass(eq=False)
class ForeignProxy:
    """`table.foreign(...)` and its chain."""

    foreign: Foreign

    def call(self, name: str, args: list[object], host: Host) -> object:
        self.foreign.call(name, args)
        return self


QUERY_METHODS = frozenset(
    [
        "where",
        "andWhere",
        "orWhere",
        "whereNot",
        "andWhereNot",
        "orWhereNot",
        "whereIn",
        "orWhereIn",
        "whereNotIn",
        "orWhereNotIn",
        "whereNull",
        "orWhereNull",
        "whereNotNull",
        "orWhereNotNull",
        "whereRaw",
        "orWhereRaw",
        "andWhereRaw",
        "whereBetween",
        "whereNotBetween",
        "whereExists",
        "whereNotExists",
        "whereLike",
        "whereILike",
        "update",
        "insert",
        "del",
        "delete",
        "increment",
        "decrement",
        "select",
        "column",
        "columns",
        "withSchema",
        "onConflict",
        "ignore",
        "merge",
        "returning",
        "first",
        "pluck",
        "count",
        "max",
        "min",
        "sum",
        "orderBy",
        "limit",
        "offset",
        "groupBy",
        "distinct",
        "join",
        "leftJoin",
        "innerJoin",
        "truncate",
    ]
)


_READ_ONLY = frozenset(
    ["first", "pluck", "count", "max", "min", "sum", "orderBy", "limit", "offset", "groupBy"]
)


@dataclass(eq=False)
class QueryBuilder(Runnable):
    """`knex('table')...`: a data change (or a read, which emits nothing)."""

    line: int = 1
    table: object = UNDEFINED
    schema: object = UNDEFINED
    method: str = "select"
    data: object = UNDEFINED
    columns: list[object] = field(default_factory=list)
    wheres: list[tuple[str, object]] = field(default_factory=list)
    counters: dict[str, tuple[object, int]] = field(default_factory=dict)
    conflict: object = UNDEFINED
    conflict_action: str = ""
    merge_data: object = UNDEFINED
    returning: object = UNDEFINED
    unsupported: list[str] = field(default_factory=list)

    def where_sql(self) -> str:
        params: list[object] = []
        return position_bindings(self._where(params))

    def call(self, name: str, args: list[object], host: Host) -> object:
        first = args[0] if args else UNDEFINED
        if name in ("table", "from", "into", "queryBuilder"):
            if args:
                self.table = first
        elif name == "withSchema":
            self.schema = first
        elif name in ("update", "insert", "del", "delete", "truncate"):
            self.method = "del" if name == "delete" else name
            self.line = host.line
            if name == "update" and len(args) >= 2 and not isinstance(first, dict):
                self.data = {_key(first): args[1]}
            elif name in ("update", "insert"):
                self.data = first
        elif name in ("increment", "decrement"):
            self.method, self.line = "update", host.line
            amount = args[1] if len(args) > 1 else 1
            sign = -1 if name == "decrement" else 1
            if isinstance(first, dict):
                self.counters.update({_key(k): (v, sign) for k, v in first.items()})
            else:
                self.counters[_key(first)] = (amount, sign)
        elif name in ("select", "column", "columns"):
            self.columns.extend(_flat(args))
        elif name == "onConflict":
            self.conflict = first
        elif name in ("ignore", "merge"):
            self.conflict_action = name
            self.merge_data = first
        elif name == "returning":
            self.returning = first
        elif name.lower().startswith(("where", "andwhere", "orwhere")):
            self._add_where(name, args, host)
        elif name in ("then", "catch", "finally"):
            return self
        elif name not in _READ_ONLY:
            self.unsupported.append(name)
        return self

    def _add_where(self, name: str, args: list[object], host: Host) -> None:
        boolean = "or" if name.startswith("or") else "and"
        base = name[2:] if name.startswith("or") else name
        base = base[3:] if base.startswith("and") else base
        base = base[0].lower() + base[1:]
        negate = base.startswith("whereNot") and base not in ("whereNotIn", "whereNotNull")
        if negate and base not in ("whereNotBetween", "whereNotExists"):
            base = "where" + base[len("whereNot") :]
        if base == "" or base == "where":
            base = "where"
        if len(args) == 1 and not isinstance(args[0], dict | str | Raw | Unknown | QueryBuilder):
            nested = QueryBuilder(line=host.line)
            host.invoke(args[0], [nested])
            if base in ("whereExists", "whereNotExists"):
                self.wheres.append((boolean, (base, [nested], negate)))
            else:
                self.wheres.append((boolean, ("nested", nested, negate)))
            return
        self.wheres.append((boolean, (base, list(args), negate)))

    def _where(self, params: list[object]) -> str:
        parts: list[str] = []
        for boolean, clause in self.wheres:
            assert isinstance(clause, tuple)
            text = _where_clause(clause, params)
            for sub in text if isinstance(text, list) else [text]:
                parts.append(sub if not parts else f"{boolean} {sub}")
        return ("where " + " ".join(parts)) if parts else ""

    def select_sql(self, params: list[object]) -> str:
        if self.unsupported:
            raise Dynamic(f"query methods {', '.join(self.unsupported)} are not translated")
        cols = ", ".join(_column_sql(c, params) for c in self.columns) if self.columns else "*"
        where = self._where(params)
        return f"select {cols} from {self._table()}" + (f" {where}" if where else "")

    def _table(self) -> str:
        schema = known(self.schema)
        table = known(self.table)
        if table is UNDEFINED:
            raise Dynamic("query builder without a table")
        if truthy(schema):
            return wrap(f"{js_str(schema)}.{js_str(table)}")
        return wrap(table)

    def statements(self) -> list[Out]:
        if self.method == "select":
            return []
        try:
            if self.unsupported:
                raise Dynamic(f"query methods {', '.join(self.unsupported)} are not translated")
            return [Out(self._sql(), self.line)]
        except Dynamic as exc:
            return [Out(None, self.line, f"dynamic data change: {exc.reason}")]

    def _sql(self) -> str:
        params: list[object] = []
        table = self._table()
        if self.method == "truncate":
            return f"truncate {table} restart identity"
        if self.method == "del":
            where = self._where(params)
            return f"delete from {table}" + (f" {where}" if where else "") + self._returning()
        if self.method == "update":
            sets = self._sets(params)
            where = self._where(params)
            return f"update {table} set {sets}" + (f" {where}" if where else "") + self._returning()
        return f"insert into {table}{self._insert(params)}{self._conflict()}{self._returning()}"

    def _sets(self, params: list[object]) -> str:
        data = known(self.data)
        items = list(data.items()) if isinstance(data, dict) else []
        if data is not UNDEFINED and not isinstance(data, dict):
            raise Dynamic("update data is not an object literal")
        out = [f"{wrap(k)} = {_value_sql(v, params)}" for k, v in items if v is not UNDEFINED]
        for column, (amount, sign) in self.counters.items():
            if column in dict(items):
                continue
            value = known(amount)
            symbol = "-" if (isinstance(value, int | float) and value * sign < 0) else "+"
            magnitude = abs(value) if isinstance(value, int | float) else value
            params.append(magnitude)
            out.append(f"{wrap(column)} = {wrap(column)} {symbol} ?")
        if not out:
            raise Dynamic("update without known columns")
        return ", ".join(out)

    def _insert(self, params: list[object]) -> str:
        data = known(self.data)
        if isinstance(data, QueryBuilder):
            return " " + data.select_sql(params)
        if isinstance(data, Raw):
            return " " + render_raw(data, params)
        rows = data if isinstance(data, list) else [data]
        rows = [known(r) for r in rows]
        if not rows or not all(isinstance(r, dict) for r in rows):
            if not rows:
                return " default values"
            raise Dynamic("insert data is not a list of object literals")
        columns = sorted({str(k) for r in rows if isinstance(r, dict) for k in r})
        if not columns:
            return " default values"
        values = []
        for row in rows:
            assert isinstance(row, dict)
            cells = [
                "DEFAULT" if row.get(c, UNDEFINED) is UNDEFINED else _value_sql(row[c], params)
                for c in columns
            ]
            values.append("(" + ", ".join(cells) + ")")
        return f" ({', '.join(wrap(c) for c in columns)}) values {', '.join(values)}"

    def _conflict(self) -> str:
        if self.conflict is UNDEFINED:
            return ""
        target = f" ({columnize(self.conflict)})" if known(self.conflict) is not None else ""
        if self.conflict_action == "ignore":
            return f" on conflict{target} do nothing"
        if self.conflict_action == "merge":
            merge = known(self.merge_data)
            data = known(self.data)
            if isinstance(merge, list):
                names = [js_str(m) for m in merge]
            elif isinstance(merge, dict):
                raise Dynamic("merge with an object is not translated")
            else:
                first = data[0] if isinstance(data, list) and data else data
                names = sorted(str(k) for k in first) if isinstance(first, dict) else []
            sets = ", ".join(f"{wrap(n)} = excluded.{wrap(n)}" for n in names)
            return f" on conflict{target} do update set {sets}"
        return ""

    def _returning(self) -> str:
        if self.returning is UNDEFINED:
            return ""
        return f" returning {columnize(self.returning)}"


def _key(value: object) -> str:
    return js_str(known(value))


def _flat(args: list[object]) -> list[object]:
    out: list[object] = []
    for arg in args:
        out.extend(arg if isinstance(arg, list) else [arg])
    return out


def _column_sql(value: object, params: list[object]) -> str:
    if isinstance(value, Raw):
        return render_raw(value, params)
    return wrap(value)


def _value_sql(value: object, params: list[object]) -> str:
    if isinstance(value, Raw):
        return render_raw(value, params)
    if isinstance(value, QueryBuilder):
        return "(" + value.select_sql(params) + ")"
    params.append(value)
    return "?"


def _where_clause(clause: tuple[object, ...], params: list[object]) -> str | list[str]:
    kind, args, negate = clause
    not_ = "not " if negate else ""
    if kind == "nested":
        assert isinstance(args, QueryBuilder)
        inner = args._where(params)
        return f"{not_}({inner[len('where ') :]})" if inner else ""
    assert isinstance(args, list)
    first = args[0] if args else UNDEFINED
    if kind == "where":
        if isinstance(first, dict):
            return [
                f"{not_}{wrap(k)} is null"
                if v is None
                else f"{not_}{wrap(k)} = {_value_sql(v, params)}"
                for k, v in first.items()
            ]
        if isinstance(first, Raw):
            return not_ + render_raw(first, params)
        if len(args) == 2:
            if args[1] is None:
                return f"{wrap(first)} is {not_}null"
            return f"{not_}{wrap(first)} = {_value_sql(args[1], params)}"
        if len(args) >= 3:
            operator = js_str(args[1])
            return f"{not_}{wrap(first)} {operator} {_value_sql(args[2], params)}"
        raise Dynamic("where with a dynamic condition")
    if kind in ("whereNull", "whereNotNull"):
        return f"{wrap(first)} is {'not ' if kind == 'whereNotNull' else ''}null"
    if kind in ("whereIn", "whereNotIn"):
        inside = "not in" if kind == "whereNotIn" else "in"
        values = args[1] if len(args) > 1 else UNDEFINED
        if isinstance(values, QueryBuilder):
            return f"{wrap(first)} {inside} ({values.select_sql(params)})"
        values = known(values)
        if isinstance(values, list):
            if not values:
                params.append(1 if kind == "whereNotIn" else 0)
                return "1 = ?"
            return f"{wrap(first)} {inside} ({', '.join(_value_sql(v, params) for v in values)})"
        raise Dynamic("whereIn values are not a list")
    if kind == "whereRaw":
        bindings = known(args[1]) if len(args) > 1 else []
        listed = bindings if isinstance(bindings, list) else [bindings]
        return not_ + render_raw(Raw(js_str(first), listed), params)
    if kind in ("whereBetween", "whereNotBetween"):
        bounds = known(args[1]) if len(args) > 1 else UNDEFINED
        if not isinstance(bounds, list) or len(bounds) != 2:
            raise Dynamic("whereBetween needs two bounds")
        between = "not between" if kind == "whereNotBetween" else "between"
        low, high = _value_sql(bounds[0], params), _value_sql(bounds[1], params)
        return f"{wrap(first)} {between} {low} and {high}"
    if kind in ("whereExists", "whereNotExists"):
        if isinstance(first, QueryBuilder):
            exists = "not exists" if kind == "whereNotExists" else "exists"
            return f"{exists} ({first.select_sql(params)})"
        raise Dynamic("whereExists without a query builder")
    if kind in ("whereLike", "whereILike"):
        operator = "ilike" if kind == "whereILike" else "like"
        return f"{wrap(first)} {operator} {_value_sql(args[1] if len(args) > 1 else None, params)}"
    raise Dynamic(f"{kind}() is not translated")
