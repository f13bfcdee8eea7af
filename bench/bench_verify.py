"""`verify-migrations` measured: agreement with the static flags, time per release, peak memory.

    .venv/bin/python bench/bench_verify.py --examples
    .venv/bin/python bench/bench_verify.py --five
    .venv/bin/python bench/bench_verify.py --service harbor /work/.mirror/goharbor+harbor/repo \
        v2.8.1 v2.13.0 v2.14.0
    .venv/bin/python bench/bench_verify.py --service svix /work/.mirror/svix+svix-webhooks/repo \
        v1.77.0

`--examples`: every example of the migration rule catalogue that PostgreSQL runs, as a release
of its own (the suite's fixture schema as the previous release, the example as the new
migration), verified on one throwaway server through `--database-url` with 1,000 rows: per flag,
how often the observed flag equals the static one, and every `static-missed`.

`--five`: a release of five migrations on two tables, at the default 100,000 rows, each run a
whole `release-safety verify-migrations` process (server start included): wall time and the
process's peak memory (the server's own memory is not counted).

`--service NAME MIRROR TAG...`: each release of a real service (cloned from the fetched bare
mirror into a temporary folder, never committed), the same way. Markdown on standard output.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "surfaces" / "migrations"))

from pgprobe import FIXTURE_SQL  # noqa: E402

from release_safety.git.builder import RepoBuilder  # noqa: E402
from release_safety.git.repository import GitRepo  # noqa: E402
from release_safety.release.generate import prepare  # noqa: E402
from release_safety.surfaces.migrations.rules.catalogue import (  # noqa: E402
    CATALOGUE,
    SAFE_EXAMPLES,
)
from release_safety.verify.database import of_server  # noqa: E402
from release_safety.verify.plan import plan_release  # noqa: E402
from release_safety.verify.run import Where, verify_plan  # noqa: E402
from release_safety.verify.server import throwaway_server  # noqa: E402

FLAGS = ("locksTable", "rewritesTable", "scansTable")
# Peak memory of the child: this wrapper runs the CLI and prints its own maximum RSS (KiB).
_MEASURED = (
    "import resource, sys\n"
    "from release_safety.cli.main import run\n"
    "code = run(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _examples() -> list[tuple[str, str, str]]:
    """(case, sql, the catalogue's letters) of every example PostgreSQL runs."""
    cases = []
    for entry in CATALOGUE:
        for n, example in enumerate(entry.examples):
            if example.pg and example.heavy not in ("error", "unknown"):
                cases.append((f"{entry.id}-{n}", example.sql, example.heavy))
    for n, example in enumerate(SAFE_EXAMPLES):
        if example.pg and example.heavy not in ("error", "unknown"):
            cases.append((f"safe-{n}", example.sql, example.heavy))
    return cases


def examples() -> None:
    cases = _examples()
    agree = dict.fromkeys(FLAGS, 0)
    compared = dict.fromkeys(FLAGS, 0)
    missed: list[str] = []
    heavier: list[str] = []
    unverified: list[str] = []
    files = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, throwaway_server() as server:
        target = of_server(server)
        where = Where(database_url=f"postgresql://postgres@{target.host}:{target.port}/postgres")
        for n, (case, sql, _) in enumerate(cases):
            builder = RepoBuilder(Path(tmp) / f"r{n}")
            builder.release("1.0.0", {"migrations/0001_fixture.up.sql": FIXTURE_SQL}, prefix="v")
            builder.release("1.1.0", {"migrations/0002_example.up.sql": sql + "\n"}, prefix="v")
            repo = GitRepo(builder.path)
            try:
                release, settings, _ = prepare(repo, "v1.1.0")
                plan = plan_release(repo, settings, release)
            finally:
                repo.close()
            v = verify_plan(plan, where, rows=1000)
            for f in v.findings:
                {"static-missed": missed, "static-heavier": heavier}.get(f.rule, unverified).append(
                    f"{case}: {f.message}"
                )
            for file in v.files:
                files += 1
                if file.observed is None or file.static is None:
                    continue
                for flag in FLAGS:
                    said = getattr(file.static, flag)
                    if said == "unknown":
                        continue
                    compared[flag] += 1
                    agree[flag] += said == getattr(file.observed, flag)
    took = time.perf_counter() - start
    print(
        f"{len(cases)} catalogue examples as releases ({files} files), 1,000 rows, "
        f"{took:.0f} s in all ({took / max(len(cases), 1):.2f} s per release)\n"
    )
    print("| flag | compared | agree | agreement |")
    print("| --- | --- | --- | --- |")
    for flag in FLAGS:
        share = 100 * agree[flag] / compared[flag] if compared[flag] else 0.0
        print(f"| {flag} | {compared[flag]} | {agree[flag]} | {share:.1f} % |")
    print(
        f"\nstatic-missed: {len(missed)}; static-heavier: {len(heavier)}; "
        f"unverified: {len(unverified)}\n"
    )
    for line in missed + heavier + unverified:
        print(f"- {line}")


FIVE = {
    "migrations/0002_age.up.sql": "ALTER TABLE users ALTER COLUMN age TYPE bigint;\n",
    "migrations/0003_note.up.sql": "ALTER TABLE users ADD COLUMN note text;\n",
    "migrations/0004_index.up.sql": "CREATE INDEX CONCURRENTLY orders_user ON orders (user_id);\n",
    "migrations/0005_check.up.sql": "ALTER TABLE orders ADD CONSTRAINT amount_positive "
    "CHECK (amount >= 0) NOT VALID;\nALTER TABLE orders VALIDATE CONSTRAINT amount_positive;\n",
    "migrations/0006_backfill.up.sql": "UPDATE users SET note = 'n' WHERE note IS NULL;\n",
}
FIVE_INIT = """CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL, age int,
  created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE orders (id bigint PRIMARY KEY, user_id bigint NOT NULL REFERENCES users (id),
  amount numeric(10, 2), note text);
"""


def _timed(cwd: Path, *args: str) -> tuple[float, int, dict[str, object] | None, str]:
    """Wall time, peak RSS (MiB) of one CLI process, its JSON, its last error line."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    took = time.perf_counter() - start
    lines = done.stderr.strip().splitlines()
    peak = int(lines[-1]) // 1024 if lines and lines[-1].isdigit() else 0
    data = json.loads(done.stdout) if done.returncode == 0 and done.stdout.strip() else None
    error = next((line for line in reversed(lines[:-1]) if line.strip()), "")
    return took, peak, data, error


def _row(name: str, took: float, peak: int, data: dict[str, object] | None, error: str) -> str:
    if data is None:
        return f"| {name} | – | – | – | {took:.1f} s | {peak} MiB | failed: {error} |"
    files = data["files"]
    assert isinstance(files, list)
    statements = sum(len(f["statements"]) for f in files)
    counts: dict[str, int] = {}
    for finding in data["findings"]:  # type: ignore[attr-defined]
        counts[finding["rule"]] = counts.get(finding["rule"], 0) + 1
    said = ", ".join(f"{n} {rule}" for rule, n in sorted(counts.items())) or "none"
    held = max((t["observed"]["lockHeldMs"] for f in files for t in f["tables"]), default=0.0)
    agree = "yes" if data["agree"] else "no"
    return (
        f"| {name} | {len(files)} | {statements} | {agree} | {took:.1f} s | {peak} MiB | "
        f"{said}; longest blocking lock {held:.0f} ms |"
    )


HEAD = (
    "| release | migrations | statements | agree | wall | peak RSS | findings |\n"
    "| --- | --- | --- | --- | --- | --- | --- |"
)


def five(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        builder = RepoBuilder(Path(tmp) / "five")
        builder.release("1.0.0", {"migrations/0001_init.up.sql": FIVE_INIT}, prefix="v")
        builder.release("1.1.0", FIVE, prefix="v")
        print(
            "five migrations on users and orders, 100,000 rows each (default), "
            f"PostgreSQL {_major()}, {runs} runs\n"
        )
        print(HEAD)
        for n in range(runs):
            took, peak, data, error = _timed(
                builder.path, "verify-migrations", "--to", "v1.1.0", "--format", "json"
            )
            print(_row(f"synthetic v1.1.0 (run {n + 1})", took, peak, data, error))


def _major() -> str:
    from release_safety.verify.server import find_binaries

    return str(find_binaries().major)


def service(name: str, mirror: Path, tags: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / name
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(mirror), str(clone)], check=True)
        print(
            f"{name}: each release against the release tag below it, 100,000 rows, "
            f"PostgreSQL {_major()}\n"
        )
        print(HEAD)
        for tag in tags:
            took, peak, data, error = _timed(
                clone, "verify-migrations", "--to", tag, "--format", "json"
            )
            print(_row(f"{name} {tag}", took, peak, data, error))
            if data is not None:
                for finding in data["findings"]:  # type: ignore[attr-defined]
                    print(
                        f"|  | {finding['rule']} | `{finding['file']}:{finding['line']}` | "
                        f"{finding['message'][:160]} |  |  |  |"
                    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", action="store_true")
    parser.add_argument("--five", type=int, nargs="?", const=3, default=0)
    parser.add_argument("--service", nargs="+", action="append", metavar="NAME MIRROR TAG")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    if args.examples:
        examples()
    if args.five:
        five(args.five)
    for name, mirror, *tags in args.service or []:
        service(name, Path(mirror), tags)
        print()
    print(
        f"\nload average {load:.1f} before, {os.getloadavg()[0]:.1f} after "
        f"(shared machine, {os.cpu_count()} cores); peak RSS of the tool's process "
        f"(max {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024} MiB over "
        "every child), the server's memory not counted"
    )


if __name__ == "__main__":
    main()
