"""The config surface's verdict on single commits of a fetched Go repository (one-change
releases on real history: each commit judged against its parent).

Usage: python bench/config_go_history.py GIT_DIR SOURCES COMMIT...
  e.g. python bench/config_go_history.py /tmp/kr.git '["**/*.go"]' 2a552eace 462cea914
(GIT_DIR a clone of a repository the search tool's `fetch` brought under /work/.mirror.)
"""

from __future__ import annotations

import sys
from pathlib import Path

from release_safety.git.repository import GitRepo
from release_safety.settings.model import parse_settings
from release_safety.surfaces.config import analyse


def main() -> None:
    repo, sources, *commits = sys.argv[1:]
    settings = parse_settings(f"[config]\nsources = {sources}\n", "bench.toml")
    git = GitRepo(Path(repo))
    for commit in commits:
        report = analyse(git.snapshot(f"{commit}^"), git.snapshot(commit), settings)
        breaking = any(f.severity == "breaking" for f in report.findings)
        verdict = "unknown" if not report.checked else "false" if breaking else "true"
        resolved = len(report.coverage.understood) if report.coverage else 0
        found = [(f.rule, f.file, f.line) for f in report.findings]
        print(f"{commit} {verdict} resolved={resolved} {found}")


if __name__ == "__main__":
    main()
