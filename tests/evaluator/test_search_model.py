"""Property: a search (trigram candidates, then confirmed) finds exactly the runs a plain
case-insensitive substring test over their six searched texts finds."""

from __future__ import annotations

import json

from evaluator_support import ALICE, JAFFLE, NOW_US, dataset, make_run
from hypothesis import example, given, settings
from hypothesis import strategies as st

from release_safety.evaluator.history import HistoryQuery, list_history
from release_safety.evaluator.store import Store
from release_safety.evaluator.times import format_time

ALPHABET = st.sampled_from([*"abcAB_%\\ \"'\x00\nİßσΣ€0", "ab", "abc", "ǅ"])
texts = st.lists(ALPHABET, max_size=12).map("".join)
sql_texts = st.lists(ALPHABET, min_size=1, max_size=12).map("".join)  # "" would be "SELECT 1"
STORE = Store()


@settings(max_examples=200, deadline=None)
@given(sqls=st.lists(sql_texts, min_size=1, max_size=8), needle=texts)
@example(sqls=["select a_b from t", "select ab from t"], needle="A_B")
@example(sqls=["x\x00abc", "abc"], needle="abc")
@example(sqls=["ab\x00c", "abc"], needle="b\x00c")
@example(sqls=['say "hi"'], needle='"hi"')
def test_search_equals_a_substring_model(sqls: list[str], needle: str) -> None:
    runs = [
        make_run(f"r{i}", format_time(NOW_US - (i + 1) * 1_000), sql=sql)
        for i, sql in enumerate(sqls)
    ]
    STORE.load(dataset(runs), NOW_US)
    results = json.loads(
        list_history(STORE, HistoryQuery(search=needle, page_size=100), JAFFLE, ALICE, NOW_US)
    )["results"]
    found = {row["queryUuid"] for row in results["data"]}
    expected = {f"r{i}" for i, sql in enumerate(sqls) if needle.lower() in sql.lower()}
    if not needle:
        expected = {f"r{i}" for i in range(len(sqls))}
    assert found == expected
    assert results["counts"]["total"] == len(expected)
