"""Benchmark: the second library of each pair that does one job, side by side with the first.

YAML: the OpenAPI loader's rapidyaml path (`surfaces/rest/load.read_value`) against PyYAML's C
loader with the same core-schema resolvers on the same text (the values compared first), for
the dataset's specs (`bench_rest.py` finds the dataset). JSON Schema: jsonschema-rs against
jsonschema (Draft 2020-12, formats checked where the tool checks them) on what the tool
validates: a generated index of 3,111 releases (`bench_upgrade_check.generate`), the demo's
artifacts, and an evaluator data file of generated runs (`bench_evaluator.build_data`), each
compiled once then validated (a command does both once), answers compared first. Medians of
`--runs` runs, `perf_counter`.

    .venv/bin/python bench/bench_libraries.py [--runs 5] [--all-specs] [--evaluator-runs 20000]
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evaluator import build_data
from bench_rest import DATASET, ORDER
from bench_upgrade_check import generate
from release_safety.contract.schemas import SHIPPED
from release_safety.demo.run import run_demo
from release_safety.evaluator.fixture import data_schema
from release_safety.surfaces.rest import load


def median(action: Callable[[], Any], runs: int) -> float:
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def row(what: str, first: float, second: float, names: tuple[str, str]) -> None:
    print(
        f"| {what} | {names[0]} {first * 1000:.1f} ms | {names[1]} {second * 1000:.1f} ms "
        f"| **{first / second:.1f}×** |",
        flush=True,
    )


def yaml_rows(runs: int, every: bool) -> None:
    names = ("PyYAML CSafeLoader", "rapidyaml")
    for name in ORDER if every else ["c094647"]:
        text = gzip.decompress((DATASET / f"openai-openapi.{name}.yaml.gz").read_bytes()).decode()

        def pyyaml(text: str = text) -> Any:
            return load._string_keys(yaml.load(text, Loader=load._CoreLoader))

        assert load._fast_text(text) is not None, f"{name} would not take the rapidyaml path"
        assert load.read_value(text) == pyyaml(), f"{name}: the two loaders disagree"
        fast = median(lambda text=text: load.read_value(text), runs)
        row(f"load {name} ({len(text) / 1e6:.1f} MB)", median(pyyaml, runs), fast, names)


def schema_row(what: str, schema: dict[str, Any], documents: list[Any], runs: int) -> None:
    """Compile once and validate every document, with each library; both answers compared."""
    formats = jsonschema.Draft202012Validator.FORMAT_CHECKER

    def python() -> list[bool]:
        compiled = jsonschema.Draft202012Validator(schema, format_checker=formats)
        return [compiled.is_valid(document) for document in documents]

    def rust() -> list[bool]:
        compiled = jsonschema_rs.Draft202012Validator(schema, validate_formats=True)
        return [compiled.is_valid(document) for document in documents]

    assert python() == rust(), f"{what}: the two validators disagree"
    row(what, median(python, runs), median(rust, runs), ("jsonschema", "jsonschema-rs"))


def shipped(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((Path(SHIPPED) / f"{name}.schema.json").read_text())
    return schema


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--all-specs", action="store_true", help="every spec of the dataset")
    parser.add_argument("--evaluator-runs", type=int, default=20_000)
    args = parser.parse_args()
    print("| input | first | second | first / second |")
    print("| --- | --- | --- | --- |")
    yaml_rows(args.runs, args.all_specs)
    schema_row(
        "index, 3,111 releases", shipped("release-safety-index"), [generate(3111)], args.runs
    )
    with tempfile.TemporaryDirectory() as folder:
        artifacts = [json.loads(p.read_text()) for p in run_demo(Path(folder)).artifacts]
    schema_row(f"{len(artifacts)} demo artifacts", shipped("release-safety"), artifacts, args.runs)
    data = build_data(args.evaluator_runs, args.evaluator_runs // 5)
    what = f"evaluator data, {len(data['queryRuns']):,} runs"
    schema_row(what, data_schema(), [data], args.runs)


if __name__ == "__main__":
    main()
