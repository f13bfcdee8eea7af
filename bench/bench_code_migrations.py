"""Migrations written in code (Rails, Django, Alembic) on real services, release by release.

    python bench/bench_code_migrations.py NAME=/work/.mirror/OWNER+NAME/repo ... [--last 8] \
        [--before /work/main/.venv/bin/python]

Each repository (a bare mirror brought with the search tool's `fetch`, cloned to a temporary
folder here and never committed) is judged on its last N release tags with the settings a user
of a service whose only surface is its database would write: the other surfaces `absent` with
their reason, the migrations found by the default discovery (no `[[migrations.sources]]`).
One Markdown row per release: how many migrations it adds, the migrations surface's verdict (the
other surfaces are declared absent and left out), the migrations findings it rests on
(rule, file:line), and, with `--before`, the same verdict from the tool before migrations in
code were read (another Python with release-safety installed: the landed code).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_backfill import clone
from bench_verdicts import release_tags

SETTINGS = """\
tag_pattern = '^v?(?P<version>\\d+\\.\\d+(?:\\.\\d+)?)$'
[rest]
absent = "the benchmark judges the database migrations alone, not the HTTP API"
[mcp]
absent = "the benchmark judges the database migrations alone; the service has no MCP server"
[config]
absent = "the benchmark judges the database migrations alone, not the configuration"
[deployment]
absent = "the benchmark judges the database migrations alone, not the deployment files"
"""


def generate(
    python: str, repo: Path, tag: str, settings: Path, folder: Path
) -> tuple[dict[str, Any], float]:
    evidence = folder / f"{tag}.evidence.json"
    command = [python, "-m", "release_safety", "generate", "--repo", str(repo), "--to", tag]
    command += ["--config", str(settings), "--out", str(folder / f"{tag}.json")]
    command += ["--evidence", str(evidence)]
    start = time.perf_counter()
    subprocess.run(command, check=False, capture_output=True, env=os.environ)
    found = json.loads(evidence.read_text())
    artifact = json.loads((folder / f"{tag}.json").read_text())
    found["added"] = artifact.get("migrations", {}).get("count", 0)
    return found, time.perf_counter() - start


def migrations_verdict(evidence: dict[str, Any]) -> object:
    """The migrations surface's own answer: unknown when it was not checked or a finding of it
    is unknown, false when one is breaking, else true (the other surfaces are left out: the
    benchmark declares them absent, and a service's files may say otherwise)."""
    surface = next(s for s in evidence["surfaces"] if s["surface"] == "migrations")
    severities = {
        f["severity"]
        for f in evidence["findings"]
        if f["surface"] == "migrations" and not f.get("acknowledged")
    }
    if not surface["checked"] or "unknown" in severities:
        return "unknown"
    return "breaking" not in severities


def shown(verdict: object) -> str:
    return {True: "true", False: "**false**", "unknown": "unknown"}[verdict]  # type: ignore[index]


def findings(evidence: dict[str, Any]) -> str:
    parts = []
    blocking = [f for f in evidence["findings"] if f["severity"] in ("breaking", "unknown")]
    for finding in [f for f in blocking if f["surface"] == "migrations"]:
        where = f"{finding['file'].rpartition('/')[2]}:{finding['line']}" if finding["file"] else ""
        parts.append(f"`{finding['rule']}` {where}".strip())
    return "; ".join(parts[:6]) + (f"; +{len(parts) - 6} more" if len(parts) > 6 else "") or "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("services", nargs="+", help="NAME=/path/to/bare/repo")
    parser.add_argument("--last", type=int, default=8)
    parser.add_argument("--before", help="a Python whose release-safety is the landed code")
    options = parser.parse_args()
    load = os.getloadavg()[0]
    decisive_now = decisive_before = total = 0
    print("| service | release | migrations added | verdict | findings it rests on | before | s |")
    print("|---|---|---|---|---|---|---|")
    for service in options.services:
        name, _, path = service.partition("=")
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            repo = clone(Path(path), folder)
            settings = folder / "settings.toml"
            settings.write_text(SETTINGS)
            for tag in release_tags(repo, settings, options.last):
                evidence, seconds = generate(sys.executable, repo, tag, settings, folder)
                before = "-"
                if options.before:
                    (folder / "before").mkdir(exist_ok=True)
                    old, _ = generate(options.before, repo, tag, settings, folder / "before")
                    before = shown(migrations_verdict(old))
                    decisive_before += migrations_verdict(old) != "unknown"
                verdict = migrations_verdict(evidence)
                decisive_now += verdict != "unknown"
                total += 1
                print(
                    f"| {name} | {tag} | {evidence['added']} | {shown(verdict)} | "
                    f"{findings(evidence)} | {before} | {seconds:.1f} |"
                )
    print()
    print(
        f"decisive (true or false): {decisive_now} of {total} releases"
        + (f"; before: {decisive_before} of {total}" if options.before else "")
    )
    print(f"load average: {load:.1f} before, {os.getloadavg()[0]:.1f} after (2 cores, shared)")


if __name__ == "__main__":
    main()
