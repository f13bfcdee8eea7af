"""Benchmark: start-up and upgrade-check over a generated index of 3,111 releases (issue 18).

Whole processes, taken in turn in every round and compared as medians: `upgrade-check --json`
over the full span beside the jq recipe of docs/upgrade-check.md on the same file (their
answers compared first), `release-safety --help`, `upgrade-check --help`, `lint-migrations` on
one file and a bare interpreter; then the in-process read and evaluation.

Python runs as an installed tool does, its bytecode cached (here under a temporary
`PYTHONPYCACHEPREFIX`, so the source tree is not written): a shell with
`PYTHONDONTWRITEBYTECODE=1` and an editable install compiles the package on every run, which
the row "compiled every run" shows beside it.

    .venv/bin/python bench/bench_upgrade_check.py [--releases 3111] [--runs 21]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bytecode
from release_safety.contract.index import index_data
from release_safety.upgrade.span import Releases, evaluate_span


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


def jq_recipe() -> str:
    """The jq program of docs/upgrade-check.md, exactly as the docs print it."""
    text = (Path(__file__).parents[1] / "docs" / "upgrade-check.md").read_text()
    return text.split("`upgrade-check.jq`:\n\n```jq\n", 1)[1].split("```", 1)[0]


Command = tuple[list[str], dict[str, str]]


def alternate(commands: dict[str, Command], runs: int) -> dict[str, float]:
    """Median wall seconds of each whole command (with its environment), the commands taken in
    turn in every round (so a change of load on the shared machine reaches them all alike)."""
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (command, env) in commands.items():
            started = time.perf_counter()
            subprocess.run(command, capture_output=True, check=False, env=env)
            samples[name].append(time.perf_counter() - started)
    return {name: statistics.median(times) for name, times in samples.items()}


def environments(pycache: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Bytecode cached under `pycache` (an installed tool's case), and compiled every run
    (an editable install under `PYTHONDONTWRITEBYTECODE=1`)."""
    return bytecode.cached(pycache), bytecode.compiling()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--releases", type=int, default=3111)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()

    doc = generate(args.releases)
    first, last = doc["entries"][0]["version"], doc["entries"][-1]["version"]
    cli = shutil.which("release-safety") or str(Path(sys.executable).parent / "release-safety")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "release-safety-index.json"
        path.write_text(json.dumps(doc, indent=2))
        program = Path(folder) / "upgrade-check.jq"
        program.write_text(jq_recipe())
        migration = Path(folder) / "0001_add_column.sql"
        migration.write_text("ALTER TABLE users ADD COLUMN nickname text;\n")
        span = ["--from", first, "--to", last]
        ours = [cli, "upgrade-check", *span, "--index", str(path), "--json"]
        jq = ["jq", "--arg", "from", first, "--arg", "to", last, "-f", str(program), str(path)]
        cached, compiling = environments(Path(folder) / "pycache")
        done = subprocess.run(ours, capture_output=True, text=True, check=False, env=cached)
        same = json.loads(done.stdout) == json.loads(
            subprocess.run(jq, capture_output=True, text=True, check=True).stdout
        )
        assert done.returncode == 1 and same, "upgrade-check and the jq recipe disagree"
        for warm in ([cli, "--help"], [cli, "lint-migrations", str(migration)]):
            subprocess.run(warm, capture_output=True, check=False, env=cached)
        before = os.getloadavg()
        medians = alternate(
            {
                "jq recipe": (jq, cached),
                "upgrade-check --json": (ours, cached),
                "  compiled every run": (ours, compiling),
                "release-safety --help": ([cli, "--help"], cached),
                "upgrade-check --help": ([cli, "upgrade-check", "--help"], cached),
                "lint-migrations (one file)": ([cli, "lint-migrations", str(migration)], cached),
                "python -c pass": ([sys.executable, "-c", "pass"], cached),
            },
            args.runs,
        )
        after = os.getloadavg()
        text = path.read_text()

    index = index_data(text, "bench")
    releases = Releases.of(index)
    loops = 20

    def in_process(action: Any) -> float:
        batch = lambda: [action() for _ in range(loops)]  # noqa: E731
        return median_seconds(batch, args.runs) / loops

    print(f"releases: {args.releases}, span {first} → {last}, {args.runs} rounds (medians)")
    print(f"load average (1, 5, 15 min): before {before}, after {after}, {os.cpu_count()} cores")
    for name, seconds in medians.items():
        print(f"  {name + ':':30}{seconds * 1000:8.1f} ms")
    ratio = medians["upgrade-check --json"] / medians["jq recipe"]
    compiled = medians["  compiled every run"] / medians["jq recipe"]
    print(f"  upgrade-check / jq recipe:    {ratio:8.2f}x ({compiled:.2f}x compiled every run)")
    read = in_process(lambda: index_data(text, "bench")) * 1000
    order = in_process(lambda: Releases.of(index)) * 1000
    evaluate = in_process(lambda: evaluate_span(releases, first, last)) * 1000
    print(
        f"in process: read + validate the index {read:.2f} ms, order its releases "
        f"{order:.2f} ms, the span {evaluate:.2f} ms"
    )


if __name__ == "__main__":
    main()
