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
KEPT = 4_096  # distinct field definitions (and sublines) a Deriver keeps


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
    """The searched JSON text of a run's field definitions."""
    return _FIELDS_JSON(fields)


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
    return Deriver(names)(run)


class Deriver:
    """`derive` for the runs of one load, against one set of names. What runs repeat is kept
    by the inputs that decide it (at most KEPT of each, the oldest dropped first): the searched
    text and labels of each distinct set of field definitions (by their compact sorted JSON,
    which orjson writes several times faster than the searched text is written), and the
    subline of each explore, metrics, dimensions and field definitions."""

    def __init__(self, names: Names) -> None:
        self.names = names
        self._definitions: dict[bytes, tuple[str, dict[str, str]]] = {}
        self._sublines: dict[tuple[Any, ...], str] = {}

    def definitions(self, fields: Any) -> tuple[bytes | None, str, dict[str, str]]:
        """The key, searched text and labels of a run's field definitions (no key when they
        cannot be kept: an integer past 64 bits)."""
        if not fields:
            return b"", "", {}
        try:
            key = orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:
            return None, fields_text(fields), _run_labels(fields)
        found = self._definitions.get(key)
        if found is None:
            found = _keep(self._definitions, key, (fields_text(fields), _run_labels(fields)))
        return key, *found

    def subline(
        self, metric_query: Mapping[str, Any], explore_name: str | None, fields: tuple[Any, ...]
    ) -> str:
        """The semantic subline of a metric query with the run's field definitions."""
        key, _, own = fields
        metrics = metric_query.get("metrics")
        dimensions = metric_query.get("dimensions")
        try:
            kept = (
                None
                if key is None
                else (explore_name, key, tuple(metrics or ()), tuple(dimensions or ()))
            )
            found = None if kept is None else self._sublines.get(kept)
        except TypeError:  # not a list of ids (only a run the schema did not check)
            kept = found = None
        if found is None:
            labels = self.names.labels.get(explore_name or "", {})
            found = semantic_subline(metric_query, labels, own)
            if kept is not None:
                _keep(self._sublines, kept, found)
        return found

    def __call__(self, run: Mapping[str, Any]) -> Derived:
        """Every derived field of one run."""
        get = run.get
        names = self.names
        params = get("requestParameters")
        params = params if isinstance(params, dict) else {}
        metric_query = get("metricQuery")
        metric_query = metric_query if isinstance(metric_query, dict) else {}
        chart_uuid = _text(params.get("chartUuid"))
        saved_sql_uuid = _text(params.get("savedSqlUuid"))
        dashboard_uuid = _text(params.get("dashboardUuid"))
        chart_name = names.charts.get(chart_uuid) if chart_uuid else None
        sql_chart_name = names.sql_charts.get(saved_sql_uuid) if saved_sql_uuid else None
        dashboard_name = names.dashboards.get(dashboard_uuid) if dashboard_uuid else None
        explore_name = _text(metric_query.get("exploreName"))
        compiled = get("compiledSql") or ""
        fields = self.definitions(get("fields"))
        language = language_of(params)
        if language == "semantic":
            title = explore_name or chart_name or "Query"
            subline = self.subline(metric_query, explore_name, fields)
        else:
            sql = compiled or str(params.get("sql") or "")
            title = chart_name or sql_chart_name or sql_title(sql) or "SQL query"
            subline = first_line(compiled)
        if dashboard_name:
            tile = f"“{chart_name}” on " if chart_name else ""
            subline = (
                f"{subline} — {tile}{dashboard_name}" if subline else f"{tile}{dashboard_name}"
            )
        if get("status") == "error" and _text(get("error")):
            subline = str(run["error"])
        return Derived(
            trigger_of(str(get("context"))),
            language,
            title,
            subline,
            explore_name,
            chart_uuid,
            chart_name,
            saved_sql_uuid,
            dashboard_uuid,
            dashboard_name,
            (
                compiled.lower(),
                explore_name.lower() if explore_name else "",
                fields[1].lower(),
                chart_name.lower() if chart_name else "",
                sql_chart_name.lower() if sql_chart_name else "",
                dashboard_name.lower() if dashboard_name else "",
            ),
        )


def _keep(kept: dict[Any, Any], key: Any, value: Any) -> Any:
    """Keep a value by its key, dropping the oldest kept one past KEPT."""
    if len(kept) >= KEPT:
        del kept[next(iter(kept))]
    kept[key] = value
    return value
