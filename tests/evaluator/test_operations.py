"""The workflow operations: saved chart, compile, users, dashboards, access, catalog, execute."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import sqlglot
from evaluator_support import (
    ALICE,
    ALICE_TOKEN,
    BOB,
    BOB_TOKEN,
    CAROL_TOKEN,
    JAFFLE,
    MARKETING,
    SEED,
    Client,
    Running,
    uuid_of,
)

COMPILE = f"/api/v1/projects/{JAFFLE}/explores/orders/compileQuery"
CATALOG = f"/api/v2/projects/{JAFFLE}/dataCatalog/metrics-with-time-dimensions"
ACCESS = f"/api/v1/projects/{JAFFLE}/access"


def metric_query(**changes: Any) -> dict[str, Any]:
    query: dict[str, Any] = {
        "exploreName": "orders",
        "dimensions": ["orders_status"],
        "metrics": ["orders_total_revenue"],
        "filters": {},
        "sorts": [{"fieldId": "orders_total_revenue", "descending": True}],
        "limit": 10,
        "tableCalculations": [],
    }
    return {**query, **changes}


@pytest.fixture
def fresh(start_server: Callable[..., Running]) -> Client:
    """A server of its own, for tests that write."""
    return start_server().client


def test_saved_chart(client: Client) -> None:
    chart = uuid_of("chart", "status")
    results = client.get(f"/api/v1/saved/{chart}").json()["results"]
    assert results["name"] == "Orders by status"
    assert results["metricQuery"]["exploreName"] == "orders"
    assert results["tableName"] == "orders"
    assert results["dashboardName"] == "Sales overview"
    assert client.get("/api/v1/saved/nope").status_code == 404
    spend = uuid_of("chart", "spend")
    assert client.get(f"/api/v1/saved/{spend}").status_code == 403


def test_compile_builds_sql_from_explore_fields(client: Client) -> None:
    filters = {
        "dimensions": {
            "id": "root",
            "and": [
                {
                    "id": "f1",
                    "target": {"fieldId": "orders_status"},
                    "operator": "equals",
                    "values": ["completed", "shipped"],
                },
                {
                    "id": "g",
                    "or": [
                        {
                            "id": "f2",
                            "target": {"fieldId": "orders_amount"},
                            "operator": "greaterThan",
                            "values": [10],
                        },
                        {"id": "f3", "target": {"fieldId": "orders_amount"}, "operator": "isNull"},
                    ],
                },
            ],
        },
        "metrics": {
            "id": "m",
            "and": [
                {
                    "id": "f4",
                    "target": {"fieldId": "orders_total_revenue"},
                    "operator": "greaterThanOrEqual",
                    "values": [100],
                }
            ],
        },
    }
    response = client.post(COMPILE, json=metric_query(filters=filters))
    assert response.status_code == 200, response.text
    sql = response.json()["results"]["query"]
    parsed = sqlglot.parse_one(sql, read="postgres")
    assert parsed.find(sqlglot.exp.Having) is not None
    assert 'SUM(orders.amount) AS "orders_total_revenue"' in sql
    assert "FROM analytics.orders AS orders" in sql
    assert "orders.status IN ('completed', 'shipped')" in sql
    assert "orders.amount > 10 OR orders.amount IS NULL" in sql
    assert "SUM(orders.amount) >= 100" in sql
    assert 'ORDER BY\n  "orders_total_revenue" DESC' in sql
    assert sql.rstrip().endswith("LIMIT 10")


def test_compile_like_operators_escape_wildcards(client: Client) -> None:
    rule = {
        "id": "f",
        "target": {"fieldId": "orders_status"},
        "operator": "startsWith",
        "values": ["50%_"],
    }
    query = metric_query(filters={"dimensions": {"id": "r", "and": [rule]}})
    sql = client.post(COMPILE, json=query).json()["results"]["query"]
    assert "orders.status LIKE '50\\%\\_%'" in sql


def test_compile_table_calculation_in_an_outer_query(client: Client) -> None:
    calc = {"name": "double", "displayName": "Double", "sql": "${orders.total_revenue} * 2"}
    query = metric_query(
        tableCalculations=[calc], sorts=[{"fieldId": "double", "descending": False}]
    )
    sql = client.post(COMPILE, json=query).json()["results"]["query"]
    assert '"orders_total_revenue" * 2 AS "double"' in sql
    assert ') AS metrics\nORDER BY\n  "double"' in sql


@pytest.mark.parametrize(
    "query",
    [
        metric_query(dimensions=["orders_nope"]),
        metric_query(metrics=["orders_status"]),
        metric_query(sorts=[{"fieldId": "orders_amount", "descending": True}]),
        metric_query(
            filters={
                "dimensions": {
                    "id": "r",
                    "and": [{"id": "f", "target": {"fieldId": "x_y"}, "operator": "isNull"}],
                }
            }
        ),
    ],
)
def test_compile_unknown_or_misplaced_field_is_400(client: Client, query: dict[str, Any]) -> None:
    response = client.post(COMPILE, json=query)
    assert response.status_code == 400
    assert response.json()["error"]["name"] == "FieldReferenceError"


def test_compile_errors(client: Client) -> None:
    unknown = client.post(
        f"/api/v1/projects/{JAFFLE}/explores/nope/compileQuery", json=metric_query()
    )
    assert unknown.status_code == 404
    missing = client.post(COMPILE, json={"exploreName": "orders"})
    assert missing.status_code == 422
    data = missing.json()["error"]["data"]
    assert {"body.dimensions", "body.limit", "body.tableCalculations"} <= set(data)
    wrong_type = client.post(COMPILE, json=metric_query(limit="ten"))
    assert set(wrong_type.json()["error"]["data"]) == {"body.limit"}
    broken = client.post(
        COMPILE, content=b"{not json", headers={"content-type": "application/json"}
    )
    assert broken.status_code == 400
    assert broken.json()["error"]["name"] == "ParameterError"


def test_org_users(client: Client) -> None:
    users = client.get("/api/v1/org/users").json()["results"]
    assert [u["email"] for u in users] == sorted(u["email"] for u in SEED["users"])
    alice = next(u for u in users if u["userUuid"] == ALICE)
    assert alice["groups"] == [{"uuid": uuid_of("group", "analysts"), "name": "Analysts"}]
    assert alice["role"] == "member"


def test_dashboards_of_a_project(client: Client) -> None:
    results = client.get("/api/v2/content", params={"projectUuids": JAFFLE}).json()["results"]
    names = [item["name"] for item in results["data"]]
    assert names == ["Sales overview", "Operations"]  # last updated first
    assert results["pagination"]["totalResults"] == 2
    board = results["data"][0]
    assert board["views"] == 128 and board["space"]["name"] == "Sales"
    assert board["createdBy"]["firstName"] == "Alice"
    by_name = client.get(
        "/api/v2/content",
        params={"projectUuids": JAFFLE, "sortBy": "name", "sortDirection": "asc", "pageSize": 1},
    ).json()["results"]
    assert [item["name"] for item in by_name["data"]] == ["Operations"]
    assert by_name["pagination"]["totalPageCount"] == 2
    denied = client.get("/api/v2/content", params={"projectUuids": MARKETING})
    assert denied.status_code == 403
    everything = client.get("/api/v2/content", token=BOB_TOKEN).json()["results"]
    assert everything["pagination"]["totalResults"] == 3
    bad_type = client.get("/api/v2/content", params={"contentTypes": "space"})
    assert bad_type.status_code == 422


def test_catalog_metrics_tags_or_sort_and_pages(client: Client) -> None:
    def names(**params: Any) -> list[str]:
        response = client.get(CATALOG, params=params)
        assert response.status_code == 200, response.text
        return [item["name"] for item in response.json()["results"]["data"]]

    # average_basket has no time dimension: never listed
    assert names() == ["customer_count", "order_count", "total_revenue"]
    assert names(tags=["finance", "growth"]) == ["customer_count", "total_revenue"]
    assert names(tags="core") == ["order_count", "total_revenue"]
    assert names(tags="nothing") == []
    assert names(sort="label", order="desc") == ["total_revenue", "order_count", "customer_count"]
    assert names(sort="chartUsage", order="desc", pageSize=1, page=2) == ["order_count"]
    assert client.get(CATALOG, params={"order": "up"}).status_code == 422
    assert client.get(CATALOG, params={"page": 0}).json()["error"]["name"] == "PaginationError"
    metric = client.get(CATALOG, params={"tags": "finance"}).json()["results"]["data"][0]
    assert metric["tags"] == ["finance", "core"]
    assert metric["categories"][0]["name"] == "Finance"


def test_project_access_grant_and_update(fresh: Client) -> None:
    listed = fresh.get(ACCESS).json()["results"]
    assert {(a["email"], a["role"]) for a in listed} >= {("alice@acme.example", "admin")}
    granted = fresh.post(ACCESS, json={"email": "carol@acme.example", "role": "viewer"})
    assert granted.status_code == 200
    assert granted.json()["results"]["role"] == "viewer"
    assert (
        fresh.get("/api/v2/projects/" + JAFFLE + "/query/history", CAROL_TOKEN).status_code == 200
    )
    again = fresh.post(ACCESS, json={"email": "carol@acme.example", "role": "editor"})
    assert again.status_code == 400
    carol = uuid_of("user", "carol")
    updated = fresh.request("PATCH", f"{ACCESS}/{carol}", json={"role": "interactive_viewer"})
    assert updated.json()["results"]["role"] == "interactive_viewer"
    bad_role = fresh.request("PATCH", f"{ACCESS}/{carol}", json={"role": "owner"})
    assert bad_role.status_code == 422
    assert "body.role" in bad_role.json()["error"]["data"]
    nobody = fresh.post(ACCESS, json={"email": "nobody@acme.example", "role": "viewer"})
    assert nobody.status_code == 404
    not_admin = fresh.request("PATCH", f"{ACCESS}/{ALICE}", BOB_TOKEN, json={"role": "viewer"})
    assert not_admin.status_code == 403
    no_access = fresh.request("PATCH", f"{ACCESS}/{BOB}x", json={"role": "viewer"})
    assert no_access.status_code == 404


@pytest.mark.parametrize(
    ("operation", "body", "language"),
    [
        ("metric-query", {"query": metric_query(), "context": "api"}, "semantic"),
        ("sql", {"sql": "select 1 from shop.refunds"}, "sql"),
        ("chart", {"chartUuid": uuid_of("chart", "weekly")}, "semantic"),
    ],
)
def test_execute_records_a_pending_run_in_history(
    fresh: Client, operation: str, body: dict[str, Any], language: str
) -> None:
    response = fresh.post(f"/api/v2/projects/{JAFFLE}/query/{operation}", json=body)
    assert response.status_code == 200, response.text
    query_uuid = response.json()["results"]["queryUuid"]
    row = fresh.history(window="lastFewMinutes", pageSize=100)["data"][0]
    assert row["queryUuid"] == query_uuid
    assert row["status"] == "pending"
    assert row["language"] == language
    assert row["requestParameters"] == body
    assert row["context"] == body.get("context", "api")
    status = fresh.get(f"/api/v2/projects/{JAFFLE}/query/{query_uuid}")
    assert status.json()["results"]["status"] == "pending"
    other = fresh.history(token=BOB_TOKEN, pageSize=100)["data"]
    assert query_uuid not in {r["queryUuid"] for r in other}


def test_execute_rejects_bad_bodies(fresh: Client) -> None:
    path = f"/api/v2/projects/{JAFFLE}/query/"
    assert fresh.post(path + "sql", json={"limit": 3}).status_code == 422
    assert fresh.post(path + "sql", json={"sql": "x", "context": "nope"}).status_code == 422
    assert fresh.post(path + "chart", json={"chartUuid": "nope"}).status_code == 404
    unknown_field = {"query": metric_query(dimensions=["orders_nope"])}
    assert fresh.post(path + "metric-query", json=unknown_field).status_code == 400
    assert fresh.post(path + "sql", ALICE_TOKEN, json={"sql": "x"}).status_code == 200
