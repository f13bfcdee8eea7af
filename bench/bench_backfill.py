"""Backfill and generate speed on real and synthetic histories (issue 7 and 18 targets).

    python bench/bench_backfill.py --svix /path/to/svix.git --harbor /path/to/harbor.git --synthetic
    python bench/bench_backfill.py --supabase /path/to/auth.git [--runs 3]

The real repositories are public ones brought with the search tool's `fetch` (bare git
directories); they are cloned to a temporary folder here and never committed. For each target:

- cold: `release-safety backfill --jobs N` with an empty cache (whole process);
- warm: the same with `--regenerate` and the cache the cold run left;
- generate: one release (the newest tag), in a fresh process warmed up on another release,
  beside the floor of git alone reading the same files (`git diff` of the two refs and
  `git cat-file --batch` of every blob generate read); medians of eleven samples of each.
- supabase (issue 18): `backfill --jobs N` with an empty cache and the default settings (the
  tool's discovery), beside a plain git loop over the same consecutive release pairs (`git log`
  and `git diff --stat` of each pair), taken alternately, medians of `--runs`.
- `--versus-git-loop` (issue 48, svix/harbor): `backfill --jobs N` cold beside the git loop of
  the same releases: for each release, `git diff` of its two refs and one `git cat-file
  --batch` of every blob a cold `generate` of it reads (listed first, untimed, one fresh
  process per release), taken alternately, medians of `--runs`. Each build keeps its bytecode
  in a folder of its own (`bytecode.cached`, written by an untimed run first), as an installed
  tool has it. With `--before PYTHON` (a Python whose build is the landed one, say
  /work/main/.venv/bin/python) that build's cold backfill is taken in the same runs too, and
  the answers compared: the index and every release's artifact, byte for byte.
"""

from __future__ import annotations

import argparse
import contextlib
import filecmp
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

import bytecode

sys.path.insert(0, str(Path(__file__).parent))

# The settings a user of each service would write: the REST document and the migrations are
# discovered, the MCP surface is declared absent, the config surface points at what the
# service reads (svix's Rust code, the defaults file it loads, read as `SVIX_<KEY>` with the
# prefix from the code, and its env file of example values; harbor's Go sources, test files
# and vendored code left out, and its operator settings template), and the deployment
# surface at what operators run (svix's server compose files and images; harbor's bundled
# component images, whose compose file is a template the installer renders).
SETTINGS = {
    "svix": """
tag_pattern = '^v(?P<version>\\d+\\.\\d+\\.\\d+)$'
[mcp]
absent = "svix-server exposes no MCP tool surface; its API is REST only"
[config]
sources = [
  "server/svix-server/src/**/*.rs",
  "server/svix-server/config.default.toml",
  "server/svix-server/development.env",
]
[deployment]
sources = [
  "server/docker-compose.yml",
  "server/docker-compose.override.yml",
  "server/Dockerfile",
  "bridge/Dockerfile",
]
""",
    "harbor": """
tag_pattern = '^v(?P<version>\\d+\\.\\d+\\.\\d+)$'
[mcp]
absent = "Harbor exposes no MCP tool surface; its API is REST only"
[config]
sources = ["src/**/*.go", "make/harbor.yml.tmpl"]
[deployment]
sources = ["make/photon/*/Dockerfile*"]
""",
    "synthetic": """
[rest]
specs = ["openapi.json"]
[mcp]
absent = "the synthetic service has no MCP tool surface at all"
[config]
absent = "the synthetic service reads no environment variables"
[deployment]
absent = "the synthetic service ships no compose file, chart or image"
""",
}


