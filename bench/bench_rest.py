"""Benchmark the REST analyser on the real OpenAPI dataset, side by side with oasdiff.

For each pair, in the same run and interleaved: the analysis in a fresh interpreter (documents
read and decompressed first; parsing, normalising, diffing, judging and grouping timed), the
whole `release-safety diff-openapi` command, and, given `--oasdiff`, the whole `oasdiff
breaking` command on the same two files; our commands with their bytecode cached (a first run
writes it). Wall time by `perf_counter`; CPU time (user and system, every thread: the figure
least moved by other load) and peak RSS per process from `wait4`. The verdicts are compared
too: ours breaking when a finding is breaking, oasdiff's when it reports an `error`.
Given `--before` (another build's `release-safety`, such as the landed one), that build's whole
command is timed in the same rounds, and first, on each pair, its standard output and exit
status in `--json`, `--format sarif` and `--format markdown` are compared byte for byte with
this build's.

    python bench/bench_rest.py --oasdiff /tmp/oasdiff              # the largest pair, 5 runs
    python bench/bench_rest.py --oasdiff /tmp/oasdiff --all --runs 3 \
        --before /path/to/landed/.venv/bin/release-safety
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bytecode

# The steering repository's shared/ stands beside this repository or one of its parents.
DATASET = next(
    (
        folder / "shared" / "datasets" / "openapi-real"
        for folder in Path(__file__).resolve().parents[1].parents
        if (folder / "shared" / "datasets" / "openapi-real").is_dir()
    ),
    Path("shared/datasets/openapi-real"),
)
ORDER = [
    *("085baba", "1ff8b64", "bf2a340", "498c71d", "5162af9", "466c74a", "dc708bb"),
    *("c309ca1", "91e7c95", "aa58881", "ca34204", "23e6f5b", "c094647", "f85dbe2"),
]
COMMAND = Path(sys.executable).parent / "release-safety"
FORMATS = {"json": ["--json"], "sarif": ["--format", "sarif"], "markdown": ["--format", "markdown"]}


def _child(old_path: str, new_path: str) -> None:
    from release_safety.surfaces.rest.documents import compare_documents, load_api

    old, new = Path(old_path).read_bytes(), Path(new_path).read_bytes()
    wall = time.perf_counter()
    old_api = load_api(old)  # as the surface does: the new version reuses what did not change
    found = compare_documents(old_api, load_api(new, previous=old_api), old_path, new_path)
    wall = time.perf_counter() - wall
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"wall": wall, "peakMB": peak / 1024, "findings": len(found)}))


# Bytecode cached as an installed tool has it, under a folder of its own (`main` names it).
ENV: dict[str, str] = {}


def _process(argv: list[str]) -> tuple[float, float, bytes, int, float]:
    """Wall seconds, peak RSS MB, standard output, exit status and CPU seconds (user and
    system, every thread) of one command."""
    start = time.perf_counter()
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV
    ) as process:
        out = process.stdout.read() if process.stdout is not None else b""
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return time.perf_counter() - start, usage.ru_maxrss / 1024, out, process.returncode, cpu


def _differences(before: str, old: str, new: str) -> list[str]:
    """The formats whose output or exit status differ between `before` and this build."""
    found = []
    for name, options in FORMATS.items():
        ours = _process([str(COMMAND), "diff-openapi", old, new, *options])
        theirs = _process([before, "diff-openapi", old, new, *options])
        if ours[2:4] != theirs[2:4]:
            found.append(name)
    return found


def _pair(folder: Path, old_name: str, new_name: str) -> tuple[str, str]:
    paths = []
    for name in (old_name, new_name):
        path = folder / f"{name}.yaml"
        path.write_bytes(gzip.decompress((DATASET / f"openai-openapi.{name}.yaml.gz").read_bytes()))
        paths.append(str(path))
    return paths[0], paths[1]


def _ours(old: str, new: str, before: str | None) -> dict[str, float]:
    out = _process([sys.executable, __file__, "--child", old, new])[2]
    analysis: dict[str, float] = json.loads(out)
    argv = [str(COMMAND), "diff-openapi", old, new, "--json"]
    command_wall, command_peak, out, _, command_cpu = _process(argv)
    document = json.loads(out)
    landed = _process([before, *argv[1:]])[0] if before else math.nan
    return {
        "analysis": analysis["wall"],
        "wall": command_wall,
        "cpu": command_cpu,
        "before": landed,
        "peakMB": command_peak,
        "breaking": document["breakingCount"],
        "unknown": document["unknownCount"],
        "advisory": document["advisoryCount"],
    }


def _oasdiff(binary: str, old: str, new: str) -> dict[str, float]:
    argv = [binary, "breaking", old, new, "--allow-external-refs=false"]
    wall, peak, out, status, cpu = _process(argv)
    if status != 0:  # could not load
        return {"wall": wall, "cpu": cpu, "peakMB": peak, "error": -1, "warning": -1}
    found = re.search(r"(\d+) error, (\d+) warning, (\d+) info", out.decode())
    counts = [int(n) for n in found.groups()] if found else [0, 0, 0]
    return {"wall": wall, "cpu": cpu, "peakMB": peak, "error": counts[0], "warning": counts[1]}


def _median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--all", action="store_true", help="every consecutive pair")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--oasdiff", help="the oasdiff binary, run on the same pairs")
    parser.add_argument("--before", help="another build's release-safety: timed, answers compared")
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    pairs = list(itertools.pairwise(ORDER)) if args.all else [("c094647", "f85dbe2")]
    pycache = tempfile.mkdtemp(prefix="bench-rest-pycache-")
    ENV.update(bytecode.cached(pycache))
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        "| pair | analysis s | command s | before s | oasdiff s | command / oasdiff | CPU s (ours"
        " / oasdiff) | peak MB (ours / oasdiff) | ours breaking / unknown / advisory | oasdiff"
        " error / warning | verdicts | answers as before |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    same = compared = 0
    with tempfile.TemporaryDirectory() as folder:
        for old_name, new_name in pairs:
            old, new = _pair(Path(folder), old_name, new_name)
            differing = _differences(args.before, old, new) if args.before else None
            _ours(old, new, args.before)  # bytecode written (and the files read) once first
            ours: list[dict[str, float]] = []
            peer: list[dict[str, float]] = []
            for _ in range(args.runs):
                ours.append(_ours(old, new, args.before))
                if args.oasdiff:
                    peer.append(_oasdiff(args.oasdiff, old, new))
            mine, theirs = ours[0], peer[0] if peer else None
            counts = f"{mine['breaking']:.0f} / {mine['unknown']:.0f} / {mine['advisory']:.0f}"
            row = [
                f"{old_name} → {new_name}",
                f"{_median(ours, 'analysis'):.2f}",
                f"{_median(ours, 'wall'):.2f}",
                f"{_median(ours, 'before'):.2f}" if args.before else "—",
            ]
            if theirs is not None:
                ratio = _median(ours, "wall") / _median(peer, "wall")
                peer_verdict = {-1: "not loaded", 0: "safe"}.get(int(theirs["error"]), "breaking")
                verdicts = f"{'breaking' if mine['breaking'] else 'safe'} / {peer_verdict}"
                row += [
                    f"{_median(peer, 'wall'):.2f}",
                    f"**{ratio:.2f}**",
                    f"{_median(ours, 'cpu'):.2f} / {_median(peer, 'cpu'):.2f}",
                    f"{max(r['peakMB'] for r in ours):.0f} / {max(r['peakMB'] for r in peer):.0f}",
                    counts,
                    "—"
                    if theirs["error"] < 0
                    else f"{theirs['error']:.0f} / {theirs['warning']:.0f}",
                    verdicts,
                ]
            else:
                cpu = f"{_median(ours, 'cpu'):.2f}"
                row += ["—", "—", cpu, f"{max(r['peakMB'] for r in ours):.0f}", counts, "—", "—"]
            if differing is None:
                row.append("—")
            else:
                compared += len(FORMATS)
                same += len(FORMATS) - len(differing)
                row.append("differ: " + ", ".join(differing) if differing else "same")
            print("| " + " | ".join(row) + " |", flush=True)
    if args.before:
        print(
            f"\nOutputs (`--json`, `--format sarif`, `--format markdown`) and exit statuses the"
            f" same byte for byte as `before`'s: {same} of {compared}."
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    shutil.rmtree(pycache, ignore_errors=True)


if __name__ == "__main__":
    main()
