"""Property: whatever the runs and the filters, no user ever sees or counts another's run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator_support import (
    ALICE,
    ALICE_TOKEN,
    BOB,
    BOB_TOKEN,
    JAFFLE,
    MARKETING,
    NOW_US,
    Running,
    dataset,
    make_run,
    uuid_of,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from release_safety.evaluator.derive import CONTEXTS
from release_safety.evaluator.times import MINUTE_US, format_time

DAVE = uuid_of("user", "dave")
DAVE_TOKEN = "ldpat_" + "d4" * 16
TOKENS = {ALICE: ALICE_TOKEN, BOB: BOB_TOKEN, DAVE: DAVE_TOKEN}

runs_strategy = st.lists(
    st.builds(
        dict,
        owner=st.sampled_from([ALICE, BOB, DAVE]),
        project=st.sampled_from([JAFFLE, MARKETING]),
        minutes=st.integers(min_value=0, max_value=50_000),
        context=st.sampled_from(CONTEXTS),
        status=st.sampled_from(["ready", "error", "pending", "expired"]),
        sql=st.booleans(),
        runtime=st.one_of(st.none(), st.integers(0, 10_000)),
    ),
    max_size=40,
)
filters_strategy = st.fixed_dictionaries(
    {},
    optional={
        "trigger": st.sampled_from(["interactive", "apps", "scheduled"]),
        "window": st.sampled_from(["lastFewMinutes", "lastHour", "last24Hours", "last7Days"]),
        "language": st.sampled_from(["semantic", "sql"]),
        "search": st.sampled_from(["orders", "%", "_", "select", ""]),
        "sortBy": st.sampled_from(["createdAt", "runtime"]),
        "pageSize": st.integers(1, 120),
        "page": st.integers(1, 4),
    },
)


def build(specs: list[dict[str, Any]]) -> dict[str, Any]:
    runs = [
        make_run(
            f"r{index}",
            format_time(NOW_US - spec["minutes"] * MINUTE_US),
            user=spec["owner"],
            project=spec["project"],
            context=spec["context"],
            status=spec["status"],
            runtime=spec["runtime"],
            sql="select * from orders" if spec["sql"] else None,
        )
        for index, spec in enumerate(specs)
    ]
    return dataset(runs)


def test_no_user_ever_sees_another_users_run(start_server: Callable[..., Running]) -> None:
    running = start_server(build([]))

    @settings(
        max_examples=40,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(specs=runs_strategy, filters=filters_strategy, viewer=st.sampled_from(list(TOKENS)))
    def check(specs: list[dict[str, Any]], filters: dict[str, Any], viewer: str) -> None:
        data = build(specs)
        running.store.load(data, NOW_US)
        owner_of = {run["queryUuid"]: run["userUuid"] for run in data["queryRuns"]}
        results = running.client.history(TOKENS[viewer], **filters)
        assert all(owner_of[row["queryUuid"]] == viewer for row in results["data"])
        assert all(row["projectUuid"] == JAFFLE for row in results["data"])
        mine = sum(
            1
            for spec in specs
            if spec["owner"] == viewer and spec["project"] == JAFFLE and spec["minutes"] < 43_200
        )
        counts = results["counts"]
        assert sum(counts["windows"].values()) <= mine
        assert counts["total"] <= mine
        if not filters:
            assert counts["total"] == mine
            assert results["pagination"]["totalResults"] == mine

    check()
