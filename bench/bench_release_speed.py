"""One release of a real service, cold, before and after a change: the wall time of a whole
`release-safety generate --to TAG --config settings.toml` process, and whether the answers are
the same: the artifact byte for byte, and the evidence byte for byte once the coverage's
`skipped` counts (what the build after may skip reading) are set aside.

    python bench/bench_release_speed.py --before /work/main/.venv/bin/python [--runs 5]
        [--profile FOLDER] [--answers N] [SERVICE:TAG ...]   (default umami:v3.1.0)

The service is cloned without a checkout from its mirror to a temporary folder, never
committed. A name of `bench_backfill.SETTINGS` (svix, harbor) is judged with the settings a
maintainer wrote there; a name of `bench_adoption.SERVICES` (umami, lemmy, miniflux) with the
adopting ones: `init` run by this Python, the TODO reasons filled in as `bench_adoption` fills
them. `--profile` also writes, per release, a cProfile of one more cold run of this build
(`NAME-TAG.prof`) and its `-X importtime` log (`NAME-TAG.imports`). Each run starts a new process
for the landed build (`--before`) and for this one, alternately, so both see the same load; the
table gives the fastest and the median wall time of the runs, and the median CPU time (user
and system, with the git processes each ran: the figure a loaded machine disturbs least).
Each build keeps its compiled bytecode in a folder of its own under the temporary one
(`PYTHONPYCACHEPREFIX`, written by one untimed run first), as an installed package has it: a
run compiling the sources would time the compiler. With `--answers N`, the first service's last
N releases are judged once by each build too, and compared.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bytecode
from bench_adoption import SERVICES
from bench_backfill import SETTINGS
from first_day import MIRRORS, cli, fill, releases

# the mirrors of the services whose settings are bench_backfill's
BACKFILL_MIRRORS = {"svix": "svix+svix-webhooks", "harbor": "goharbor+harbor"}


def generate(
    python: str,
    clone: Path,
    tag: str,
    settings: Path,
    out: Path,
    flags: tuple[str, ...] = (),
) -> tuple[float, float]:
    """The wall and CPU seconds (user and system, with the git processes it waited for) of one
    `generate` process, its artifact and evidence beside `out`; `flags` go to the interpreter
    (`-X importtime`) or before the module (`-m cProfile -o FILE`)."""
    command = [python, *flags, "-m", "release_safety", "generate", "--repo", str(clone)]
    command += ["--to", tag]
    command += ["--config", str(settings), "--out", str(out), "--evidence", f"{out}.evidence"]
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=_env(python))
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{python}: generate {tag}: {done.stderr.strip()[-300:]}")
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime


def _env(python: str) -> dict[str, str]:
    """The environment of a build's process: its bytecode kept in a folder of its own under
    the `pycache` of the temporary folder the clone is in (written by its first run)."""
    build = hashlib.sha256(python.encode()).hexdigest()[:12]
    return bytecode.cached(_PYCACHE[0] / build)


_PYCACHE = [Path(tempfile.gettempdir())]
"""Where `_env` keeps bytecode: set to the measured release's temporary folder."""


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
    """The clone (no checkout, never committed) and the settings a service is judged with."""
    clone = folder / "clone"
    mirror = BACKFILL_MIRRORS.get(name) or SERVICES[name]["mirror"]
    source = MIRRORS / mirror / "repo"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(source), str(clone)], check=True)
    settings = folder / "settings.toml"
    adopting_settings(name, clone, settings)
    _PYCACHE[0] = folder / "pycache"
    return clone, settings


def adopting_settings(name: str, clone: Path, settings: Path) -> None:
    """Write the settings the service is judged with: bench_backfill's, else `init`'s filled."""
    if name in SETTINGS:
        settings.write_text(SETTINGS[name])
        return
    if cli("init", "--repo", str(clone)).returncode != 0:
        raise SystemExit(f"{name}: init failed")
    written = clone / ".release-safety.toml"
    settings.write_text(fill(written.read_text(), SERVICES[name]["reasons"])[0])
    written.unlink()  # the clone stays as fetched


def profile(python: str, name: str, clone: Path, tag: str, settings: Path, into: Path) -> None:
    """One more cold run under cProfile and one under `-X importtime`, kept in `into`."""
    into.mkdir(parents=True, exist_ok=True)
    stem = into / f"{name}-{tag}"
    generate(python, clone, tag, settings, stem, ("-m", "cProfile", "-o", f"{stem}.prof"))
    command = [python, "-X", "importtime", "-m", "release_safety", "generate"]
    command += ["--repo", str(clone), "--to", tag, "--config", str(settings)]
    command += ["--out", f"{stem}.json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=_env(python))
    Path(f"{stem}.imports").write_text(done.stderr)


def measure(name: str, tag: str, before: str, runs: int, into: Path | None) -> str:
    with tempfile.TemporaryDirectory(prefix="release-speed-") as work:
        folder = Path(work)
        clone, settings = _prepared(name, folder)
        seconds: dict[str, list[float]] = {"before": [], "after": []}
        cpu: dict[str, list[float]] = {"before": [], "after": []}
        for python in (before, sys.executable):  # untimed: each build's bytecode written
            generate(python, clone, tag, settings, folder / "warm")
        for _ in range(runs):
            for label, python in (("before", before), ("after", sys.executable)):
                wall, used = generate(python, clone, tag, settings, folder / label)
                seconds[label].append(wall)
                cpu[label].append(used)
        verdict = json.loads((folder / "after.evidence").read_text())["rollingUpdateSafe"]
        same = all(_compare(folder))
        if into is not None:
            profile(sys.executable, name, clone, tag, settings, into)
    shown = {
        label: f"{min(times):.2f} / {statistics.median(times):.2f}"
        for label, times in seconds.items()
    }
    shown |= {f"{label} CPU": f"{statistics.median(times):.2f}" for label, times in cpu.items()}
    ratio = statistics.median(seconds["after"]) / statistics.median(seconds["before"])
    cells = [f"{name} {tag}", str(verdict), shown["before"], shown["after"], f"{ratio:.2f}"]
    cells += [shown["before CPU"], shown["after CPU"], "yes" if same else "NO"]
    return "| " + " | ".join(cells) + " |"


def answers(name: str, last: int, before: str) -> list[str]:
    """One row per release of the service's last `last`: the verdicts and whether they match."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="release-answers-") as work:
        folder = Path(work)
        clone, settings = _prepared(name, folder)
        pattern = r"^v(?P<version>\d+\.\d+\.\d+)$"
        for tag in releases(clone, pattern, last):
            for label, python in (("before", before), ("after", sys.executable)):
                generate(python, clone, tag, settings, folder / label)
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
    parser.add_argument("--profile", type=Path, help="a folder for cProfile and importtime logs")
    parser.add_argument("--answers", type=int, default=0, help="last N releases compared")
    options = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"{options.runs} runs each, alternating; seconds: fastest / median")
    print()
    print(
        "| release | verdict | before s | after s | after / before (medians) | before CPU s"
        " | after CPU s | same answers |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for release in options.releases:
        name, _, tag = release.partition(":")
        print(measure(name, tag, options.before, options.runs, options.profile), flush=True)
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
    print()
    print(f"load average: {load:.1f} before, {os.getloadavg()[0]:.1f} after (2 cores, shared)")


if __name__ == "__main__":
    main()
