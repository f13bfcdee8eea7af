"""Benchmark: the evaluator's history list against a bare Starlette endpoint, side by side.

Builds a data set with 100,000 runs for the caller (plus another user's), starts
`release-safety serve-evaluator` on it (a real process, in-memory SQLite, fixed clock) and
records how long it takes to answer and its peak memory; then, per scenario, fetches the
evaluator's answer once and starts a bare Starlette + uvicorn endpoint (served by the same
`serve()`) that returns exactly those bytes, and a bare ASGI callable (no framework) that does
the same, and drives the three in turn with wrk (a compiled load generator, so the client is
not the ceiling), for several rounds. One scenario asks the
evaluator a different search at every request (a wrk script), so that no answer is kept and
each is computed; its bare side serves one such answer, asked by the same script (the same
client work per request on both sides: the client shares the machine). A round's ratio is
evaluator req/s over bare Starlette req/s measured back to back (the ratio to the raw ASGI
side is given beside it); the ratio given is the median of the
rounds' ratios (on a shared machine, other work moves both sides of a round alike more often
than two rounds alike). Before the rounds, written files are synced and each side of each
scenario gets one untimed second.

    python bench/bench_evaluator.py [--runs 100000] [--others 20000] [--connections 32]
                                    [--seconds 10] [--rounds 3]

Needs `wrk` (Debian package `wrk`).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
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
MODELS = 2_000  # each run's SQL names one of these models: a model's name is a selective search
# Each request of this scenario searches the next model's name: more distinct answers than the
# evaluator keeps (256), so every one is computed.
VARIED = "search page, the next of the 2,000 models each request (never a kept answer)"
VARY = f"""
local count = 0
request = function()
  count = count + 1
  return wrk.format(nil, string.format("%s?search=orders_%04d", wrk.path, count % {MODELS}))
end
"""
HISTORY = f"/api/v2/projects/{PROJECT}/query/history"
SCENARIOS = {
    "default page (25 newest, all counts)": "",
    "search page (`search=orders_0042`, one model of 2,000)": "?search=orders_0042",
    VARIED: "?search=orders_0042",  # the bytes the bare endpoint serves for it
}
# A search most runs match reads all of them (counts are over every match): too slow for a
# load run, timed one request at a time instead.
BROAD = "?search=revenue"
BARE = """
import sys
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
from release_safety.evaluator.server import serve

bodies = [open(path, "rb").read() for path in sys.argv[3:]]

async def endpoint(request):
    return Response(bodies[request.path_params["index"]], media_type="application/json")

async def raw(scope, receive, send):
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    body = bodies[int(scope["path"][1:])]
    headers = [(b"content-length", b"%d" % len(body)), (b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})

starlette = Starlette(routes=[Route("/{index:int}", endpoint)])
serve(starlette if sys.argv[1] == "starlette" else raw, "127.0.0.1", int(sys.argv[2]))
"""
# The sides of each scenario: the evaluator, the bare Starlette endpoint (the yardstick),
# and a bare ASGI callable with no framework at all (the evaluator serves its history path
# without Starlette's middleware and router, so this shows what that skipped, apart from what
# cheaper work bought).
SIDES = ("evaluator", "bare", "raw")


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
        row["compiledSql"] = f"{base['compiledSql']}\n-- model: orders_{rng.randrange(MODELS):04d}"
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


def wait_ready(proc: subprocess.Popen[bytes], url: str) -> None:
    while True:
        try:
            httpx.get(url + "/", timeout=1)
            return
        except httpx.HTTPError as exc:
            if proc.poll() is not None:
                log = proc.stderr.read().decode() if proc.stderr else ""
                raise SystemExit(f"server exited: {log}") from exc
            time.sleep(0.05)


def peak_rss_mb(pid: int) -> float:
    """The peak resident set of a process so far (VmHWM), in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return int(match.group(1)) / 1024 if match else float("nan")


