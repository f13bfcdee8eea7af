"""Judge the deployment surface over a real repository's history: each commit that touched a
deployment descriptor against the one before it (the surface alone, default settings).

Usage: PYTHONPATH=src .venv/bin/python bench/deploy_compose_history.py MIRROR_GIT_DIR [N]
(clones the bare mirror to a temporary folder; prints one line per commit pair, newest last)."""

from __future__ import annotations

import itertools
import subprocess
import sys
import tempfile

from release_safety.git.repository import GitRepo
from release_safety.settings.model import Settings
from release_safety.surfaces.deployment import analyse


def main(mirror: str, count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["git", "clone", "-q", mirror, folder], check=True)
        log = ["git", "-C", folder, "log", "--format=%h", f"-{count + 1}", "--", "*compose*.y*ml"]
        commits = subprocess.run(log, check=True, capture_output=True, text=True).stdout.split()
        repo = GitRepo(folder)
        for new, old in reversed(list(itertools.pairwise(commits))):
            report = analyse(repo.snapshot(old), repo.snapshot(new), Settings())
            severities = {f.severity for f in report.findings}
            verdict = (
                "false"
                if "breaking" in severities
                else "unknown"
                if "unknown" in severities or not report.checked
                else "true"
            )
            print(f"{old}..{new} {verdict}")
            for f in report.findings:
                print(f"  {f.severity} {f.rule} {f.file}:{f.line} {f.message}")
            for gap in report.coverage.unmodelled:
                print(f"  unmodelled {gap.file}:{gap.line} {gap.what}")
        repo.close()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10)
