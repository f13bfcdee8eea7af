"""Verdicts on one-change releases of a real knex service: each commit that adds or edits a
migration using `.alter()`, judged against its parent (the migrations surface only).

Clones the bare mirror into a temporary folder, finds the commits, and prints, per commit and
migration, the findings (rule, severity, line) the migrations surface reports.

    PYTHONPATH=src .venv/bin/python bench/bench_knex_alter.py /work/.mirror/OWNER+NAME/repo
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from release_safety.git.repository import GitRepo
from release_safety.settings.model import Settings
from release_safety.surfaces.migrations.analyse import analyse


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mirror", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", str(args.mirror), str(clone)], check=True)
        commits = _git(clone, "log", "--reverse", "--format=%H", "-G", r"\.alter\(\)").split()
        git = GitRepo(clone)
        try:
            for commit in commits:
                parents = _git(clone, "rev-list", "--parents", "-n", "1", commit).split()[1:]
                old = git.snapshot(parents[0]) if parents else None
                report = analyse(old, git.snapshot(commit), Settings())
                subject = _git(clone, "log", "-1", "--format=%s", commit).strip()
                print(f"{commit[:8]} {subject}")
                for found in report.findings:
                    print(f"  {found.severity:9} {found.rule} {found.file}:{found.line}")
                    print(f"            {found.message}")
        finally:
            git.close()


if __name__ == "__main__":
    main()
