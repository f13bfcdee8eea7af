"""knex's PostgreSQL table compiler: a `createTable` / `alterTable` callback's calls compiled to
the statements knex 3 runs (`pg-tablecompiler.js`, `pg-columncompiler.js`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from release_safety.surfaces.migrations.frameworks.knex.sql import (
    Out,
    Raw,
    columnize,
    escape_literal,
    render_raw,
    wrap,
)
from release_safety.surfaces.migrations.frameworks.knex.values import (
    UNDEFINED,
    Dynamic,
    js_str,
    json_stringify,
    known,
    to_number,
    truthy,
)

# Column type names as knex aliases them (`columnAlias`), lowercased like the column compiler.
_ALIAS = {"float": "floating", "enum": "enu", "boolean": "bool", "string": "varchar"}


_ALIAS_BIGINT = {"bigint": "biginteger"}


_FIXED_TYPES = {
    "integer": "integer",
    "mediumint": "integer",
    "smallint": "smallint",
    "tinyint": "smallint",
    "biginteger": "bigint",
    "text": "text",
    "bool": "boolean",
    "date": "date",
    "time": "time",
    "binary": "bytea",
    "double": "double precision",
    "floating": "real",
    "geometry": "geometry",
    "geography": "geography",
    "point": "point",
}


COLUMN_TYPES = frozenset(
    [
        *_FIXED_TYPES,
        "tinyint",
        "bigint",
        "float",
        "boolean",
        "string",
        "enum",
        "increments",
        "bigincrements",
        "bigIncrements",
        "bigInteger",
        "datetime",
        "dateTime",
        "timestamp",
        "varchar",
        "decimal",
        "json",
        "jsonb",
        "uuid",
        "enu",
        "specificType",
        "bit",
    ]
)


_CHECKS = (
    "checkPositive",
    "checkNegative",
    "checkIn",
    "checkNotIn",
    "checkBetween",
    "checkLength",
    "checkRegex",
)


_MODIFIERS = frozenset(
    [
        "defaultTo",
        "default",
        "defaultsTo",
        "nullable",
        "comment",
        *_CHECKS,
        "unsigned",
        "first",
        "after",
        "collate",
    ]
)


@dataclass
class Foreign:
    """The data of a foreign key: `table.foreign(...)` or a column's `.references(...)`."""

    column: object
    key_name: object = None
    references: object = None
    in_table: object = None
    on_update: object = None
    on_delete: object = None
    deferrable: object = None

    def set_references(self, target: object) -> None:
        target = known(target)
        if isinstance(target, str) and "." in target:
            table, _, column = target.rpartition(".")
            self.in_table, self.references = table, column
        else:
            self.references = target

    def call(self, name: str, args: list[object]) -> bool:
        """Apply a chained foreign-key call; False when `name` is not one."""
        arg = args[0] if args else UNDEFINED
        if name == "references":
            self.set_references(arg)
        elif name in ("inTable", "on"):
            self.in_table = arg
        elif name == "onDelete":
            self.on_delete = arg
        elif name == "onUpdate":
            self.on_update = arg
        elif name == "withKeyName":
            self.key_name = arg
        elif name == "deferrable":
            self.deferrable = arg
        else:
            return False
        return True


