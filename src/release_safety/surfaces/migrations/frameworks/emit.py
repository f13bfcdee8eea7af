"""What every framework reader shares: the statements a migration emits, with their lines, as
the SQL its framework sends to PostgreSQL, and a construct it cannot model as a statement
without SQL naming it (the migrations surface then judges the file `unknown`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from release_safety.code.jsvalues import Dynamic, Unknown, known
from release_safety.surfaces.migrations.sql.sqlfile import split_sql
from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

_PLAIN = re.compile(r"[a-z_][a-z0-9_$]*")
_RESERVED = frozenset(
    [
        "all",
        "analyse",
        "analyze",
        "and",
        "any",
        "array",
        "as",
        "asc",
        "asymmetric",
        "both",
        "case",
        "cast",
        "check",
        "collate",
        "column",
        "constraint",
        "create",
        "current_catalog",
        "current_date",
        "current_role",
        "current_time",
        "current_timestamp",
        "current_user",
        "default",
        "deferrable",
        "desc",
        "distinct",
        "do",
        "else",
        "end",
        "except",
        "false",
        "fetch",
        "for",
        "foreign",
        "from",
        "grant",
        "group",
        "having",
        "in",
        "initially",
        "intersect",
        "into",
        "lateral",
        "leading",
        "limit",
        "localtime",
        "localtimestamp",
        "not",
        "null",
        "offset",
        "on",
        "only",
        "or",
        "order",
        "placing",
        "primary",
        "references",
        "returning",
        "select",
        "session_user",
        "some",
        "symmetric",
        "table",
        "then",
        "to",
        "trailing",
        "true",
        "union",
        "unique",
        "user",
        "using",
        "variadic",
        "when",
        "where",
        "window",
        "with",
        "authorization",
        "binary",
        "collation",
        "concurrently",
        "cross",
        "current_schema",
        "freeze",
        "full",
        "ilike",
        "inner",
        "is",
        "isnull",
        "join",
        "left",
        "like",
        "natural",
        "notnull",
        "outer",
        "overlaps",
        "right",
        "similar",
        "tablesample",
        "verbose",
    ]
)


def quote(name: str) -> str:
    """An identifier double-quoted, as Rails and Django always write it."""
    return '"' + name.replace('"', '""') + '"'


def quote_if_needed(name: str) -> str:
    """An identifier as SQLAlchemy writes it: bare when lower case and not reserved."""
    return name if _PLAIN.fullmatch(name) and name not in _RESERVED else quote(name)


def scalar(value: object, booleans: tuple[str, str] = ("TRUE", "FALSE")) -> str | None:
    """A Python scalar as a SQL literal ('it''s', 1, 2.5, NULL, and `booleans` for True and
    False, as each framework spells them); None for what is not a scalar."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return booleans[0] if value else booleans[1]
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return None


def literal(value: object) -> str:
    """A scalar as a SQL literal; Dynamic for anything else."""
    found = scalar(known(value))
    if found is None:
        raise Dynamic(f"the value {value!r}, not a SQL literal")
    return found


@dataclass
class Out:
    """The statements of one migration, in the order it runs them."""

    framework: str
    statements: list[Statement] = field(default_factory=list)

    def sql(self, line: int, text: str) -> None:
        """A statement the framework sends, at `line`."""
        self.statements.append(Statement(text, line))

    def script(self, line: int, text: object) -> None:
        """SQL text the migration runs as written (`execute`, `RunSQL`, `op.execute`): each of
        its statements at the call's line; a text known only at run time is unknown."""
        if isinstance(text, Unknown):
            self.unknown(line, f"SQL {text.reason}")
            return
        if not isinstance(text, str):
            self.unknown(line, f"SQL that is not a string ({type(text).__name__})")
            return
        try:
            parts = split_sql(text)
        except ValueError as exc:
            self.unknown(line, f"SQL that does not split into statements: {exc}")
            return
        for part in parts:
            if part.sql:
                self.sql(line, part.sql)

    def unknown(self, line: int, what: str) -> None:
        """A construct whose SQL is known only when it runs: `what` names it."""
        self.statements.append(Statement(None, line, f"{self.framework}: {what}"))

    def guarded(self, line: int, emit: Callable[[], None]) -> None:
        """Runs `emit`; a value it needs that is dynamic becomes an unknown statement there."""
        kept = len(self.statements)
        try:
            emit()
        except Dynamic as exc:
            del self.statements[kept:]
            self.unknown(line, exc.reason)


def read_safely(framework: str, read: Callable[[], Extracted]) -> Extracted:
    """What `read` extracts; a reader that fails on a file gives one unknown statement saying
    why, never an exception."""
    try:
        return read()
    except Exception as exc:
        reason = "nesting too deep" if isinstance(exc, RecursionError) else type(exc).__name__
        return Extracted([Statement(None, 1, f"{framework} migration not analysed: {reason}")])


def does_not_parse(framework: str, line: int) -> Extracted:
    return Extracted([Statement(None, line, f"{framework} migration does not parse (line {line})")])
