"""Compile a metric query to SQL with sqlglot, from the fields of an explore.

Dimensions are selected and grouped, metrics aggregated; dimension filters go to WHERE, metric
filters to HAVING; sorts and the limit follow. Table calculations (SQL form) are computed in an
outer query over the first one. A reference to a field the explore does not define is a 400.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from release_safety.evaluator.errors import ApiError

DIALECT = "postgres"
_TABLE_REF = re.compile(r"\$\{TABLE\}")
_CALC_REF = re.compile(r"\$\{([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)\}")
AGGREGATES: dict[str, Callable[[exp.Expr], exp.Expr]] = {
    "sum": lambda e: exp.Sum(this=e),
    "count": lambda e: exp.Count(this=e),
    "count_distinct": lambda e: exp.Count(this=exp.Distinct(expressions=[e])),
    "sum_distinct": lambda e: exp.Sum(this=exp.Distinct(expressions=[e])),
    "average": lambda e: exp.Avg(this=e),
    "average_distinct": lambda e: exp.Avg(this=exp.Distinct(expressions=[e])),
    "min": lambda e: exp.Min(this=e),
    "max": lambda e: exp.Max(this=e),
    "median": lambda e: exp.Median(this=e),
    "number": lambda e: e,
}
UNITS = {
    "milliseconds": "MILLISECOND", "seconds": "SECOND", "minutes": "MINUTE", "hours": "HOUR",
    "days": "DAY", "weeks": "WEEK", "months": "MONTH", "quarters": "QUARTER", "years": "YEAR",
}  # fmt: skip


def compile_error(message: str, name: str = "CompileError", data: Any = None) -> ApiError:
    """400: the metric query cannot be compiled."""
    return ApiError(400, name, message, data)


@dataclass(frozen=True)
class Field:
    """A field of the explore: its SQL expression and whether it aggregates."""

    sql: exp.Expr
    metric: bool


def _parse(sql: str, table: str, where: str) -> exp.Expr:
    try:
        parsed = sqlglot.parse_one(_TABLE_REF.sub(table, sql), read=DIALECT)
    except SqlglotError as exc:
        raise compile_error(f"{where}: invalid SQL: {str(exc).splitlines()[0]}") from exc
    if parsed is None:
        raise compile_error(f"{where}: empty SQL")
    return parsed


def explore_fields(
    explore: str, fields: list[Mapping[str, Any]], query: Mapping[str, Any]
) -> dict[str, Field]:
    """The explore's fields plus the query's additional metrics and SQL custom dimensions."""
    known = {
        f["id"]: Field(_parse(f["sql"], explore, f["id"]), f["kind"] == "metric") for f in fields
    }
    for extra in query.get("additionalMetrics") or []:
        field_id = f"{extra['table']}_{extra['name']}"
        aggregate = AGGREGATES.get(extra["type"])
        if aggregate is None:
            raise compile_error(f"additional metric {field_id}: type {extra['type']} unsupported")
        known[field_id] = Field(aggregate(_parse(extra["sql"], explore, field_id)), True)
    for custom in query.get("customDimensions") or []:
        if custom.get("type") != "sql":
            raise compile_error(f"custom dimension {custom.get('id')}: only the SQL form compiles")
        known[custom["id"]] = Field(_parse(custom["sql"], explore, custom["id"]), False)
    return known


def _value(value: Any) -> exp.Expr:
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int | float):
        return exp.Literal.number(value)
    if isinstance(value, str):
        return exp.Literal.string(value)
    if value is None:
        return exp.Null()
    raise compile_error(f"filter value {value!r} is not a string, number or boolean")


def _like(value: Any, before: str, after: str) -> exp.Expr:
    text = str(value).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return exp.Literal.string(f"{before}{text}{after}")


def _interval(rule: Mapping[str, Any], values: list[Any]) -> exp.Expr:
    unit = UNITS.get(str((rule.get("settings") or {}).get("unitOfTime", "days")))
    if unit is None or not values or not isinstance(values[0], int | float):
        raise compile_error(f"filter {rule.get('id')}: needs a number and a unitOfTime")
    return exp.Interval(this=exp.Literal.string(str(values[0])), unit=exp.var(unit))


def _truncated(rule: Mapping[str, Any], column: exp.Expr) -> exp.Expr:
    unit = UNITS.get(str((rule.get("settings") or {}).get("unitOfTime", "days")), "DAY")
    return exp.func("DATE_TRUNC", exp.Literal.string(unit.lower()), column)


def _rule(rule: Mapping[str, Any], column: exp.Expr) -> exp.Expr:
    op = rule["operator"]
    values = list(rule.get("values") or [])
    now = exp.CurrentTimestamp()
    if op in ("isNull", "notNull"):
        null = exp.Is(this=column, expression=exp.Null())
        return null if op == "isNull" else exp.Not(this=null)
    if not values:
        raise compile_error(f"filter {rule.get('id')}: operator {op} needs values")
    first = values[0]
    simple: dict[str, Callable[[], exp.Expr]] = {
        "equals": lambda: column.isin(*map(_value, values)),
        "notEquals": lambda: exp.Not(this=column.isin(*map(_value, values))),
        "startsWith": lambda: exp.or_(*(column.like(_like(v, "", "%")) for v in values)),
        "endsWith": lambda: exp.or_(*(column.like(_like(v, "%", "")) for v in values)),
        "include": lambda: exp.or_(*(column.like(_like(v, "%", "%")) for v in values)),
        "doesNotInclude": lambda: exp.and_(
            *(exp.Not(this=column.like(_like(v, "%", "%"))) for v in values)
        ),
        "lessThan": lambda: column < _value(first),
        "lessThanOrEqual": lambda: column <= _value(first),
        "greaterThan": lambda: column > _value(first),
        "greaterThanOrEqual": lambda: column >= _value(first),
        "inThePast": lambda: column >= exp.Sub(this=now, expression=_interval(rule, values)),
        "notInThePast": lambda: column < exp.Sub(this=now, expression=_interval(rule, values)),
        "inTheNext": lambda: exp.and_(
            column >= now, column <= exp.Add(this=now, expression=_interval(rule, values))
        ),
        "inTheCurrent": lambda: exp.EQ(
            this=_truncated(rule, column), expression=_truncated(rule, now)
        ),
        "notInTheCurrent": lambda: exp.NEQ(
            this=_truncated(rule, column), expression=_truncated(rule, now)
        ),
        "inPeriodToDate": lambda: exp.and_(column >= _truncated(rule, now), column <= now),
    }
    if op in ("inBetween", "notInBetween"):
        if len(values) < 2:
            raise compile_error(f"filter {rule.get('id')}: {op} needs two values")
        between = exp.Between(this=column, low=_value(values[0]), high=_value(values[1]))
        return between if op == "inBetween" else exp.Not(this=between)
    return simple[op]()


def _group(group: Mapping[str, Any], resolve: Callable[[str], exp.Expr]) -> exp.Expr | None:
    """A filter group (`and` / `or` of rules and groups) as one condition, or None if empty."""
    key = "and" if "and" in group else "or"
    parts: list[exp.Expr] = []
    for item in group.get(key) or []:
        if "target" in item:
            if item.get("disabled"):
                continue
            parts.append(_rule(item, resolve(item["target"]["fieldId"])))
        else:
            nested = _group(item, resolve)
            if nested is not None:
                parts.append(nested)
    if not parts:
        return None
    return exp.and_(*parts) if key == "and" else exp.or_(*parts)


def compile_metric_query(
    explore: str, sql_table: str, fields: list[Mapping[str, Any]], query: Mapping[str, Any]
) -> str:
    """The SQL of a metric query over an explore (400 on unknown fields)."""
    known = explore_fields(explore, fields, query)
    calcs = {c["name"]: c for c in query.get("tableCalculations") or []}

    def field(field_id: str) -> Field:
        if field_id not in known:
            raise compile_error(
                f"Field {field_id} does not exist in explore {explore}",
                "FieldReferenceError",
                {"fieldId": field_id},
            )
        return known[field_id]

    dims = list(dict.fromkeys(query["dimensions"]))
    metrics = list(dict.fromkeys(query["metrics"]))
    for field_id in dims:
        if field(field_id).metric:
            raise compile_error(f"{field_id} is a metric, not a dimension", "FieldReferenceError")
    for field_id in metrics:
        if not field(field_id).metric:
            raise compile_error(f"{field_id} is a dimension, not a metric", "FieldReferenceError")
    columns = [exp.alias_(known[f].sql.copy(), f, quoted=True) for f in dims + metrics]
    if not columns:
        raise compile_error("A metric query needs at least one dimension or metric")
    select = exp.select(*columns).from_(exp.to_table(sql_table).as_(explore))
    if dims:
        select = select.group_by(*(exp.Literal.number(i + 1) for i in range(len(dims))))
    filters = query.get("filters") or {}
    where = _group(filters.get("dimensions") or {}, lambda f: field(f).sql.copy())
    if where is not None:
        select = select.where(where)
    having = _group(filters.get("metrics") or {}, lambda f: field(f).sql.copy())
    if having is not None:
        select = select.having(having)
    if calcs:
        select = _with_calculations(select, calcs, filters, dims + metrics)
    orders = []
    for sort in query["sorts"]:
        name = sort["fieldId"]
        if name not in calcs and name not in dims and name not in metrics:
            field(name)
            raise compile_error(f"Sort field {name} is not in the query", "FieldReferenceError")
        target = exp.column(name, quoted=True)
        nulls = bool(sort.get("nullsFirst", False))
        orders.append(exp.Ordered(this=target, desc=bool(sort["descending"]), nulls_first=nulls))
    if orders:
        select = select.order_by(*orders)
    return select.limit(int(query["limit"])).sql(dialect=DIALECT, pretty=True)


def _with_calculations(
    inner: exp.Select,
    calcs: Mapping[str, Mapping[str, Any]],
    filters: Mapping[str, Any],
    selected: list[str],
) -> exp.Select:
    """Table calculations (SQL form) over the aggregated rows, in an outer query."""
    outer_columns: list[exp.Expr] = [exp.Star()]
    for name, calc in calcs.items():
        if not isinstance(calc.get("sql"), str):
            raise compile_error(f"table calculation {name}: only the SQL form compiles")
        sql = _CALC_REF.sub(lambda m: f'"{m.group(1)}_{m.group(2)}"', calc["sql"])
        outer_columns.append(exp.alias_(_parse(sql, "metrics", name), name, quoted=True))
    outer = exp.select(*outer_columns).from_(inner.subquery("metrics"))

    def resolve(name: str) -> exp.Expr:
        if name not in calcs and name not in selected:
            raise compile_error(f"Field {name} is not in the query", "FieldReferenceError")
        return exp.column(name, quoted=True)

    condition = _group(filters.get("tableCalculations") or {}, resolve)
    if condition is None:
        return outer
    return exp.select(exp.Star()).from_(outer.subquery("calculations")).where(condition)
