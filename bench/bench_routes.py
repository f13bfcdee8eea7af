"""REST routes read from code, on real services without an OpenAPI document, over their last 15
releases: per release the routes read at each tag, the REST surface's findings (route-removed,
route-registration-dynamic, spec drift) and what reading the routes cost.

The services are public repositories the search tool's `fetch` brings (bare git directories under
/work/.mirror), cloned to a temporary folder; their code is never committed. Each release pair is
judged as `backfill` judges it: in one process, in release order, so a release re-reads only the
blobs it changed (`read s` is reading the new tag's routes with the previous release's memo warm;
`first read s` is the oldest tag read cold; `surface s` the whole REST surface on the pair, both
tags' routes, the comparison and, with a document, its diff and the drift). Prints Markdown
tables (progress on stderr).

Usage: python bench/bench_routes.py [--repo NAME] [--releases N] [--detail]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

from release_safety.contract.finding import Finding
from release_safety.git.repository import GitRepo
from release_safety.settings.model import Settings, parse_settings
from release_safety.surfaces.rest.analyse import analyse
from release_safety.surfaces.rest.routes.read import read_routes

MIRRORS = Path("/work/.mirror")
SERVICES = {
    "umami": ("umami-software+umami", "Next.js (pages, then app router)", ""),
    "miniflux": ("miniflux+v2", "Go (gorilla/mux, then net/http 1.22)", ""),
    "healthchecks": ("healthchecks+healthchecks", "Django urlpatterns", ""),
    "gotify": ("gotify+server", "Go (gin), routes only", ""),
    "mealie": ("mealie-recipes+mealie", "FastAPI routers across modules", ""),
    "kutt": ("thedevs-network+kutt", "Express", ""),
    "lemmy": ("LemmyNet+lemmy", "Rust, actix-web scopes", ""),
    "gotify-spec": (
        "gotify+server",
        "Go (gin) with its Swagger document: spec drift",
        '[rest]\nspecs = ["docs/spec.json"]\n',
    ),
}
_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")


def releases(git_dir: Path, count: int) -> list[str]:
    """The last `count + 1` stable version tags in version order (one tag per version)."""
    tags = subprocess.run(
        ["git", "--git-dir", str(git_dir), "tag"], capture_output=True, text=True, check=True
    ).stdout.split()
    by_version: dict[tuple[int, ...], str] = {}
    for tag in tags:
        match = _VERSION.match(tag)
        if match:
            version = tuple(int(p) for p in match.groups())
            if version not in by_version or tag.startswith("v"):
                by_version[version] = tag
    return [by_version[v] for v in sorted(by_version)][-(count + 1) :]


def _what(finding: Finding) -> str:
    """A removed route by its method and path, any other finding by its place."""
    if finding.rule == "route-removed":
        return finding.message.split(" removed:")[0]
    return finding.place() or ""


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def run(name: str, count: int, detail: bool) -> None:
    folder, stack, toml = SERVICES[name]
    settings = parse_settings(toml, "bench.toml") if toml else Settings()
    assert settings is not None
    with tempfile.TemporaryDirectory(prefix="routes-bench-") as work:
        clone = Path(work) / f"{name}.git"
        source = MIRRORS / folder / "repo"
        subprocess.run(["git", "clone", "-q", "--bare", str(source), str(clone)], check=True)
        git = GitRepo(clone)
        tags = releases(clone, count)
        first = git.snapshot(tags[0])
        started = time.perf_counter()
        read_routes(first, settings.rest.routes)
        cold = time.perf_counter() - started
        print(f"\n### {name}: {stack}, {len(first.paths())} files at {tags[0]}\n")
        print(f"First read (cold, {tags[0]}): {cold:.3f} s; load average {load()}.\n")
        print("| release | routes | read s | surface s | verdict | findings |")
        print("| --- | --- | --- | --- | --- | --- |")
        lines = []
        for old_tag, new_tag in pairwise(tags):
            old, new = git.snapshot(old_tag), git.snapshot(new_tag)
            started = time.perf_counter()
            reading = read_routes(new, settings.rest.routes)
            spent = time.perf_counter() - started
            started = time.perf_counter()
            report = analyse(old, new, settings)
            surface = time.perf_counter() - started
            breaking = [f for f in report.findings if f.severity == "breaking"]
            unknown = [f for f in report.findings if f.severity == "unknown"]
            verdict = (
                "not checked"
                if not report.checked
                else "false"
                if breaking
                else "unknown"
                if unknown
                else "true"
            )
            shown = "; ".join(
                f"{f.rule} {_what(f)}"
                for f in report.findings
                if f.severity != "advisory" or detail
            )
            drift = sum(1 for f in report.findings if f.rule == "route-spec-drift")
            if drift and not detail:
                shown = (shown + "; " if shown else "") + f"{drift} spec-drift advisories"
            lines.append(
                f"| {old_tag}..{new_tag} | {len(reading.routes)} | {spent:.3f} | {surface:.3f} | "
                f"{verdict} | "
                f"{shown or '–'} |"
            )
            print(f"{name} {new_tag} done", file=sys.stderr)
        print("\n".join(lines))
        drift = [f for f in report.findings if f.rule == "route-spec-drift"]
        if drift:
            print(f"\nSpec drift at {tags[-1]}:\n")
            print("\n".join(f"- `{f.place()}`: {f.message}" for f in drift))
        print(f"\nLoad average after: {load()}.")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", choices=[*SERVICES, "all"], default="all")
    parser.add_argument("--releases", type=int, default=15)
    parser.add_argument("--detail", action="store_true", help="list advisories too")
    options = parser.parse_args()
    for name in SERVICES if options.repo == "all" else [options.repo]:
        run(name, options.releases, options.detail)


if __name__ == "__main__":
    main()
