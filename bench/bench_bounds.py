"""Benchmark: the hostile inputs of issue 35 against their bounds (docs/bounds.md), each run as
a whole process whose wall time and peak RSS are printed.

    .venv/bin/python bench/bench_bounds.py [--only NAME ...] [--migrations 100000]
        [--stops 100000] [--branches 20000]

Cases: `yaml-bomb` (a 1 KB alias bomb in a compose file, a chart's values and a config file:
generate), `migrations` (new migrations in one release: generate), `stops` and `minimums` (an
index where each release requires the previous one: upgrade-plan --json), `dockerfile` (a RUN
continued over 10,000 lines, at the bound, and over 100,000, past it: generate), `oneof` (a
`oneOf` of that many object branches, reordered: diff-openapi), `blob` (a 400 MB blob:
generate). Repositories are written with `git fast-import` in a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

CLI = [sys.executable, "-m", "release_safety"]


def fast_import(repo: Path, releases: Iterable[dict[str, bytes]]) -> None:
    """A repository whose commits write `releases` in turn, tagged v1.0.0, v1.1.0, ..."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    stream = subprocess.Popen(
        ["git", "-C", str(repo), "fast-import", "--quiet"], stdin=subprocess.PIPE
    )
    assert stream.stdin is not None
    for number, files in enumerate(releases):
        head = f"commit refs/heads/main\nmark :{number + 1}\n"
        head += f"committer b <b@example.com> {1_700_000_000 + number * 86400} +0000\n"
        head += "data 2\nr\n" + (f"from :{number}\n" if number else "")
        stream.stdin.write(head.encode())
        for path, data in files.items():
            stream.stdin.write(f"M 100644 inline {path}\ndata {len(data)}\n".encode())
            stream.stdin.write(data + b"\n")
        stream.stdin.write(f"reset refs/tags/v1.{number}.0\nfrom :{number + 1}\n\n".encode())
    stream.stdin.close()
    assert stream.wait() == 0


