"""Run one benchmark and keep what it printed as its results, then rewrite docs/benchmarks.md.

    .venv/bin/python bench/record.py NAME SCRIPT [ARG ...]

SCRIPT is a bench script (`bench/bench_rest.py`) run from the repository root with this Python
(another venv's Python measures that venv's build), or with bash for a `.sh` one. Its standard
output (Markdown tables and lines) is written to `bench/results/NAME.json` with the command,
the time, the commit measured and the machine; its standard error passes through. A script
that fails (non-zero exit) leaves the results as they were. Then the page is rendered again
from every results file (`bench/report.py`).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import report  # noqa: E402  (the page's renderer, beside this script)
from release_safety.common.jsonio import write_atomic  # noqa: E402


def _git(*argv: str) -> str:
    done = subprocess.run(["git", *argv], cwd=HERE.parent, capture_output=True, text=True)
    return done.stdout.strip()


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return platform.processor() or platform.machine()


def _interpreter() -> str:
    """This Python as the command names it: `.venv/bin/python` inside the repository."""
    path = Path(sys.executable).absolute()
    return str(path.relative_to(HERE.parent)) if path.is_relative_to(HERE.parent) else str(path)


def _argv(script: str, args: list[str]) -> list[str]:
    runner = ["bash"] if script.endswith(".sh") else [sys.executable]
    return [*runner, script, *args]


def run(name: str, script: str, args: list[str]) -> dict[str, object]:
    """Run the script from the repository root; its results record, or exit on failure."""
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    done = subprocess.run(_argv(script, args), cwd=HERE.parent, stdout=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"record: {script} exited {done.returncode}; {name}'s results kept")
    if not done.stdout.strip():
        raise SystemExit(f"record: {script} printed nothing; {name}'s results kept")
    changed = _git("status", "--porcelain", "--", "src", "pyproject.toml", script)
    return {
        "name": name,
        "command": shlex.join([_interpreter(), "bench/record.py", name, script, *args]),
        "ran": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _git("rev-parse", "--short", "HEAD") + (" with changes" if changed else ""),
        "machine": f"{os.cpu_count()} cores ({_cpu()}), Python {platform.python_version()}",
        "load": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "seconds": round(seconds, 1),
        "output": done.stdout,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the results' name: a section of bench/pages.toml")
    parser.add_argument("script", help="the bench script, from the repository root")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    parser.add_argument("--results", type=Path, default=report.RESULTS, help=argparse.SUPPRESS)
    parser.add_argument("--pages", type=Path, default=report.PAGES, help=argparse.SUPPRESS)
    parser.add_argument("--page", type=Path, default=report.PAGE, help=argparse.SUPPRESS)
    options = parser.parse_args()
    sections = report.read_sections(options.pages)
    if options.name not in {section["name"] for section in sections}:
        raise SystemExit(f"record: {options.name}: no such section in {options.pages}")
    record = run(options.name, options.script, options.args)
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    write_atomic(options.results / f"{options.name}.json", text)
    write_atomic(options.page, report.render(sections, report.read_results(options.results)))
    print(f"record: {options.results / options.name}.json, {options.page}", file=sys.stderr)


if __name__ == "__main__":
    main()