@dataclass
class Column:
    """A column builder: its type call and modifiers."""

    table: TableBuilder
    type: str
    args: list[object]
    line: int
    modifiers: dict[str, list[object]] = field(default_factory=dict)
    method: str = "add"
    alter_nullable: bool = True
    alter_type: bool = True
    foreign: Foreign | None = None

    @property
    def kind(self) -> str:
        lowered = _ALIAS.get(self.type, self.type).lower()
        return _ALIAS_BIGINT.get(lowered, lowered)

    @property
    def is_increments(self) -> bool:
        return "increments" in self.kind

    def name(self) -> object:
        first = self.args[0] if self.args else UNDEFINED
        if first is None or first is UNDEFINED or first == "":
            if self.is_increments:
                return "id"
            raise Dynamic(f"the {self.type} column has no name")
        return first

    def call(self, name: str, args: list[object], line: int) -> bool:
        """Apply a chained column call; False when `name` is not a column method."""
        if name in ("notNullable", "notNull"):
            self.modifiers["nullable"] = [False]
        elif name in ("default", "defaultsTo", "defaultTo"):
            self.modifiers["defaultTo"] = args
        elif name in _MODIFIERS:
            self.modifiers[name] = args
        elif name in ("index", "primary", "unique"):
            if not self.is_increments:
                self.table.add_op(name, [self.name(), *args], line)
        elif name == "references":
            if self.foreign is None:
                self.foreign = Foreign(column=self.name())
                self.table.ops.append(("foreign", [self.foreign], line))
            self.foreign.set_references(args[0] if args else UNDEFINED)
        elif self.foreign is not None and self.foreign.call(name, args):
            pass
        elif name == "alter":
            options = args[0] if args and isinstance(args[0], dict) else {}
            self.method = "alter"
            self.alter_nullable = options.get("alterNullable", True) is not False
            self.alter_type = options.get("alterType", True) is not False
        elif name in ("queryContext", "drop", "alterType"):
            pass
        else:
            return False
        return True

    # -- type -----------------------------------------------------------------------------

    def sql_type(self) -> tuple[str, list[str]]:
        """The column's type and any statement it needs first (a native enum's create type)."""
        kind, rest = self.kind, self.args[1:]
        first = rest[0] if rest else UNDEFINED
        second = rest[1] if len(rest) > 1 else UNDEFINED
        if kind in _FIXED_TYPES:
            return _FIXED_TYPES[kind], []
        if kind in ("increments", "bigincrements"):
            base = "serial" if kind == "increments" else "bigserial"
            return base + self._primary_key_suffix(first, default=True), []
        if kind == "uuid":
            return "uuid" + self._primary_key_suffix(first, default=False), []
        if kind == "varchar":
            return f"varchar({to_number(first, 255)})", []
        if kind == "decimal":
            if first is None:
                return "decimal", []
            return f"decimal({to_number(first, 8)}, {to_number(second, 2)})", []
        if kind in ("json", "jsonb"):
            return ("jsonb" if kind == "jsonb" or first is True else "json"), []
        if kind in ("datetime", "timestamp"):
            return _datetime(first, second), []
        if kind == "specifictype":
            value = known(first)
            return (render_raw(value) if isinstance(value, Raw) else js_str(value)), []
        if kind == "bit":
            options = known(first)
            if not isinstance(options, dict):
                raise Dynamic("bit() without options fails in knex")
            length = options.get("length", UNDEFINED)
            return (f"bit({js_str(length)})" if length is not False else "bit"), []
        if kind == "enu":
            return self._enum(first, second)
        raise Dynamic(f"knex column type {self.type}() is not translated")

    def _primary_key_suffix(self, options: object, default: bool) -> str:
        options = known(options)
        wanted = options.get("primaryKey", default) if isinstance(options, dict) else default
        return " primary key" if wanted and not self.table.has_primary() else ""

    def _enum(self, allowed: object, options: object) -> tuple[str, list[str]]:
        allowed = known(allowed)
        values = [js_str(v) for v in allowed] if isinstance(allowed, list) else [js_str(allowed)]
        joined = "', '".join(values)
        options = known(options)
        if isinstance(options, dict) and options.get("useNative"):
            schema = (
                options.get("schemaName")
                if truthy(options.get("schemaName"))
                else known(self.table.schema)
            )
            name = (
                f'"{js_str(schema)}".' if truthy(schema) else ""
            ) + f'"{js_str(options.get("enumName"))}"'
            if options.get("existingType"):
                return name, []
            return name, [f"create type {name} as enum ('{joined}')"]
        return f"text check ({wrap(self.args[0])} in ('{joined}'))", []

    # -- definition -----------------------------------------------------------------------

    def definition(self) -> tuple[str, list[str], list[str]]:
        """(`"name" type modifiers`, statements before the table's, statements after it)."""
        sql_type, before = self.sql_type()
        parts: list[str] = []
        after: list[str] = []
        for name in ("nullable", "defaultTo", "comment", *_CHECKS):
            if name not in self.modifiers or (self.is_increments and name != "comment"):
                continue
            args = self.modifiers[name]
            if name == "nullable":
                parts.append("not null" if args[:1] == [False] else "null")
            elif name == "defaultTo":
                parts.append(self.default_clause())
            elif name == "comment":
                after.append(self._comment(args[0] if args else UNDEFINED))
            else:
                check = self._check(name, args)
                if check:
                    parts.append(check)
        if self.method == "alter":
            after.extend(self._alter_checks())
        modifiers = (" " + " ".join(parts)) if parts else ""
        return f"{wrap(self.name())} {sql_type}{modifiers}", before, after

    def default_clause(self) -> str:
        args = self.modifiers["defaultTo"]
        value = known(args[0] if args else UNDEFINED)
        if value is UNDEFINED:
            text = ""
        elif value is None:
            text = "null"
        elif isinstance(value, Raw):
            text = render_raw(value)
        elif self.kind == "bool":
            text = "'0'" if value == "false" or not truthy(value) else "'1'"
        elif self.kind in ("json", "jsonb") and isinstance(value, dict | list):
            text = f"'{json_stringify(value)}'"
        else:
            text = escape_literal(js_str(value))
        return f"default {text}"

    def _comment(self, comment: object) -> str:
        comment = known(comment)
        text = (
            "'" + re.sub(r"(?<!')'(?!')", "''", js_str(comment)) + "'"
            if truthy(comment)
            else "NULL"
        )
        return f"comment on column {self.table.table_name()}.{wrap(self.name())} is {text}"

    def _predicate(self, name: str, args: list[object]) -> tuple[str, object]:
        column = wrap(self.name())
        if name in ("checkPositive", "checkNegative"):
            return f"{column} {'>' if name == 'checkPositive' else '<'} 0", _arg(args, 0)
        if name in ("checkIn", "checkNotIn"):
            values = known(_arg(args, 0))
            items = values if isinstance(values, list) else [values]
            negate = "not " if name == "checkNotIn" else ""
            listed = ",".join(escape_literal(v) for v in items)
            return f"{column} {negate}in ({listed})", _arg(args, 1)
        if name == "checkBetween":
            intervals = known(_arg(args, 0))
            if not isinstance(intervals, list):
                raise Dynamic("checkBetween needs a list")
            if len(intervals) == 2 and not any(isinstance(i, list) for i in intervals):
                intervals = [intervals]
            ranges: list[str] = []
            for interval in intervals:
                bounds = known(interval)
                if not isinstance(bounds, list) or len(bounds) != 2:
                    raise Dynamic("checkBetween needs pairs of bounds")
                low, high = escape_literal(bounds[0]), escape_literal(bounds[1])
                ranges.append(f"{column} between {low} and {high}")
            return " or ".join(ranges), _arg(args, 1)
        if name == "checkLength":
            operator = js_str(_arg(args, 0))
            return f"length({column}) {operator} {to_number(_arg(args, 1), 0)}", _arg(args, 2)
        return f"{column} ~ {escape_literal(_arg(args, 0))}", _arg(args, 1)

    def _check(self, name: str, args: list[object]) -> str:
        if self.method == "alter":
            return ""
        predicate, constraint = self._predicate(name, args)
        named = f"constraint {js_str(constraint)} " if truthy(known(constraint)) else ""
        return f"{named}check ({predicate})"

    def _alter_checks(self) -> list[str]:
        out: list[str] = []
        for count, name in enumerate((n for n in _CHECKS if n in self.modifiers), start=1):
            predicate, constraint = self._predicate(name, self.modifiers[name])
            check_name = (
                js_str(constraint)
                if truthy(known(constraint))
                else f"{self.table.name_raw()}_{js_str(self.name())}_{count}"
            )
            out.append(
                f"alter table {self.table.table_name()} add constraint {check_name} "
                f"check({predicate})"
            )
        return out


