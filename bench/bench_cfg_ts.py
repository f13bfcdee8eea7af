"""The config surface on a real TypeScript service: variables resolved, reads not modelled and
the verdict of each release between consecutive tags.

Usage: python bench/bench_cfg_ts.py BARE_GIT_DIR GLOB [GLOB ...] --tags N [--edit FILE OLD NEW]
Clones the repository into a temporary folder, then judges the last N tags pairwise with
`config.sources` set to the globs. Prints one line per release: refs, checked, variables
understood at the new tag, gaps (not modelled), and the findings by rule. `--edit` (repeated)
also judges a one-change release: the last tag with OLD replaced by NEW in FILE, committed.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import tempfile
import time
from collections import Counter

from release_safety.git.repository import GitRepo
from release_safety.settings.model import ConfigSettings, Settings
from release_safety.surfaces.config import analyse


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mirror")
    parser.add_argument("globs", nargs="+")
    parser.add_argument("--tags", type=int, default=6)
    parser.add_argument("--edit", nargs=3, action="append", default=[])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["git", "clone", "-q", "--no-checkout", args.mirror, folder], check=True)
        tags = subprocess.run(
            ["git", "-C", folder, "tag", "--sort=creatordate"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[-args.tags :]
        pairs = list(itertools.pairwise(tags))
        for number, (path, old_text, new_text) in enumerate(args.edit):
            pairs.append((tags[-1], _edited(folder, tags[-1], path, old_text, new_text, number)))
        repo = GitRepo(folder)
        settings = Settings(config=ConfigSettings.model_validate({"sources": args.globs}))
        for old, new in pairs:
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


def _edited(folder: str, tag: str, path: str, old: str, new: str, number: int) -> str:
    """A commit on `tag` with `old` replaced by `new` in `path`; its branch name."""
    branch = f"edit-{number}"
    git = ["git", "-C", folder]
    text = subprocess.run([*git, "show", f"{tag}:{path}"], check=True, capture_output=True).stdout
    if old.encode() not in text:
        raise SystemExit(f"{path} at {tag} has no {old!r}")
    blob = (
        subprocess.run(
            [*git, "hash-object", "-w", "--stdin"],
            input=text.replace(old.encode(), new.encode(), 1),
            check=True,
            capture_output=True,
        )
        .stdout.decode()
        .strip()
    )
    subprocess.run([*git, "branch", "-f", branch, tag], check=True)
    index = {"GIT_INDEX_FILE": f"{folder}/index-{number}"}
    env = {**os.environ, **index}
    subprocess.run([*git, "read-tree", tag], check=True, env=env)
    cacheinfo = f"100644,{blob},{path}"
    subprocess.run([*git, "update-index", "--cacheinfo", cacheinfo], check=True, env=env)
    tree = subprocess.run(
        [*git, "write-tree"], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()
    commit = subprocess.run(
        [
            *git,
            "-c",
            "user.name=bench",
            "-c",
            "user.email=b@localhost",
            "commit-tree",
            tree,
            "-p",
            tag,
            "-m",
            f"edit {path}",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    subprocess.run([*git, "branch", "-f", branch, commit], check=True)
    return branch


if __name__ == "__main__":
    main()
