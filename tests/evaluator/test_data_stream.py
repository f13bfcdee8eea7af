"""The runs of a data file read in batches (orjson) are exactly those the standard decoder
reads from the whole document: values, types and key order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from release_safety.evaluator.fixture import BATCH_CHARS, _Reader, read_data

# JSON texts orjson reads differently from the standard library, or refuses, among plain runs
TRICKY = (
    '{"queryUuid": "big", "totalRowCount": 1180591620717411303424}',  # past 64 bits
    '{"queryUuid": "neg", "totalRowCount": -9223372036854775809}',
    '{"queryUuid": "huge", "warehouseExecutionTimeMs": 1e400}',  # inf for the standard library
    '{"queryUuid": "lone", "error": "\\udc00 half a pair"}',
    '{"queryUuid": "pair", "error": "\\ud83d\\ude00 \\u00e9 \\/ \\\\"}',
    '{"queryUuid": "dup", "a": 1, "b": 2, "a": 3}',
    '{"queryUuid": "nested", "sorts": [{"fieldId": "a"}, {"fieldId": "b"}], "x": {}}',
    '{"queryUuid": "floats", "a": 1.0, "b": -0.0, "c": 1E2, "d": 0.1e-400, "e": -0}',
)


def document(count: int, tricky: str) -> str:
    runs = []
    for index in range(count):
        run = json.dumps({"queryUuid": f"r{index}", "compiledSql": "select }, { from t" * 8})
        runs.append(tricky if index % 997 == 0 else run)
    separators = [", ", ",\n  ", ",", " ,\t"]
    body = runs[0] + "".join(separators[i % 4] + run for i, run in enumerate(runs[1:]))
    return '{"organization": {"uuid": "o", "name": "O"}, "queryRuns": [' + body + "]}"


@pytest.mark.parametrize("tricky", TRICKY)
def test_batched_runs_equal_the_whole_document(tmp_path: Path, tricky: str) -> None:
    text = document(6_000, tricky)
    assert len(text) > 4 * BATCH_CHARS  # several batches, cut anywhere
    path = tmp_path / "data.json"
    path.write_text(text, encoding="utf-8")
    streamed = list(read_data(path).runs())
    whole = json.loads(text)["queryRuns"]
    assert len(streamed) == len(whole)
    assert [repr(run) for run in streamed] == [repr(run) for run in whole]


def test_plain_runs_are_read_in_batches(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    path.write_text(
        "[" + ", ".join(json.dumps({"queryUuid": f"r{i}"}) for i in range(1_000)) + "]",
        encoding="utf-8",
    )
    reader = _Reader(path)
    try:
        reader.expect("[")
        batch = reader.values()
    finally:
        reader.close()
    assert [run["queryUuid"] for run in batch] == [f"r{i}" for i in range(len(batch))]
    assert len(batch) == 999  # all but the last, which no comma follows