def _arg(args: list[object], index: int) -> object:
    return args[index] if len(args) > index else UNDEFINED


def _datetime(first: object, second: object) -> str:
    first = known(first)
    if isinstance(first, dict):
        use_tz = first.get("useTz", True)
        precision = first.get("precision", UNDEFINED)
    else:
        use_tz = not truthy(first) if first is not UNDEFINED else True
        precision = second
    use_tz = use_tz if isinstance(use_tz, bool) else True
    precision = known(precision)
    suffix = (
        f"({js_str(precision)})" if precision is not None and precision is not UNDEFINED else ""
    )
    return ("timestamptz" if use_tz else "timestamp") + suffix


Op = tuple[str, list[object], int]


@dataclass
class TableBuilder:
    """The object a `createTable` / `alterTable` callback receives."""

    method: str  # create | createIfNot | alter
    table: object
    schema: object
    columns: list[Column] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    checks: list[Op] = field(default_factory=list)
    comment: object = UNDEFINED
    inherits: object = UNDEFINED
    _check_count: int = 0

    def name_raw(self) -> str:
        return js_str(self.table)

    def table_name(self) -> str:
        schema = known(self.schema)
        if truthy(schema):
            return wrap(f"{js_str(schema)}.{self.name_raw()}")
        return wrap(self.table)

    def has_primary(self) -> bool:
        return any(method == "primary" and args and args[0] for method, args, _ in self.ops)

    def add_op(self, method: str, args: list[object], line: int) -> None:
        self.ops.append((method, args, line))

    def call(self, name: str, args: list[object], line: int) -> object:
        """A call on the table builder: a Column, a Foreign, itself, or None when unknown."""
        if name in COLUMN_TYPES:
            column = Column(table=self, type=name, args=args, line=line)
            self.columns.append(column)
            return column
        if name == "foreign":
            foreign = Foreign(column=_arg(args, 0), key_name=_arg(args, 1))
            foreign.key_name = None if foreign.key_name is UNDEFINED else foreign.key_name
            self.ops.append(("foreign", [foreign], line))
            return foreign
        if name == "timestamps":
            self._timestamps(args, line)
        elif name == "dropTimestamps":
            camel = _arg(args, 0) is True
            names = ["createdAt", "updatedAt"] if camel else ["created_at", "updated_at"]
            self.ops.append(("dropColumn", [names], line))
        elif name == "dropColumns":
            self.ops.append(("dropColumn", args, line))
        elif name == "check" and self.method != "alter":
            self.checks.append(("check", args, line))
        elif name == "comment":
            self.comment = _arg(args, 0)
        elif name == "inherits":
            self.inherits = _arg(args, 0)
        elif name in _TABLE_OPS:
            self.ops.append((name, args, line))
        elif name != "queryContext":
            return None
        return self

    def _timestamps(self, args: list[object], line: int) -> None:
        use_ts, to_now, camel = _arg(args, 0), _arg(args, 1), _arg(args, 2)
        options = known(use_ts)
        if isinstance(options, dict):
            use_ts = options.get("useTimestamps", UNDEFINED)
            to_now = options.get("defaultToNow", UNDEFINED)
            camel = options.get("useCamelCase", UNDEFINED)
        kind = "timestamp" if use_ts is True else "datetime"
        for name in ("createdAt", "updatedAt") if truthy(camel) else ("created_at", "updated_at"):
            column = Column(table=self, type=kind, args=[name], line=line)
            if to_now is True:
                column.modifiers["nullable"] = [False]
                column.modifiers["defaultTo"] = [Raw("CURRENT_TIMESTAMP")]
            self.columns.append(column)

    # -- compile --------------------------------------------------------------------------

    def compile(self, line: int) -> list[Out]:
        """The statements knex runs for this builder, in knex's order."""
        sequence: list[Out] = []
        if self.method == "alter":
            self._compile_alter(sequence)
        else:
            self._compile_create(sequence, line)
        for method, args, op_line in self.ops:
            sequence.extend(_guarded(op_line, lambda m=method, a=args: self._op(m, a)))
        if self.method == "alter" and self.comment is not UNDEFINED:
            sequence.extend(_guarded(line, lambda: [self._table_comment()]))
        return sequence

    def _table_comment(self) -> str:
        return f"comment on table {self.table_name()} is '{js_str(self.comment)}'"

    def _compile_create(self, sequence: list[Out], line: int) -> None:
        def create() -> list[str]:
            definitions: list[str] = []
            before: list[str] = []
            after: list[str] = []
            for column in (c for c in self.columns if c.method == "add"):
                text, first, then = column.definition()
                definitions.append(text)
                before[:0] = first  # knex unshifts each one onto the table's statements
                after.extend(then)
            head = (
                "create table if not exists " if self.method == "createIfNot" else "create table "
            )
            body = ", ".join(definitions) + self._primary_keys() + self._create_checks()
            sql = f"{head}{self.table_name()} ({body})"
            if self.inherits is not UNDEFINED:
                sql += f" inherits ({wrap(self.inherits)})"
            comment = [self._table_comment()] if self.comment is not UNDEFINED else []
            return [*before, sql, *comment, *after]

        sequence.extend(_guarded(line, create))

    def _primary_keys(self) -> str:
        primaries = [args for method, args, _ in self.ops if method == "primary"]
        if not primaries or not primaries[0]:
            return ""
        args = primaries[0]
        name, deferrable = _constraint_options(_arg(args, 1))
        constraint = wrap(name) if truthy(name) else wrap(f"{self.name_raw()}_pkey")
        return f", constraint {constraint} primary key ({columnize(args[0])}){deferrable}"

    def _create_checks(self) -> str:
        checks = []
        for _, args, _ in self.checks:
            predicate = render_raw(Raw(js_str(_arg(args, 0)), _bindings(_arg(args, 1))))
            name = known(_arg(args, 2))
            named = f"constraint {js_str(name)} " if truthy(name) else ""
            checks.append(f"{named}check ({predicate})")
        return "".join(", " + c for c in checks)

    def _compile_alter(self, sequence: list[Out]) -> None:
        added = [c for c in self.columns if c.method == "add"]
        altered = [c for c in self.columns if c.method == "alter"]
        compiled: dict[int, tuple[str, list[str], list[str]]] = {}
        before: list[Out] = []
        dynamic: list[Out] = []
        for column in self.columns:
            try:
                compiled[id(column)] = column.definition()
                before[:0] = [Out(s, column.line) for s in compiled[id(column)][1]]
            except Dynamic as exc:
                dynamic.append(Out(None, column.line, f"dynamic column: {exc.reason}"))
        sequence.extend(before)
        sequence.extend(dynamic)
        ready = [c for c in added if id(c) in compiled]
        if ready:
            columns = ", ".join("add column " + compiled[id(c)][0] for c in ready)
            sequence.extend(
                _guarded(ready[0].line, lambda: [f"alter table {self.table_name()} {columns}"])
            )
        for column in (c for c in altered if id(c) in compiled):
            sequence.extend(_guarded(column.line, lambda c=column: self._alter_column(c)))
        for column in (c for c in [*added, *altered] if id(c) in compiled):
            sequence.extend(Out(s, column.line) for s in compiled[id(column)][2])

    def _alter_column(self, column: Column) -> list[str]:
        prefix = f"alter table {self.table_name()} alter column {wrap(column.name())}"
        out = [f"{prefix} drop default"]
        if column.alter_nullable:
            out.append(f"{prefix} drop not null")
        if column.alter_type:
            sql_type, _ = column.sql_type()
            cast = "::text::" if column.kind == "enu" else "::"
            out.append(f"{prefix} type {sql_type} using ({wrap(column.name())}{cast}{sql_type})")
        if "defaultTo" in column.modifiers:
            out.append(f"{prefix} set {column.default_clause()}")
        if column.alter_nullable and column.modifiers.get("nullable", [None])[:1] == [False]:
            out.append(f"{prefix} set not null")
        return out

    def _index_name(self, kind: str, columns: object) -> str:
        columns = known(columns)
        names = columns if isinstance(columns, list) else ([columns] if truthy(columns) else [])
        table = re.sub(r"[.\-]", "_", self.name_raw())
        return wrap(f"{table}_{'_'.join(js_str(c) for c in names)}_{kind}".lower())

    def _op(self, method: str, args: list[object]) -> list[str]:
        table = self.table_name()
        first, second = _arg(args, 0), _arg(args, 1)
        if method == "foreign":
            foreign = first
            assert isinstance(foreign, Foreign)
            return self._foreign(foreign)
        if method == "primary":
            if self.method != "alter":
                return []
            name, deferrable = _constraint_options(second)
            constraint = wrap(name) if truthy(name) else wrap(f"{self.name_raw()}_pkey")
            return [
                f"alter table {table} add constraint {constraint} primary key "
                f"({columnize(first)}){deferrable}"
            ]
        if method == "unique":
            return [self._unique(first, second)]
        if method == "index":
            return [self._index(first, second, _arg(args, 2))]
        if method in ("dropPrimary", "dropPrimaryIfExists"):
            name = wrap(first) if truthy(known(first)) else wrap(f"{self.name_raw()}_pkey")
            exists = "if exists " if method.endswith("IfExists") else ""
            return [f"alter table {table} drop constraint {exists}{name}"]
        if method in ("dropUnique", "dropUniqueIfExists", "dropForeign", "dropForeignIfExists"):
            kind = "unique" if method.startswith("dropUnique") else "foreign"
            name = wrap(second) if truthy(known(second)) else self._index_name(kind, first)
            exists = "if exists " if method.endswith("IfExists") else ""
            return [f"alter table {table} drop constraint {exists}{name}"]
        if method == "dropIndex":
            name = wrap(second) if truthy(known(second)) else self._index_name("index", first)
            schema = known(self.schema)
            if truthy(schema):
                name = f"{wrap(schema)}.{name}"
            return [f"drop index {name}"]
        if method == "dropColumn":
            names = known(first) if isinstance(known(first), list) else args
            listed = names if isinstance(names, list) else [names]
            drops = ", ".join("drop column " + wrap(n) for n in listed)
            return [f"alter table {table} {drops}"]
        if method == "renameColumn":
            return [f"alter table {table} rename {wrap(first)} to {wrap(second)}"]
        if method in ("setNullable", "dropNullable"):
            action = "drop not null" if method == "setNullable" else "set not null"
            return [f"alter table {table} alter column {wrap(first)} {action}"]
        if method == "check":
            name = known(_arg(args, 2))
            if truthy(name):
                constraint = js_str(name)
            else:
                self._check_count += 1
                constraint = f"{table}_{self._check_count}"
            return [f"alter table {table} add constraint {constraint} check({js_str(first)})"]
        if method == "dropChecks":
            if first is UNDEFINED:
                return []
            names = known(first)
            listed = names if isinstance(names, list) else [names]
            drops = ", ".join(f"drop constraint {js_str(n)}" for n in listed)
            return [f"alter table {table} {drops}"]
        if method == "unsupported":
            raise Dynamic(f"{js_str(first)} is not translated")
        raise Dynamic(f"table method {method}() is not translated")

    def _foreign(self, foreign: Foreign) -> list[str]:
        if not truthy(known(foreign.in_table)) or not truthy(known(foreign.references)):
            return []
        name = (
            wrap(foreign.key_name)
            if truthy(known(foreign.key_name))
            else self._index_name("foreign", foreign.column)
        )
        sql = (
            f"alter table {self.table_name()} add constraint {name} foreign key "
            f"({columnize(foreign.column)}) references {wrap(foreign.in_table)} "
            f"({columnize(foreign.references)})"
        )
        if truthy(known(foreign.on_update)):
            sql += f" on update {js_str(foreign.on_update)}"
        if truthy(known(foreign.on_delete)):
            sql += f" on delete {js_str(foreign.on_delete)}"
        if truthy(known(foreign.deferrable)):
            sql += f" deferrable initially {js_str(foreign.deferrable).lower()} "
        return [sql]

    def _unique(self, columns: object, options: object) -> str:
        options = known(options)
        use_constraint: object = True
        predicate: object = UNDEFINED
        deferrable: object = UNDEFINED
        name: object = options
        if isinstance(options, dict):
            name = options.get("indexName", UNDEFINED)
            deferrable = options.get("deferrable", UNDEFINED)
            predicate = options.get("predicate", UNDEFINED)
            use_constraint = options.get("useConstraint", UNDEFINED)
            if use_constraint is UNDEFINED:
                use_constraint = truthy(deferrable) or not truthy(predicate)
        index = wrap(name) if truthy(name) else self._index_name("unique", columns)
        if truthy(use_constraint):
            suffix = f" deferrable initially {js_str(deferrable)}" if truthy(deferrable) else ""
            return (
                f"alter table {self.table_name()} add constraint {index} unique "
                f"({columnize(columns)}){suffix}"
            )
        return (
            f"create unique index {index} on {self.table_name()} ({columnize(columns)})"
            + _predicate_sql(predicate)
        )

    def _index(self, columns: object, name: object, options: object) -> str:
        name = known(name)
        index = wrap(name) if truthy(name) else self._index_name("index", columns)
        options = known(options)
        using: object = UNDEFINED
        kind: object = UNDEFINED
        predicate: object = UNDEFINED
        if isinstance(options, str):
            using = options
        elif isinstance(options, dict):
            kind = options.get("indexType", UNDEFINED)
            using = options.get("storageEngineIndexType", UNDEFINED)
            predicate = options.get("predicate", UNDEFINED)
        unique = " unique" if isinstance(kind, str) and kind.lower() == "unique" else ""
        using_sql = f" using {js_str(using)}" if truthy(known(using)) else ""
        return (
            f"create{unique} index {index} on {self.table_name()}{using_sql} "
            f"({columnize(columns)}){_predicate_sql(predicate)}"
        )


