"""Django migrations (`<app>/migrations/<NNNN>_<name>.py`): the SQL Django's PostgreSQL schema
editor emits for `operations` (the forward direction only: never a reverse), each statement at
its operation's line.

Read as `migrate` runs them: in a transaction unless `atomic = False`; the model state an
operation changes (the table of a model, the column and type of a field) is rebuilt from the
migrations it depends on, read through `read_module`. The SQL is Django's own
(fixtures/frameworks/django, captured with `sqlmigrate`): identity primary keys, a field
default set on the new column then dropped (the two-step default), foreign keys and indexes
deferred to the end of the migration under Django's digest names, `CASCADE` on drops. An
operation it does not model (`RunPython`, a many-to-many field, a check constraint's `Q`) is an
unknown statement naming it.
"""

from __future__ import annotations

import ast
import hashlib
import json
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from release_safety.code import python
from release_safety.code.jsvalues import Dynamic, Unknown, known
from release_safety.surfaces.migrations.frameworks.emit import Out, quote, read_safely, scalar
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

FRAMEWORK = "django"
ReadModule = Callable[[str], "str | None"]
MAX_DEPTH = 200
"""Migrations followed back through `dependencies` to rebuild the state one starts from."""

_TYPES = {
    "AutoField": "integer",
    "BigAutoField": "bigint",
    "SmallAutoField": "smallint",
    "BinaryField": "bytea",
    "BooleanField": "boolean",
    "NullBooleanField": "boolean",
    "DateField": "date",
    "DateTimeField": "timestamp with time zone",
    "DurationField": "interval",
    "FloatField": "double precision",
    "IntegerField": "integer",
    "BigIntegerField": "bigint",
    "SmallIntegerField": "smallint",
    "PositiveIntegerField": "integer",
    "PositiveBigIntegerField": "bigint",
    "PositiveSmallIntegerField": "smallint",
    "IPAddressField": "inet",
    "GenericIPAddressField": "inet",
    "JSONField": "jsonb",
    "TextField": "text",
    "TimeField": "time",
    "UUIDField": "uuid",
}
_SIZED = {
    "CharField": None,
    "EmailField": 254,
    "URLField": 200,
    "SlugField": 50,
    "FileField": 100,
    "ImageField": 100,
    "FilePathField": 100,
}
_AUTO = {"AutoField", "BigAutoField", "SmallAutoField"}
_POSITIVE = {"PositiveIntegerField", "PositiveBigIntegerField", "PositiveSmallIntegerField"}
_RELATED = {"ForeignKey", "OneToOneField"}
# A default Django computes when the migration runs (a callable): a constant of the column's
# type, as the database sees it (the value is not known, its kind is).
_RUN_TIME = {
    "timestamp with time zone": "'1970-01-01T00:00:00+00:00'::timestamptz",
    "date": "'1970-01-01'::date",
    "time": "'00:00:00'::time",
    "uuid": "'00000000-0000-0000-0000-000000000000'::uuid",
    "jsonb": "'{}'::jsonb",
}
_EMPTY_STRINGS = {"CharField", "TextField", "EmailField", "URLField", "SlugField", "FileField"}
_EMPTY_STRINGS |= {"ImageField", "FilePathField"}
"""The fields whose blank value is `''` (Django's `empty_strings_allowed`)."""
_NO_COLUMN = {"TaggableManager", "GenericRelation"}
"""Relations with no column and no table of their own (django-taggit's manager, a generic
relation): Django emits no SQL for them."""
_NO_SQL = {"AlterModelOptions", "AlterModelManagers"}
_CONTRIB = {"auth", "contenttypes", "sites", "admin", "sessions"}
"""Django's own apps, whose models' keys are `integer` (their AutoField); another app's model
not created by a migration read is taken to have Django's default `bigint` key."""


@dataclass(frozen=True)
class _Field:
    kind: str
    column: str
    db_type: str
    null: bool
    primary: bool = False
    unique: bool = False
    db_index: bool = False
    default: object = None
    has_default: bool = False
    target: str | None = None
    blank: bool = False
    auto_now: bool = False


