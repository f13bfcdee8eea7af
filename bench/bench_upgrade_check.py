"""Benchmark: upgrade-check over a generated index of 3,000 releases.

Measures the whole process (`release-safety upgrade-check --json` over the full span, as an
operator runs it) and the in-process evaluation (index already parsed). Prints medians.

    /work/.venv/bin/python bench/bench_upgrade_check.py [--releases 3000] [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from release_safety.index import parse_index
from release_safety.span import Releases, evaluate_span


def generate(releases: int, seed: int = 1893) -> dict[str, Any]:
    """A year-like index: the 0.NNNN.P line then 1.N.P, a floor, stops and minimums sprinkled."""
    rng = random.Random(seed)
    versions: list[str] = []
    minor, patch = 1893, 0
    while len(versions) < releases:
        versions.append(
            f"0.{minor}.{patch}" if len(versions) < releases // 2 else f"1.{minor}.{patch}"
        )
        if rng.random() < 0.7:
            minor, patch = minor + 1, 0
        else:
            patch += 1
    entries = []
    previous: str | None = "0.1892.0"
    for number, version in enumerate(versions):
        backfilled = number < releases // 2
        verdict: bool | str = (
            "unknown" if backfilled else rng.choice([True, True, True, False, "unknown"])
        )
        stops = [version] if number == 0 or rng.random() < 0.005 else []
        entries.append(
            {
                "version": version,
                "previousVersion": previous,
                "releaseDate": "2026-01-01T00:00:00Z",
                "rollingUpdateSafe": verdict,
                "requiredStops": stops,
                "minPreviousVersion": versions[max(number - 50, 0)]
                if rng.random() < 0.01
                else None,
                "backfilled": backfilled,
                "syntheticRequiredStop": number == 0,
            }
        )
        previous = version
    return {
        "schemaVersion": "1",
        "generatedAt": "2026-11-21T00:00:00Z",
        "backfillFloorVersion": versions[0],
        "entries": entries,
    }


def median_seconds(action: Any, runs: int, clock: Any = time.perf_counter) -> float:
    timings = []
    for _ in range(runs):
        started = clock()
        action()
        timings.append(clock() - started)
    return statistics.median(timings)


def child_cpu_seconds(command: list[str], runs: int) -> float:
    """Median CPU time (user + system) of the child process: what a loaded machine hides."""
    samples = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command, capture_output=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        samples.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--releases", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    doc = generate(args.releases)
    first, last = doc["entries"][0]["version"], doc["entries"][-1]["version"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "release-safety-index.json"
        path.write_text(json.dumps(doc, indent=2))
        command = [
            shutil.which("release-safety") or str(Path(sys.executable).parent / "release-safety"),
            "upgrade-check",
            "--from",
            first,
            "--to",
            last,
            "--index",
            str(path),
            "--json",
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        result = json.loads(done.stdout)
        assert done.returncode == 1 and len(result["coveredVersions"]) == args.releases - 1
        whole = median_seconds(
            lambda: subprocess.run(command, capture_output=True, check=False), args.runs
        )
        cpu = child_cpu_seconds(command, args.runs)
        floor_cpu = child_cpu_seconds(
            [sys.executable, "-c", "import click; from pydantic import BaseModel"], args.runs
        )
        startup = median_seconds(
            lambda: subprocess.run([command[0], "--version"], capture_output=True, check=False),
            args.runs,
        )
        text = path.read_text()

    index = parse_index(text, "bench")
    releases = Releases.of(index)
    loops = 20

    def in_process(action: Any) -> tuple[float, float]:
        """Median wall and CPU seconds of one call (averaged over `loops` calls per run)."""
        batch = lambda: [action() for _ in range(loops)]  # noqa: E731
        wall = median_seconds(batch, args.runs) / loops
        return wall, median_seconds(batch, args.runs, time.process_time) / loops

    parse = in_process(lambda: parse_index(text, "bench"))
    evaluate = in_process(lambda: evaluate_span(index, first, last))
    prepared = in_process(lambda: evaluate_span(releases, first, last))
    print(f"releases: {args.releases}, span {first} → {last}, runs: {args.runs} (medians)")
    print(
        f"load average (1 min) after the runs: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(f"whole process upgrade-check --json:  {whole * 1000:8.1f} ms")
    print(f"  its CPU time (user + system):       {cpu * 1000:8.1f} ms")
    print(f"  CLI start-up alone (--version):     {startup * 1000:8.1f} ms")
    print(f"  CPU of importing click and BaseModel: {floor_cpu * 1000:7.1f} ms")
    print("in process (wall / CPU per call):")
    for label, (wall, cpu) in (
        ("parse + validate the index", parse),
        ("evaluate_span on the parsed Index", evaluate),
        ("evaluate_span, releases pre-sorted", prepared),
    ):
        print(f"  {label + ':':36}{wall * 1000:7.2f} / {cpu * 1000:6.2f} ms")


if __name__ == "__main__":
    main()
