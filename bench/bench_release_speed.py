"""One release of a real service, cold, before and after a change: the wall time of a whole
`release-safety generate --to TAG --config settings.toml` process, and whether the answers are
the same: the artifact byte for byte, and the evidence byte for byte once the coverage's
`skipped` counts (what the build after may skip reading) are set aside.

    python bench/bench_release_speed.py --before /work/main/.venv/bin/python [--runs 5]
        [--answers 15] [SERVICE:TAG ...]   (default umami:v3.1.0)

The service (a name of `bench_adoption.SERVICES`) is cloned without a checkout from its mirror
to a temporary folder, never committed; its settings are the adopting ones: `init` run by this
Python, the TODO reasons filled in as `bench_adoption` fills them. Each run starts a new process
for the landed build (`--before`) and for this one, alternately, so both see the same load; the
table gives the fastest and the median of the runs. Both run with their bytecode compiled, as
an installed package is (kept in a temporary `PYTHONPYCACHEPREFIX`, written by one untimed run
each). With `--answers N`, the service's last N releases are judged once by each build too, and
compared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_adoption import SERVICES
from first_day import MIRRORS, cli, fill, releases


def generate(python: str, clone: Path, tag: str, settings: Path, out: Path, env: Any) -> float:
    """The seconds of one `generate` process (its artifact and evidence beside `out`)."""
    command = [python, "-m", "release_safety", "generate", "--repo", str(clone), "--to", tag]
    command += ["--config", str(settings), "--out", str(out), "--evidence", f"{out}.evidence"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{python}: generate {tag}: {done.stderr.strip()[-300:]}")
    return time.perf_counter() - start


def _unskipped(evidence: Path) -> Any:
    """The evidence without the coverage's `skipped` counts."""
    data = json.loads(evidence.read_bytes())
    for surface in data["surfaces"]:
        surface["coverage"].pop("skipped", None)
    return data


def _skipped(evidence: Path) -> str:
    """What the config surface skipped at the release, as the evidence says it."""
    for surface in json.loads(evidence.read_bytes())["surfaces"]:
        if surface["surface"] == "config":
            return str(surface["coverage"].get("skipped", {}).get("new", "-"))
    return "-"


def _compare(folder: Path) -> tuple[bool, bool]:
    """(artifact the same bytes, evidence the same bytes but for `skipped`)."""
    artifact = (folder / "before").read_bytes() == (folder / "after").read_bytes()
    before, after = folder / "before.evidence", folder / "after.evidence"
    return artifact, _unskipped(before) == _unskipped(after)


def _prepared(name: str, folder: Path) -> tuple[Path, Path]:
    """The clone and the adopting settings of a service."""
    clone = folder / "clone"
    mirror = MIRRORS / SERVICES[name]["mirror"] / "repo"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(mirror), str(clone)], check=True)
    if cli("init", "--repo", str(clone)).returncode != 0:
        raise SystemExit(f"{name}: init failed")
    written = clone / ".release-safety.toml"
    settings = folder / "settings.toml"
    settings.write_text(fill(written.read_text(), SERVICES[name]["reasons"])[0])
    written.unlink()  # the clone stays as fetched
    return clone, settings


def _envs(folder: Path) -> dict[str, Any]:
    """Each build's environment: bytecode written once to a cache of its own, then read."""
    envs = {}
    for label in ("before", "after"):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        envs[label] = env | {"PYTHONPYCACHEPREFIX": str(folder / f"pycache-{label}")}
    return envs


def measure(name: str, tag: str, before: str, runs: int) -> str:
    with tempfile.TemporaryDirectory(prefix="release-speed-") as work:
        folder = Path(work)
        clone, settings = _prepared(name, folder)
        pythons = {"before": before, "after": sys.executable}
        envs = _envs(folder)
        for label, python in pythons.items():  # untimed: compiles the bytecode
            generate(python, clone, tag, settings, folder / label, envs[label])
        seconds: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(runs):
            for label, python in pythons.items():
                seconds[label].append(
                    generate(python, clone, tag, settings, folder / label, envs[label])
                )
        artifact, evidence = _compare(folder)
    shown = {
        label: f"{min(times):.2f} / {statistics.median(times):.2f}"
        for label, times in seconds.items()
    }
    ratio = statistics.median(seconds["after"]) / statistics.median(seconds["before"])
    same = "yes" if artifact and evidence else "NO"
    return f"| {name} {tag} | {shown['before']} | {shown['after']} | {ratio:.2f} | {same} |"


def answers(name: str, last: int, before: str) -> list[str]:
    """One row per release of the service's last `last`: the verdicts and whether they match."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="release-answers-") as work:
        folder = Path(work)
        clone, settings = _prepared(name, folder)
        envs = _envs(folder)
        pattern = r"^v(?P<version>\d+\.\d+\.\d+)$"
        for tag in releases(clone, pattern, last):
            for label, python in (("before", before), ("after", sys.executable)):
                generate(python, clone, tag, settings, folder / label, envs[label])
            artifact, evidence = _compare(folder)
            verdicts = [
                json.loads((folder / f"{label}.evidence").read_bytes())["rollingUpdateSafe"]
                for label in ("before", "after")
            ]
            verdict = str(verdicts[0]).lower() if verdicts[0] == verdicts[1] else "CHANGED"
            skipped = _skipped(folder / "after.evidence")
            row = f"| {tag} | {verdict} | {'yes' if artifact else 'NO'} "
            rows.append(row + f"| {'yes' if evidence else 'NO'} | {skipped} |")
            print(rows[-1], file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("releases", nargs="*", default=["umami:v3.1.0"])
    parser.add_argument("--before", required=True, help="a Python whose build is the landed one")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--answers", type=int, default=0, help="last N releases compared")
    options = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"{options.runs} runs each, alternating; seconds: fastest / median")
    print()
    print("| release | before s | after s | after / before (medians) | same answers |")
    print("| --- | --- | --- | --- | --- |")
    for release in options.releases:
        name, _, tag = release.partition(":")
        print(measure(name, tag, options.before, options.runs), flush=True)
    print()
    print(f"load average: {load:.1f} before, {os.getloadavg()[0]:.1f} after (2 cores, shared)")
    if options.answers:
        name = options.releases[0].partition(":")[0]
        print()
        print(f"{name}'s last {options.answers} releases, judged once by each build:")
        print()
        print(
            "| release | rollingUpdateSafe | artifact same bytes | evidence same but `skipped` "
            "| config files skipped (after, at the release) |"
        )
        print("| --- | --- | --- | --- | --- |")
        for row in answers(name, options.answers, options.before):
            print(row, flush=True)


if __name__ == "__main__":
    main()
