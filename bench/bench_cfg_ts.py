"""The config surface on a real TypeScript service: variables resolved, reads not modelled and
the verdict of each release between consecutive tags.

Usage: python bench/bench_cfg_ts.py BARE_GIT_DIR GLOB [GLOB ...] --tags N
Clones the repository into a temporary folder, then judges the last N tags pairwise with
`config.sources` set to the globs. Prints one line per release: refs, checked, variables
understood at the new tag, gaps (not modelled), and the findings by rule.
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import tempfile
import time
from collections import Counter

from release_safety.gitrepo import GitRepo
from release_safety.settings import ConfigSettings, Settings
from release_safety.surfaces.config import analyse


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mirror")
    parser.add_argument("globs", nargs="+")
    parser.add_argument("--tags", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["git", "clone", "-q", "--no-checkout", args.mirror, folder], check=True)
        tags = subprocess.run(
            ["git", "-C", folder, "tag", "--sort=creatordate"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[-args.tags :]
        repo = GitRepo(folder)
        settings = Settings(config=ConfigSettings.model_validate({"sources": args.globs}))
        for old, new in itertools.pairwise(tags):
            start = time.perf_counter()
            report = analyse(repo.snapshot(old), repo.snapshot(new), settings)
            took = time.perf_counter() - start
            if report.reason and not report.checked:
                print(f"  reason: {report.reason[:300]}")
            rules = Counter(f.rule for f in report.findings)
            print(
                f"{old}..{new}: checked={report.checked} "
                f"understood={len(report.coverage.understood)} "
                f"unmodelled={len(report.coverage.unmodelled)} "
                f"findings={dict(sorted(rules.items()))} {took:.1f}s"
            )


if __name__ == "__main__":
    main()
