"""Derived fields of a query-history row: trigger, language, title, subline and friends.

Pure functions of a stored run and the names it joins to (charts, saved SQL charts,
dashboards, field labels). The rules are those of `facts/query-history.md`. Runs are
parsed JSON: their objects are checked as dicts (an abstract Mapping check costs more than
the rule it guards, a hundred thousand times a load).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson

TRIGGERS: dict[str, tuple[str, ...]] = {
    "interactive": (
        "exploreView",
        "sqlRunner",
        "composeSqlRunner",
        "multiSourceQuery",
        "chartView",
        "chartHistory",
        "sqlChartView",
        "viewUnderlyingData",
        "calculateTotal",
        "calculateSubtotal",
        "api",
        "cli",
        "ai",
        "mcp.run_metric_query",
        "mcp.run_sql",
        "mcp.search_field_values",
    ),
    "apps": (
        "dashboardView",
        "metricsExplorer",
        "autorefreshedDashboard",
        "filterAutocomplete",
        "dataAppSample",
        "embed",
    ),
    "scheduled": (
        "alert",
        "scheduledDelivery",
        "csvDownload",
        "gsheets",
        "scheduledGsheetsChart",
        "scheduledGsheetsDashboard",
        "scheduledGsheetsSqlChart",
        "scheduledChart",
        "scheduledDashboard",
        "preAggregateMaterialization",
    ),
}
TRIGGER_OF: dict[str, str] = {ctx: trig for trig, ctxs in TRIGGERS.items() for ctx in ctxs}
CONTEXTS: tuple[str, ...] = tuple(sorted(TRIGGER_OF))
SQL_KEYS = ("sql", "savedSqlUuid", "slug")

_CTE = re.compile(r"^\s*with\s+([^\s(]+)\s+as\b", re.IGNORECASE)
_FROM = re.compile(r"\bfrom\s+([^\s,;()]+)", re.IGNORECASE)
_QUOTES = str.maketrans("", "", "\"'`")
# The JSON text of a run's field definitions, as searched (one encoder, not one per run)
_FIELDS_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode
FIELD_TEXTS = 4_096  # distinct field definitions whose searched text is kept
_field_texts: dict[bytes, str] = {}


@dataclass(frozen=True)
class Names:
    """What a run joins to: chart, saved SQL chart and dashboard names, field labels."""

    charts: Mapping[str, str]
    sql_charts: Mapping[str, str]
    dashboards: Mapping[str, str]
    labels: Mapping[str, Mapping[str, str]]  # explore name -> field id -> label


class Derived(NamedTuple):
    """The fields the server computes for a row."""

    trigger: str
    language: str
    title: str
    subline: str
    explore_name: str | None
    chart_uuid: str | None
    chart_name: str | None
    saved_sql_uuid: str | None
    dashboard_uuid: str | None
    dashboard_name: str | None
    search_fields: tuple[str, ...]


def trigger_of(context: str) -> str:
    """The trigger of an execution context; a legacy context counts as interactive."""
    return TRIGGER_OF.get(context, "interactive")


def language_of(params: Any) -> str:
    """`sql` when the request parameters hold any SQL key (presence, not value)."""
    if isinstance(params, dict) and not params.keys().isdisjoint(SQL_KEYS):
        return "sql"
    return "semantic"


def friendly(field_id: str) -> str:
    """A readable form of a field id: `orders_order_count` -> `Orders order count`."""
    text = field_id.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def sql_title(sql: str) -> str | None:
    """The first CTE name, else the last dotted part of the first `from` target."""
    cte = _CTE.match(sql)
    if cte:
        return cte.group(1).translate(_QUOTES) or None
    target = _FROM.search(sql)
    if target:
        return target.group(1).translate(_QUOTES).split(".")[-1] or None
    return None


def first_line(sql: str) -> str:
    """The first non-empty line of the SQL, trimmed."""
    return next((line.strip() for line in sql.splitlines() if line.strip()), "")


def semantic_subline(
    metric_query: Mapping[str, Any], labels: Mapping[str, str], own: Mapping[str, str]
) -> str:
    """Metric labels, then `by ` and dimension labels, joined by a middle dot; a label the
    run's own field definitions give (`own`) wins over the explore's (`labels`)."""

    def label(field_id: Any) -> str:
        key = str(field_id)
        return own.get(key) or labels.get(key) or friendly(key)

    metrics = [label(m) for m in metric_query.get("metrics") or []]
    dimensions = [label(d) for d in metric_query.get("dimensions") or []]
    parts = []
    if metrics:
        parts.append(", ".join(metrics))
    if dimensions:
        parts.append("by " + ", ".join(dimensions))
    return " · ".join(parts)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def fields_text(fields: Any) -> str:
    """The searched JSON text of a run's field definitions. The runs of an explore repeat
    theirs: the text is kept by the definitions' compact sorted form, which orjson writes
    several times faster than the encoder writes the text (equal forms, equal values)."""
    try:
        key = orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:  # an integer past 64 bits
        return _FIELDS_JSON(fields)
    text = _field_texts.get(key)
    if text is None:
        if len(_field_texts) >= FIELD_TEXTS:
            _field_texts.clear()
        text = _field_texts[key] = _FIELDS_JSON(fields)
    return text


def _run_labels(fields: Any) -> dict[str, str]:
    """Labels from the field definitions stored with the run (field id -> definition)."""
    if not isinstance(fields, dict):
        return {}
    return {
        str(key): value["label"]
        for key, value in fields.items()
        if isinstance(value, dict) and _text(value.get("label"))
    }


def derive(run: Mapping[str, Any], names: Names) -> Derived:
    """Compute every derived field of one stored run."""
    params = run.get("requestParameters")
    params = params if isinstance(params, dict) else {}
    metric_query = run.get("metricQuery")
    metric_query = metric_query if isinstance(metric_query, dict) else {}
    language = language_of(params)
    chart_uuid = _text(params.get("chartUuid"))
    saved_sql_uuid = _text(params.get("savedSqlUuid"))
    dashboard_uuid = _text(params.get("dashboardUuid"))
    chart_name = names.charts.get(chart_uuid) if chart_uuid else None
    sql_chart_name = names.sql_charts.get(saved_sql_uuid) if saved_sql_uuid else None
    dashboard_name = names.dashboards.get(dashboard_uuid) if dashboard_uuid else None
    explore_name = _text(metric_query.get("exploreName"))
    compiled = run.get("compiledSql") or ""
    if language == "sql":
        sql = compiled or str(params.get("sql") or "")
        title = chart_name or sql_chart_name or sql_title(sql) or "SQL query"
        subline = first_line(compiled)
    else:
        title = explore_name or chart_name or "Query"
        labels = names.labels.get(explore_name or "", {})
        subline = semantic_subline(metric_query, labels, _run_labels(run.get("fields")))
    if dashboard_name:
        tile = f"“{chart_name}” on " if chart_name else ""
        subline = f"{subline} — {tile}{dashboard_name}" if subline else f"{tile}{dashboard_name}"
    if run.get("status") == "error" and _text(run.get("error")):
        subline = str(run["error"])
    fields = run.get("fields")
    search_fields = (
        compiled,
        explore_name or "",
        fields_text(fields) if fields else "",
        chart_name or "",
        sql_chart_name or "",
        dashboard_name or "",
    )
    return Derived(
        trigger=trigger_of(str(run.get("context"))),
        language=language,
        title=title,
        subline=subline,
        explore_name=explore_name,
        chart_uuid=chart_uuid,
        chart_name=chart_name,
        saved_sql_uuid=saved_sql_uuid,
        dashboard_uuid=dashboard_uuid,
        dashboard_name=dashboard_name,
        search_fields=tuple(map(str.lower, search_fields)),
    )