def wrk(
    url: str, connections: int, seconds: int, auth: bool, script: str | None = None
) -> dict[str, float]:
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", url]
    if auth:
        command[1:1] = ["-H", f"Authorization: ApiKey {TOKEN}"]
    if script:
        command[1:1] = ["-s", script]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    failures = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if failures or "Socket errors" in out:
        raise SystemExit(f"wrk saw failures against {url}:\n{out}")

    def latency(label: str) -> float:
        found = re.search(rf"^\s+{label}\s+([\d.]+)(us|ms|s)\s*$", out, re.MULTILINE)
        if not found:
            return float("nan")
        scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[found.group(2)]
        return float(found.group(1)) * scale

    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    return {
        "rps": float(rps.group(1)) if rps else 0.0,
        "p50": latency("50%"),
        "p99": latency("99%"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--others", type=int, default=20_000)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("bench_evaluator: needs wrk (apt-get install wrk)")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    started: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory() as folder:
        data_file = Path(folder) / "bench-data.json"
        data_file.write_text(json.dumps(build_data(args.runs, args.others)), encoding="utf-8")
        size_mb = data_file.stat().st_size / 1e6
        try:
            port = free_port()
            command = [
                str(Path(sys.executable).with_name("release-safety")), "serve-evaluator",
                "--port", str(port), "--data", str(data_file), "--now", NOW,
            ]  # fmt: skip
            begin = time.perf_counter()
            server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            started.append(server)
            url = f"http://127.0.0.1:{port}"
            wait_ready(server, url)
            ready = time.perf_counter() - begin
            print(
                f"serve-evaluator answered {ready:.1f} s after start, peak RSS "
                f"{peak_rss_mb(server.pid):.0f} MB ({args.runs:,} runs for the caller, "
                f"{args.others:,} for another user; {size_mb:.0f} MB of JSON)"
            )
            bodies = []
            for index, query in enumerate(SCENARIOS.values()):
                answer = httpx.get(
                    url + HISTORY + query, headers={"Authorization": f"ApiKey {TOKEN}"}
                )
                answer.raise_for_status()
                body = Path(folder) / f"body-{index}.json"
                body.write_bytes(answer.content)
                bodies.append(str(body))
            timings = []
            for _ in range(5):
                begin = time.perf_counter()
                httpx.get(
                    url + HISTORY + BROAD, headers={"Authorization": f"ApiKey {TOKEN}"}
                ).raise_for_status()
                timings.append(time.perf_counter() - begin)
            print(
                f"broad search (`{BROAD[1:]}`, most runs match), one request at a time: "
                f"median {statistics.median(timings) * 1000:.0f} ms of 5"
            )
            bare_urls = {}
            for side in SIDES[1:]:
                bare_port = free_port()
                bare = subprocess.Popen(
                    [sys.executable, "-c", BARE, "starlette" if side == "bare" else "raw",
                     str(bare_port), *bodies],
                    stderr=subprocess.PIPE,
                )  # fmt: skip
                started.append(bare)
                bare_urls[side] = f"http://127.0.0.1:{bare_port}"
                wait_ready(bare, bare_urls[side])
            results: dict[str, dict[str, list[dict[str, float]]]] = {
                name: {side: [] for side in SIDES} for name in SCENARIOS
            }
            vary = Path(folder) / "vary.lua"
            vary.write_text(VARY, encoding="utf-8")
            # The data file and the database were just written: flush them now, or the
            # kernel's writeback lands in the first measured seconds. Then one untimed second
            # per side and scenario, so neither server is measured cold.
            os.sync()
            for round_index in range(-1, args.rounds):
                for index, (name, query) in enumerate(SCENARIOS.items()):
                    varied = name == VARIED
                    targets = [
                        ("evaluator", url + HISTORY + ("" if varied else query), True),
                        *((side, f"{bare_urls[side]}/{index}", False) for side in SIDES[1:]),
                    ]
                    turn = round_index % len(targets)  # each side goes first in turn
                    for side, target, auth in targets[turn:] + targets[:turn]:
                        script = str(vary) if varied else None
                        seconds = 1 if round_index < 0 else args.seconds
                        measured = wrk(target, args.connections, seconds, auth, script)
                        if round_index >= 0:
                            results[name][side].append(measured)
            print(
                f"\n{args.rounds} rounds of {args.seconds} s per side and scenario, "
                f"{args.connections} connections, medians:\n"
            )
            print("| scenario | bytes | evaluator req/s | bare req/s | ratio | evaluator p50 / p99"
                  " ms | rounds' ratios | raw ASGI req/s | ratio to raw |")  # fmt: skip
            print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
            for (name, sides), body in zip(results.items(), bodies, strict=True):
                rps = {side: statistics.median(m["rps"] for m in sides[side]) for side in SIDES}
                p50 = statistics.median(m["p50"] for m in sides["evaluator"])
                p99 = statistics.median(m["p99"] for m in sides["evaluator"])

                def ratios(
                    side: str, sides: dict[str, list[dict[str, float]]] = sides
                ) -> list[float]:
                    return [
                        e["rps"] / b["rps"]
                        for e, b in zip(sides["evaluator"], sides[side], strict=True)
                    ]

                each = ratios("bare")
                print(
                    f"| {name} | {Path(body).stat().st_size:,} | {rps['evaluator']:,.0f} | "
                    f"{rps['bare']:,.0f} | **{statistics.median(each):.2f}x** | "
                    f"{p50:.1f} / {p99:.1f} | {', '.join(f'{r:.2f}' for r in each)} | "
                    f"{rps['raw']:,.0f} | {statistics.median(ratios('raw')):.2f}x |",
                    flush=True,
                )
        finally:
            for proc in started:
                proc.terminate()
                proc.wait(timeout=10)
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