def clone(source: Path, folder: Path) -> Path:
    target = folder / "repo.git"
    subprocess.run(
        ["git", "-c", "safe.directory=*", "clone", "-q", "--bare", str(source), str(target)],
        check=True,
    )
    return target


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def generate_once(repo_path: Path, config: Path) -> dict[str, object]:
    """In a fresh process: warm up on the second release (imports, lazily built models; the
    settings may name a file that release lacks, which ends its analysis with bad input once
    every surface ran), then analyse the newest release with a new git reader, timed."""
    from release_safety.common.errors import InputError
    from release_safety.git.repository import GitRepo
    from release_safety.release.generate import analyse_release, prepare
    from release_safety.settings.model import load_settings

    warm = GitRepo(repo_path)
    tags = warm.release_tags(load_settings(repo_path, config).tags)
    release, settings, _ = prepare(warm, tags[1].tag, config=config)
    with contextlib.suppress(InputError):
        analyse_release(warm, settings, release)
    warm.close()
    repo = GitRepo(repo_path)
    release, settings, _ = prepare(repo, tags[-1].tag, config=config)
    start = time.perf_counter()
    analyse_release(repo, settings, release)
    elapsed = time.perf_counter() - start
    read = list(repo.blobs._data)  # every blob generate read, in order
    return {"s": elapsed, "from": release.from_ref, "to": release.to_ref, "read": read}


