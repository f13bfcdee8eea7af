"""Derived fields of a history row: trigger, language, title, subline (pure rules)."""

from __future__ import annotations

from typing import Any

import pytest

from release_safety.evaluator.derive import (
    CONTEXTS,
    TRIGGERS,
    Names,
    derive,
    friendly,
    language_of,
    trigger_of,
)
from release_safety.evaluator.openapi import openapi_document

NAMES = Names(
    charts={"c1": "Weekly revenue"},
    sql_charts={"s1": "Top customers"},
    dashboards={"d1": "Sales overview"},
    labels={"orders": {"orders_total_revenue": "Total revenue", "orders_week": "Order date week"}},
)


def run(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "context": "exploreView",
        "status": "ready",
        "requestParameters": {},
        "metricQuery": None,
        "compiledSql": "",
    }
    return {**base, **fields}


def semantic(dims: list[str], metrics: list[str], explore: str = "orders") -> dict[str, Any]:
    return {"exploreName": explore, "dimensions": dims, "metrics": metrics}


def test_every_context_of_the_contract_has_exactly_one_trigger() -> None:
    contract = openapi_document()["components"]["schemas"]["QueryExecutionContext"]["enum"]
    assert sorted(contract) == sorted(CONTEXTS)
    assert len(CONTEXTS) == 32
    assert {k: len(v) for k, v in TRIGGERS.items()} == {
        "interactive": 16,
        "apps": 6,
        "scheduled": 10,
    }


@pytest.mark.parametrize(
    ("context", "trigger"),
    [
        ("exploreView", "interactive"),
        ("mcp.search_field_values", "interactive"),
        ("viewUnderlyingData", "interactive"),
        ("dashboardView", "apps"),
        ("filterAutocomplete", "apps"),
        ("embed", "apps"),
        ("metricsExplorer", "apps"),
        ("csvDownload", "scheduled"),
        ("preAggregateMaterialization", "scheduled"),
        ("scheduledGsheetsSqlChart", "scheduled"),
        ("someLegacyContext", "interactive"),
    ],
)
def test_trigger_of_context(context: str, trigger: str) -> None:
    assert trigger_of(context) == trigger


@pytest.mark.parametrize(
    ("params", "language"),
    [
        ({"sql": "select 1"}, "sql"),
        ({"savedSqlUuid": None}, "sql"),
        ({"slug": ""}, "sql"),
        ({"query": {}}, "semantic"),
        ({"chartUuid": "c1"}, "semantic"),
        (None, "semantic"),
    ],
)
def test_language_is_key_presence(params: Any, language: str) -> None:
    assert language_of(params) == language


@pytest.mark.parametrize(
    ("params", "sql", "title"),
    [
        ({"sql": "x", "chartUuid": "c1"}, "select 1", "Weekly revenue"),
        ({"savedSqlUuid": "s1"}, "select 1", "Top customers"),
        ({"sql": "x"}, "  with recent as (select 1) select * from recent", "recent"),
        ({"sql": "x"}, 'select *\nFROM "analytics"."raw_payments" limit 1', "raw_payments"),
        ({"sql": "x"}, "select * from `proj.ds.events`", "events"),
        ({"sql": "x"}, "select 1", "SQL query"),
        ({"sql": "x"}, "", "SQL query"),
    ],
)
def test_sql_titles(params: dict[str, Any], sql: str, title: str) -> None:
    assert derive(run(requestParameters=params, compiledSql=sql), NAMES).title == title


def test_sql_title_falls_back_to_request_sql_when_nothing_compiled() -> None:
    row = run(requestParameters={"sql": "select * from shop.orders"}, compiledSql="")
    assert derive(row, NAMES).title == "orders"


def test_semantic_titles() -> None:
    with_explore = run(metricQuery=semantic([], []), requestParameters={"chartUuid": "c1"})
    assert derive(with_explore, NAMES).title == "orders"
    chart_only = run(requestParameters={"chartUuid": "c1"})
    assert derive(chart_only, NAMES).title == "Weekly revenue"
    assert derive(run(), NAMES).title == "Query"


def test_semantic_subline_labels_then_dimensions_with_middle_dot() -> None:
    row = run(metricQuery=semantic(["orders_week"], ["orders_total_revenue"]))
    assert derive(row, NAMES).subline == "Total revenue · by Order date week"


def test_subline_label_falls_back_to_friendly_id_and_run_fields_win() -> None:
    assert friendly("orders_order_count") == "Orders order count"
    row = run(
        metricQuery=semantic(["orders_week"], ["orders_order_count", "orders_total_revenue"]),
        fields={"orders_total_revenue": {"label": "Revenue (run)"}},
    )
    assert derive(row, NAMES).subline == ("Orders order count, Revenue (run) · by Order date week")


def test_subline_without_metrics_or_dimensions_is_empty() -> None:
    assert derive(run(metricQuery=semantic([], [])), NAMES).subline == ""
    assert derive(run(metricQuery=semantic(["orders_week"], [])), NAMES).subline == (
        "by Order date week"
    )


def test_sql_subline_is_first_non_empty_line_trimmed() -> None:
    row = run(requestParameters={"sql": "x"}, compiledSql="\n\n   select a,\n b from t")
    assert derive(row, NAMES).subline == "select a,"


def test_dashboard_suffix_with_and_without_chart_name() -> None:
    params = {"chartUuid": "c1", "dashboardUuid": "d1", "tileUuid": "t"}
    row = run(metricQuery=semantic([], ["orders_total_revenue"]), requestParameters=params)
    assert derive(row, NAMES).subline == "Total revenue — “Weekly revenue” on Sales overview"
    empty = run(metricQuery=semantic([], []), requestParameters=params)
    assert derive(empty, NAMES).subline == "“Weekly revenue” on Sales overview"
    sql_tile = run(
        requestParameters={"savedSqlUuid": "s1", "dashboardUuid": "d1"}, compiledSql="select 1"
    )
    derived = derive(sql_tile, NAMES)
    assert derived.subline == "select 1 — Sales overview"
    assert derived.chart_name is None
    assert derived.saved_sql_uuid == "s1"


def test_error_text_replaces_the_subline_but_expired_keeps_it() -> None:
    query = semantic([], ["orders_total_revenue"])
    failed = run(metricQuery=query, status="error", error="relation does not exist")
    assert derive(failed, NAMES).subline == "relation does not exist"
    no_text = run(metricQuery=query, status="error", error=None)
    assert derive(no_text, NAMES).subline == "Total revenue"
    expired = run(metricQuery=query, status="expired", error="stale")
    assert derive(expired, NAMES).subline == "Total revenue"


def test_explore_name_for_both_languages_and_uuids_from_params() -> None:
    sql_row = run(requestParameters={"sql": "select 1"}, metricQuery=semantic([], []))
    derived = derive(sql_row, NAMES)
    assert derived.explore_name == "orders"
    assert (derived.chart_uuid, derived.dashboard_uuid, derived.saved_sql_uuid) == (
        None,
        None,
        None,
    )
