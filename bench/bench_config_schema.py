"""A configuration JSON Schema judged release by release, as a contract and as a data file.

    python bench/bench_config_schema.py --repo /path/to/kratos.git [--last 12] \
        [--schema embedx/config.schema.json] [--baseline /path/to/older/src]

The repository is a public one brought with the search tool's `fetch` (a bare git directory),
cloned to a temporary folder here and never committed. For each pair of consecutive release
tags among the last N, the config surface reads the schema (`kind = "jsonschema"`, no prefix,
as ory/x configx names its variables) and one Markdown row says the verdict (false when a
finding is breaking, unknown when one is unknown), the variables understood, and the findings
per rule. `--baseline` runs the same rows with another source tree's package (a checkout from
before the schema source kind, which read the schema as a data file) for the comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_backfill import clone


def rows(repo: Path, schema: str, last: int) -> list[dict[str, Any]]:
    """One row per release: tag, verdict, variables understood, findings per rule."""
    from release_safety.git.repository import GitRepo, GitSnapshot
    from release_safety.settings.model import ConfigSettings, ConfigSource, Settings
    from release_safety.surfaces.config import analyse

    repository = GitRepo(repo)
    try:
        tags = [t.tag for t in repository.release_tags(Settings().tags)][-(last + 1) :]
        entry: dict[str, Any] = {"path": schema, "env_prefix": ""}
        if "kind" in ConfigSource.model_fields:  # not in a baseline before the schema kind
            entry["kind"] = "jsonschema"
        settings = Settings(config=ConfigSettings.model_validate({"sources": [entry]}))
        out = []
        for before, after in pairwise(tags):
            old, new = GitSnapshot(repository, before), GitSnapshot(repository, after)
            report = analyse(old, new, settings)
            severities = {f.severity for f in report.findings}
            verdict = "unknown" if "unknown" in severities else "breaking" in severities
            understood = len(report.coverage.understood) if report.coverage else 0
            rules = Counter(f.rule for f in report.findings)
            out.append(
                {
                    "tag": after,
                    "verdict": {True: "false", False: "true"}.get(verdict, verdict),
                    "understood": understood,
                    "findings": sum(rules.values()),
                    "rules": dict(sorted(rules.items())),
                }
            )
        return out
    finally:
        repository.close()


def table(title: str, found: list[dict[str, Any]]) -> str:
    lines = [f"### {title}", "", "| release | verdict | variables | findings | rules |"]
    lines.append("| --- | --- | --- | --- | --- |")
    for r in found:
        rules = ", ".join(f"`{k}` {v}" for k, v in r["rules"].items()) or "—"
        lines.append(
            f"| {r['tag']} | {r['verdict']} | {r['understood']} | {r['findings']} | {rules} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--schema", default="embedx/config.schema.json")
    parser.add_argument("--last", type=int, default=12)
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--rows", action="store_true", help="print the rows as JSON (internal)")
    args = parser.parse_args()
    if args.rows:
        print(json.dumps(rows(args.repo, args.schema, args.last)))
        return
    with tempfile.TemporaryDirectory() as folder:
        repo = clone(args.repo, Path(folder))
        runs = [("contract (this tree)", os.environ.get("PYTHONPATH", ""))]
        if args.baseline is not None:
            runs.append(("data file (baseline)", str(args.baseline)))
        for title, path in runs:
            command = [sys.executable, __file__, "--rows", "--repo", str(repo)]
            command += ["--schema", args.schema, "--last", str(args.last)]
            env = {**os.environ, "PYTHONPATH": path}
            done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
            found = json.loads(done.stdout)
            print(table(title, found))
            total = sum(r["findings"] for r in found)
            print(f"\n{title}: {total} findings over {len(found)} releases\n")


if __name__ == "__main__":
    main()
