"""Throughput of knex migration extraction.

Writes N knex migrations (the `fixtures/knex/` files with their table names made distinct per
copy) into a temporary folder, then times `extract_knex` over all of them in this process, and
the whole process (interpreter start, imports, reading and extracting every file) in a fresh one.

    /work/.venv/bin/python bench/bench_knex.py [--files 2000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from release_safety.surfaces.migrations.frameworks.knex import extract_knex

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "knex"

WHOLE_PROCESS = """
import sys
from pathlib import Path
from release_safety.surfaces.migrations.frameworks.knex import extract_knex
count = 0
for path in sorted(Path(sys.argv[1]).iterdir()):
    count += len(extract_knex(path.read_text(), str(path)).statements)
print(count)
"""


def write_corpus(folder: Path, files: int) -> list[Path]:
    """`files` migrations cycling through the fixtures, each with its own table names."""
    sources = sorted(FIXTURES.iterdir())
    paths = []
    for index in range(files):
        source = sources[index % len(sources)]
        text = re.sub(r"'([a-z_]+)'", rf"'\1_{index}'", source.read_text())
        name = f"2024{index:010d}_{source.name.split('_', 1)[1]}"
        path = folder / name
        path.write_text(text)
        paths.append(path)
    return paths


def in_process(paths: list[Path]) -> tuple[float, int, int]:
    start = time.perf_counter()
    statements = dynamic = 0
    for path in paths:
        result = extract_knex(path.read_text(), str(path))
        statements += len(result.statements)
        dynamic += sum(1 for s in result.statements if s.sql is None)
    return time.perf_counter() - start, statements, dynamic


def whole_process(folder: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", WHOLE_PROCESS, str(folder)], check=True, stdout=subprocess.DEVNULL
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = write_corpus(folder, options.files)
        size = sum(p.stat().st_size for p in paths)
        runs = [in_process(paths) for _ in range(options.repeat)]
        best, statements, dynamic = min(runs)
        process = min(whole_process(folder) for _ in range(options.repeat))
    print(
        f"files: {len(paths)} ({size / 1e6:.1f} MB), statements: {statements}, "
        f"without SQL: {dynamic}"
    )
    print(
        f"extract_knex in process, best of {options.repeat}: {best:.2f} s "
        f"({len(paths) / best:.0f} files/s, {best / len(paths) * 1000:.2f} ms/file)"
    )
    print(f"whole process (start, imports, all files), best of {options.repeat}: {process:.2f} s")


if __name__ == "__main__":
    main()