@dataclass
class _Model:
    table: str
    fields: dict[str, _Field] = field(default_factory=dict)

    def primary(self) -> _Field | None:
        return next((f for f in self.fields.values() if f.primary), None)


_State = dict[tuple[str, str], _Model]


def extract_django(text: str, path: str, *, read_module: ReadModule | None = None) -> Extracted:
    """The statements a Django migration's operations emit, and whether they run in one
    transaction."""
    return read_safely(FRAMEWORK, lambda: _extract(text, path, read_module))


def _extract(text: str, path: str, read_module: ReadModule | None) -> Extracted:
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        line = exc.lineno or 1
        return Extracted([Statement(None, line, f"django migration does not parse (line {line})")])
    migration = migration_class(tree)
    if migration is None:
        return Extracted([Statement(None, 1, "django: no class Migration found")])
    state = _state_before(migration, path, read_module)
    reader = _Reader(Out(FRAMEWORK), state, _app(path), python.constants(tree))
    reader.run(migration)
    atomic = attribute(migration, "atomic")
    transactional = known(atomic) is not False if atomic is not None else True
    return Extracted(reader.out.statements, transactional, transactional)


def migration_class(tree: ast.Module) -> ast.ClassDef | None:
    """The `class Migration` of a migration module."""
    return next(
        (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Migration"), None
    )


def attribute(migration: ast.ClassDef, name: str) -> object | None:
    """A class attribute's value; a list's items each on its own (`dependencies` keeps its
    pairs beside a `swappable_dependency(...)` known only when it runs)."""
    for statement in migration.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name) and target.id == name:
                items = python.elements(statement.value)
                return python.evaluate(statement.value) if items is None else items
    return None


def _operations(migration: ast.ClassDef) -> list[ast.expr] | None:
    for statement in migration.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name) and target.id == "operations":
                value = statement.value
                return list(value.elts) if isinstance(value, ast.List | ast.Tuple) else None
    return []


def _app(path: str) -> str:
    """The app label of `<app>/migrations/<name>.py`."""
    return posixpath.basename(posixpath.dirname(posixpath.dirname(path)))


def _state_before(migration: ast.ClassDef, path: str, read_module: ReadModule | None) -> _State:
    """The models as the migrations `migration` depends on leave them (each read once, in the
    order of the graph). A dependency not found (another project's app) adds nothing: an
    operation on one of its models is unknown, naming the model."""
    root = posixpath.dirname(posixpath.dirname(posixpath.dirname(path)))
    order: list[tuple[str, str, ast.ClassDef]] = []
    seen: set[tuple[str, str]] = set()

    def visit(app: str, deps: object, depth: int) -> None:
        for pair in deps if isinstance(deps, list | tuple) else []:
            if not (isinstance(pair, list | tuple) and len(pair) == 2):
                continue
            label, name = pair
            label = app if label == "__self__" else label
            if not isinstance(label, str) or not isinstance(name, str) or (label, name) in seen:
                continue
            seen.add((label, name))
            where = posixpath.join(root, label, "migrations", f"{name}.py")
            text = read_module(where) if read_module is not None and depth < MAX_DEPTH else None
            found = _parsed(text)
            if found is None:
                continue
            visit(label, attribute(found, "dependencies"), depth + 1)
            order.append((label, where, found))

    visit(_app(path), attribute(migration, "dependencies"), 0)
    state: _State = {}
    for label, _, earlier in order:
        reader = _Reader(Out(FRAMEWORK), state, label, {})
        reader.run(earlier)
    return state


def _parsed(text: str | None) -> ast.ClassDef | None:
    if text is None:
        return None
    try:
        return migration_class(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError):
        return None


def _digest(*parts: str) -> str:
    hashed = hashlib.md5(usedforsecurity=False)
    for part in parts:
        hashed.update(part.encode())
    return hashed.hexdigest()[:8]


