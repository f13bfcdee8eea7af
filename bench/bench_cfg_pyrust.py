"""Config surface on a real repository's consecutive tags: per release, checked or not, the
variables understood at the new tag, the gaps (unmodelled reads) and the breaking findings.

    PYTHONPATH=src .venv/bin/python bench/bench_cfg_pyrust.py healthchecks+healthchecks \
        'sources = ["hc/settings.py"]' v4.0 v4.1 v4.1.1 v4.2 v4.3

The repository is a bare copy fetched under /work/.mirror (the search tool's `fetch`), cloned
to a temporary folder; its code is never committed. Run it with PYTHONPATH pointing at another
tree's `src` to compare two versions of the tool.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from release_safety.git.repository import GitRepo
from release_safety.settings.model import parse_settings
from release_safety.surfaces.config import analyse


def main(name: str, sources: str, tags: list[str]) -> None:
    settings = parse_settings(f"[config]\n{sources}\n", "settings.toml")
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "repo.git"
        source = Path("/work/.mirror") / name / "repo"
        subprocess.run(["git", "clone", "-q", "--bare", str(source), str(target)], check=True)
        repo = GitRepo(target)
        for old, new in itertools.pairwise(tags):
            start = time.perf_counter()
            report = analyse(repo.snapshot(old), repo.snapshot(new), settings)
            took = time.perf_counter() - start
            breaking = [f for f in report.findings if f.severity == "breaking"]
            print(
                f"{old} -> {new}: checked={report.checked} "
                f"understood={len(report.coverage.understood)} "
                f"gaps={len(report.coverage.unmodelled)} breaking={len(breaking)} "
                f"({took:.2f}s)"
            )
            for found in report.findings:
                print(
                    f"    {found.severity} {found.rule} {found.file}:{found.line} {found.message}"
                )
            for gap in report.coverage.unmodelled:
                print(f"    gap {gap.file}:{gap.line} {gap.what}")
        repo.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
