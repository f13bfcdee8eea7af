"""Benchmark the REST analyser on the real OpenAPI dataset: wall time, CPU time, peak memory.

Each measurement runs in a fresh interpreter (so peak RSS is that of one pair): the documents
are read and decompressed first, then loading both, normalising and comparing are timed.

    python bench/bench_rest.py                 # the largest pair, 5 runs
    python bench/bench_rest.py --all --runs 1  # every consecutive pair of the dataset
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

# The steering repository's shared/ stands beside this repository (CI and developers alike).
DATASET = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "openapi-real"
ORDER = [
    *("085baba", "1ff8b64", "bf2a340", "498c71d", "5162af9", "466c74a", "dc708bb"),
    *("c309ca1", "91e7c95", "aa58881", "ca34204", "23e6f5b", "c094647", "f85dbe2"),
]


def _child(old_name: str, new_name: str) -> None:
    from release_safety.surfaces.rest.analyse import compare_documents, load_api

    old = gzip.decompress((DATASET / f"openai-openapi.{old_name}.yaml.gz").read_bytes())
    new = gzip.decompress((DATASET / f"openai-openapi.{new_name}.yaml.gz").read_bytes())
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    wall, cpu = time.perf_counter(), time.process_time()
    old_api = load_api(old)  # as the surface does: the new version reuses what did not change
    found = compare_documents(old_api, load_api(new, previous=old_api), old_name, new_name)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    breaking = sum(1 for f in found if f.severity == "breaking")
    print(
        json.dumps(
            {
                "bytes": [len(old), len(new)],
                "wall": wall,
                "cpu": cpu,
                "peakMB": peak / 1024,
                "baselineMB": before / 1024,
                "breaking": breaking,
                "advisory": len(found) - breaking,
            }
        )
    )


def _measure(old_name: str, new_name: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", old_name, new_name],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--all", action="store_true", help="every consecutive pair")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    pairs = list(itertools.pairwise(ORDER)) if args.all else [("c094647", "f85dbe2")]
    print(
        "| pair | MB (old / new) | wall s (median / min) | CPU s (median) | peak RSS MB"
        " (baseline) | breaking / advisory |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for old_name, new_name in pairs:
        runs = [_measure(old_name, new_name) for _ in range(args.runs)]
        first = runs[0]
        walls = [r["wall"] for r in runs]
        sizes = " / ".join(f"{b / 1e6:.2f}" for b in first["bytes"])  # type: ignore[attr-defined]
        print(
            f"| {old_name} → {new_name} | {sizes} | {statistics.median(walls):.2f} /"
            f" {min(walls):.2f} | {statistics.median(r['cpu'] for r in runs):.2f} |"
            f" {max(r['peakMB'] for r in runs):.0f} ({first['baselineMB']:.0f}) |"
            f" {first['breaking']} / {first['advisory']} |"
        )


if __name__ == "__main__":
    main()
