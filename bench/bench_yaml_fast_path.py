"""Which of a repository's OpenAPI YAML documents at its release tags rapidyaml reads, and
whether each read equals PyYAML's (issue 48: harbor's swagger documents continue single-quoted
scalars at their key's indent, which rapidyaml refuses as written; surfaces/rest/deepen.py).

    python bench/bench_yaml_fast_path.py --repo /path/to/harbor.git

Every distinct blob named `*swagger*.yaml` / `*openapi*.yaml` at a `vX.Y.Z` tag is read by
PyYAML (the core-schema loader the fallback uses) and by the fast path (`load._read_fast`,
rapidyaml with the deepening pass); CPU seconds of each, summed. Exit status 1 when a fast read
differs from PyYAML's.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

import yaml

from release_safety.surfaces.rest import load

_TAG = re.compile(r"v\d+\.\d+\.\d+")
_NAME = re.compile(r"(?i)[^/]*(?:swagger|openapi)[^/]*\.ya?ml")


def blobs(repo: Path) -> dict[str, str]:
    """The distinct documents at the release tags: blob id -> a path it is at."""
    git = ["git", "-C", str(repo)]
    tags = subprocess.run([*git, "tag"], capture_output=True, text=True).stdout.split()
    found: dict[str, str] = {}
    for tag in filter(_TAG.fullmatch, tags):
        listing = [*git, "ls-tree", "-r", tag, "--format=%(objectname) %(path)"]
        for line in subprocess.run(listing, capture_output=True, text=True).stdout.splitlines():
            blob, _, path = line.partition(" ")
            if _NAME.fullmatch(path.rpartition("/")[2]):
                found.setdefault(blob, path)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, required=True, help="a bare git directory")
    args = parser.parse_args()
    fast_s = slow_s = 0.0
    fell = differ = 0
    found = blobs(args.repo)
    for blob, path in sorted(found.items(), key=lambda item: item[1]):
        data = subprocess.run(
            ["git", "-C", str(args.repo), "cat-file", "blob", blob], capture_output=True
        ).stdout
        text = load.read_text(data)
        start = time.process_time()
        fast = load._read_fast(text)
        middle = time.process_time()
        slow = load._string_keys(yaml.load(text, Loader=load._CoreLoader))
        fast_s += middle - start
        slow_s += time.process_time() - middle
        fell += fast is None
        differ += fast is not None and fast != slow
        shown = "PyYAML" if fast is None else ("same" if fast == slow else "DIFFERENT")
        print(f"{blob[:10]} {path}: {shown}")
    print(
        f"{len(found)} documents: {len(found) - fell} read by rapidyaml ({differ} different from "
        f"PyYAML), {fell} by PyYAML; fast path {fast_s:.2f} CPU s, PyYAML alone {slow_s:.2f} CPU s"
    )
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
