"""What the Go config reader says of each release of a Go service, release by release: the
variables an `os.Environ()` scan matched against a literal key table takes, the config reads
it does not understand, and the changes from the release before (removed, added, renamed,
defaults), as the config surface's diff folds them (issue 42, miniflux).

    python bench/bench_go_environ.py [--last 15] [--tags REGEX] SERVICE_MIRROR ...

SERVICE_MIRROR is a bare git directory brought with the search tool's `fetch`
(`/work/.mirror/miniflux+v2`); it is cloned without a checkout to a temporary folder, never
committed, removed at the end. Every non-test `.go` file of each release is read (what the
default Go sources name), one release after the other. One Markdown table per service: read
each row beside `git diff PREVIOUS TAG -- <the scan's package>` to judge it.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from release_safety.git.repository import GitRepo, GitSnapshot
from release_safety.surfaces.config import go_resolve
from release_safety.surfaces.config.diff import Delta, Var, collect, diff
from release_safety.surfaces.config.reads import EnvRead, Gap


def tags(clone: Path, pattern: str, last: int) -> list[str]:
    """The last `last` + 1 release tags (the first is the baseline), oldest first."""
    listed = subprocess.run(
        ["git", "-C", str(clone), "tag", "--list"], capture_output=True, text=True, check=True
    ).stdout.split()
    regex = re.compile(pattern)
    named = [(m["version"], t) for t in listed if (m := regex.fullmatch(t))]
    named.sort(key=lambda item: tuple(int(part) for part in item[0].split(".")))
    return [tag for _, tag in named[-last - 1 :]]


def read(repo: GitRepo, tag: str) -> tuple[dict[str, Var], list[tuple[str, Gap]], int]:
    """(variables, gaps, variables taken by an `os.Environ()` scan) of one release."""
    snapshot = GitSnapshot(repo, tag)
    blobs = {
        path: blob
        for path in snapshot.paths()
        if path.endswith(".go") and not path.endswith("_test.go")
        if (blob := snapshot.blob_id(path)) is not None
    }
    found = go_resolve.reads(snapshot, blobs)
    reads = [(path, r) for path, r in found if isinstance(r, EnvRead)]
    gaps = [(path, r) for path, r in found if isinstance(r, Gap)]
    scanned = sum(1 for _, r in reads if r.via and r.via.startswith("os.Environ() scan"))
    return collect(reads), gaps, scanned


def change(delta: Delta) -> str:
    old = delta.old.default if delta.old else None
    new = delta.new.default if delta.new else None
    if delta.kind in ("default-changed", "default-added"):
        return f"{delta.name}: default `{old}` → `{new}`"
    if delta.kind.startswith("renamed"):
        return f"{delta.previous_name} → {delta.name} ({delta.kind})"
    return f"{delta.name} {delta.kind}"


def service(mirror: Path, pattern: str, last: int) -> str:
    with tempfile.TemporaryDirectory(prefix="go-environ-") as work:
        clone = Path(work) / "clone"
        source = mirror / "repo" if (mirror / "repo").is_dir() else mirror
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(source), str(clone)], check=True)
        repo = GitRepo(clone)
        lines = [
            f"### {mirror.name}",
            "",
            "| release | vars read | by an os.Environ() scan | reads not understood | changes |",
            "| --- | --- | --- | --- | --- |",
        ]
        previous: dict[str, Var] | None = None
        for tag in tags(clone, pattern, last):
            variables, gaps, scanned = read(repo, tag)
            if previous is not None:
                deltas = [change(d) for d in diff(previous, variables)]
                shown = "; ".join(f"{p}:{g.line} {g.what[:60]}" for p, g in gaps) or "none"
                lines.append(
                    f"| {tag} | {len(variables)} | {scanned} | {shown.replace('|', '/')} | "
                    f"{'; '.join(deltas).replace('|', '/') or 'none'} |"
                )
            previous = variables
        repo.close()
        return "\n".join([*lines, ""])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirrors", nargs="+", type=Path)
    parser.add_argument("--last", type=int, default=15)
    parser.add_argument(
        "--tags", default=r"v?(?P<version>\d+\.\d+\.\d+)", help="release tags, a `version` group"
    )
    args = parser.parse_args()
    for mirror in args.mirrors:
        print(service(mirror, args.tags, args.last), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