_TABLE_OPS = frozenset(
    [
        "index",
        "primary",
        "unique",
        "dropPrimary",
        "dropPrimaryIfExists",
        "dropUnique",
        "dropUniqueIfExists",
        "dropIndex",
        "dropForeign",
        "dropForeignIfExists",
        "dropColumn",
        "renameColumn",
        "setNullable",
        "dropNullable",
        "check",
        "dropChecks",
    ]
)


@runtime_checkable
class Predicate(Protocol):
    """A `where` clause built by a query builder, as used in partial index / unique options."""

    def where_sql(self) -> str: ...


def _predicate_sql(predicate: object) -> str:
    predicate = known(predicate)
    if not truthy(predicate):
        return ""
    if isinstance(predicate, Predicate):
        return " " + predicate.where_sql()
    raise Dynamic("index predicate is not a knex where builder")


def _constraint_options(value: object) -> tuple[object, str]:
    value = known(value)
    if isinstance(value, dict):
        deferrable = value.get("deferrable", UNDEFINED)
        suffix = f" deferrable initially {js_str(deferrable)}" if truthy(deferrable) else ""
        return value.get("constraintName", UNDEFINED), suffix
    return value, ""


def _bindings(value: object) -> list[object]:
    value = known(value)
    if value is None or value is UNDEFINED:
        return []
    return value if isinstance(value, list) else [value]


def _guarded(line: int, build: object) -> list[Out]:
    """Run a statement builder; a Dynamic value makes one statement without SQL."""
    try:
        assert callable(build)
        return [Out(sql, line) for sql in build()]
    except Dynamic as exc:
        return [Out(None, line, f"dynamic SQL: {exc.reason}")]
