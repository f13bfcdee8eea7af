"""One release of a real service, cold, before and after a change: the wall time of a whole
`release-safety generate --to TAG --config settings.toml` process, and whether the artifact and
the evidence are the same bytes.

    python bench/bench_release_speed.py --before /work/main/.venv/bin/python [--runs 5]
        [SERVICE:TAG ...]   (default umami:v3.1.0)

The service (a name of `bench_adoption.SERVICES`) is cloned without a checkout from its mirror
to a temporary folder, never committed; its settings are the adopting ones: `init` run by this
Python, the TODO reasons filled in as `bench_adoption` fills them. Each run starts a new process
for the landed build (`--before`) and for this one, alternately, so both see the same load; the
table gives the fastest and the median of the runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_adoption import SERVICES
from first_day import MIRRORS, cli, fill


def generate(python: str, clone: Path, tag: str, settings: Path, out: Path) -> float:
    """The seconds of one `generate` process (its artifact and evidence beside `out`)."""
    command = [python, "-m", "release_safety", "generate", "--repo", str(clone), "--to", tag]
    command += ["--config", str(settings), "--out", str(out), "--evidence", f"{out}.evidence"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{python}: generate {tag}: {done.stderr.strip()[-300:]}")
    return time.perf_counter() - start


def measure(name: str, tag: str, before: str, runs: int) -> str:
    with tempfile.TemporaryDirectory(prefix="release-speed-") as work:
        folder = Path(work)
        clone = folder / "clone"
        mirror = MIRRORS / SERVICES[name]["mirror"] / "repo"
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(mirror), str(clone)], check=True)
        if cli("init", "--repo", str(clone)).returncode != 0:
            raise SystemExit(f"{name}: init failed")
        written = clone / ".release-safety.toml"
        settings = folder / "settings.toml"
        settings.write_text(fill(written.read_text(), SERVICES[name]["reasons"])[0])
        written.unlink()  # the clone stays as fetched
        seconds: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(runs):
            for label, python in (("before", before), ("after", sys.executable)):
                seconds[label].append(generate(python, clone, tag, settings, folder / label))
        same = all(
            (folder / f"before{suffix}").read_bytes() == (folder / f"after{suffix}").read_bytes()
            for suffix in ("", ".evidence")
        )
    shown = {
        label: f"{min(times):.2f} / {statistics.median(times):.2f}"
        for label, times in seconds.items()
    }
    return f"| {name} {tag} | {shown['before']} | {shown['after']} | {'yes' if same else 'NO'} |"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("releases", nargs="*", default=["umami:v3.1.0"])
    parser.add_argument("--before", required=True, help="a Python whose build is the landed one")
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"{options.runs} runs each, alternating; seconds: fastest / median")
    print()
    print("| release | before s | after s | same artifact and evidence |")
    print("| --- | --- | --- | --- |")
    for release in options.releases:
        name, _, tag = release.partition(":")
        print(measure(name, tag, options.before, options.runs), flush=True)
    print()
    print(f"load average: {load:.1f} before, {os.getloadavg()[0]:.1f} after (2 cores, shared)")


if __name__ == "__main__":
    main()
