"""Differential: the in-memory search finds exactly the runs a plain substring test over each
of their six searched texts finds (never a match spanning two texts), over generated texts
with newlines, NULs, LIKE and regex metacharacters and unicode, needles of any length; and the
whole history list over a generated data set (every one of the six texts generated) equals a
plain scan of the derived texts."""

from __future__ import annotations

import json
from typing import Any

from evaluator_support import ALICE, JAFFLE, NOW_US, seed_copy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from release_safety.evaluator.derive import Names, derive
from release_safety.evaluator.history import SCOPE_MINUTES, HistoryQuery, list_history
from release_safety.evaluator.search import (
    CREATED,
    ROW_ID,
    RUNTIME,
    RUNTIME_KEY,
    TRIGGER,
    Keys,
    Texts,
)
from release_safety.evaluator.store import Store, insert_run
from release_safety.evaluator.times import MINUTE_US, parse_time

PIECES = [*"ab_%\\.*[]()^$?+|{}\n\x00 \"'İßσ€0", "ab", "\n\n", "ǅ", "select", "\U0001f600"]
texts = st.lists(st.sampled_from(PIECES), max_size=10).map("".join)
needles = st.lists(st.sampled_from(PIECES), min_size=1, max_size=5).map("".join)
runs = st.lists(st.lists(texts, min_size=6, max_size=6), max_size=12)


def expected(rows: list[list[str]], needle: str) -> set[int]:
    return {i + 1 for i, six in enumerate(rows) if any(needle in text for text in six)}


@settings(max_examples=400, deadline=None)
@given(first=runs, then=runs, needle=needles)
@example(first=[["ab", "c", "", "", "", ""]], then=[], needle="bc")  # spans two texts
@example(first=[["ab\ncd", "", "", "", "", ""]], then=[], needle="b\nc")
@example(first=[["ab", "\ncd", "", "", "", ""]], then=[], needle="b\nc")
@example(first=[["a\n", "", "", "", "", ""]], then=[["\n\n", "", "", "", "", ""]], needle="\n\n")
@example(first=[["a_b", "a%b", "", "", "", ""]], then=[], needle="a.b")
@example(first=[["x\x00y", "", "", "", "", ""]], then=[], needle="\x00")
@example(first=[["aba bab", "", "", "", "", ""]], then=[], needle="abab")  # each trigram, not all
@example(first=[["ab", "", "", "", "", ""]], then=[["cab", "", "", "", "", ""]], needle="ab")
def test_runs_holding_equals_a_substring_scan(
    first: list[list[str]], then: list[list[str]], needle: str
) -> None:
    index, keys = Texts(), Keys()

    def add(rowid: int, six: list[str]) -> None:
        index.add(six, keys.record((rowid, f"r{rowid}", 1, rowid, "apps", "sql", "ready", None)))

    def found() -> set[int]:
        return {row[ROW_ID] for row in keys.select(index.runs_holding(needle), 1, None, ())}

    for rowid, six in enumerate(first, start=1):
        add(rowid, six)
    assert found() == expected(first, needle)
    for rowid, six in enumerate(then, start=len(first) + 1):  # added after a search
        add(rowid, six)
    assert found() == expected(first + then, needle)


def test_keys_select_filters_dedups_and_orders_newest_first_then_by_uuid() -> None:
    keys = Keys()
    rows = [
        (1, "b", 1, 10, "apps", "sql", "ready", None),
        (2, "a", 1, 10, "apps", "sql", "error", 5.0),
        (3, "c", 1, 20, "scheduled", "semantic", "ready", 7),
        (4, "d", 2, 30, "apps", "sql", "ready", 1.5),
        (5, "e", 1, 5, "apps", "sql", "ready", 1.0),
    ]
    records = [keys.record(row) for row in rows]
    everything = keys.select([b"".join(records), records[0] + records[2]], 1, None, ())
    # 2 was created at the same time as 1, and its uuid "a" comes before "b"
    assert [row[ROW_ID] for row in everything] == [3, 2, 1, 5]
    assert [row[CREATED] for row in everything] == [20, 10, 10, 5]
    assert [row[RUNTIME] for row in everything] == [7.0, 5.0, 0.0, 1.0]
    assert [row[RUNTIME_KEY] for row in everything] == [7.0, 5.0, -1.0, 1.0]
    codes = [keys.code(name) for name in ("scheduled", "apps", "apps", "apps")]
    assert [row[TRIGGER] for row in everything] == codes
    chosen = keys.select([b"".join(records[:4])], 1, "sql", ("ready", "queued"))
    assert [row[ROW_ID] for row in chosen] == [1]
    assert keys.select([b"".join(records)], 1, "sql", ("queued",)) == []


