"""What a load does a batch at a time, or keeps between runs, answers as a run at a time would:
a bad run inside a batch that is tested against the schema at once is named exactly as alone;
the first problem of the data is still the one reported; kept derivations, times printed from
tables and counts sorted once equal their plain forms."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from pathlib import Path
from typing import Any

import pytest
from evaluator_support import ALICE, JAFFLE, NOW_US, SEED, dataset, make_run

from release_safety.common import errors
from release_safety.evaluator import derive as derive_module
from release_safety.evaluator.counts import CountBuilder
from release_safety.evaluator.derive import Deriver, Names, derive
from release_safety.evaluator.fixture import _fast_run_validator, read_data, runs_fit
from release_safety.evaluator.store import Store
from release_safety.evaluator.times import _MAX_US, _MIN_US, format_time

RUNS = 1_500  # several read batches of a file (and of CHECKED runs in memory)
BAD = 700  # inside a batch, neither its first run nor its last


def runs(count: int = RUNS) -> list[dict[str, Any]]:
    return [make_run(f"r{index}", f"now-{index}m", runtime=index) for index in range(count)]


def load_error(tmp_path: Path, data: dict[str, Any], text: str | None = None) -> str:
    """The one-line message of loading a data file (its text given, or `data` written)."""
    path = tmp_path / "data.json"
    path.write_text(text or json.dumps(data, indent=1), encoding="utf-8")
    with pytest.raises(errors.InputError) as caught:
        Store().load(read_data(path), NOW_US)
    message = str(caught.value)
    assert "\n" not in message
    return message.replace(str(path), "data")


def memory_error(data: dict[str, Any]) -> str:
    with pytest.raises(errors.InputError) as caught:
        Store().load(data, NOW_US)
    return str(caught.value)


def spoil(run: dict[str, Any], problem: str) -> None:
    if problem == "schema":
        run["status"] = "bogus"
    elif problem == "shape":
        run["metricQuery"] = {**run["metricQuery"], "limit": -1}
    elif problem == "project":
        run["projectUuid"] = "no-such-project"
    else:
        run["warehouseExecutionTimeMs"] = 2**63


@pytest.mark.parametrize("problem", ["schema", "shape", "project", "runtime"])
def test_a_bad_run_inside_a_batch_is_named_as_when_alone(tmp_path: Path, problem: str) -> None:
    many = runs()
    spoil(many[BAD], problem)
    alone = [dict(many[BAD])]
    in_batch = load_error(tmp_path, dataset(many))
    assert in_batch.startswith(f"data: /queryRuns/{BAD}")
    assert in_batch == memory_error(dataset(many))
    assert in_batch == memory_error(dataset(alone)).replace("/queryRuns/0", f"/queryRuns/{BAD}")


@pytest.mark.parametrize(
    ("first", "second"),
    [("runtime", "schema"), ("project", "schema"), ("schema", "runtime"), ("shape", "project")],
)
def test_the_first_bad_run_of_a_batch_is_the_one_reported(
    tmp_path: Path, first: str, second: str
) -> None:
    many = runs()
    spoil(many[BAD], first)
    spoil(many[BAD + 1], second)
    alone = runs()
    spoil(alone[BAD], first)
    assert load_error(tmp_path, dataset(many)) == load_error(tmp_path, dataset(alone))
    assert f"/queryRuns/{BAD}" in memory_error(dataset(many))


def test_a_duplicate_before_a_bad_run_is_reported_first(tmp_path: Path) -> None:
    many = runs()
    many[BAD]["queryUuid"] = many[BAD - 1]["queryUuid"]
    spoil(many[BAD + 1], "schema")
    assert load_error(tmp_path, dataset(many)) == (
        f"data: /queryRuns/{BAD}/queryUuid: duplicate queryUuid 'r{BAD - 1}'"
    )


def test_a_bad_run_is_reported_before_a_later_text_that_is_not_json(tmp_path: Path) -> None:
    many = runs()
    spoil(many[BAD], "schema")
    text = json.dumps(dataset(many), indent=1)
    cut = text.rindex('"queryUuid": "r1400"')
    broken = text[:cut] + "nonsense" + text[cut:]
    assert json.dumps(many[BAD]) not in broken[cut:]
    assert load_error(tmp_path, {}, broken) == memory_error(dataset(many))


def test_runs_fit_is_each_runs_own_test() -> None:
    many = runs(300)
    assert runs_fit(many) == [True] * 300
    for index in (0, 17, 299):
        spoil(many[index], "schema" if index % 2 else "shape")
    assert runs_fit(many) == [_fast_run_validator().is_valid(run) for run in many]
    assert runs_fit(many).count(False) == 3


def generated_runs(count: int, seed: int) -> list[dict[str, Any]]:
    """Runs that repeat and vary what derivations depend on."""
    rng = random.Random(seed)
    charts = [c["uuid"] for c in SEED["savedCharts"]] + ["unknown-chart"]
    sql_charts = [c["uuid"] for c in SEED["savedSqlCharts"]] + ["unknown-sql"]
    boards = [d["uuid"] for d in SEED["dashboards"]] + ["unknown-board"]
    ids = ["orders_status", "orders_total_revenue", "customers_count", "x_y", "campaigns_spend"]
    field_sets: list[Any] = [
        None,
        {},
        {"orders_status": {"label": "State"}},
        {"orders_status": {"label": ""}, "x_y": {"label": "Run label"}},
        {"x_y": {"fieldType": "metric"}, "orders_total_revenue": {"label": "Revenue"}},
        {"big": 2**70},
    ]
    made = []
    for index in range(count):
        params: dict[str, Any] = {}
        for key, pool in (
            ("chartUuid", charts),
            ("savedSqlUuid", sql_charts),
            ("dashboardUuid", boards),
        ):
            if rng.random() < 0.3:
                params[key] = rng.choice(pool)
        if rng.random() < 0.2:
            params["sql"] = rng.choice(["select * from shop.orders", ""])
        explore = rng.choice(["orders", "customers", "campaigns", "nowhere", ""])
        query = {
            "exploreName": explore,
            "metrics": rng.sample(ids, rng.randint(0, 2)),
            "dimensions": rng.sample(ids, rng.randint(0, 2)),
        }
        made.append(
            {
                "queryUuid": f"g{index}",
                "context": rng.choice(["exploreView", "dashboardView", "alert", "legacy"]),
                "status": rng.choice(["ready", "error", "expired"]),
                "error": rng.choice([None, "", "relation does not exist"]),
                "requestParameters": params,
                "metricQuery": rng.choice([query, query, None]),
                "fields": rng.choice(field_sets),
                "compiledSql": rng.choice(
                    ["", "\n  with recent as (select 1)\nselect *", "SELECT a\nFROM s.t"]
                ),
            }
        )
    return made


@pytest.mark.parametrize("kept", [2, derive_module.KEPT])
def test_kept_derivations_equal_plain_ones(monkeypatch: pytest.MonkeyPatch, kept: int) -> None:
    monkeypatch.setattr(derive_module, "KEPT", kept)
    names = Names(
        charts={c["uuid"]: c["name"] for c in SEED["savedCharts"]},
        sql_charts={c["uuid"]: c["name"] for c in SEED["savedSqlCharts"]},
        dashboards={d["uuid"]: d["name"] for d in SEED["dashboards"]},
        labels={
            e["name"]: {f["id"]: f["label"] for f in e["fields"] if f.get("label")}
            for e in SEED["explores"]
        },
    )
    made = generated_runs(3_000, seed=kept)
    deriver = Deriver(names)
    assert [deriver(run) for run in made] == [derive(run, names) for run in made]


def test_times_print_as_datetime_does() -> None:
    rng = random.Random(5)
    edges = [_MIN_US, _MAX_US, 0, -1, 1, 999, 1_000, 86_399_999_999, 86_400_000_000]
    moments = edges + [rng.randint(_MIN_US, _MAX_US) for _ in range(20_000)]
    moments += [rng.randint(0, 2**52) // 1_000 * 1_000 for _ in range(5_000)]
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    for us in moments:
        moment = epoch + timedelta(microseconds=us)
        spec = "milliseconds" if us % 1_000 == 0 else "microseconds"
        assert format_time(us) == moment.isoformat(timespec=spec).replace("+00:00", "Z"), us


def test_counts_sorted_once_equal_each_key_sorted_in_load_order() -> None:
    """Runs created at the same time keep their load order in every series, so the running
    sums of float runtimes add in the same order."""
    rng = random.Random(9)
    builder = CountBuilder()
    gathered: dict[Any, list[tuple[int, Any]]] = {}
    for _ in range(4_000):
        run = (
            rng.choice([1, 2]),
            rng.choice(["interactive", "apps"]),
            rng.choice(["sql", "semantic"]),
            rng.choice(["ready", "error"]),
            rng.choice([10, 20, 30, 40]) * 1_000_000,  # many runs created at once
            rng.choice([None, 0, 0.1, 0.2, 0.3, 1e16, 3, 2**60]),
        )
        builder.add(*run)
        scope, trigger, language, status, created, runtime = run
        for key in (
            (scope, trigger, None, None),
            (scope, trigger, language, None),
            (scope, trigger, None, status),
            (scope, trigger, language, status),
        ):
            gathered.setdefault(key, []).append((created, runtime))
    built = builder.series()
    assert set(built) == set(gathered)
    for key, pairs in gathered.items():
        ordered = sorted(pairs, key=lambda pair: pair[0])  # stable: load order among ties
        assert built[key].created == [created for created, _ in ordered]
        sums = list(accumulate((runtime or 0.0 for _, runtime in ordered), initial=0.0))
        assert list(built[key].runtime_before) == sums


def test_a_large_file_loads_as_the_same_runs_held_in_memory(tmp_path: Path) -> None:
    many = runs()
    many[3]["fields"] = {"orders_status": {"label": "State"}}
    many[900]["warehouseExecutionTimeMs"] = 0.5
    path = tmp_path / "data.json"
    path.write_text(json.dumps(dataset(many)), encoding="utf-8")
    streamed, held = Store(), Store()
    streamed.load(read_data(path), NOW_US)
    held.load(dataset(many), NOW_US)
    assert [bytes(streamed.items[i]) for i in range(1, RUNS + 1)] == [
        bytes(held.items[i]) for i in range(1, RUNS + 1)
    ]
    assert streamed.scope(JAFFLE, ALICE) == held.scope(JAFFLE, ALICE) == 1
    assert streamed.counts.series.keys() == held.counts.series.keys()


def test_two_users_sharing_a_token_are_refused(tmp_path: Path) -> None:
    """A token authenticates one user (issue 35 class 10): loaded, it would sign in as
    whichever user was stored last."""
    data = json.loads(json.dumps(SEED))
    users = data["users"]
    shared = next(token for token in users[0]["tokens"])
    users[1].setdefault("tokens", []).append(dict(shared))
    message = load_error(tmp_path, data)
    assert f"users {users[0]['uuid']} and {users[1]['uuid']} share a token" in message
