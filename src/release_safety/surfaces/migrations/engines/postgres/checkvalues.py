"""What a CHECK constraint says of one column's constant values: the values it allows
(`col IN (...)`, `col = ANY (ARRAY[...])`, `col = v`, as written or as PostgreSQL prints it)
and whether a constant passes it. The expression is parsed by sqlglot; a shape other than
comparisons of the column with constants joined by AND / OR / NOT says nothing (None).

Constants are kept as SQL literals (`'free'`, `0`): strings compare as text, numbers as
numbers (`Decimal`, imported where a number is read: `decimal` is a tenth of a one-file
lint's start, and most files hold no numeric default or CHECK)."""

from __future__ import annotations

from release_safety.common.textcase import lower
from release_safety.surfaces.migrations.sql.tokens import Tok, parse_one

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from decimal import Decimal
    from typing import TypeAlias

    from sqlglot import exp

Value: TypeAlias = "str | Decimal"
_CAST = frozenset({"::", "(", ")", ",", "[", "]", "."})
_LISTING = frozenset({"IN", "ANY", "="})


def _sql(toks: list[Tok]) -> str:
    """The tokens as SQL text again (strings and quoted names quoted back)."""
    parts = []
    for tok in toks:
        if tok.kind == "string":
            parts.append("'" + tok.text.replace("'", "''") + "'")
        elif tok.kind == "ident":
            parts.append('"' + tok.text.replace('"', '""') + '"')
        else:
            parts.append(tok.text)
    return " ".join(parts)


def _parsed(toks: list[Tok]) -> exp.Expr | None:
    from sqlglot import exp
    from sqlglot.errors import ParseError, TokenError

    try:
        tree = parse_one("SELECT " + _sql(toks))
    except (ParseError, TokenError, ValueError):
        return None
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1:
        return None
    found: exp.Expr = tree.expressions[0]
    return found


def _strip(node: exp.Expr) -> exp.Expr:
    """The node inside parentheses and casts."""
    from sqlglot import exp

    while isinstance(node, (exp.Paren, exp.Cast)):
        node = node.this
    return node


def _constant(node: exp.Expr) -> Value | None:
    from decimal import Decimal, InvalidOperation

    from sqlglot import exp

    node = _strip(node)
    negative = isinstance(node, exp.Neg)
    if negative:
        node = _strip(node.this)
    if not isinstance(node, exp.Literal):
        return None
    if node.is_string:
        return None if negative else str(node.this)
    try:
        number = Decimal(str(node.this))
    except InvalidOperation:
        return None
    return -number if negative else number


def literal(value: Value) -> str:
    """A constant as a SQL literal."""
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)


def _value(text: str) -> Value:
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    from decimal import Decimal

    return Decimal(text)


def constant(toks: list[Tok]) -> str | None:
    """A default's constant (a string or a number, signed, cast or not) as a SQL literal;
    None when it is something else. Read from the tokens (no parser to load)."""
    while len(toks) > 2 and toks[0].key == "(" and toks[-1].key == ")":
        toks = toks[1:-1]
    negative = bool(toks) and toks[0].text == "-"
    k = 1 if negative else 0
    if k >= len(toks):
        return None
    tok, cast = toks[k], toks[k + 1 :]
    if cast and (
        cast[0].text != "::" or any(t.kind == "punct" and t.text not in _CAST for t in cast)
    ):
        return None
    if tok.kind == "string" and not negative:
        return literal(tok.text)
    if tok.kind != "number":
        return None
    from decimal import Decimal, InvalidOperation

    try:
        number = Decimal(tok.text)
    except InvalidOperation:
        return None
    return literal(-number if negative else number)


def _is_column(node: exp.Expr, column: str) -> bool:
    from sqlglot import exp

    node = _strip(node)
    if not isinstance(node, exp.Column) or node.table:
        return False
    name = node.this
    return (
        isinstance(name, exp.Identifier)
        and (name.this if name.quoted else lower(name.this)) == column
    )


def _list(node: exp.Expr) -> list[Value] | None:
    """The constants of `ARRAY[...]` (in parentheses or casts)."""
    from sqlglot import exp

    node = _strip(node)
    if not isinstance(node, exp.Array):
        return None
    values = [_constant(e) for e in node.expressions]
    return None if any(v is None for v in values) else [v for v in values if v is not None]


def _compare(op: str, left: Value, right: Value) -> bool | None:
    if isinstance(left, str) != isinstance(right, str):
        return None
    if op == "eq":
        return left == right
    if op == "neq":
        return left != right
    if isinstance(left, str) or isinstance(right, str):
        return None  # text order depends on the collation
    return {"gt": left > right, "gte": left >= right, "lt": left < right, "lte": left <= right}[op]


_OPS = {"EQ": "eq", "NEQ": "neq", "GT": "gt", "GTE": "gte", "LT": "lt", "LTE": "lte"}
_MIRROR = {"eq": "eq", "neq": "neq", "gt": "lt", "gte": "lte", "lt": "gt", "lte": "gte"}


def _holds(node: exp.Expr, column: str, value: Value) -> bool | None:
    from sqlglot import exp

    node = _strip(node) if isinstance(node, exp.Paren) else node
    if isinstance(node, exp.And | exp.Or):
        left, right = _holds(node.this, column, value), _holds(node.expression, column, value)
        if isinstance(node, exp.And):
            return False if False in (left, right) else None if None in (left, right) else True
        return True if True in (left, right) else None if None in (left, right) else False
    if isinstance(node, exp.Not):
        inner = _holds(node.this, column, value)
        return None if inner is None else not inner
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return False if _is_column(node.this, column) else None
    if isinstance(node, exp.In) and _is_column(node.this, column):
        listed = [_constant(e) for e in node.expressions]
        return None if not listed or None in listed else value in listed
    name = type(node).__name__
    if name not in _OPS:
        return None
    op, left, right = _OPS[name], node.this, node.expression
    if _is_column(right, column):
        op, left, right = _MIRROR[op], right, left
    if not _is_column(left, column):
        return None
    if isinstance(_strip(right), exp.Any):
        among = _list(_strip(right).this)
        return None if among is None or op != "eq" else value in among
    other = _constant(right)
    return None if other is None else _compare(op, value, other)


def passes(check: list[Tok], column: str, value: str) -> bool | None:
    """Whether the constant `value` (a SQL literal) in `column` passes the CHECK; None when
    the expression says something else or cannot be read."""
    node = _parsed(check)
    return None if node is None else _holds(node, column, _value(value))


def allowed(check: list[Tok], column: str) -> frozenset[str] | None:
    """The values (SQL literals) a CHECK restricts `column` to, when it lists them (the
    parser is loaded only for a CHECK that may list values)."""
    if not any(t.up in _LISTING or t.text == "=" for t in check):
        return None
    from sqlglot import exp

    node = _parsed(check)
    if node is None:
        return None
    node = _strip(node)
    values: list[Value] | None = None
    if isinstance(node, exp.In) and _is_column(node.this, column):
        found = [_constant(e) for e in node.expressions]
        values = None if None in found else [v for v in found if v is not None]
        return None if not values else frozenset(literal(v) for v in values)
    if isinstance(node, exp.EQ) and _is_column(node.this, column):
        right = _strip(node.expression)
        if isinstance(right, exp.Any):
            values = _list(right.this)
        else:
            one = _constant(right)
            values = None if one is None else [one]
    return None if not values else frozenset(literal(v) for v in values)