SIX = ("compiledSql", "explore", "fields", "chart", "sqlChart", "dashboard")


@st.composite
def data_sets(draw: st.DrawFn) -> dict[str, Any]:
    """The seed with every searched text generated: its runs' SQL, explore names and field
    definitions, and the names of the charts, SQL charts and dashboards they refer to."""
    data = seed_copy()
    for part in ("savedCharts", "savedSqlCharts", "dashboards"):
        for record in data[part]:
            record["name"] = draw(texts.filter(bool))
    for run in data["queryRuns"]:
        run["compiledSql"] = draw(texts)
        if draw(st.booleans()) and isinstance(run.get("metricQuery"), dict):
            run["metricQuery"]["exploreName"] = draw(texts.filter(bool))
        if draw(st.booleans()):
            run["fields"] = {"f": {"label": draw(texts), "sql": draw(texts)}}
    return data


def derived_texts(data: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """The six searched texts of each of Alice's runs in Jaffle Shop in scope, by uuid."""
    names = Names(
        charts={c["uuid"]: c["name"] for c in data["savedCharts"]},
        sql_charts={c["uuid"]: c["name"] for c in data["savedSqlCharts"]},
        dashboards={d["uuid"]: d["name"] for d in data["dashboards"]},
        labels={
            e["name"]: {f["id"]: f["label"] for f in e["fields"] if f.get("label")}
            for e in data["explores"]
        },
    )
    oldest = NOW_US - SCOPE_MINUTES * MINUTE_US
    return {
        run["queryUuid"]: derive(run, names).search_fields
        for run in data["queryRuns"]
        if run["userUuid"] == ALICE
        and run["projectUuid"] == JAFFLE
        and oldest < parse_time(run["createdAt"], NOW_US) <= NOW_US
    }


STORE = Store()


@settings(max_examples=60, deadline=None)
@given(data=data_sets(), needle=needles, sort=st.sampled_from(["createdAt", "runtime"]))
def test_history_search_equals_a_scan_of_the_derived_texts(
    data: dict[str, Any], needle: str, sort: str
) -> None:
    STORE.load(data, NOW_US)
    query = HistoryQuery(search=needle, page_size=100, sort_by=sort)
    results = json.loads(list_history(STORE, query, JAFFLE, ALICE, NOW_US))["results"]
    six = derived_texts(data)
    matching = {uuid for uuid, texts in six.items() if any(needle.lower() in t for t in texts)}
    assert {row["queryUuid"] for row in results["data"]} == matching
    assert results["counts"]["total"] == len(matching)
    plain = json.loads(list_history(STORE, query._replace(search=""), JAFFLE, ALICE, NOW_US))[
        "results"
    ]
    assert [row for row in plain["data"] if row["queryUuid"] in matching] == results["data"]


def test_a_written_run_is_found_by_its_new_lines() -> None:
    store = Store()
    store.load(seed_copy(), NOW_US)
    query = HistoryQuery(search="brand_new_table")
    assert json.loads(list_history(store, query, JAFFLE, ALICE, NOW_US))["results"]["data"] == []
    run = seed_copy()["queryRuns"][0]
    run.update(queryUuid="written", createdAt="now", compiledSql="select 1\nFROM Brand_New_Table")
    with store.writing() as conn:
        insert_run(store, conn, run, NOW_US)
    rows = json.loads(list_history(store, query, JAFFLE, ALICE, NOW_US))["results"]["data"]
    assert [row["queryUuid"] for row in rows] == (["written"] if run["userUuid"] == ALICE else [])