def index_name(table: str, columns: list[str], suffix: str = "") -> str:
    """Django's `_create_index_name` for PostgreSQL (names of 63 characters at most)."""
    hash_suffix = f"{_digest(table, *columns)}{suffix}"
    name = f"{table}_{'_'.join(columns)}_{hash_suffix}"
    if len(name) <= 63:
        return name
    if len(hash_suffix) > 63 / 3:
        hash_suffix = hash_suffix[: 63 // 3]
    other = (63 - len(hash_suffix)) // 2 - 1
    name = f"{table[:other]}_{'_'.join(columns)[:other]}_{hash_suffix}"
    return f"D{name[:-1]}" if name[0] == "_" or name[0].isdigit() else name


@dataclass
class _Reader:
    out: Out
    state: _State
    app: str
    scope: dict[str, object]
    deferred: list[tuple[int, str, str]] = field(default_factory=list)
    """The statements run at the end of the migration: (line, SQL, the table it is on)."""

    def run(self, migration: ast.ClassDef) -> None:
        operations = _operations(migration)
        if operations is None:
            self.out.unknown(migration.lineno, "operations that are not a list")
            return
        for operation in operations:
            self.operation(operation)
        for line, sql, _ in self.deferred:
            self.out.sql(line, sql)
        self.deferred.clear()

    def defer(self, line: int, table: str, sql: str) -> None:
        self.deferred.append((line, sql, table))

    def drop_table(self, line: int, table: str) -> None:
        """DROP TABLE, and the deferred statements on it dropped with it (as Django does)."""
        self.out.sql(line, f"DROP TABLE {quote(table)} CASCADE")
        self.deferred = [d for d in self.deferred if d[2] != table]

    def operation(self, node: ast.expr) -> None:
        line = node.lineno
        name = python.call_name(node) or ""
        kind = name.rpartition(".")[2]
        if not isinstance(node, ast.Call) or (kind not in _OPERATIONS and kind not in _NO_SQL):
            self.out.unknown(line, f"the operation `{python.shown(node)}`, not modelled")
            return
        if kind in _NO_SQL:
            return
        self.out.guarded(line, lambda: _OPERATIONS[kind](self, _Op(self, node)))

    def model(self, name: object) -> tuple[tuple[str, str], _Model]:
        key = (self.app, _lower(name))
        model = self.state.get(key)
        if model is None:
            raise Dynamic(f"the model {self.app}.{_lower(name)}, not created by a migration read")
        return key, model

    def field(self, node: ast.expr | None, name: str) -> _Field:
        """A field as the column it makes (Django's PostgreSQL `data_types`)."""
        if not isinstance(node, ast.Call):
            raise Dynamic(f"the field {name}, not a field class")
        kind = (python.call_name(node) or "").rpartition(".")[2]
        options = {k: python.evaluate(v, self.scope) for k, v in python.keywords(node).items()}
        has_default = "default" in options
        default: object = options.get("default")
        if has_default and isinstance(default, Unknown):
            default = _RunTime(python.shown(python.keywords(node)["default"]))
        column = _text(options.get("db_column", name))
        null = known(options.get("null", False)) is True
        primary = known(options.get("primary_key", False)) is True
        unique = known(options.get("unique", False)) is True or kind == "OneToOneField"
        db_index = known(options.get("db_index", kind in ("SlugField", *_RELATED))) is True
        target = None
        if kind in _TYPES:
            db_type = _TYPES[kind]
        elif kind in _SIZED:
            length = known(options.get("max_length", _SIZED[kind]))
            db_type = f"varchar({length})" if length is not None else "varchar"
        elif kind == "DecimalField":
            digits, places = known(options.get("max_digits")), known(options.get("decimal_places"))
            db_type = f"numeric({digits}, {places})"
        elif kind in _NO_COLUMN:
            return _Field("ManyToManyField", "", "", True)
        elif kind == "ManyToManyField":
            to = python.keywords(node).get("to", node.args[0] if node.args else None)
            target = _target(to, self.app, self.scope)
            through = "through" in options
            return _Field(kind, "", "" if through else "join", True, target=target)
        elif kind in _RELATED:
            to = python.keywords(node).get("to", node.args[0] if node.args else None)
            target = _target(to, self.app, self.scope)
            column = _text(options.get("db_column", f"{name}_id"))
            db_type = self.related_type(target)
        else:
            raise Dynamic(f"the field {name} = {kind}, not modelled")
        if primary:
            null = False
        return _Field(
            kind,
            column,
            db_type,
            null,
            primary,
            unique,
            db_index,
            default,
            has_default,
            target,
            blank=known(options.get("blank", False)) is True,
            auto_now=any(
                known(options.get(k, False)) is True for k in ("auto_now", "auto_now_add")
            ),
        )

    def related_type(self, target: str) -> str:
        """The column type of a key to `target`: the type of its primary key."""
        app, _, model = target.partition(".")
        found = self.state.get((app, model))
        key = found.primary() if found is not None else None
        if key is not None:
            return key.db_type
        return "integer" if app in _CONTRIB else "bigint"

    def table_of(self, target: str) -> str:
        app, _, model = target.partition(".")
        found = self.state.get((app, model))
        return found.table if found is not None else f"{app}_{model}"


@dataclass(frozen=True)
class _RunTime:
    """A default Django computes when the migration runs (`default=timezone.now`)."""

    source: str


def _lower(value: object) -> str:
    return _text(value).lower()


def _text(value: object) -> str:
    value = known(value)
    if not isinstance(value, str):
        raise Dynamic(f"the name {value!r}, not a string")
    return value


def _target(node: ast.expr | None, app: str, scope: dict[str, object]) -> str:
    """`"shop.author"`, `"Author"` or `settings.AUTH_USER_MODEL` (taken for Django's own
    `auth.user`) as app.model in lower case."""
    if node is None:
        raise Dynamic("a relation without its model")
    if (python.dotted(node) or "").endswith("AUTH_USER_MODEL"):
        return "auth.user"
    text = _text(python.evaluate(node, scope))
    if "." not in text:
        return f"{app}.{text.lower()}"
    label, _, model = text.rpartition(".")
    return f"{label}.{model.lower()}"


class _Op:
    """An operation's arguments: positional or by keyword, evaluated on demand."""

    def __init__(self, reader: _Reader, node: ast.Call) -> None:
        self.reader = reader
        self.node = node
        self.line = node.lineno

    def node_arg(self, index: int, name: str) -> ast.expr:
        found = python.argument(self.node, index, name)
        if found is None:
            raise Dynamic(f"`{python.shown(self.node)}` without {name}")
        return found

    def arg(self, index: int, name: str) -> object:
        return python.evaluate(self.node_arg(index, name), self.reader.scope)


def _quote_value(value: object, db_type: str) -> str:
    """A default as Django's PostgreSQL editor quotes it."""
    if isinstance(value, _RunTime):
        if db_type in _RUN_TIME:
            return _RUN_TIME[db_type]
        raise Dynamic(f"the default {value.source}, computed when the migration runs")
    value = known(value)
    written = scalar(value, ("true", "false"))
    if written is not None:
        return written
    if isinstance(value, dict | list) and db_type == "jsonb":
        return "'" + json.dumps(value).replace("'", "''") + "'"
    raise Dynamic(f"the default {value!r}, not modelled")


def _effective_default(f: _Field) -> str | None:
    """The DEFAULT Django writes when it adds the column (None: none): the field's default,
    else `''` for a blank text field that is not null, else the time it runs for `auto_now`."""
    if f.has_default:
        return None if f.default is None else _quote_value(f.default, f.db_type)
    if not f.null and f.blank and f.kind in _EMPTY_STRINGS:
        return "''"
    if f.auto_now:
        return _quote_value(_RunTime("auto_now"), f.db_type)
    return None


def _column_sql(f: _Field, default: str | None = None) -> str:
    sql = f"{quote(f.column)} {f.db_type}"
    if default is not None:
        sql += f" DEFAULT {default}"
    sql += " NULL" if f.null else " NOT NULL"
    if f.primary:
        sql += " PRIMARY KEY"
    elif f.unique:
        sql += " UNIQUE"
    if f.primary and f.kind in _AUTO:
        sql += " GENERATED BY DEFAULT AS IDENTITY"
    if f.kind in _POSITIVE:
        sql += f" CHECK ({quote(f.column)} >= 0)"
    return sql


def _like(f: _Field) -> bool:
    return (f.db_index or f.unique) and not f.primary and f.db_type.startswith(("varchar", "text"))


def _pattern_ops(f: _Field) -> str:
    return "text_pattern_ops" if f.db_type == "text" else "varchar_pattern_ops"


def _defer_field(reader: _Reader, line: int, table: str, f: _Field) -> None:
    """The foreign key of a field, run at the end of the migration."""
    if f.target is not None:
        to_table = reader.table_of(f.target)
        key = reader.state.get(tuple(f.target.split(".", 1)))  # type: ignore[arg-type]
        to_column = (key.primary() if key is not None else None) or None
        column = to_column.column if to_column is not None else "id"
        name = index_name(table, [f.column], f"_fk_{to_table}_{column}")
        reader.defer(
            line,
            table,
            f"ALTER TABLE {quote(table)} ADD CONSTRAINT {quote(name)} FOREIGN KEY "
            f"({quote(f.column)}) REFERENCES {quote(to_table)} ({quote(column)}) "
            "DEFERRABLE INITIALLY DEFERRED",
        )


def _defer_indexes(reader: _Reader, line: int, table: str, f: _Field) -> None:
    """The indexes of a field (`db_index`, and the `_like` one of a text key)."""
    if f.db_index and not f.unique and not f.primary:
        name = index_name(table, [f.column])
        reader.defer(
            line, table, f"CREATE INDEX {quote(name)} ON {quote(table)} ({quote(f.column)})"
        )
    if _like(f):
        name = index_name(table, [f.column], "_like")
        columns = f"({quote(f.column)} {_pattern_ops(f)})"
        reader.defer(line, table, f"CREATE INDEX {quote(name)} ON {quote(table)} {columns}")


def _fields(op: _Op) -> list[tuple[str, ast.expr]]:
    node = op.node_arg(1, "fields")
    if not isinstance(node, ast.List | ast.Tuple):
        raise Dynamic("fields that are not a list")
    pairs = []
    for item in node.elts:
        if not isinstance(item, ast.Tuple) or len(item.elts) != 2:
            raise Dynamic(f"the field `{python.shown(item)}`, not a (name, field) pair")
        pairs.append((_text(python.evaluate(item.elts[0], op.reader.scope)), item.elts[1]))
    return pairs


def _create_model(reader: _Reader, op: _Op) -> None:
    name = _lower(op.arg(0, "name"))
    options = python.keywords(op.node).get("options")
    values = python.evaluate(options, reader.scope) if options is not None else {}
    values = known(values) if not isinstance(values, dict) else values
    table = (
        _text(values.get("db_table", f"{reader.app}_{name}")) if isinstance(values, dict) else ""
    )
    model = _Model(table)
    for field_name, node in _fields(op):
        model.fields[field_name] = reader.field(node, field_name)
    reader.state[(reader.app, name)] = model
    fields = [f for f in model.fields.values() if f.column]
    columns = ", ".join(_column_sql(f) for f in fields)
    reader.out.sql(op.line, f"CREATE TABLE {quote(table)} ({columns})")
    for f in fields:
        _defer_field(reader, op.line, table, f)
    for f in fields:
        _defer_indexes(reader, op.line, table, f)
    for field_name, f in model.fields.items():
        if f.db_type == "join":
            _join_table(reader, op.line, name, field_name, f)


def _truncated(name: str) -> str:
    """Django's `truncate_name` to PostgreSQL's 63 characters."""
    return name if len(name) <= 63 else name[:59] + _digest(name)[:4]


def _join_table(reader: _Reader, line: int, model_name: str, field_name: str, f: _Field) -> None:
    """The table Django creates for a many-to-many field without `through`: created at once,
    its unique pair, foreign keys and indexes deferred."""
    model = reader.state[(reader.app, model_name)]
    assert f.target is not None
    table = _truncated(f"{model.table}_{field_name}")
    target_model = f.target.partition(".")[2]
    if f.target == f"{reader.app}.{model_name}":
        ours, theirs = f"from_{model_name}_id", f"to_{model_name}_id"
    else:
        ours, theirs = f"{model_name}_id", f"{target_model}_id"
    key = model.primary()
    own_type = key.db_type if key is not None else "bigint"
    own = f"{reader.app}.{model_name}"
    their_type = reader.related_type(f.target)
    pair = [
        _Field("ForeignKey", ours, own_type, False, db_index=True, target=own),
        _Field("ForeignKey", theirs, their_type, False, db_index=True, target=f.target),
    ]
    identity = _Field("AutoField", "id", "integer", False, primary=True)  # DEFAULT_AUTO_FIELD
    columns = ", ".join(_column_sql(c) for c in [identity, *pair])
    reader.out.sql(line, f"CREATE TABLE {quote(table)} ({columns})")
    unique = quote(index_name(table, [ours, theirs], "_uniq"))
    both = f"{quote(ours)}, {quote(theirs)}"
    reader.defer(line, table, f"ALTER TABLE {quote(table)} ADD CONSTRAINT {unique} UNIQUE ({both})")
    for c in pair:
        _defer_field(reader, line, table, c)
    for c in pair:
        _defer_indexes(reader, line, table, c)


def _delete_model(reader: _Reader, op: _Op) -> None:
    key, model = reader.model(op.arg(0, "name"))
    del reader.state[key]
    reader.drop_table(op.line, model.table)


def _rename_model(reader: _Reader, op: _Op) -> None:
    key, model = reader.model(op.arg(0, "old_name"))
    new = _lower(op.arg(1, "new_name"))
    del reader.state[key]
    old_table = model.table
    default = old_table == f"{reader.app}_{key[1]}"
    model.table = f"{reader.app}_{new}" if default else old_table
    reader.state[(reader.app, new)] = model
    if model.table != old_table:
        reader.out.sql(op.line, f"ALTER TABLE {quote(old_table)} RENAME TO {quote(model.table)}")


def _alter_model_table(reader: _Reader, op: _Op) -> None:
    _, model = reader.model(op.arg(0, "name"))
    table = op.arg(1, "table")
    new = _text(table) if known(table) is not None else f"{reader.app}_{_lower(op.arg(0, 'name'))}"
    if new != model.table:
        reader.out.sql(op.line, f"ALTER TABLE {quote(model.table)} RENAME TO {quote(new)}")
        model.table = new


def _add_field(reader: _Reader, op: _Op) -> None:
    _, model = reader.model(op.arg(0, "model_name"))
    name = _text(op.arg(1, "name"))
    f = reader.field(op.node_arg(2, "field"), name)
    model.fields[name] = f
    if f.kind == "ManyToManyField":
        if f.db_type == "join":
            _join_table(reader, op.line, _lower(op.arg(0, "model_name")), name, f)
        return
    table = quote(model.table)
    default = _effective_default(f)
    reader.out.sql(op.line, f"ALTER TABLE {table} ADD COLUMN {_column_sql(f, default)}")
    if default is not None:
        reader.out.sql(op.line, f"ALTER TABLE {table} ALTER COLUMN {quote(f.column)} DROP DEFAULT")
    _defer_field(reader, op.line, model.table, f)
    _defer_indexes(reader, op.line, model.table, f)


def _remove_field(reader: _Reader, op: _Op) -> None:
    _, model = reader.model(op.arg(0, "model_name"))
    name = _text(op.arg(1, "name"))
    f = model.fields.pop(name, None)
    if f is None:
        raise Dynamic(f"the field {name}, not in the state its migrations build")
    if f.kind == "ManyToManyField":
        if f.db_type == "join":
            reader.drop_table(op.line, _truncated(f"{model.table}_{name}"))
        return
    reader.out.sql(
        op.line, f"ALTER TABLE {quote(model.table)} DROP COLUMN {quote(f.column)} CASCADE"
    )


def _rename_field(reader: _Reader, op: _Op) -> None:
    _, model = reader.model(op.arg(0, "model_name"))
    old, new = _text(op.arg(1, "old_name")), _text(op.arg(2, "new_name"))
    f = model.fields.pop(old, None)
    if f is None:
        raise Dynamic(f"the field {old}, not in the state its migrations build")
    renamed = (
        replace(f, column=new + ("_id" if f.target is not None else ""))
        if f.column
        in (
            old,
            f"{old}_id",
        )
        else f
    )
    model.fields[new] = renamed
    if renamed.column != f.column:
        reader.out.sql(
            op.line,
            f"ALTER TABLE {quote(model.table)} RENAME COLUMN {quote(f.column)} "
            f"TO {quote(renamed.column)}",
        )


def _base(db_type: str) -> str:
    return db_type.partition("(")[0]


def _alter_field(reader: _Reader, op: _Op) -> None:
    _, model = reader.model(op.arg(0, "model_name"))
    name = _text(op.arg(1, "name"))
    old = model.fields.get(name)
    if old is None:
        raise Dynamic(f"the field {name}, not in the state its migrations build")
    new = reader.field(op.node_arg(2, "field"), name)
    model.fields[name] = new
    if "ManyToManyField" in (old.kind, new.kind):
        if (old.kind, old.target, old.db_type) == (new.kind, new.target, new.db_type):
            return  # the same join table
        raise Dynamic(f"AlterField of the many-to-many field {name}, not modelled")
    table, column = quote(model.table), quote(new.column)
    if (old.target, old.primary) != (new.target, new.primary) or old.column != new.column:
        raise Dynamic(f"AlterField of {name} changing its key or its column, not modelled")
    if old.unique and not new.unique:
        constraint = index_name(model.table, [old.column], "_uniq")
        reader.out.sql(op.line, f"ALTER TABLE {table} DROP CONSTRAINT {quote(constraint)}")
    if old.db_index and not new.db_index and not old.unique:
        reader.out.sql(
            op.line, f"DROP INDEX IF EXISTS {quote(index_name(model.table, [old.column]))}"
        )
    if old.db_type != new.db_type:
        using = (
            "" if _base(old.db_type) == _base(new.db_type) else f" USING {column}::{new.db_type}"
        )
        reader.out.sql(
            op.line, f"ALTER TABLE {table} ALTER COLUMN {column} TYPE {new.db_type}{using}"
        )
    if old.null and not new.null:
        default = _effective_default(new)
        if default is not None:
            alter = f"ALTER TABLE {table} ALTER COLUMN {column}"
            reader.out.sql(op.line, f"{alter} SET DEFAULT {default}")
            reader.out.sql(
                op.line, f"UPDATE {table} SET {column} = {default} WHERE {column} IS NULL"
            )
            reader.out.sql(op.line, "SET CONSTRAINTS ALL IMMEDIATE")
            reader.out.sql(op.line, f"{alter} SET NOT NULL")
            reader.out.sql(op.line, f"{alter} DROP DEFAULT")
        else:
            reader.out.sql(op.line, f"ALTER TABLE {table} ALTER COLUMN {column} SET NOT NULL")
    elif new.null and not old.null:
        reader.out.sql(op.line, f"ALTER TABLE {table} ALTER COLUMN {column} DROP NOT NULL")
    if new.unique and not old.unique:
        constraint = index_name(model.table, [new.column], "_uniq")
        reader.out.sql(
            op.line, f"ALTER TABLE {table} ADD CONSTRAINT {quote(constraint)} UNIQUE ({column})"
        )
    if new.db_index and not old.db_index and not new.unique:
        _defer_indexes(reader, op.line, model.table, replace(new, unique=False))


def _columns_of(model: _Model, names: object) -> list[str]:
    columns = []
    listed = known(names)
    for name in listed if isinstance(listed, list | tuple) else []:
        text = _text(name)
        descending = text.startswith("-")
        f = model.fields.get(text.lstrip("-"))
        if f is None:
            raise Dynamic(f"the field {text}, not in the state its migrations build")
        columns.append(quote(f.column) + (" DESC" if descending else ""))
    if not columns:
        raise Dynamic(f"the fields {names!r}, not a list of field names")
    return columns


def _named_fields(reader: _Reader, op: _Op, argument: str, kind: str) -> tuple[_Model, str, str]:
    """The model, name and columns of an operation's `Index(fields=..., name=...)` or
    `UniqueConstraint(...)` (any other option, or class, is not modelled)."""
    _, model = reader.model(op.arg(0, "model_name"))
    node = op.node_arg(1, argument)
    options = python.keywords(node) if isinstance(node, ast.Call) else {}
    written = (python.call_name(node) or "").rpartition(".")[2]
    unmodelled = sorted(set(options) - {"fields", "name"})
    if written != kind or unmodelled or "fields" not in options or "name" not in options:
        what = unmodelled[0] if unmodelled else written
        raise Dynamic(f"the {argument} `{python.shown(node)}` ({what}), not modelled")
    name = _text(python.evaluate(options["name"], reader.scope))
    columns = _columns_of(model, python.evaluate(options["fields"], reader.scope))
    return model, quote(name), ", ".join(columns)


def _concurrently(op: _Op) -> str:
    return " CONCURRENTLY" if "Concurrently" in (python.call_name(op.node) or "") else ""


def _add_index(reader: _Reader, op: _Op) -> None:
    model, name, columns = _named_fields(reader, op, "index", "Index")
    table = quote(model.table)
    reader.out.sql(op.line, f"CREATE INDEX{_concurrently(op)} {name} ON {table} ({columns})")


def _remove_index(reader: _Reader, op: _Op) -> None:
    reader.model(op.arg(0, "model_name"))
    name = _text(op.arg(1, "name"))
    reader.out.sql(op.line, f"DROP INDEX{_concurrently(op)} IF EXISTS {quote(name)}")


def _add_constraint(reader: _Reader, op: _Op) -> None:
    model, name, columns = _named_fields(reader, op, "constraint", "UniqueConstraint")
    table = quote(model.table)
    reader.out.sql(op.line, f"ALTER TABLE {table} ADD CONSTRAINT {name} UNIQUE ({columns})")


def _remove_constraint(reader: _Reader, op: _Op) -> None:
    _, model = reader.model(op.arg(0, "model_name"))
    name = _text(op.arg(1, "name"))
    reader.out.sql(op.line, f"ALTER TABLE {quote(model.table)} DROP CONSTRAINT {quote(name)}")


def _run_sql(reader: _Reader, op: _Op) -> None:
    node = op.node_arg(0, "sql")
    if python.dotted(node) in ("migrations.RunSQL.noop", "RunSQL.noop"):
        return
    value = python.evaluate(node, reader.scope)
    for part in value if isinstance(value, list | tuple) else [value]:
        sql = part[0] if isinstance(part, list | tuple) and part else part
        reader.out.script(op.line, sql)


def _run_python(reader: _Reader, op: _Op) -> None:
    code = python.argument(op.node, 0, "code")
    name = python.shown(code) if code is not None else "?"
    if python.dotted(code) in ("migrations.RunPython.noop", "RunPython.noop"):
        return
    reader.out.unknown(op.line, f"RunPython({name}) runs Python code: what it writes is not read")


def _separate(reader: _Reader, op: _Op) -> None:
    """`SeparateDatabaseAndState`: the database operations run; the state ones are not SQL."""
    node = python.keywords(op.node).get("database_operations")
    for operation in node.elts if isinstance(node, ast.List | ast.Tuple) else []:
        reader.operation(operation)


_OPERATIONS: dict[str, Callable[[_Reader, _Op], None]] = {
    "CreateModel": _create_model,
    "DeleteModel": _delete_model,
    "RenameModel": _rename_model,
    "AlterModelTable": _alter_model_table,
    "AddField": _add_field,
    "RemoveField": _remove_field,
    "RenameField": _rename_field,
    "AlterField": _alter_field,
    "AddIndex": _add_index,
    "AddIndexConcurrently": _add_index,
    "RemoveIndex": _remove_index,
    "RemoveIndexConcurrently": _remove_index,
    "AddConstraint": _add_constraint,
    "RemoveConstraint": _remove_constraint,
    "RunSQL": _run_sql,
    "RunPython": _run_python,
    "SeparateDatabaseAndState": _separate,
}
