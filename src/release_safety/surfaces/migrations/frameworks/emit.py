"""What every framework reader shares: the statements a migration emits, with their lines, as
the SQL its framework sends to PostgreSQL, and a construct it cannot model as a statement
without SQL naming it (the migrations surface then judges the file `unknown`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from release_safety.code.jsvalues import Unknown
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


class Dynamic(Exception):
    """A value the statement needs is known only at run time (`Unknown.reason` says which)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def known(value: object) -> object:
    """The value itself; raises Dynamic when it is Unknown."""
    if isinstance(value, Unknown):
        raise Dynamic(value.reason)
    return value


def quote(name: str) -> str:
    """An identifier double-quoted, as Rails and Django always write it."""
    return '"' + name.replace('"', '""') + '"'


def quote_if_needed(name: str) -> str:
    """An identifier as SQLAlchemy writes it: bare when lower case and not reserved."""
    return name if _PLAIN.fullmatch(name) and name not in _RESERVED else quote(name)


def literal(value: object) -> str:
    """A Python value as a SQL literal ('it''s', 1, TRUE, NULL)."""
    value = known(value)
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise Dynamic(f"the value {value!r}, not a SQL literal")


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


def not_analysed(framework: str, exc: Exception) -> Extracted:
    """What a reader that failed on a file returns: one unknown statement saying why."""
    reason = "nesting too deep" if isinstance(exc, RecursionError) else f"{type(exc).__name__}"
    return Extracted([Statement(None, 1, f"{framework} migration not analysed: {reason}")])


def does_not_parse(framework: str, line: int) -> Extracted:
    return Extracted([Statement(None, line, f"{framework} migration does not parse (line {line})")])
