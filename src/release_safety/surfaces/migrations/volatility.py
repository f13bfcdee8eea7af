"""Whether a column default is evaluated once (metadata only) or per row (a table rewrite)."""

from __future__ import annotations

from typing import Literal

from release_safety.surfaces.migrations.tokens import Tok

Volatility = Literal["constant", "volatile", "unknown"]

VOLATILE = frozenset(
    {
        "random",
        "clock_timestamp",
        "timeofday",
        "gen_random_uuid",
        "uuid_generate_v1",
        "uuid_generate_v1mc",
        "uuid_generate_v4",
        "nextval",
        "setval",
        "random_normal",
        "gen_random_bytes",
    }
)
# Immutable or stable built-ins: evaluated once when a column is added (PostgreSQL 11+).
NOT_VOLATILE = frozenset(
    {
        "now",
        "transaction_timestamp",
        "statement_timestamp",
        "current_setting",
        "lower",
        "upper",
        "coalesce",
        "nullif",
        "greatest",
        "least",
        "concat",
        "length",
        "abs",
        "round",
        "trim",
        "replace",
        "md5",
        "to_jsonb",
        "to_json",
        "jsonb_build_object",
        "json_build_object",
        "jsonb_build_array",
        "json_build_array",
        "array",
        "make_interval",
        "date_trunc",
        "to_char",
        "to_timestamp",
        "to_date",
        "cast",
        "current_date",
        "timezone",
        "array_fill",
        "extract",
        "date_part",
        "floor",
        "ceil",
        "ceiling",
        "trunc",
        "make_date",
        "make_timestamp",
        "make_timestamptz",
        "format",
        "left",
        "right",
        "lpad",
        "rpad",
        "split_part",
        "regexp_replace",
        "array_to_string",
        "to_number",
        "jsonb_typeof",
    }
)
_CALL_KEYWORDS_STABLE = frozenset(
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


def volatility(expr: list[Tok]) -> tuple[Volatility, str | None]:
    """The volatility of a default expression and the function that decides it.

    A call to a function outside the known lists is `unknown` (user functions may be
    volatile); type names after `::` are not calls.
    """
    for k, tok in enumerate(expr):
        if tok.kind != "word" or tok.up in _CALL_KEYWORDS_STABLE:
            continue
        is_call = k + 1 < len(expr) and expr[k + 1].kind == "punct" and expr[k + 1].text == "("
        after_cast = k > 0 and expr[k - 1].kind == "punct" and expr[k - 1].text == "::"
        if not is_call or after_cast:
            continue
        name = tok.text.lower()
        if name in VOLATILE:
            return "volatile", name
        if name not in NOT_VOLATILE:
            return "unknown", name
    return "constant", None
