"""Config over a whole real Go tree, per release, cold: goharbor/harbor and ory/kratos as the
search tool's `fetch` brings them (bare git directories under /work/.mirror), cloned to a
temporary folder, never committed.

For each release pair, a fresh process (empty memos) runs the config surface with
`sources = ["**/*.go"]` (vendored folders and test files left out by discovery) and reports
the Go files matched, the variables resolved, the gaps met, the verdict of the surface and
the time; then a second fresh process runs `release-safety generate` on the pair with an empty
report cache, the whole command timed.

Usage: python bench/bench_config_go.py [--repo harbor|kratos|all] [--generate]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MIRROR = Path("/work/.mirror")
RELEASES = {
    "goharbor+harbor": [("v2.13.5", "v2.14.0"), ("v2.15.1", "v2.15.2")],
    "ory+kratos": [("v1.3.1", "v25.4.0"), ("v25.4.0", "v26.2.0")],
}
SETTINGS = '[config]\nsources = ["**/*.go"]\n'


def one(repo: str, old: str, new: str) -> dict[str, object]:
    """The config surface on one release, in this (fresh) process."""
    from release_safety.git.repository import GitRepo
    from release_safety.settings.model import parse_settings
    from release_safety.surfaces.config import analyse
    from release_safety.surfaces.config.sources import matched_sources

    settings = parse_settings(SETTINGS, "bench.toml")
    git = GitRepo(Path(repo))
    start, cpu = time.perf_counter(), time.process_time()
    report = analyse(git.snapshot(old), git.snapshot(new), settings)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    coverage = report.coverage
    return {
        "seconds": round(elapsed, 2),
        "cpu_seconds": round(cpu, 2),
        "go_files": len(matched_sources(git.snapshot(new), settings.config.sources)),
        "resolved": len(coverage.understood) if coverage else 0,
        "gaps": len(coverage.unmodelled) if coverage else 0,
        "blocking": sum(u.blocking for u in coverage.unmodelled) if coverage else 0,
        "checked": report.checked,
        "findings": sorted({f.rule for f in report.findings}),
        "count": len(report.findings),
    }


def generate(repo: Path, old: str, new: str, work: Path) -> tuple[float, float]:
    """Seconds (wall, then CPU of the process and its git children) of a cold
    `release-safety generate` (fresh process, empty report cache)."""
    settings = work / "settings.toml"
    settings.write_text(SETTINGS)
    cache = tempfile.mkdtemp(dir=work)
    command = [
        *(sys.executable, "-m", "release_safety", "generate", "--repo", str(repo)),
        *("--from", old, "--to", new, "--config", str(settings), "--out", str(work / "o.json")),
    ]
    start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        command,
        env={**os.environ, "RELEASE_SAFETY_CACHE_DIR": cache},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"generate failed: {done.stderr.strip()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return round(time.perf_counter() - start, 2), round(cpu, 2)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", default="all", choices=["harbor", "kratos", "all"])
    parser.add_argument("--generate", action="store_true", help="also time `generate` cold")
    parser.add_argument("--one", nargs=3, metavar=("REPO", "OLD", "NEW"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(*args.one)))
        return
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for name, pairs in RELEASES.items():
            if args.repo != "all" and args.repo not in name:
                continue
            source = MIRROR / name / "repo"
            if not source.is_dir():
                print(f"{name}: not fetched, skipped")
                continue
            clone = work / f"{name}.git"
            subprocess.run(["git", "clone", "-q", "--bare", str(source), str(clone)], check=True)
            for old, new in pairs:
                command = [sys.executable, __file__, "--one", str(clone), old, new]
                done = subprocess.run(command, capture_output=True, text=True, check=True)
                result = json.loads(done.stdout)
                if args.generate:
                    wall, cpu = generate(clone, old, new, work)
                    result["generate_seconds"], result["generate_cpu_seconds"] = wall, cpu
                print(f"{name} {old}..{new}: {json.dumps(result)}")


if __name__ == "__main__":
    main()
