"""The evaluator's data file: read, validate against its JSON Schema, check references."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs

from release_safety.errors import InputError
from release_safety.evaluator.openapi import body_validator, fast_validator
from release_safety.jsonio import read_json

DATA = "release_safety.data.evaluator"


def _resource(name: str) -> Any:
    return json.loads(resources.files(DATA).joinpath(name).read_text(encoding="utf-8"))


def data_schema() -> dict[str, Any]:
    """The JSON Schema of the data file (also at `schemas/evaluator-data.schema.json`)."""
    schema: dict[str, Any] = _resource("data.schema.json")
    return schema


def bundled_seed() -> dict[str, Any]:
    """The bundled realistic seed set (also at `fixtures/evaluator/seed.json`)."""
    seed: dict[str, Any] = _resource("seed.json")
    return seed


def load_data(path: Path | None) -> dict[str, Any]:
    """Read and check a data file; without a path, the bundled seed set."""
    data = bundled_seed() if path is None else read_json(path)
    check_data(data, str(path) if path else "bundled seed")
    return dict(data)


def _duplicates(items: list[Any], key: str) -> set[str]:
    seen: set[str] = set()
    dups: set[str] = set()
    for item in items:
        value = item[key]
        (dups if value in seen else seen).add(value)
    return dups


@cache
def _fast_data_validator() -> jsonschema_rs.Validator:
    return jsonschema_rs.Draft202012Validator(data_schema())


def check_data(data: Any, where: str) -> None:
    """Raise InputError naming the first schema or reference problem of a data set.

    A compiled validator answers whether the data is valid; only invalid data goes through
    the slower validator that explains the best-matching error."""
    if not _fast_data_validator().is_valid(data):
        validator = jsonschema.Draft202012Validator(data_schema())
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
        if error is not None:
            pointer = "/" + "/".join(str(part) for part in error.absolute_path)
            raise InputError(f"{where}: {pointer}: {error.message}")
    projects = {p["uuid"] for p in data["projects"]}
    users = {u["uuid"] for u in data["users"]}
    for kind in ("projects", "users", "savedCharts", "savedSqlCharts", "dashboards", "spaces"):
        dups = _duplicates(data.get(kind, []), "uuid")
        if dups:
            raise InputError(f"{where}: /{kind}: duplicate uuid {sorted(dups)[0]}")
    if _duplicates(data["queryRuns"], "queryUuid"):
        raise InputError(f"{where}: /queryRuns: duplicate queryUuid")
    emails = [u["email"].lower() for u in data["users"]]
    if len(set(emails)) != len(emails):
        raise InputError(f"{where}: /users: duplicate email")
    refs = [
        (kind, index, "projectUuid", item.get("projectUuid"), projects)
        for kind in (
            "projectRoles",
            "explores",
            "spaces",
            "savedCharts",
            "savedSqlCharts",
            "dashboards",
            "catalogMetrics",
            "queryRuns",
        )
        for index, item in enumerate(data.get(kind, []))
    ]
    refs += [
        (kind, index, "userUuid", item["userUuid"], users)
        for kind in ("projectRoles", "queryRuns")
        for index, item in enumerate(data.get(kind, []))
    ]
    refs += [
        ("dashboards", index, "createdBy", item["createdBy"], users)
        for index, item in enumerate(data.get("dashboards", []))
    ]
    spaces = {s["uuid"] for s in data.get("spaces", [])}
    refs += [
        (kind, index, "spaceUuid", item["spaceUuid"], spaces)
        for kind in ("savedCharts", "dashboards")
        for index, item in enumerate(data.get(kind, []))
    ]
    for kind, index, key, value, known in refs:
        if value not in known:
            raise InputError(f"{where}: /{kind}/{index}/{key}: unknown {value!r}")
    _check_shapes(data, where)


def _check_shapes(data: Any, where: str) -> None:
    """Echoed request parameters and metric queries must fit the served OpenAPI schemas."""
    checks = [
        ("ExecuteAsyncQueryRequestParams", f"/queryRuns/{i}/requestParameters", run)
        for i, run in enumerate(data["queryRuns"])
    ]
    checks += [
        ("MetricQuery", f"/queryRuns/{i}/metricQuery", run)
        for i, run in enumerate(data["queryRuns"])
        if run.get("metricQuery") is not None
    ]
    checks += [
        ("MetricQuery", f"/savedCharts/{i}/metricQuery", chart)
        for i, chart in enumerate(data.get("savedCharts", []))
    ]
    for schema, pointer, owner in checks:
        value = owner[pointer.rsplit("/", 1)[1]]
        if fast_validator(schema).is_valid(value):
            continue
        error = jsonschema.exceptions.best_match(body_validator(schema).iter_errors(value))
        if error is not None:
            raise InputError(f"{where}: {pointer}: does not fit {schema}: {error.message}")
