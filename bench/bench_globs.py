"""Glob matching speed: every default discovery glob against every path of a real tree.

Usage: python bench/bench_globs.py [BARE_GIT_DIR ...] (default: the harbor and svix mirrors).
Prints, per repository, the paths, the matches and the best of 30 runs of `discovery.matched`
over the default globs of every surface (compiled patterns cached, as in a real run).
"""

from __future__ import annotations

import subprocess
import sys
import time

from release_safety.settings.model import (
    DEFAULT_CONFIG_SOURCES,
    DEFAULT_DEPLOYMENT_SOURCES,
    DEFAULT_MCP_SNAPSHOTS,
    DEFAULT_REST_SPECS,
)
from release_safety.surfaces import discovery

MIRRORS = ["/work/.mirror/goharbor+harbor/repo", "/work/.mirror/svix+svix-webhooks/repo"]
PATTERNS = (
    *DEFAULT_REST_SPECS,
    *DEFAULT_MCP_SNAPSHOTS,
    *DEFAULT_CONFIG_SOURCES,
    *DEFAULT_DEPLOYMENT_SOURCES,
    "**/migrations/**/*.sql",
)


class _Tree:
    """The few snapshot methods `discovery.matched` uses, over a fixed list of paths."""

    def __init__(self, paths: list[str]) -> None:
        self._paths = paths

    def paths(self) -> list[str]:
        return self._paths

    def tree_key(self) -> None:
        return None  # nothing kept between runs: each run matches every path

    def changed_from(self) -> None:
        return None


def main(dirs: list[str]) -> None:
    for git_dir in dirs:
        listing = subprocess.run(
            ["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        tree = _Tree(listing)
        best = float("inf")
        for _ in range(30):
            start = time.perf_counter()
            found = discovery.matched(tree, PATTERNS)  # type: ignore[arg-type]
            best = min(best, time.perf_counter() - start)
        print(f"{git_dir}: {len(listing)} paths, {len(found)} matched, best {best * 1000:.1f} ms")


if __name__ == "__main__":
    main(sys.argv[1:] or MIRRORS)
