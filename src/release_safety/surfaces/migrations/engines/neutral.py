"""Migrations for a database other than PostgreSQL, each statement parsed with sqlglot in the
engine's own dialect and judged as that engine runs it.

The breaking rules hold on every engine (a table or column dropped or renamed, a NOT NULL
column added without a default, a column's type changed or made NOT NULL), judged against the
schema the earlier migrations built. What a change to an existing table locks or rewrites is
the MySQL manual's for MySQL and MariaDB (`mysql.onlineddl`), and `unknown` elsewhere
(`engine-heaviness-unknown`): no PostgreSQL lock rule ever judges these engines.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from release_safety.surfaces.migrations.engines.mysql.onlineddl import ROWS, Row
from release_safety.surfaces.migrations.engines.postgres.heaviness import FileAnalysis, LineIssue
from release_safety.surfaces.migrations.rules.ids import RuleId
from release_safety.surfaces.migrations.schema.coltypes import ColType
from release_safety.surfaces.migrations.schema.model import Column, Schema, Table
from release_safety.surfaces.migrations.sql.statements import Extracted

if TYPE_CHECKING:
    from release_safety.surfaces.migrations.engines.postgres.heaviness import TriState

DIALECTS = {
    "postgres": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "sqlite": "sqlite",
    "clickhouse": "clickhouse",
    "cockroachdb": "postgres",
    "mssql": "tsql",
}
"""The sqlglot dialect each engine's statements are parsed with."""
_INNODB = ("mysql", "mariadb")
_RENAME_TABLE = re.compile(r"RENAME\s+TABLE\s+(?P<pairs>.+)", re.IGNORECASE | re.DOTALL)
_CONVERT = re.compile(
    r"ALTER\s+TABLE\s+(?P<table>\S+)\s+CONVERT\s+TO\s+CHARACTER\s+SET", re.IGNORECASE
)
_INTEGERS = ("tinyint", "smallint", "mediumint", "int", "bigint")
_LABELS = {
    "mysql": "MySQL",
    "mariadb": "MariaDB",
    "sqlite": "SQLite",
    "clickhouse": "ClickHouse",
    "cockroachdb": "CockroachDB",
    "mssql": "SQL Server",
}


