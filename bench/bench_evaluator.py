"""Benchmark: the evaluator's history list under concurrent load.

Builds a data set with 100,000 runs for the caller (plus other users' runs), serves it with
`release-safety serve-evaluator` (a real process, in-memory SQLite, fixed clock), then drives
it with N concurrent keep-alive HTTP connections for a fixed time per scenario and prints
requests per second and p50/p99 latency.

    python bench/bench_evaluator.py [--runs 100000] [--connections 32] [--seconds 20] [--db-file]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from release_safety.evaluator.derive import CONTEXTS
from release_safety.evaluator.fixture import bundled_seed

NOW = "2026-11-20T12:00:00Z"
TOKEN = "ldpat_" + "a1" * 16
NS = uuid.UUID("6f1c2b1e-8d0a-4c53-9a63-0e5a4b7c9d21")
PROJECT = str(uuid.uuid5(NS, "project:jaffle"))
ALICE = str(uuid.uuid5(NS, "user:alice"))
BOB = str(uuid.uuid5(NS, "user:bob"))
SCENARIOS: dict[str, list[dict[str, Any]]] = {
    "default page (25 newest)": [{}],
    "mixed filters, search, sort, pages": [
        {"trigger": "scheduled"},
        {"window": "last24Hours"},
        {"status": ["error", "cancelled"], "pageSize": 50},
        {"language": "sql", "page": 3},
        {"sortBy": "runtime"},
        {"search": "revenue"},
        {"window": "last7Days", "trigger": "apps", "sortBy": "runtime", "page": 2},
        {"pageSize": 100, "page": 40},
    ],
}


def build_data(runs: int, others: int, seed: int = 7) -> dict[str, Any]:
    """The seed's organization and content with `runs` runs for alice, `others` for bob."""
    rng = random.Random(seed)
    data = bundled_seed()
    templates = [r for r in data["queryRuns"] if r["userUuid"] == ALICE]
    out = []
    for index in range(runs + others):
        base = rng.choice(templates)
        row = dict(base)
        row["queryUuid"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        row["userUuid"] = ALICE if index < runs else BOB
        row["createdAt"] = f"now-{rng.randint(0, 44_000 * 60)}s"
        row["context"] = rng.choice(CONTEXTS)
        row["status"] = rng.choice(["ready"] * 6 + ["error", "expired", "cancelled", "pending"])
        row["warehouseExecutionTimeMs"] = rng.choice([None, rng.randint(5, 20_000)])
        for key in ("resultsCreatedAt", "resultsUpdatedAt", "processingStartedAt", "erroredAt"):
            if row.get(key):
                row[key] = row["createdAt"]
        out.append(row)
    data["queryRuns"] = out
    return data


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(data_file: Path, db: Path | None) -> tuple[subprocess.Popen[bytes], str, float]:
    port = free_port()
    started = time.perf_counter()
    command = [
        str(Path(sys.executable).with_name("release-safety")), "serve-evaluator",
        "--port", str(port), "--data", str(data_file), "--now", NOW,
    ]  # fmt: skip
    if db is not None:
        command += ["--db", str(db)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            httpx.get(url + "/", timeout=1)
            return proc, url, time.perf_counter() - started
        except httpx.HTTPError as exc:
            if proc.poll() is not None:
                log = proc.stderr.read().decode() if proc.stderr else ""
                raise SystemExit(f"server exited: {log}") from exc
            time.sleep(0.2)


async def drive(
    url: str, params: list[dict[str, Any]], connections: int, seconds: float
) -> dict[str, Any]:
    path = f"/api/v2/projects/{PROJECT}/query/history"
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    headers = {"Authorization": f"ApiKey {TOKEN}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=60) as http:

        async def worker(offset: int) -> None:
            nonlocal errors
            index = offset
            while time.perf_counter() < deadline:
                begin = time.perf_counter()
                try:
                    answer = await http.get(path, params=params[index % len(params)])
                except httpx.TransportError:
                    errors += 1
                    continue
                latencies.append(time.perf_counter() - begin)
                if answer.status_code != 200:
                    errors += 1
                index += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(connections)))
        elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "requests": len(latencies),
        "errors": errors,
        "rps": len(latencies) / elapsed,
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--others", type=int, default=20_000)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--db-file", action="store_true", help="SQLite file (WAL), not memory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data_file = Path(folder) / "bench-data.json"
        data_file.write_text(json.dumps(build_data(args.runs, args.others)), encoding="utf-8")
        db = Path(folder) / "bench.sqlite" if args.db_file else None
        proc, url, load_seconds = start_server(data_file, db)
        try:
            print(
                f"server ready in {load_seconds:.1f}s ({args.runs} runs for the caller, "
                f"{args.others} for another user)"
            )
            print("| scenario | connections | requests | req/s | p50 ms | p99 ms | errors |")
            print("| --- | --- | --- | --- | --- | --- | --- |")
            for name, params in SCENARIOS.items():
                result = asyncio.run(drive(url, params, args.connections, args.seconds))
                print(
                    f"| {name} | {args.connections} | {result['requests']} | "
                    f"{result['rps']:.0f} | {result['p50_ms']:.1f} | {result['p99_ms']:.1f} | "
                    f"{result['errors']} |",
                    flush=True,
                )
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
