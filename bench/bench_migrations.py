"""Lint 2,000 generated migration files with `release-safety lint-migrations --json` and with
`squawk --reporter json`, side by side in the same run; then one file with each.

Both are timed whole-process (start-up included) after one untimed warm-up run each, their runs
interleaved so both see the same load, on the same files, both writing JSON; medians (and
bests) of wall and CPU time, with the load average at the start and the end:

    .venv/bin/python bench/bench_migrations.py [--runs 5] [--files 2000] [--squawk PATH]
                                               [--instructions] [--before PYTHON]

`--instructions` also counts the instructions one run of each executes on the 2,000 files
under valgrind's callgrind (threads counted together): a measure of the work that no other
load on the machine moves, to compare two builds of the lint where their wall times are
within this machine's noise (valgrind runs each about fifty times slower).

`--before PYTHON` (the landed build's Python, `/work/main/.venv/bin/python`) also times the
landed build's lint beside this one, interleaved (and counts its instructions, and `python -c
pass`'s, with `--instructions`), and checks that no answer changed: the `release-safety` beside
it and this one lint the 2,000 files (`--json` and text), the rule catalogue's examples and the
repository's migration fixtures (text, `--json`, SARIF), and every output and exit code must
be byte for byte the same (the script names the calls that differ, and exits 1).

It runs the `release-safety` beside the Python running it: the venv of the README's install
(`pip install .`, the lint compiled) measures what users run; the editable `.venv` of
`scripts/bootstrap` measures the pure-Python sources.

squawk comes from PyPI (`pip install squawk-cli` into a throwaway venv, then `--squawk
/that/venv/bin/squawk`); without `--squawk` the script looks beside the Python running it,
then on PATH.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median
from typing import Any

TABLES = ["users", "orders", "accounts", "projects", "events", "invoices", "teams", "audit_log"]
COLUMNS = ["status", "note", "owner_id", "created_at", "amount", "label", "region", "flags"]
TEMPLATES = [
    "ALTER TABLE {t} ADD COLUMN {c}_{n} text;",
    "ALTER TABLE {t} ADD COLUMN {c}_{n} boolean NOT NULL DEFAULT false;",
    "ALTER TABLE {t} ADD COLUMN {c}_{n} uuid DEFAULT gen_random_uuid();",
    "ALTER TABLE {t} ADD COLUMN {c}_{n} timestamptz NOT NULL DEFAULT now();",
    "CREATE INDEX {t}_{c}_{n}_idx ON {t} ({c});",
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS {t}_{c}_{n}_idx ON {t} ({c});",
    "ALTER TABLE {t} ADD CONSTRAINT {t}_{c}_{n}_fk FOREIGN KEY ({c}) REFERENCES users (id) "
    "NOT VALID;\nALTER TABLE {t} VALIDATE CONSTRAINT {t}_{c}_{n}_fk;",
    "ALTER TABLE {t} ALTER COLUMN {c} SET NOT NULL;",
    "ALTER TABLE {t} ALTER COLUMN {c} TYPE bigint USING {c}::bigint;",
    "ALTER TABLE {t} DROP COLUMN IF EXISTS {c}_{n};",
    "ALTER TABLE {t} RENAME COLUMN {c} TO {c}_{n};",
    "UPDATE {t} SET {c} = 'x' WHERE {c} IS NULL;",
    "CREATE TABLE {t}_{n} (\n  id bigserial PRIMARY KEY,\n  {c} text NOT NULL,\n"
    "  user_id bigint REFERENCES users (id),\n  created_at timestamptz DEFAULT now()\n);",
    "CREATE TYPE {t}_{n}_kind AS ENUM ('a', 'b');\nALTER TYPE {t}_{n}_kind ADD VALUE 'c';",
    "CREATE OR REPLACE VIEW {t}_{n}_v AS SELECT id, {c} FROM {t} WHERE {c} IS NOT NULL;",
    "DO $$ BEGIN\n  IF NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = '{t}_{n}') THEN\n"
    "    CREATE TYPE {t}_{n} AS ENUM ('x');\n  END IF;\nEND $$;",
    "ALTER TABLE {t} ADD CONSTRAINT {t}_{c}_{n}_check CHECK ({c} <> '') NOT VALID;",
    "COMMENT ON COLUMN {t}.{c} IS 'generated {n}';",
    "DROP INDEX CONCURRENTLY IF EXISTS {t}_{c}_{n}_idx;",
    "SET lock_timeout = '5s';\nALTER TABLE {t} ALTER COLUMN {c} SET DEFAULT 'none';",
]


def generate(folder: Path, count: int, seed: int = 20261121) -> list[Path]:
    """`count` migration files of one to three statements each, deterministic."""
    rng = random.Random(seed)
    paths: list[Path] = []
    for n in range(count):
        parts = [
            rng.choice(TEMPLATES).format(t=rng.choice(TABLES), c=rng.choice(COLUMNS), n=n)
            for _ in range(rng.randint(1, 3))
        ]
        path = folder / f"{20240101000000 + n}_m{n}.sql"
        path.write_text(f"-- migration {n}\n" + "\n".join(parts) + "\n")
        paths.append(path)
    return paths


# Run as an installed tool runs: with its bytecode cache written (a shell that sets
# PYTHONDONTWRITEBYTECODE would otherwise have every changed module compiled on every run).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall-clock seconds and CPU seconds (user + system) of one run of `argv`, which must
    answer (exit 0 or 1: a lint's verdict); a run that fails is no time to record."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        err = done.stderr.decode(errors="replace").strip()
        raise SystemExit(f"{argv[0]} exited {done.returncode}: {err}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def side_by_side(first: list[str], second: list[str], runs: int) -> list[tuple[float, ...]]:
    """Median and best (wall, CPU) of each command, their runs interleaved so both see the
    same load: (median wall, median CPU, best wall, best CPU) per command."""
    samples: list[list[tuple[float, float]]] = [[], []]
    timed(first)  # warm-up, untimed: the bytecode cache and the file system cache
    timed(second)
    for _ in range(runs):
        for k, argv in enumerate((first, second)):
            samples[k].append(timed(argv))
    out = []
    for runs_of in samples:
        walls = [wall for wall, _ in runs_of]
        cpus = [cpu for _, cpu in runs_of]
        out.append((median(walls), median(cpus), min(walls), min(cpus)))
    return out


def _print(
    names: tuple[str, str], pair: list[tuple[float, ...]], ratio: str = "release-safety / squawk"
) -> None:
    for name, (wall, cpu, best_wall, best_cpu) in zip(names, pair, strict=True):
        print(
            f"  {name}: median wall {wall:.3f} s, cpu {cpu:.3f} s "
            f"(best wall {best_wall:.3f} s, cpu {best_cpu:.3f} s)"
        )
    ratio_wall, ratio_cpu = pair[0][0] / pair[1][0], pair[0][1] / pair[1][1]
    print(f"  ratio {ratio} (medians): wall {ratio_wall:.2f}x, cpu {ratio_cpu:.2f}x")


def instructions(argv: list[str]) -> int:
    """The instructions one run of `argv` executes (valgrind's callgrind, every thread)."""
    import callgrind  # here: the tests load this file by its path for its generator alone

    return callgrind.instructions(argv, ENV, "bench_migrations")


def _examples(folder: Path) -> list[list[str]]:
    """The calls to compare: every example of the rule catalogue as a file under `folder`,
    in one call per engine (each file linted on the schema the ones before it built), and the
    repository's migration fixtures, a call per folder."""
    from release_safety.surfaces.migrations.rules.catalogue import CATALOGUE

    engines: dict[str, list[str]] = {}
    for k, example in enumerate(e for rule in CATALOGUE for e in rule.examples):
        engine = folder / example.engine
        engine.mkdir(exist_ok=True)
        path = engine / f"{k:04d}_example.sql"
        path.write_text(example.sql + ";\n")
        engines.setdefault(example.engine, []).append(str(path))
    fixtures = Path(__file__).resolve().parent.parent / "fixtures"
    folders = sorted({p.parent for p in fixtures.rglob("*.sql")} | {fixtures / "knex"})
    return [*engines.values(), *([str(f)] for f in folders)]


def _outputs(tool: str, argv: list[str]) -> bytes:
    done = subprocess.run([tool, *argv], capture_output=True, env=ENV, check=False)
    return b"%d\n%s\n%s" % (done.returncode, done.stdout, done.stderr)


def compare(before: str, after: str, files: list[str]) -> list[str]:
    """The calls whose exit code, output or errors differ between the two builds: the 2,000
    files (`--json` and text), the catalogue's examples and the fixtures (text, `--json`,
    SARIF)."""
    with tempfile.TemporaryDirectory() as tmp:
        argvs = [["lint-migrations", "--json", *files], ["lint-migrations", *files]]
        argvs += [
            ["lint-migrations", *form, *call]
            for call in _examples(Path(tmp))
            for form in ([], ["--json"], ["--format", "sarif"])
        ]
        differ = [
            " ".join(argv)[:120]
            for argv in argvs
            if _outputs(before, argv) != _outputs(after, argv)
        ]
    print(f"outputs compared with the landed build: {len(argvs)} calls, {len(differ)} differ")
    return differ


def _before(name: str, files: int, then: tuple[Any, ...], counts: tuple[int, int] | None) -> None:
    """This build beside the landed one (`--before`), in the same run."""
    many, one, landed_many, ours_one, landed_one, bare = then
    names = (f"{name} (this build)", f"{name} (landed build)")
    print(f"this build and the landed one, {files} files, interleaved:")
    _print(names, many, "this / landed")
    print("this build and the landed one, one file, interleaved:")
    _print(names, one, "this / landed")
    if counts is not None:
        print("instructions (callgrind, one run each), this build / landed build:")
        print(f"  {files} files: {counts[0]:,} / {landed_many:,} = {counts[0] / landed_many:.2f}x")
        print(f"  one file: {ours_one:,} / {landed_one:,} = {ours_one / landed_one:.2f}x")
        print(
            f"  python -c pass: {bare:,} (one file: this {ours_one / bare:.1f}x, "
            f"landed {landed_one / bare:.1f}x)"
        )


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--squawk", help="path of the squawk binary")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions too (needs valgrind)"
    )
    parser.add_argument("--before", help="the landed build's Python: no answer may change")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        print("--instructions needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    bindir = Path(sys.executable).parent
    ours = bindir / "release-safety"
    squawk = args.squawk or (
        bindir / "squawk" if (bindir / "squawk").exists() else shutil.which("squawk")
    )
    if squawk is None:
        print("squawk not found: pip install squawk-cli", file=sys.stderr)
        return 2
    version = subprocess.run([str(squawk), "--version"], capture_output=True, text=True)
    build = subprocess.run([str(ours), "--version"], capture_output=True, text=True)
    print(build.stdout.strip())  # the build measured: the lint compiled or pure Python
    print(f"load average at the start: {_load()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = [str(p.relative_to(folder)) for p in generate(folder, args.files)]
        statements = sum(p.read_text().count(";") for p in folder.iterdir())
        os.chdir(folder)
        lint = [str(ours), "lint-migrations", "--json"]
        report = [str(squawk), "--reporter", "json"]
        many = side_by_side([*lint, *files], [*report, *files], args.runs)
        one = side_by_side([*lint, files[0]], [*report, files[0]], args.runs * 3)
        landed = [str(Path(args.before or ".").parent / "release-safety"), *lint[1:]]
        counts = (
            (instructions([*lint, *files]), instructions([*report, *files]))
            if args.instructions
            else None
        )
        then = (
            (
                side_by_side([*lint, *files], [*landed, *files], args.runs),
                side_by_side([*lint, files[0]], [*landed, files[0]], args.runs * 3),
                instructions([*landed, *files]) if args.instructions else None,
                instructions([*lint, files[0]]) if args.instructions else None,
                instructions([*landed, files[0]]) if args.instructions else None,
                instructions([sys.executable, "-c", "pass"]) if args.instructions else None,
            )
            if args.before
            else None
        )
        differ = compare(landed[0], str(ours), files) if args.before else []
        os.chdir("/")
    print(f"load average at the end: {_load()}")
    names = ("release-safety lint-migrations --json", f"{version.stdout.strip()} --reporter json")
    print(f"{len(files)} files, {statements} statements, {args.runs} runs each, interleaved:")
    _print(names, many)
    print(f"one file, {args.runs * 3} runs each, interleaved:")
    _print(names, one)
    if counts is not None:
        print(f"instructions on the {len(files)} files (callgrind, one run each):")
        for name, count in zip(names, counts, strict=True):
            print(f"  {name}: {count:,}")
        print(f"  ratio release-safety / squawk: {counts[0] / counts[1]:.2f}x")
    if then is not None:
        _before(names[0], len(files), then, counts)
    for argv in differ:
        print(f"  differs: {argv}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
