"""Whether an expression is evaluated once (a constant for every row) or per row, and which
functions in it have effects the text does not show.

Built-in functions come with PostgreSQL's own volatility (`pgcatalog`, generated from
pg_proc); functions the migrations created carry the volatility they declared; a few common
extension functions (uuid-ossp, pgcrypto) are listed here. Anything else is unknown.
`pgcatalog` is imported where a built-in function is looked up (`schema/coltypes.py` says why).
"""

from __future__ import annotations

from release_safety.common.textcase import lower
from release_safety.surfaces.migrations.schema.model import Schema
from release_safety.surfaces.migrations.sql.tokens import Tok

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Literal

    Volatility = Literal["constant", "volatile", "unknown"]

_EXTENSION_VOLATILE = frozenset(
    {"uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v4", "gen_random_bytes", "gen_salt"}
)
_EXTENSION_STABLE = frozenset(
    {"uuid_generate_v3", "uuid_generate_v5", "uuid_nil", "digest", "hmac", "crypt"}
)
# SQL syntax that looks like a call but is an expression of its arguments, and keywords a
# parenthesis may follow.
SYNTAX = frozenset(
    [
        "cast",
        "coalesce",
        "nullif",
        "greatest",
        "least",
        "array",
        "row",
        "extract",
        "overlay",
        "position",
        "substring",
        "trim",
        "treat",
        "xmlelement",
        "exists",
        "values",
        "in",
        "any",
        "all",
        "some",
        "filter",
        "over",
        "within",
        "as",
        "on",
        "using",
        "and",
        "or",
        "not",
        "then",
        "else",
        "when",
        "select",
        "from",
        "where",
        "join",
        "lateral",
        "by",
        "key",
        "check",
        "unique",
        "references",
        "include",
        "default",
        "is",
        "like",
        "ilike",
        "similar",
        "between",
        "case",
        "returning",
        "distinct",
        "with",
        "set",
        "to",
        "grouping",
        "for",
        "placing",
        "leading",
        "trailing",
        "both",
        "partition",
        "order",
        "rows",
        "range",
        "groups",
        "window",
        "limit",
        "offset",
        "escape",
        "at",
        "zone",
        "interval",
        "into",
        "returning",
        "conflict",
        "do",
        "update",
    ]
)
RUNS_SQL = frozenset(
    {
        "query_to_xml",
        "query_to_xmlschema",
        "query_to_xml_and_xmlschema",
        "cursor_to_xml",
        "cursor_to_xmlschema",
        "ts_stat",
        "ts_rewrite",
        "lo_import",
        "lo_export",
        "dblink",
        "dblink_exec",
    }
)
"""Built-in or extension functions that run SQL given as text, or touch files."""
ENDS_SESSIONS = frozenset({"pg_terminate_backend", "pg_cancel_backend"})
"""Built-in functions that end other sessions, or cancel their queries."""
WAITS = frozenset({"pg_sleep", "pg_sleep_for", "pg_sleep_until"})
"""Built-in functions that make the transaction wait, holding every lock it took."""
_NOT_CALLED_AFTER = frozenset({"INTO", "TABLE", "REFERENCES", "UPDATE", "ONLY", "AS", "INDEX"})
_KEYWORDS_STABLE = frozenset(
    {
        "CURRENT_TIMESTAMP",
        "CURRENT_DATE",
        "CURRENT_TIME",
        "LOCALTIMESTAMP",
        "LOCALTIME",
        "CURRENT_USER",
        "SESSION_USER",
        "CURRENT_SCHEMA",
    }
)


def function_volatility(name: str, schema: Schema) -> Volatility:
    """One function's volatility, by name (the most volatile of its overloads)."""
    created = schema.functions.get(name)
    if created is not None:
        return "volatile" if created.volatility == "v" else "constant"
    from release_safety.surfaces.migrations.schema import pgcatalog  # see the module docstring

    if name in pgcatalog.VOLATILE or name in _EXTENSION_VOLATILE:
        return "volatile"
    if name in pgcatalog.STABLE or name in pgcatalog.IMMUTABLE or name in _EXTENSION_STABLE:
        return "constant"
    if name in SYNTAX:
        return "constant"
    return "unknown"


def calls(expr: list[Tok]) -> list[str]:
    """The functions an expression calls, by lower-case name (type names after `::`, tables
    named before a column list and SQL syntax like CAST are not calls)."""
    out: list[str] = []
    for k, tok in enumerate(expr):
        if tok.kind not in ("word", "ident") or tok.up in _KEYWORDS_STABLE:
            continue
        if k + 1 >= len(expr) or expr[k + 1].kind != "punct" or expr[k + 1].text != "(":
            continue
        start = k
        while start >= 2 and expr[start - 1].text == "." and expr[start - 2].kind != "punct":
            start -= 2
        before = expr[start - 1] if start else None
        if before is not None and (before.text == "::" or before.up in _NOT_CALLED_AFTER):
            continue
        name = tok.text if tok.kind == "ident" else lower(tok.text)
        schema = lower(expr[start].text) if start < k else ""
        if schema and schema not in ("pg_catalog", "public"):
            name = f"{schema}.{name}"
        if name not in SYNTAX:
            out.append(name)
    return out


def volatility(expr: list[Tok], schema: Schema) -> tuple[Volatility, str | None]:
    """The volatility of a default expression and the function that decides it: volatile as
    soon as one call is, unknown when a call is not known and none is volatile."""
    unknown: str | None = None
    for name in calls(expr):
        kind = function_volatility(name, schema)
        if kind == "volatile":
            return "volatile", name
        if kind == "unknown" and unknown is None:
            unknown = name
    return ("unknown", unknown) if unknown is not None else ("constant", None)