def git_floor(repo_path: Path, sample: dict[str, object]) -> float:
    """git alone: the diff of the two refs and one `cat-file --batch` of the same blobs."""
    start = time.perf_counter()
    refs = [str(sample["from"]), str(sample["to"])]
    subprocess.run(  # unchecked: a mirror may lack a blob git's rename detection reads
        ["git", "-C", str(repo_path), "diff", "--raw", *refs],
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    read = cast("list[str]", sample["read"])
    subprocess.run(
        ["git", "-C", str(repo_path), "cat-file", "--batch"],
        input="".join(f"{blob}\n" for blob in read).encode(),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def generate_vs_git(repo_path: Path, config: Path, samples: int = 11) -> dict[str, object]:
    """Medians over `samples` fresh processes of generate, each beside the git floor."""
    generate, floor = [], []
    sample: dict[str, object] = {}
    for _ in range(samples):
        command = [sys.executable, __file__, "--generate-once", str(repo_path), str(config)]
        sample = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
        generate.append(float(cast("float", sample["s"])))
        floor.append(git_floor(repo_path, sample))
    generate_s, git_s = statistics.median(generate), statistics.median(floor)
    return {
        "generate_s": round(generate_s, 4),
        "git_floor_s": round(git_s, 4),
        "ratio": round(generate_s / git_s, 2),
        "blobs_read": len(cast("list[str]", sample["read"])),
    }


def blobs_of(repo_path: Path, config: Path, tag: str) -> dict[str, object]:
    """In a fresh process: the two refs of the release `tag` and every blob a cold judgement of
    it reads, as backfill judges it (leniently, with the settings given)."""
    from release_safety.common.errors import InputError
    from release_safety.git.repository import GitRepo
    from release_safety.release.generate import analyse_release, prepare

    repo = GitRepo(repo_path)
    release, settings, _ = prepare(repo, tag, config=config)
    with contextlib.suppress(InputError):
        analyse_release(repo, settings, release, backfilled=True, strict=False)
    read = list(repo.blobs._data)
    repo.close()
    return {"from": release.from_ref or release.to_ref, "to": release.to_ref, "read": read}


def cold_backfill(
    python: str, repo_path: Path, config: Path, into: Path, jobs: int, pycache: Path
) -> tuple[float, float]:
    """The wall and CPU seconds (user and system, with its workers and git processes) of one
    cold backfill (an empty cache) by `python`'s build, its index and artifacts under `into`,
    its bytecode under `pycache`."""
    env = bytecode.cached(pycache)
    env["RELEASE_SAFETY_CACHE_DIR"] = str(into / "cache")
    if python != sys.executable:  # the landed build reads its own sources, never this one's
        env.pop("PYTHONPATH", None)
    cli = [python, "-m", "release_safety", "backfill", "--repo", str(repo_path)]
    cli += ["--config", str(config), "--index", str(into / "index.json"), "--jobs", str(jobs)]
    cli += ["--artifacts-dir", str(into / "artifacts")]
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cli, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime


def same_answers(one: Path, other: Path) -> bool:
    """True when two backfills wrote the same index and the same artifacts, byte for byte."""
    if not filecmp.cmp(one / "index.json", other / "index.json", shallow=False):
        return False
    found = sorted(p.relative_to(one) for p in (one / "artifacts").rglob("*.json"))
    if found != sorted(p.relative_to(other) for p in (other / "artifacts").rglob("*.json")):
        return False
    return all(filecmp.cmp(one / p, other / p, shallow=False) for p in found)


def versus_generate_loop(
    name: str, repo_path: Path, folder: Path, jobs: int, runs: int, before: str | None = None
) -> dict[str, object]:
    """Cold backfills (an empty cache each) and the git loop of the same releases, alternately
    (with `before`, that build's cold backfill too, and the answers compared); the blobs each
    release's generate reads are listed first (untimed), and each build's bytecode written."""
    from release_safety.git.repository import GitRepo
    from release_safety.settings.model import load_settings

    config = folder / "settings.toml"
    config.write_text(SETTINGS[name])
    repo = GitRepo(repo_path)
    tags = [tag.tag for tag in repo.release_tags(load_settings(repo_path, config).tags)]
    repo.close()

    def listed(tag: str) -> dict[str, object]:
        command = [sys.executable, __file__, "--blobs-of", str(repo_path), str(config), tag]
        return cast(
            "dict[str, object]",
            json.loads(subprocess.run(command, check=True, capture_output=True).stdout),
        )

    with ThreadPoolExecutor(max_workers=jobs) as pool:  # untimed: two processes at a time
        samples = list(pool.map(listed, tags))
    builds = {"this": sys.executable, **({"before": before} if before else {})}
    for label, python in builds.items():  # untimed: each build's bytecode written
        cold_backfill(python, repo_path, config, folder / f"warm-{label}", jobs, folder / label)
    times: dict[str, list[float]] = {label: [] for label in builds}
    cpu: dict[str, list[float]] = {label: [] for label in builds}
    loops: list[float] = []
    same = True
    for run in range(runs):
        for label, python in builds.items():
            into = folder / f"{label}{run}"
            wall, used = cold_backfill(python, repo_path, config, into, jobs, folder / label)
            times[label].append(wall)
            cpu[label].append(used)
        loops.append(sum(git_floor(repo_path, sample) for sample in samples))
        if before:
            same = same and same_answers(folder / f"this{run}", folder / f"before{run}")
    backfill_s, loop_s = statistics.median(times["this"]), statistics.median(loops)
    found: dict[str, object] = {
        "releases": len(json.loads((folder / "this0" / "index.json").read_text())["entries"]),
        "blobs_read": sum(len(cast("list[str]", sample["read"])) for sample in samples),
        "cold_backfill_s": [round(t, 2) for t in times["this"]],
        "cold_backfill_cpu_s": round(statistics.median(cpu["this"]), 2),
        "git_loop_s": [round(t, 2) for t in loops],
        "ratio": round(backfill_s / loop_s, 2),
    }
    if before:
        found |= {
            "before_backfill_s": [round(t, 2) for t in times["before"]],
            "before_backfill_cpu_s": round(statistics.median(cpu["before"]), 2),
            "before_ratio": round(statistics.median(times["before"]) / loop_s, 2),
            "same_answers": same,
        }
    return found | {"load_average": [round(x, 2) for x in os.getloadavg()]}


def bench(
    name: str, repo_path: Path, folder: Path, jobs: int, cold_only: bool = False
) -> dict[str, object]:
    config = folder / "settings.toml"
    config.write_text(SETTINGS[name])
    env = {**os.environ, "RELEASE_SAFETY_CACHE_DIR": str(folder / "cache")}
    index = folder / "index.json"
    cli = [sys.executable, "-m", "release_safety", "backfill", "--repo", str(repo_path)]
    cli += ["--config", str(config), "--index", str(index), "--jobs", str(jobs)]
    cold = timed(cli, env)
    entries = json.loads(index.read_text())["entries"]
    verdicts: dict[str, int] = {}
    for entry in entries:
        verdicts[str(entry["rollingUpdateSafe"])] = (
            verdicts.get(str(entry["rollingUpdateSafe"]), 0) + 1
        )
    cold_run = {
        "releases": len(entries),
        "cold_backfill_s": round(cold, 2),
        "verdicts": verdicts,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    if cold_only:
        return cold_run
    warm = timed([*cli, "--regenerate"], env)
    return {
        **cold_run,
        "warm_regenerate_s": round(warm, 2),
        **generate_vs_git(repo_path, config),
    }


def release_pairs(repo_path: Path) -> list[tuple[str, str]]:
    """Consecutive release tags (the default tag pattern), oldest first, as the tool sees them."""
    from release_safety.contract.versions import TagPattern
    from release_safety.git.repository import GitRepo

    repo = GitRepo(repo_path)
    try:
        tags = [tag.tag for tag in repo.release_tags(TagPattern())]
    finally:
        repo.close()
    return list(itertools.pairwise(tags))


def git_loop(repo_path: Path, pairs: list[tuple[str, str]]) -> float:
    """The floor a backfill is compared with: `git log` and `git diff --stat` of every pair."""
    start = time.perf_counter()
    for old, new in pairs:
        for args in (["log", "--oneline", f"{old}..{new}"], ["diff", "--stat", old, new]):
            subprocess.run(
                ["git", "-C", str(repo_path), *args], check=True, stdout=subprocess.DEVNULL
            )
    return time.perf_counter() - start


def versus_git_loop(repo_path: Path, folder: Path, jobs: int, runs: int) -> dict[str, object]:
    """Cold backfills (an empty cache each) and git loops, alternately; medians and ratio."""
    pairs = release_pairs(repo_path)
    backfills, loops = [], []
    for run in range(runs):
        env = {**os.environ, "RELEASE_SAFETY_CACHE_DIR": str(folder / f"cache{run}")}
        index = folder / f"index{run}.json"
        cli = [sys.executable, "-m", "release_safety", "backfill", "--repo", str(repo_path)]
        backfills.append(timed([*cli, "--index", str(index), "--jobs", str(jobs)], env))
        loops.append(git_loop(repo_path, pairs))
    backfill_s, loop_s = statistics.median(backfills), statistics.median(loops)
    return {
        "releases": len(json.loads((folder / "index0.json").read_text())["entries"]),
        "cold_backfill_s": [round(t, 2) for t in backfills],
        "git_loop_s": [round(t, 2) for t in loops],
        "ratio": round(backfill_s / loop_s, 2),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--svix", type=Path, help="bare git directory of svix/svix-webhooks")
    parser.add_argument("--harbor", type=Path, help="bare git directory of goharbor/harbor")
    parser.add_argument("--synthetic", action="store_true", help="500 tags, 2,000 migrations")
    parser.add_argument("--supabase", type=Path, help="bare git directory of supabase/auth")
    parser.add_argument("--runs", type=int, default=3, help="runs of the supabase comparison")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cold-only", action="store_true", help="svix/harbor: the cold backfill")
    parser.add_argument(
        "--versus-git-loop", action="store_true", help="svix/harbor: cold backfill / git loop"
    )
    parser.add_argument(
        "--before", help="--versus-git-loop: a Python whose build is the landed one, compared"
    )
    parser.add_argument("--generate-once", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--blobs-of", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate_once:
        print(json.dumps(generate_once(*args.generate_once)))
        return
    if args.blobs_of:
        repo, config, tag = args.blobs_of
        print(json.dumps(blobs_of(Path(repo), Path(config), tag)))
        return
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="bench-backfill-") as tmp:
        for name, source in (("svix", args.svix), ("harbor", args.harbor)):
            if source is not None:
                folder = Path(tmp) / name
                folder.mkdir()
                repo = clone(source, folder)
                if args.versus_git_loop:
                    loop = versus_generate_loop(
                        name, repo, folder, args.jobs, args.runs, args.before
                    )
                    results[f"{name} versus the git loop"] = loop
                    print(name, loop, file=sys.stderr, flush=True)
                    continue
                results[name] = bench(name, repo, folder, args.jobs, args.cold_only)
                print(name, results[name], file=sys.stderr, flush=True)
        if args.supabase is not None:
            folder = Path(tmp) / "supabase"
            folder.mkdir()
            repo = clone(args.supabase, folder)
            results["supabase"] = versus_git_loop(repo, folder, args.jobs, args.runs)
            print("supabase", results["supabase"], file=sys.stderr, flush=True)
        if args.synthetic:
            import synthetic_repo

            folder = Path(tmp) / "synthetic"
            folder.mkdir()
            start = time.perf_counter()
            repo = synthetic_repo.build(folder / "repo.git")
            built = time.perf_counter() - start
            print(f"synthetic repository built in {built:.1f}s", file=sys.stderr, flush=True)
            results["synthetic"] = bench("synthetic", repo, folder, args.jobs)
            print("synthetic", results["synthetic"], file=sys.stderr, flush=True)
    print(_table(results))


def _table(results: dict[str, Any]) -> str:
    """The targets' figures as a Markdown table (supabase's comparison as its JSON, below)."""
    lines = [
        "| target | releases | cold backfill s | warm `--regenerate` s | generate s | git floor s"
        " | generate / git | blobs read | verdicts | load average |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    loops = {name: found for name, found in results.items() if "versus" in name}
    for name, found in results.items():
        if name == "supabase" or name in loops:
            continue
        verdicts = ", ".join(f"{k.lower()} {n}" for k, n in sorted(found["verdicts"].items()))
        cells = [
            name,
            found["releases"],
            found["cold_backfill_s"],
            found.get("warm_regenerate_s", "–"),
            found.get("generate_s", "–"),
            found.get("git_floor_s", "–"),
            f"**{found['ratio']}**" if "ratio" in found else "–",
            found.get("blobs_read", "–"),
            verdicts,
            " / ".join(str(x) for x in found["load_average"]),
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    if "supabase" in results:
        lines += ["", "supabase: " + json.dumps(results["supabase"])]
    if loops:
        lines = [] if len(loops) == len(results) else [*lines, ""]
        compared = any("before_ratio" in found for found in loops.values())
        extra = " | landed build s | landed / git loop | same answers" if compared else ""
        lines += [
            "| target | releases | cold backfill s (CPU s) | git loop s | backfill / git loop"
            f"{extra} | blobs read by the loop | load average |",
            "| --- | ---: | --- | --- | ---: |"
            + (" --- | ---: | --- |" if compared else "")
            + " ---: | --- |",
        ]
        for name, found in loops.items():
            cells = [
                name,
                found["releases"],
                ", ".join(str(t) for t in found["cold_backfill_s"])
                + f" ({found['cold_backfill_cpu_s']})",
                ", ".join(str(t) for t in found["git_loop_s"]),
                f"**{found['ratio']}**",
            ]
            if compared:
                cells += [
                    ", ".join(str(t) for t in found["before_backfill_s"])
                    + f" ({found['before_backfill_cpu_s']})",
                    found["before_ratio"],
                    "yes" if found["same_answers"] else "**NO**",
                ]
            cells += [found["blobs_read"], " / ".join(str(x) for x in found["load_average"])]
            lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
