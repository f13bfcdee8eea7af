"""Differential: the in-memory search finds exactly the runs a plain substring test over each
of their six searched texts finds (never a match spanning two texts), over generated texts
with newlines, NULs, LIKE and regex metacharacters and unicode, needles of any length; and the
whole history list over a generated data set (every one of the six texts generated) equals a
plain scan of the derived texts."""

from __future__ import annotations

import json
from typing import Any

from evaluator_support import (
    ALICE,
    BOB,
    JAFFLE,
    MARKETING,
    NOW_US,
    dataset,
    make_run,
    seed_copy,
)
from hypothesis import example, given, settings
from hypothesis import strategies as st

from release_safety.evaluator.derive import Names, derive
from release_safety.evaluator.history import SCOPE_MINUTES, HistoryQuery, list_history
from release_safety.evaluator.search import (
    CREATED,
    ROW_ID,
    RUNTIME,
    RUNTIME_KEY,
    SCOPE,
    TRIGGER,
    Keys,
    Texts,
)
from release_safety.evaluator.store import Store, insert_run
from release_safety.evaluator.times import MINUTE_US, format_time, parse_time

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
        return {row[ROW_ID] for row in keys.select(index.runs_holding(needle, 1), None, ())}

    for rowid, six in enumerate(first, start=1):
        add(rowid, six)
    assert found() == expected(first, needle)
    for rowid, six in enumerate(then, start=len(first) + 1):  # added after a search
        add(rowid, six)
    assert found() == expected(first + then, needle)


def test_keys_select_filters_dedups_and_orders_oldest_first_then_by_uuid_descending() -> None:
    keys = Keys()
    rows = [
        (1, "b", 1, 10, "apps", "sql", "ready", None),
        (2, "a", 1, 10, "apps", "sql", "error", 5.0),
        (3, "c", 1, 20, "scheduled", "semantic", "ready", 7),
        (4, "d", 1, 30, "apps", "sql", "ready", 1.5),
        (5, "e", 1, 5, "apps", "sql", "ready", 1.0),
    ]
    records = [keys.record(row) for row in rows]
    everything = keys.select([b"".join(records), records[0] + records[2]], None, ())
    # 2 was created at the same time as 1, and its uuid "a" comes before "b": newest first
    # it comes first, so oldest first it comes after 1
    assert [row[ROW_ID] for row in everything] == [5, 1, 2, 3, 4]
    assert [row[CREATED] for row in everything] == [5, 10, 10, 20, 30]
    assert [row[RUNTIME] for row in everything] == [1.0, 0.0, 5.0, 7.0, 1.5]
    assert [row[RUNTIME_KEY] for row in everything] == [1.0, -1.0, 5.0, 7.0, 1.5]
    codes = [keys.code(name) for name in ("apps", "apps", "apps", "scheduled", "apps")]
    assert [row[TRIGGER] for row in everything] == codes
    chosen = keys.select([b"".join(records[:4])], "sql", ("ready", "queued"))
    assert [row[ROW_ID] for row in chosen] == [1, 4]
    assert keys.select([b"".join(records)], "sql", ("queued",)) == []


def test_runs_holding_reads_the_records_of_one_scope() -> None:
    """The runs of every scope sharing a text are kept apart: a scope's search returns its
    own records only, across texts, and a scope holding none of the texts gets no block."""
    index, keys = Texts(), Keys()
    owners = [1, 2, 1, 3, 2, 1]
    for rowid, scope in enumerate(owners, start=1):
        text = "select * from orders" if rowid % 2 else "select 1 from orders_x"
        record = keys.record((rowid, f"r{rowid}", scope, rowid, "apps", "sql", "ready", None))
        index.add([text, f"dashboard {scope}", "", "", "", ""], record)
    for scope in (1, 2, 3):
        found = keys.select(index.runs_holding("from orders", scope), None, ())
        assert [row[ROW_ID] for row in found] == [r for r, s in enumerate(owners, 1) if s == scope]
        assert {row[SCOPE] for row in found} == {scope}
        dashboard = keys.select(index.runs_holding(f"dashboard {scope}", scope), None, ())
        assert len(dashboard) == owners.count(scope)
        assert index.runs_holding(f"dashboard {scope}", scope + 1) == []
    assert index.runs_holding("from orders", 4) == []


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


def test_a_search_across_scopes_reads_each_callers_runs_alone() -> None:
    """Runs of three scopes share their texts (so each text's records span the scopes): every
    caller's search finds, counts and orders their own runs only, a run holding two matching
    texts once, runs created together by uuid, across pages."""
    owners = [(ALICE, JAFFLE), (BOB, JAFFLE), (ALICE, MARKETING)]
    runs = []
    for i in range(30):
        user, project = owners[i % 3]
        sql = f"select * from orders -- {i % 4}" + ("\nwhere orders.id > 1" if i % 5 == 0 else "")
        created = format_time(NOW_US - (i // 6) * MINUTE_US)  # each scope: two runs a minute
        if i % 2:
            runs.append(make_run(f"r{i:02d}", created, user=user, project=project, sql=sql))
        else:  # semantic, of the explore "orders": two of its texts hold "orders"
            runs.append(make_run(f"r{i:02d}", created, user=user, project=project, compiledSql=sql))
    store = Store()
    store.load(dataset(runs), NOW_US)
    for user, project in owners:
        own = [run for run in runs if (run["userUuid"], run["projectUuid"]) == (user, project)]
        newest_first = sorted(own, key=lambda run: run["queryUuid"])
        newest_first.sort(key=lambda run: parse_time(run["createdAt"], NOW_US), reverse=True)
        for needle in ("orders", "where orders", "from orders -- 1"):
            matching = [run["queryUuid"] for run in newest_first if needle in run["compiledSql"]]
            seen = []
            for page in (1, 2, 3):
                query = HistoryQuery(search=needle, page=page, page_size=2)
                results = json.loads(list_history(store, query, project, user, NOW_US))["results"]
                assert results["counts"]["total"] == len(matching)
                seen += [row["queryUuid"] for row in results["data"]]
            assert seen == matching[:6]
