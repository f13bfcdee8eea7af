"""Benchmark the declarations surface: a big annotated file, and many changed files in git.

    /work/.venv/bin/python bench/bench_declarations.py [--files 2000]

Prints one line per measurement (seconds, best of three).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.settings.model import Settings
from release_safety.surfaces import annotations, declarations
from release_safety.surfaces.comments import syntax_for

REASON = "drops users.legacy_id after the two-release deprecation"


def best_of(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def big_source(lines: int) -> bytes:
    body = [
        f"const s{i} = \"text with 'quotes' and // slashes {i}\"; // comment {i}"
        for i in range(lines)
    ]
    body[lines // 2] = f"// release-safety: breaking(required-stop) {REASON}"
    return "\n".join(body).encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=2000)
    args = parser.parse_args()

    data = big_source(20_000)
    seconds = best_of(3, lambda: annotations.scan(data, syntax_for("big.ts")))
    print(f"scan one {len(data) / 1e6:.1f} MB TypeScript file with a marker: {seconds:.3f} s")

    with tempfile.TemporaryDirectory() as folder:
        builder = RepoBuilder(Path(folder) / "repo")
        builder.release("1.0.0", {"README.md": "# service\n"}, prefix="v")
        for i in range(args.files):
            marker = f"-- release-safety: breaking {REASON} ({i})\n" if i % 10 == 0 else ""
            builder.write(f"db/migrations/{i:05d}_m.sql", marker + f"SELECT {i};\n" * 20)
        builder.release("1.1.0", prefix="v")
        repo = GitRepo(builder.path)
        old, new = repo.snapshot("v1.0.0"), repo.snapshot("v1.1.0")
        settings = Settings()
        start = time.perf_counter()
        report = declarations.analyse(old, new, settings)
        cold = time.perf_counter() - start
        warm = best_of(3, lambda: declarations.analyse(old, new, settings))
        repo.close()
    print(
        f"analyse {args.files} changed files ({len(report.declared)} declared): "
        f"cold {cold:.3f} s, memoised {warm:.3f} s"
    )


if __name__ == "__main__":
    main()
