"""The migrations surface on real services that use diesel, prisma, sqlx or drizzle, several of
them shipping more than one database: per release, what the default search (no settings)
finds, on which engine it judges each root, and the findings.

    .venv/bin/python bench/bench_migration_tools.py [--releases 6] [SERVICE ...]

Each service's mirror (`/work/.mirror/OWNER+NAME/repo`, brought with the search tool's
`fetch`) is cloned to a temporary folder; its last `--releases` release tags (pre-releases
left out) are judged pairwise, each against the one before, by the surface's `analyse` with
the default settings, in this process. The verdict column is the migrations surface's own:
`false` for a breaking finding, `unknown` for an unknown one, else `true`.
"""

from __future__ import annotations

import argparse
import itertools
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from release_safety.contract.reports import MigrationsReport
from release_safety.git.repository import GitRepo
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.analyse import analyse

MIRRORS = Path("/work/.mirror")
SERVICES = {
    "vaultwarden": ("dani-garcia+vaultwarden", r"\d+\.\d+\.\d+"),
    "umami": ("umami-software+umami", r"v\d+\.\d+\.\d+"),
    "atuin": ("atuinsh+atuin", r"v\d+\.\d+\.\d+"),
    "karakeep": ("karakeep-app+karakeep", r"v\d+\.\d+\.\d+"),
}
"""Each service: its mirror and the pattern of its release tags."""


def _tags(repo: Path, pattern: str, count: int) -> list[str]:
    listed = subprocess.run(
        ["git", "tag", "--sort=v:refname"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.split()
    return [t for t in listed if re.fullmatch(pattern, t)][-(count + 1) :]


def _verdict(report: MigrationsReport) -> str:
    if report.breaking():
        return "false"
    return "unknown" if report.unknown() else "true"


def _databases(report: MigrationsReport) -> str:
    said = [line for line in report.coverage.tried if line.startswith("database ")]
    return "; ".join(line.removeprefix("database ") for line in said) or "PostgreSQL (assumed)"


def _short(path: str | None) -> str:
    """A finding's file as its last three parts (the database folder, the migration)."""
    return "/".join((path or "").split("/")[-3:])


def _findings(report: MigrationsReport) -> str:
    shown = Counter(
        f"{f.severity} {f.rule} {_short(f.file)}:{f.line}"
        for f in report.findings
        if f.severity != "advisory"
    )
    return "; ".join(k + (f" ×{n}" if n > 1 else "") for k, n in sorted(shown.items())) or "-"


def run(service: str, releases: int) -> None:
    mirror, pattern = SERVICES[service]
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / service
        subprocess.run(
            ["git", "clone", "--quiet", "--bare", str(MIRRORS / mirror / "repo"), str(clone)],
            check=True,
        )
        tags = _tags(clone, pattern, releases)
        repo = GitRepo(clone)
        print(f"\n### {service}\n")
        print("| release | judged | databases | verdict | findings (not advisory) | s |")
        print("|---|---|---|---|---|---|")
        try:
            for before, after in itertools.pairwise(tags):
                start = time.perf_counter()
                report = analyse(repo.snapshot(before), repo.snapshot(after), Settings())
                took = time.perf_counter() - start
                added = len(report.files)
                print(
                    f"| {before} → {after} | {added} | {_databases(report)} | "
                    f"{_verdict(report)} | {_findings(report)} | {took:.1f} |"
                )
                sys.stdout.flush()
        finally:
            repo.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("services", nargs="*", default=list(SERVICES))
    parser.add_argument("--releases", type=int, default=6)
    args = parser.parse_args()
    for service in args.services:
        run(service, args.releases)


if __name__ == "__main__":
    main()
