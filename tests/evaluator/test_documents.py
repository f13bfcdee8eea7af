"""The shipped documents: OpenAPI (valid, exactly the served routes), data schema, seed."""

from __future__ import annotations

import json

import pytest
from evaluator_support import ROOT, SEED, Running
from openapi_spec_validator import validate
from starlette.routing import Route

from release_safety.common.errors import InputError
from release_safety.evaluator.fixture import check_data, data_schema
from release_safety.evaluator.openapi import openapi_document
from release_safety.evaluator.times import format_time, parse_time

DATA = ROOT / "src" / "release_safety" / "data" / "evaluator"


def test_openapi_document_is_valid_3_0_with_contract_version() -> None:
    document = openapi_document()
    validate(document)
    assert document["openapi"] == "3.0.3"
    assert document["info"]["version"] == "2.191.0"


def test_openapi_describes_exactly_the_served_routes(seeded: Running) -> None:
    from release_safety.evaluator.app import create_app

    app = create_app(seeded.store, lambda: 0)
    served = {
        (route.path, method.lower())
        for route in app.app.routes
        if isinstance(route, Route)
        for method in route.methods or ()
        if method != "HEAD"
    }
    documented = {
        (path, method) for path, item in openapi_document()["paths"].items() for method in item
    }
    assert served == documented


def test_history_route_is_declared_before_the_templated_one(seeded: Running) -> None:
    from release_safety.evaluator.app import create_app

    paths = [r.path for r in create_app(seeded.store, lambda: 0).app.routes if isinstance(r, Route)]
    literal = paths.index("/api/v2/projects/{projectUuid}/query/history")
    templated = paths.index("/api/v2/projects/{projectUuid}/query/{queryUuid}")
    assert literal < templated


def test_every_non_200_answer_documents_the_error_payload() -> None:
    for item in openapi_document()["paths"].values():
        for operation in item.values():
            codes = set(operation["responses"])
            assert {"200", "401", "500"} <= codes
            for code in codes - {"200"}:
                assert operation["responses"][code]["$ref"].startswith("#/components/responses/")


def test_copies_are_identical() -> None:
    assert (ROOT / "schemas" / "evaluator-data.schema.json").read_text() == (
        DATA / "data.schema.json"
    ).read_text()
    assert (ROOT / "fixtures" / "evaluator" / "seed.json").read_text() == (
        DATA / "seed.json"
    ).read_text()


def test_seed_is_valid_and_realistic() -> None:
    check_data(SEED, "seed")
    contexts = {run["context"] for run in SEED["queryRuns"]}
    assert len(contexts) == 32
    assert {run["status"] for run in SEED["queryRuns"]} >= {
        "ready",
        "error",
        "pending",
        "executing",
        "expired",
        "cancelled",
    }
    assert data_schema()["$schema"].endswith("2020-12/schema")


def test_data_schema_is_a_valid_json_schema() -> None:
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(
        json.loads((ROOT / "schemas" / "evaluator-data.schema.json").read_text())
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", "2026-11-20T12:00:00.000Z"),
        ("now-90s", "2026-11-20T11:58:30.000Z"),
        ("now-5m", "2026-11-20T11:55:00.000Z"),
        ("now-2h", "2026-11-20T10:00:00.000Z"),
        ("now-3d", "2026-11-17T12:00:00.000Z"),
        ("now+1d", "2026-11-21T12:00:00.000Z"),
        ("2026-11-20T13:00:00+01:00", "2026-11-20T12:00:00.000Z"),
        ("2026-11-20T12:00:00.123Z", "2026-11-20T12:00:00.123Z"),
    ],
)
def test_times_absolute_and_relative(text: str, expected: str) -> None:
    from evaluator_support import NOW_US

    assert format_time(parse_time(text, NOW_US)) == expected


def test_naive_time_is_rejected() -> None:
    with pytest.raises(ValueError, match="offset"):
        parse_time("2026-11-20T12:00:00", 0)


def test_unknown_space_reference_is_input_error() -> None:
    data = json.loads(json.dumps(SEED))
    data["dashboards"][0]["spaceUuid"] = "nope"
    with pytest.raises(InputError, match="/dashboards/0/spaceUuid"):
        check_data(data, "test")