class _File:
    """What judging one file collects."""

    def __init__(self, engine: str, schema: Schema, release_created: frozenset[str]) -> None:
        self.engine = engine
        self.label = _LABELS.get(engine, engine)
        self.schema = schema
        self.existing: Callable[[str], bool] = lambda table: (
            table not in release_created and table not in self.created
        )
        self.created: set[str] = set()
        self.tables: list[str] = []
        self.issues: list[LineIssue] = []
        self.flags: dict[str, TriState] = {"locks": False, "rewrites": False, "scans": False}
        self.start = {name: dict(table.columns) for name, table in schema.tables.items()}
        self.gone: dict[tuple[str, str | None], LineIssue] = {}
        self.unmodelled: set[str] = set()

    def removed(
        self, table: str, column: str | None, rule: str, line: int, message: str, hint: str
    ) -> None:
        """A table or column of the file's start taken away (dropped, renamed): judged at the
        end of the file (`finish`), where what the file put back under the same name is not
        a removal (SQLite's copy-and-rename, a rename and re-add)."""
        if self.existing(table):
            self.gone.setdefault((table, column), LineIssue(rule, line, message, hint))

    def finish(self) -> None:
        """The removals that hold at the end of the file, as issues."""
        end = self.schema.tables
        for (table, column), issue in self.gone.items():
            if table not in self.start:
                continue
            if column is None:
                if table not in end:
                    self.issue(issue.rule, issue.line, issue.message, issue.hint)
                    continue
                rebuilt = end[table]
                for name, before in self.start[table].items():
                    after = rebuilt.columns.get(name)
                    if after is not None and before.type is not None and after.type is not None:
                        _judge_change(table, name, before, after, issue.line, self)
                kept = set(rebuilt.columns) if rebuilt.complete else set(self.start[table])
                for lost in sorted(set(self.start[table]) - kept):
                    if (table, lost) in self.gone:
                        continue
                    self.issue(
                        RuleId.DROP_COLUMN,
                        issue.line,
                        f"{table} is rebuilt without {lost}: the previous release still "
                        "reads and writes it",
                        f"Keep {table}.{lost} in the rebuilt table until no release uses it.",
                    )
            elif column in self.start[table] and column not in getattr(
                end.get(table), "columns", {column}
            ):
                self.issue(issue.rule, issue.line, issue.message, issue.hint)

    def touch(self, table: str) -> None:
        if table not in self.tables:
            self.tables.append(table)

    def issue(self, rule: str, line: int, message: str, hint: str | None = None) -> None:
        self.issues.append(LineIssue(rule, line, f"{message} ({self.label})", hint))

    def heavy(self, table: str, line: int, row: Row | None, what: str) -> None:
        """The heaviness of one change to an existing table: the manual's row on InnoDB,
        unknown elsewhere (or when no row says)."""
        if not self.existing(table):
            return
        if self.engine not in _INNODB or row is None:
            for flag in self.flags:
                if self.flags[flag] is False:
                    self.flags[flag] = "unknown"
            if table in self.unmodelled:  # one finding per table and file
                return
            self.unmodelled.add(table)
            self.issue(
                RuleId.ENGINE_HEAVINESS_UNKNOWN,
                line,
                f"{what} on {table}: whether it blocks reads or writes, or rewrites the table, "
                "is not modelled for this engine",
                f"Check how {self.label} runs this on a table the size of {table} in "
                "production, then acknowledge it above the statement: `-- release-safety: "
                "acknowledge(engine-heaviness-unknown): <what you found>`.",
            )
            return
        for flag, value in (
            ("locks", not row.concurrent_dml),
            ("rewrites", row.rebuilds),
            ("scans", row.scans),
        ):
            if value:
                self.flags[flag] = True
        manual = f"the MySQL 8.0 manual: {row.name}, {row.algorithm}"
        if not row.concurrent_dml:
            self.issue(
                RuleId.MYSQL_BLOCKS_WRITES,
                line,
                f"{what} on {table} does not permit concurrent DML ({manual}): the previous "
                "release's writes wait for the whole table",
                f"Write the change as a new column backfilled in batches, or run it on {table} "
                "with an online schema tool (gh-ost, pt-online-schema-change) outside the "
                "release.",
            )
        elif row.rebuilds:
            self.issue(
                RuleId.MYSQL_TABLE_REBUILD,
                line,
                f"{what} rebuilds {table} ({manual}, concurrent DML permitted)",
                f"Expect a rebuild of {table} in proportion to its rows (time, disk, replica "
                "lag); on a large table run it with an online schema tool.",
            )


