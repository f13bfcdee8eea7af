"""The history list over HTTP: scope, filters, windows, counts, sort, search, pagination."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from evaluator_support import (
    ALICE,
    BOB,
    BOB_TOKEN,
    HISTORY,
    JAFFLE,
    NOW_US,
    SEED,
    Client,
    Running,
    dataset,
    make_run,
    uuid_of,
)

from release_safety.evaluator.times import MINUTE_US, format_time

MINUTE = MINUTE_US


def at(minutes_ago: float, extra_ms: int = 0) -> str:
    """A time `minutes_ago` before the clock, moved `extra_ms` later."""
    return format_time(NOW_US - round(minutes_ago * MINUTE) + extra_ms * 1_000)


def uuids(results: dict[str, Any]) -> list[str]:
    return [row["queryUuid"] for row in results["data"]]


def alice_seed_runs() -> list[dict[str, Any]]:
    return [r for r in SEED["queryRuns"] if r["userUuid"] == ALICE and r["projectUuid"] == JAFFLE]


# --- over the bundled seed -------------------------------------------------------------


def test_default_page_is_newest_first_with_counts_and_pagination(client: Client) -> None:
    results = client.history()
    assert results["pagination"]["page"] == 1
    assert results["pagination"]["pageSize"] == 25
    in_scope = results["counts"]["total"]
    # the seed has alice-old (31 days) and alice-30d (exactly 43,200 minutes): out of scope
    assert in_scope == len(alice_seed_runs()) - 2
    assert results["pagination"]["totalResults"] == in_scope
    assert results["pagination"]["totalPageCount"] == -(-in_scope // 25)
    created = [row["createdAt"] for row in results["data"]]
    assert created == sorted(created, reverse=True)
    assert len(results["data"]) == 25
    everything = client.history(pageSize=100)
    assert {row["projectUuid"] for row in everything["data"]} == {JAFFLE}
    mine = {r["queryUuid"] for r in alice_seed_runs()}
    assert set(uuids(everything)) <= mine


def test_counts_add_up(client: Client) -> None:
    counts = client.history()["counts"]
    assert counts["total"] == sum(counts["triggers"].values())
    assert counts["total"] == sum(counts["windows"].values())
    assert set(counts["triggers"]) == {"interactive", "apps", "scheduled"}
    assert all(value > 0 for value in counts["triggers"].values())


def test_trigger_filter_applies_to_rows_and_windows_not_to_trigger_counts(client: Client) -> None:
    everything = client.history(pageSize=100)
    apps = client.history(trigger="apps", pageSize=100)
    assert {row["trigger"] for row in apps["data"]} == {"apps"}
    assert apps["counts"]["triggers"] == everything["counts"]["triggers"]
    assert sum(apps["counts"]["windows"].values()) == everything["counts"]["triggers"]["apps"]
    assert apps["pagination"]["totalResults"] == len(apps["data"])
    assert apps["counts"]["total"] == everything["counts"]["total"]


def test_window_filter_applies_to_rows_and_triggers_not_to_window_counts(client: Client) -> None:
    everything = client.history(pageSize=100)
    hour = client.history(window="lastHour", pageSize=100)
    assert hour["counts"]["windows"] == everything["counts"]["windows"]
    assert hour["counts"]["total"] == everything["counts"]["windows"]["lastHour"]
    assert hour["pagination"]["totalResults"] == everything["counts"]["windows"]["lastHour"]
    for row in hour["data"]:
        assert at(60) < row["createdAt"] <= at(5)


def test_window_and_trigger_together(client: Client) -> None:
    both = client.history(window="last7Days", trigger="scheduled", pageSize=100)
    assert {row["trigger"] for row in both["data"]} <= {"scheduled"}
    assert both["pagination"]["totalResults"] == len(both["data"])
    assert both["counts"]["triggers"]["scheduled"] == len(both["data"])
    assert both["counts"]["windows"]["last7Days"] == len(both["data"])


def test_language_and_status_filters_apply_to_every_count(client: Client) -> None:
    sql = client.history(language="sql", pageSize=100)
    assert sql["data"] and {row["language"] for row in sql["data"]} == {"sql"}
    assert sql["counts"]["total"] == len(sql["data"])
    assert sum(sql["counts"]["windows"].values()) == len(sql["data"])
    failed = client.history(status=["error", "cancelled"], pageSize=100)
    assert {row["status"] for row in failed["data"]} == {"error", "cancelled"}
    assert failed["counts"]["total"] == len(failed["data"])
    for row in failed["data"]:
        if row["status"] == "error":
            assert row["subline"] == row["error"]


def test_empty_search_is_no_filter_and_search_is_case_insensitive(client: Client) -> None:
    assert client.history(search="")["counts"] == client.history()["counts"]
    by_dashboard = client.history(search="SALES OVERVIEW", pageSize=100)
    assert by_dashboard["data"]
    assert {row["dashboardName"] for row in by_dashboard["data"]} == {"Sales overview"}
    by_chart = client.history(search="weekly REVENUE", pageSize=100)
    assert {row["chartName"] for row in by_chart["data"]} == {"Weekly revenue"}


@pytest.mark.parametrize("needle", ["50%_off", "%_", "E '50%"])
def test_search_wildcards_match_literally(client: Client, needle: str) -> None:
    rows = client.history(search=needle, pageSize=100)["data"]
    assert uuids({"data": rows}) == [uuid_of("run", "alice-percent")]


def test_search_percent_alone_matches_only_sql_holding_it(client: Client) -> None:
    rows = client.history(search="%", pageSize=100)["data"]
    holding = {
        r["queryUuid"]
        for r in alice_seed_runs()
        if "%" in r["compiledSql"] and r["queryUuid"] in set(uuids(client.history(pageSize=100)))
    }
    assert len(holding) == 3
    assert set(uuids({"data": rows})) == holding


def test_search_underscore_and_backslash_are_literal(client: Client) -> None:
    underscore = client.history(search="d_t", pageSize=100)
    assert underscore["data"] == []  # `_` would match any character: "date" contains "dat"
    backslash = client.history(search="c:\\\\temp", pageSize=100)
    assert [row["compiledSql"] for row in backslash["data"]] == ["select 'C:\\\\temp' as path"]
    assert client.history(search="c:\\temp", pageSize=100)["data"] == []


def test_search_never_matches_across_two_fields(client: Client) -> None:
    # "Sales overview" (dashboard) and the SQL are separate fields: no match across the join
    assert client.history(search="overview\x00select", pageSize=100)["data"] == []
    assert client.history(search="500overview", pageSize=100)["data"] == []


def test_search_covers_explore_fields_json_and_sql(client: Client) -> None:
    fields = client.history(search='"fieldtype": "metric"', pageSize=100)
    assert fields["data"] and all(row["language"] == "semantic" for row in fields["data"])
    explore = client.history(search="orders", pageSize=100)
    assert explore["counts"]["total"] > len(fields["data"]) - 1
    sql = client.history(search="raw_payments", pageSize=100)
    assert {row["title"] for row in sql["data"]} == {"raw_payments"}


def test_page_past_the_end_and_page_size_cap(client: Client) -> None:
    total = client.history()["counts"]["total"]
    past = client.history(page=99, pageSize=10)
    assert past["data"] == []
    assert past["pagination"] == {
        "page": 99,
        "pageSize": 10,
        "totalResults": total,
        "totalPageCount": -(-total // 10),
    }
    capped = client.history(pageSize=1000)
    assert capped["pagination"]["pageSize"] == 100
    assert len(capped["data"]) == min(total, 100)
    far = client.history(page=2**53 - 1)  # the largest page echoed (an exact JSON number)
    assert far["data"] == []


@pytest.mark.parametrize("digits", [19, 31, 400])
def test_any_page_or_page_size_past_what_a_number_holds_is_past_the_end_or_capped(
    client: Client, digits: int
) -> None:
    """The document bounds page and pageSize only from below (issue 35 class 10): a page of
    any size past the end is an empty page, any page size is capped."""
    huge = "1" + "0" * (digits - 1)
    far = client.history(page=huge)
    assert far["data"] == [] and far["pagination"]["page"] == 2**53 - 1
    capped = client.history(pageSize=huge)
    assert capped["pagination"]["pageSize"] == 100
    assert client.get(HISTORY, params={"page": "-" + huge}).status_code == 422


def test_pages_are_disjoint_and_complete(client: Client) -> None:
    total = client.history()["counts"]["total"]
    seen: list[str] = []
    for page in range(1, -(-total // 7) + 1):
        seen += uuids(client.history(page=page, pageSize=7))
    assert len(seen) == total == len(set(seen))
    assert seen == uuids(client.history(pageSize=100))


@pytest.mark.parametrize(
    ("params", "name", "fields"),
    [
        ({"page": 0}, "PaginationError", None),
        ({"pageSize": 0}, "PaginationError", None),
        ({"page": -3}, "PaginationError", None),
        ({"page": "abc"}, "ValidateError", {"page"}),
        ({"pageSize": "1.5"}, "ValidateError", {"pageSize"}),
        ({"trigger": "foo"}, "ValidateError", {"trigger"}),
        ({"language": "python"}, "ValidateError", {"language"}),
        ({"window": "lastYear"}, "ValidateError", {"window"}),
        ({"sortBy": "title"}, "ValidateError", {"sortBy"}),
        ({"status": ["ready", "nope"]}, "ValidateError", {"status"}),
        ({"trigger": "x", "window": "y"}, "ValidateError", {"trigger", "window"}),
    ],
)
def test_invalid_parameters_are_422(
    client: Client, params: dict[str, Any], name: str, fields: set[str] | None
) -> None:
    response = client.get(HISTORY, params=params)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["name"] == name
    if fields:
        assert set(error["data"]) == fields
        first = sorted(fields)[0]
        assert error["data"][first]["value"] == params[first]


def test_other_users_runs_are_invisible(client: Client) -> None:
    bob = client.history(token=BOB_TOKEN, pageSize=100)
    bob_runs = {
        r["queryUuid"]
        for r in SEED["queryRuns"]
        if r["userUuid"] == BOB and r["projectUuid"] == JAFFLE
    }
    assert set(uuids(bob)) == bob_runs
    assert bob["counts"]["total"] == len(bob_runs)
    alice = client.history(pageSize=100)
    assert not set(uuids(alice)) & bob_runs
    some_bob_run = sorted(bob_runs)[0]
    response = client.get(f"/api/v2/projects/{JAFFLE}/query/{some_bob_run}")
    assert response.status_code == 404
    assert response.json()["error"]["name"] == "NotFoundError"


def test_query_status_of_own_run(client: Client) -> None:
    pending = next(r for r in alice_seed_runs() if r["status"] == "pending")
    response = client.get(f"/api/v2/projects/{JAFFLE}/query/{pending['queryUuid']}")
    assert response.status_code == 200
    assert response.json()["results"]["status"] == "pending"


# --- hand-made data sets -----------------------------------------------------------------


@pytest.fixture(scope="module")
def edges(start_server: Callable[..., Running]) -> Client:
    runs = [
        make_run("w-now", at(0)),
        make_run("w-just-under-5m", at(5, 1)),
        make_run("w-exactly-5m", at(5)),
        make_run("w-exactly-60m", at(60)),
        make_run("w-exactly-1440m", at(1440)),
        make_run("w-exactly-10080m", at(10080)),
        make_run("w-just-inside-30d", at(43200, 1)),
        make_run("w-exactly-43200m", at(43200)),
        make_run("w-future", at(-1)),
        make_run("history", at(30)),  # a run whose uuid is literally "history"
    ]
    same = at(2000)
    runs += [
        make_run("t-b", same, runtime=100),
        make_run("t-a", same, runtime=100),
        make_run("t-c", same, runtime=None),
        make_run("t-d", at(2001), runtime=None),
        make_run("t-e", same, runtime=50),
        make_run("t-old-big", at(11000), runtime=1000),
        make_run("cache-before", at(3000), resultsCreatedAt=at(3001)),
        make_run("cache-equal", at(3000, 5), resultsCreatedAt=at(3000, 5)),
        make_run("other-user", at(1), user=BOB),
    ]
    return start_server(dataset(runs)).client


def test_window_edges_newer_end_inclusive(edges: Client) -> None:
    def window(name: str) -> set[str]:
        return set(uuids(edges.history(window=name, pageSize=100)))

    assert {"w-now", "w-just-under-5m"} == window("lastFewMinutes")
    hour = window("lastHour")
    assert "w-exactly-5m" in hour and "w-exactly-60m" not in hour
    assert "w-exactly-60m" in window("last24Hours")
    assert "w-exactly-1440m" in window("last7Days")
    last30 = window("last30Days")
    assert {"w-exactly-10080m", "w-just-inside-30d"} <= last30
    everything = set(uuids(edges.history(pageSize=100)))
    assert "w-exactly-43200m" not in everything
    assert "w-future" not in everything
    assert "other-user" not in everything


def test_literal_history_route_wins_over_query_uuid(edges: Client) -> None:
    listing = edges.get(HISTORY)
    assert "data" in listing.json()["results"]
    run = edges.get(f"/api/v2/projects/{JAFFLE}/query/w-now")
    assert run.json()["results"]["queryUuid"] == "w-now"


def test_default_sort_breaks_created_at_ties_on_query_uuid(edges: Client) -> None:
    rows = edges.history(window="last7Days", pageSize=100)["data"]
    tied = [row["queryUuid"] for row in rows if row["queryUuid"].startswith("t-")]
    assert tied == ["t-a", "t-b", "t-c", "t-e", "t-d"]


def test_runtime_sort_nulls_last_then_created_at_then_uuid(edges: Client) -> None:
    rows = edges.history(sortBy="runtime", pageSize=100)["data"]
    order = [row["queryUuid"] for row in rows]
    assert order[:4] == ["t-old-big", "t-a", "t-b", "t-e"]
    runtimes = [row["warehouseExecutionTimeMs"] for row in rows]
    first_null = runtimes.index(None)
    assert all(value is None for value in runtimes[first_null:])
    nulls = order[first_null:]
    assert nulls.index("t-c") < nulls.index("t-d")


def test_warehouse_time_of_the_last_seven_days(edges: Client) -> None:
    counts = edges.history()["counts"]
    assert counts["warehouseTimeMsLast7Days"] == 250  # t-a + t-b + t-e; t-old-big is 7.6 days
    assert edges.history(window="lastHour")["counts"]["warehouseTimeMsLast7Days"] == 250
    assert edges.history(trigger="apps")["counts"]["warehouseTimeMsLast7Days"] == 0


def test_cache_hit_only_when_results_strictly_older(edges: Client) -> None:
    rows = {row["queryUuid"]: row for row in edges.history(pageSize=100)["data"]}
    assert rows["cache-before"]["cacheHit"] is True
    assert rows["cache-equal"]["cacheHit"] is False
    assert rows["w-now"]["cacheHit"] is False