def measured(args: list[str], cwd: Path) -> tuple[float, int, int]:
    """(seconds, peak RSS in MB, exit code) of one run of the CLI."""
    started = time.perf_counter()
    process = subprocess.Popen([*CLI, *args], cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - started, usage.ru_maxrss // 1024, os.waitstatus_to_exitcode(status)


def bomb() -> str:
    lines = ["x-a0: &a0 [lol,lol,lol,lol,lol,lol,lol,lol,lol]"]
    lines += [f"x-a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    return "\n".join(lines) + "\n"


def yaml_bomb(folder: Path, _: argparse.Namespace) -> list[str]:
    base = {
        ".release-safety.toml": b'[config]\nsources = ["conf/app.yaml"]\n',
        "compose.yaml": b"services:\n  app:\n    image: app:1\n",
        "chart/Chart.yaml": b"apiVersion: v2\nname: app\nversion: 0.1.0\n",
        "chart/values.yaml": b"image:\n  tag: '1'\n",
        "conf/app.yaml": b"database:\n  pool: 1\n",
    }
    bombed = {p: d + bomb().encode() for p, d in base.items() if p.endswith(("e.yaml", "p.yaml"))}
    fast_import(folder, [base, bombed])
    return ["generate", "--to", "v1.1.0", "--out", str(folder / "out.json")]


def migrations(folder: Path, options: argparse.Namespace) -> list[str]:
    first = {"db/migrations/000000_init.sql": b"CREATE TABLE t (id bigint PRIMARY KEY);\n"}
    added = {}
    for i in range(1, options.migrations + 1):
        table = i // 50
        sql = (
            f"CREATE TABLE t{table} (id bigint PRIMARY KEY);"
            if i % 50 == 0 or i == 1
            else f"ALTER TABLE t{table} ADD COLUMN c{i} text;"
        )
        added[f"db/migrations/{i:06d}_c.sql"] = sql.encode()
    fast_import(folder, [first, added])
    return ["generate", "--to", "v1.1.0", "--out", str(folder / "out.json")]


def _index(folder: Path, count: int, field: str) -> list[str]:
    versions = [f"1.{i}.0" for i in range(count)]
    entries = [
        {
            "version": version,
            "previousVersion": versions[i - 1] if i else None,
            "releaseDate": "2026-01-01T00:00:00Z",
            "rollingUpdateSafe": True,
            "requiredStops": [versions[i - 1]] if field == "stops" and i > 1 else [],
            "minPreviousVersion": versions[i - 1] if field == "minimums" and i > 1 else None,
            "backfilled": False,
            "syntheticRequiredStop": False,
        }
        for i, version in enumerate(versions)
    ]
    index = {
        "schemaVersion": "1",
        "generatedAt": "2026-11-21T00:00:00Z",
        "backfillFloorVersion": None,
        "entries": entries,
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.json").write_text(json.dumps(index))
    span = ["--from", versions[0], "--to", versions[-1]]
    return ["upgrade-plan", *span, "--index", str(folder / "index.json"), "--json"]


def stops(folder: Path, options: argparse.Namespace) -> list[str]:
    return _index(folder, options.stops, "stops")


def minimums(folder: Path, options: argparse.Namespace) -> list[str]:
    return _index(folder, options.stops, "minimums")


def _dockerfile(folder: Path, continued: int) -> list[str]:
    lines = "".join(f"  pkg{i} \\\n" for i in range(continued - 1))
    new = f"FROM postgres:16\nRUN apk add \\\n{lines}  last\n".encode()
    fast_import(folder, [{"Dockerfile": b"FROM postgres:15\n"}, {"Dockerfile": new}])
    return ["generate", "--to", "v1.1.0", "--out", str(folder / "out.json")]


def dockerfile(folder: Path, _: argparse.Namespace) -> list[str]:
    return _dockerfile(folder, 10_000)


def dockerfile_past(folder: Path, _: argparse.Namespace) -> list[str]:
    return _dockerfile(folder, 100_000)


def oneof(folder: Path, options: argparse.Namespace) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    for name, reverse in (("old.json", False), ("new.json", True)):
        branches = [
            {"type": "object", "properties": {f"p{i}": {"type": "string"}}, "required": [f"p{i}"]}
            for i in range(options.branches)
        ]
        schema = {"oneOf": branches[::-1] if reverse else branches}
        body = {"content": {"application/json": {"schema": schema}}}
        doc = {
            "openapi": "3.0.3",
            "info": {"title": "t", "version": "1"},
            "paths": {
                "/x": {
                    "post": {
                        "requestBody": body,
                        "responses": {"200": {**body, "description": "ok"}},
                    }
                }
            },
        }
        (folder / name).write_text(json.dumps(doc))
    return ["diff-openapi", str(folder / "old.json"), str(folder / "new.json"), "--json"]


def blob(folder: Path, _: argparse.Namespace) -> list[str]:
    """v1.1.0's openapi.yaml is a 400 MB blob, streamed into git (never held here: the
    measured process would inherit this one's memory)."""
    spec = b"openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n"
    fast_import(folder, [{"openapi.yaml": spec}])
    writer = subprocess.Popen(
        ["git", "-C", str(folder), "hash-object", "-w", "--stdin"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert writer.stdin is not None and writer.stdout is not None
    writer.stdin.write(spec)
    for _ in range(400):
        writer.stdin.write(b"x-a: 1\n" * 142_857)  # 1 MB
    writer.stdin.close()
    blob_id = writer.stdout.read().decode().strip()
    assert writer.wait() == 0
    git = ["git", "-C", str(folder)]
    subprocess.run([*git, "read-tree", "v1.0.0"], check=True)
    subprocess.run(
        [*git, "update-index", "--cacheinfo", f"100644,{blob_id},openapi.yaml"], check=True
    )
    tree = subprocess.run([*git, "write-tree"], check=True, capture_output=True, text=True)
    who = ["-c", "user.name=b", "-c", "user.email=b@example.com"]
    commit = subprocess.run(
        [*git, *who, "commit-tree", tree.stdout.strip(), "-p", "v1.0.0", "-m", "r"],
        check=True,
        capture_output=True,
        text=True,
    )
    subprocess.run([*git, "tag", "v1.1.0", commit.stdout.strip()], check=True)
    return ["generate", "--to", "v1.1.0", "--out", str(folder / "out.json")]


CASES: dict[str, Callable[[Path, argparse.Namespace], list[str]]] = {
    "yaml-bomb": yaml_bomb,
    "migrations": migrations,
    "stops": stops,
    "minimums": minimums,
    "dockerfile": dockerfile,
    "dockerfile-past": dockerfile_past,
    "oneof": oneof,
    "blob": blob,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), default=sorted(CASES))
    parser.add_argument("--migrations", type=int, default=100_000)
    parser.add_argument("--stops", type=int, default=100_000)
    parser.add_argument("--branches", type=int, default=20_000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        for name in options.only:
            folder = Path(scratch) / name
            args = CASES[name](folder, options)
            seconds, megabytes, code = measured(args, folder if folder.is_dir() else Path(scratch))
            print(f"{name:16} {seconds:8.2f} s {megabytes:6} MB  exit {code}", flush=True)


if __name__ == "__main__":
    main()