def judge(
    extracted: Extracted,
    engine: str,
    schema: Schema,
    release_created: frozenset[str],
    *,
    written_in: str | None = None,
) -> FileAnalysis:
    """A file's analysis on `engine`; `schema` (the file's own copy) is brought up to date.
    `written_in` is the engine whose SQL the statements are when it is not `engine`: the
    framework readers write the SQL their framework sends to PostgreSQL, and the operations
    (a column dropped, an index added) are the ones the framework runs on `engine`."""
    import sqlglot  # deferred: only non-PostgreSQL sources need it
    from sqlglot.errors import ParseError, TokenError

    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its fallbacks are judged here
    state = _File(engine, schema, release_created)
    dialect = written_in or engine
    lines: list[int] = []
    for statement in extracted.statements:
        lines.append(statement.line)
        if statement.sql is None:
            state.issue(
                RuleId.MIGRATION_STATEMENT_UNKNOWN,
                statement.line,
                f"a statement whose text is not known: {statement.reason}",
            )
            continue
        try:
            trees = [t for t in sqlglot.parse(statement.sql, read=DIALECTS[dialect]) if t]
        except (ParseError, TokenError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            state.issue(
                RuleId.MIGRATION_STATEMENT_UNKNOWN,
                statement.line,
                f"a statement sqlglot's {DIALECTS[dialect]} dialect cannot read: {first}",
                "Check what the statement does by hand and acknowledge it with what you found.",
            )
            continue
        for tree in trees:
            _statement(tree, statement.line, state)
    state.finish()
    state.issues.sort(key=lambda issue: (issue.line, issue.rule))
    return FileAnalysis(
        tables=state.tables,
        locks=state.flags["locks"],
        rewrites=state.flags["rewrites"],
        scans=state.flags["scans"],
        issues=state.issues,
        created=frozenset(state.created),
        statement_lines=tuple(lines),
    )


def _name(node: object) -> str:
    """A table's name as written, without its database or schema qualifier."""
    name = getattr(node, "name", "")
    return str(name).lower()


def _statement(tree: object, line: int, state: _File) -> None:
    from sqlglot import exp as e

    if isinstance(tree, e.Create):
        _create(tree, line, state)
    elif isinstance(tree, e.Drop):
        _drop(tree, line, state)
    elif isinstance(tree, e.Alter) and str(tree.args.get("kind") or "").upper() == "TABLE":
        _alter(tree, line, state)
    elif isinstance(tree, e.TruncateTable):
        for node in tree.expressions:
            if state.existing(_name(node)):
                state.touch(_name(node))
                state.issue(
                    RuleId.TRUNCATE_TABLE,
                    line,
                    f"{_name(node)} is emptied: the previous release's rows are gone",
                    f"Delete only what must go from {_name(node)}, in batches.",
                )
    elif isinstance(tree, e.Command):
        _command(tree.sql(), line, state)


def _command(text: str, line: int, state: _File) -> None:
    """A statement sqlglot keeps as text: RENAME TABLE, ALTER TABLE ... CONVERT TO CHARACTER
    SET; anything else is not known."""
    if found := _RENAME_TABLE.match(text):
        for pair in found["pairs"].split(","):
            old, new = [*re.split(r"\s+TO\s+", pair, maxsplit=1, flags=re.IGNORECASE), ""][:2]
            _rename_table(old.strip(' `"').lower(), new.strip(' `";').lower(), line, state)
        return
    if found := _CONVERT.match(text):
        table = found["table"].strip('`"').lower()
        state.touch(table)
        state.heavy(table, line, ROWS["Converting a character set"], "CONVERT TO CHARACTER SET")
        return
    state.issue(
        RuleId.MIGRATION_STATEMENT_UNKNOWN,
        line,
        f"a statement sqlglot's {DIALECTS[state.engine]} dialect does not model: "
        f"{text.split(None, 3)[:3]}",
        "Check what the statement does by hand and acknowledge it with what you found.",
    )


def _coltype(node: object) -> ColType | None:
    """A column type as the engine wrote it (lower-case name, its length or precision)."""
    from sqlglot import exp as e

    if not isinstance(node, e.DataType):
        return None
    name = node.this.value.lower() if hasattr(node.this, "value") else str(node.this).lower()
    mods: list[int] = []
    for param in node.expressions:
        text = param.sql() if hasattr(param, "sql") else str(param)
        if text.isdigit():
            mods.append(int(text))
    return ColType(name, tuple(mods))


def _column(node: object) -> tuple[str, Column, bool]:
    """A column definition: its name, its facts, and whether it auto-increments."""
    from sqlglot import exp as e

    assert isinstance(node, e.ColumnDef)
    kinds = [c.args.get("kind") for c in node.args.get("constraints") or []]
    not_null = any(
        isinstance(k, e.NotNullColumnConstraint) and not k.args.get("allow_null") for k in kinds
    ) or any(isinstance(k, e.PrimaryKeyColumnConstraint) for k in kinds)
    default = any(isinstance(k, e.DefaultColumnConstraint) for k in kinds)
    generated = any(
        isinstance(k, (e.AutoIncrementColumnConstraint, e.GeneratedAsIdentityColumnConstraint))
        for k in kinds
    )
    column = Column(_coltype(node.args.get("kind")), not_null, default or generated, generated)
    return node.name.lower(), column, generated


def _create(tree: object, line: int, state: _File) -> None:
    from sqlglot import exp as e

    assert isinstance(tree, e.Create)
    kind = str(tree.args.get("kind") or "").upper()
    target = tree.this
    if kind == "INDEX":
        table = tree.this.args.get("table") if isinstance(target, e.Index) else None
        if table is None:
            return
        name = _name(table)
        state.touch(name)
        unique = bool(tree.args.get("unique"))
        what = "CREATE UNIQUE INDEX" if unique else "CREATE INDEX"
        kind_of = str(getattr(target, "args", {}).get("params") or "").upper()
        row = ROWS["Adding a FULLTEXT index" if "FULLTEXT" in kind_of else _INDEX]
        state.heavy(name, line, row, what)
        return
    table_node = target.this if isinstance(target, e.Schema) else target
    name = _name(table_node)
    if not name:
        return
    state.touch(name)
    state.created.add(name)
    columns = {}
    if isinstance(target, e.Schema):
        for node in target.expressions:
            if isinstance(node, e.ColumnDef):
                column, facts, _ = _column(node)
                columns[column] = facts
    known = kind == "TABLE" and isinstance(target, e.Schema) and tree.expression is None
    state.schema.add_table(
        name, Table("table" if kind == "TABLE" else "view", columns, complete=known)
    )


_INDEX = "Creating or adding a secondary index"


def _drop(tree: object, line: int, state: _File) -> None:
    from sqlglot import exp as e

    assert isinstance(tree, e.Drop)
    kind = str(tree.args.get("kind") or "").upper()
    if kind == "INDEX":
        on = tree.args.get("cluster")
        table = on.this if on is not None else None
        if isinstance(table, e.Table):
            state.touch(_name(table))
            state.heavy(_name(table), line, ROWS["Dropping an index"], "DROP INDEX")
        return
    if kind not in ("TABLE", "VIEW"):
        return
    for node in tree.args.get("tables") or [tree.this]:
        name = _name(node)
        if not name:
            continue
        state.touch(name)
        absent = state.schema.doubt(name) is None and name not in state.schema.tables
        if not (tree.args.get("exists") and absent):
            state.removed(
                name,
                None,
                RuleId.DROP_TABLE if kind == "TABLE" else RuleId.DROP_VIEW,
                line,
                f"{kind.lower()} {name} is dropped: the previous release still reads and writes it",
                f"Stop using {name} in one release and drop it in a later one.",
            )
        state.schema.drop_table(name)


def _rename_table(old: str, new: str, line: int, state: _File) -> None:
    state.touch(old)
    state.removed(
        old,
        None,
        RuleId.RENAME_TABLE,
        line,
        f"table {old} is renamed to {new}: the previous release still uses {old}",
        f"Create {new} beside {old} (or a view named {old}) and move the code first.",
    )
    state.heavy(old, line, ROWS["Renaming a table"], "RENAME TABLE")
    state.schema.rename_table(old, new)


def _alter(tree: object, line: int, state: _File) -> None:
    from sqlglot import exp as e

    assert isinstance(tree, e.Alter)
    table = _name(tree.this)
    state.touch(table)
    actions = tree.args.get("actions") or []
    if not actions:  # ENGINE=, ROW_FORMAT=, FORCE: a rebuild on InnoDB
        text = tree.sql(dialect="mysql").upper()
        row = ROWS["Changing the ROW_FORMAT"] if "ROW_FORMAT" in text else None
        if row is None and ("ENGINE" in text or "FORCE" in text):
            row = ROWS["Rebuilding a table with the FORCE option"]
        state.heavy(table, line, row, "ALTER TABLE")
        return
    for action in actions:
        _action(table, action, line, state)


def _action(table: str, action: object, line: int, state: _File) -> None:
    from sqlglot import exp as e

    existing = state.existing(table)
    if isinstance(action, e.ColumnDef):
        column, facts, generated = _column(action)
        if existing and facts.not_null and not facts.default:
            state.issue(
                RuleId.ADD_NOT_NULL_COLUMN_WITHOUT_DEFAULT,
                line,
                f"{table}.{column} is added NOT NULL without a default: the previous release's "
                "inserts do not set it and fail",
                f"Add {table}.{column} with a default (or nullable), backfill, then tighten it "
                "in a later release.",
            )
        found = state.schema.edit(table)
        if found is not None:
            found.columns[column] = facts
        row = ROWS["Adding an auto-increment column" if generated else "Adding a column"]
        state.heavy(table, line, row, f"ADD COLUMN {column}")
    elif isinstance(action, e.Drop):
        kind = str(action.args.get("kind") or "").upper()
        name = _name(action.this or next(iter(action.args.get("tables") or []), None))
        if kind in ("COLUMN", ""):
            state.removed(
                table,
                name,
                RuleId.DROP_COLUMN,
                line,
                f"{table}.{name} is dropped: the previous release still reads and writes it",
                f"Stop using {table}.{name} in one release and drop it in a later one.",
            )
            found = state.schema.edit(table)
            if found is not None:
                found.columns.pop(name, None)
            state.heavy(table, line, ROWS["Dropping a column"], f"DROP COLUMN {name}")
        elif kind == "INDEX":
            state.heavy(table, line, ROWS["Dropping an index"], f"DROP INDEX {name}")
        elif kind == "FOREIGN KEY":
            state.heavy(table, line, ROWS["Dropping a foreign key constraint"], "DROP FOREIGN KEY")
        else:
            state.heavy(table, line, None, f"DROP {kind}")
    elif isinstance(action, e.DropPrimaryKey):
        state.heavy(table, line, ROWS["Dropping a primary key"], "DROP PRIMARY KEY")
    elif isinstance(action, e.RenameColumn):
        old, new = _name(action.this), _name(action.args.get("to"))
        _renamed_column(table, old, new, line, state)
        state.heavy(table, line, ROWS["Renaming a column"], f"RENAME COLUMN {old}")
    elif isinstance(action, e.AlterRename):
        _rename_table(table, _name(action.this), line, state)
    elif isinstance(action, e.RenameIndex if hasattr(e, "RenameIndex") else ()):
        state.heavy(table, line, ROWS["Renaming an index"], "RENAME INDEX")
    elif isinstance(action, e.AddConstraint):
        state.heavy(table, line, _constraint_row(action), "ADD " + _constraint_kind(action))
    elif isinstance(action, e.ModifyColumn):
        _modify(table, action, line, state)
    elif isinstance(action, e.AlterColumn):
        _alter_column(table, action, line, state)
    else:
        state.heavy(table, line, None, f"ALTER TABLE ({type(action).__name__})")


def _constraint_kind(action: object) -> str:
    text = action.sql(dialect="mysql").upper() if hasattr(action, "sql") else ""
    for kind in ("PRIMARY KEY", "FOREIGN KEY", "FULLTEXT", "SPATIAL", "UNIQUE", "INDEX", "KEY"):
        if kind in text:
            return kind
    return "CONSTRAINT"


def _constraint_row(action: object) -> Row | None:
    return {
        "PRIMARY KEY": ROWS["Adding a primary key"],
        "FOREIGN KEY": ROWS["Adding a foreign key constraint"],
        "FULLTEXT": ROWS["Adding a FULLTEXT index"],
        "SPATIAL": ROWS["Adding a SPATIAL index"],
        "UNIQUE": ROWS[_INDEX],
        "INDEX": ROWS[_INDEX],
        "KEY": ROWS[_INDEX],
    }.get(_constraint_kind(action))


def _renamed_column(table: str, old: str, new: str, line: int, state: _File) -> None:
    state.removed(
        table,
        old,
        RuleId.RENAME_COLUMN,
        line,
        f"{table}.{old} is renamed to {new}: the previous release still uses {old}",
        f"Add {table}.{new}, write both from the code, backfill, and drop {old} in a later "
        "release.",
    )
    found = state.schema.edit(table)
    if found is not None and old in found.columns:
        found.columns[new] = found.columns.pop(old)


def _modify(table: str, action: object, line: int, state: _File) -> None:
    """MySQL's MODIFY / CHANGE COLUMN: the whole definition restated, judged against the one
    the schema holds."""
    from sqlglot import exp as e

    assert isinstance(action, e.ModifyColumn)
    definition = action.this
    if not isinstance(definition, e.ColumnDef):
        state.heavy(table, line, None, "MODIFY COLUMN")
        return
    new_name, facts, _ = _column(definition)
    renamed = action.args.get("rename_from")
    old_name = _name(renamed) if renamed is not None else new_name
    if new_name != old_name:
        _renamed_column(table, old_name, new_name, line, state)
    before = state.schema.column(table, new_name)
    if before is None or before.type is None or facts.type is None:
        if state.existing(table):
            state.issue(
                RuleId.SCHEMA_FACT_UNKNOWN,
                line,
                f"{table}.{new_name} is redefined, and its definition before is not known: "
                "whether its type narrows or it becomes NOT NULL cannot be judged",
                f"Write {table}'s CREATE TABLE in the migrations (or in a baseline) so its "
                "columns are known.",
            )
            state.heavy(table, line, None, f"MODIFY COLUMN {new_name}")
        return
    row = _judge_change(table, new_name, before, facts, line, state)
    if row is None and definition.args.get("position") is not None:  # FIRST / AFTER
        row = ROWS["Reordering columns"]
    found = state.schema.edit(table)
    if found is not None:
        found.columns[new_name] = facts
    if row is not None:
        state.heavy(table, line, row, f"MODIFY COLUMN {new_name}")


def _judge_change(
    table: str, column: str, before: Column, after: Column, line: int, state: _File
) -> Row | None:
    """The breaking findings of a column redefined, and the manual's row for it."""
    assert before.type is not None and after.type is not None
    existing = state.existing(table)
    if before.type != after.type:
        widened = _widens(before.type, after.type)
        if existing and not widened:
            state.issue(
                RuleId.CHANGE_COLUMN_TYPE,
                line,
                f"{table}.{column} changes type from {before.type} to {after.type}: values the "
                "previous release writes may no longer fit",
                f"Add a new column of type {after.type}, write both, backfill, and switch in a "
                "later release.",
            )
        if before.type.name == after.type.name == "varchar" and widened:
            return ROWS["Extending VARCHAR column size"]
        return ROWS["Changing the column data type"]
    if after.not_null and not before.not_null:
        if existing and not after.default:
            state.issue(
                RuleId.SET_NOT_NULL,
                line,
                f"{table}.{column} becomes NOT NULL: the previous release's writes that leave "
                "it NULL fail",
                f"Give {table}.{column} a default first, or keep it nullable until no release "
                "writes NULL.",
            )
        return ROWS["Making a column NOT NULL"]
    if before.not_null and not after.not_null:
        return ROWS["Making a column NULL"]
    if after.default != before.default:
        set_default = "Setting a column default value"
        return ROWS[set_default if after.default else "Dropping the column default value"]
    return None


def _widens(before: ColType, after: ColType) -> bool:
    """True when every value of `before` fits `after` (a longer varchar, a wider integer)."""
    if before.name == after.name:
        return not after.mods or (
            len(after.mods) == len(before.mods)
            and all(b <= a for b, a in zip(before.mods, after.mods, strict=True))
        )
    if before.name in _INTEGERS and after.name in _INTEGERS:
        return _INTEGERS.index(after.name) >= _INTEGERS.index(before.name)
    return before.name in ("varchar", "char", "tinytext", "text") and after.name in (
        "text",
        "mediumtext",
        "longtext",
    )


def _alter_column(table: str, action: object, line: int, state: _File) -> None:
    """ALTER COLUMN: SET/DROP DEFAULT, and the PostgreSQL-style forms CockroachDB takes."""
    from sqlglot import exp as e

    assert isinstance(action, e.AlterColumn)
    column = _name(action.this)
    before = state.schema.column(table, column)
    dtype = _coltype(action.args.get("dtype"))
    if dtype is not None:
        if before is not None and before.type is not None:
            after = Column(dtype, before.not_null, before.default, before.identity)
            row = _judge_change(table, column, before, after, line, state)
            state.heavy(table, line, row, f"ALTER COLUMN {column} TYPE")
        else:
            state.heavy(table, line, None, f"ALTER COLUMN {column} TYPE")
        return
    if action.args.get("drop"):
        state.heavy(table, line, ROWS["Dropping the column default value"], "DROP DEFAULT")
    elif action.args.get("default") is not None:
        state.heavy(table, line, ROWS["Setting a column default value"], "SET DEFAULT")
    else:
        state.heavy(table, line, None, f"ALTER COLUMN {column}")
