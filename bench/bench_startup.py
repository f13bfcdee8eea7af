"""Benchmark: start-up of the quick commands beside the interpreter's and oasdiff (issue 48).

Whole processes, taken in turn in every round and compared as medians: `python -c pass`,
`release-safety --version`, `lint-migrations` on one file (text and `--json`), `diff-openapi`
(text and `--json`) on a ~3 KB pair of OpenAPI documents written here (one removed response
property, one new required parameter) and, given `--oasdiff`, `oasdiff breaking` on the same
pair. Python runs as an installed tool does, its bytecode cached (under a temporary
`PYTHONPYCACHEPREFIX`, so the source tree is not written).

    .venv/bin/python bench/bench_startup.py [--runs 31] [--oasdiff /tmp/oasdiff] [--instructions]

Every command runs in the benchmark's own temporary folder, where no settings are found (run
from a repository whose `pyproject.toml` names `release-safety`, as this one's does, a lint
would read and parse it first: a settings file is the user's own cost).

The best of the rounds is shown beside the median. `--instructions` also counts the
instructions one run of each executes (valgrind's callgrind), which no other load on the
machine moves.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bytecode
import callgrind

MIGRATION = """CREATE TABLE account (id bigint PRIMARY KEY, email text NOT NULL);
CREATE INDEX account_email ON account (email);
ALTER TABLE account ADD COLUMN created_at timestamptz;
"""


def openapi(revision: bool) -> dict[str, Any]:
    """A small service's document, ~3 KB as JSON; the revision breaks two things."""
    pet = {
        "type": "object",
        "required": ["id", "name"],
        "properties": {
            "id": {"type": "integer", "format": "int64"},
            "name": {"type": "string"},
            "tag": {"type": "string"},
            "status": {"type": "string", "enum": ["available", "pending", "sold"]},
        },
    }
    if revision:
        del pet["properties"]["tag"]  # type: ignore[attr-defined]
    limit = {"name": "limit", "in": "query", "required": revision, "schema": {"type": "integer"}}
    ok = {
        "description": "ok",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}},
    }
    listed = {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}
    paths: dict[str, Any] = {
        "/pets": {
            "get": {
                "operationId": "listPets",
                "parameters": [limit],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {"application/json": {"schema": listed}},
                    }
                },
            },
            "post": {
                "operationId": "createPet",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                    },
                },
                "responses": {"201": ok, "400": {"$ref": "#/components/responses/Problem"}},
            },
        },
        "/pets/{petId}": {
            "parameters": [
                {"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}}
            ],
            "get": {
                "operationId": "showPet",
                "responses": {"200": ok, "404": {"$ref": "#/components/responses/Problem"}},
            },
            "delete": {"operationId": "deletePet", "responses": {"204": {"description": "gone"}}},
        },
        "/owners": {
            "get": {
                "operationId": "listOwners",
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "array",
                                    "items": {"$ref": "#/components/schemas/Owner"},
                                }
                            }
                        },
                    }
                },
            },
        },
    }
    owner = {
        "type": "object",
        "required": ["id"],
        "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "pets": listed},
    }
    problem = {
        "description": "a problem",
        "content": {
            "application/problem+json": {
                "schema": {
                    "type": "object",
                    "properties": {"title": {"type": "string"}, "status": {"type": "integer"}},
                }
            }
        },
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Pet store", "version": "1.1.0" if revision else "1.0.0"},
        "paths": paths,
        "components": {"schemas": {"Pet": pet, "Owner": owner}, "responses": {"Problem": problem}},
    }


Command = tuple[list[str], dict[str, str]]


def alternate(commands: dict[str, Command], runs: int) -> dict[str, tuple[float, float]]:
    """Median and best wall seconds of each whole command, the commands taken in turn in
    every round."""
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (command, env) in commands.items():
            started = time.perf_counter()
            subprocess.run(command, capture_output=True, check=False, env=env)
            samples[name].append(time.perf_counter() - started)
    return {name: (statistics.median(times), min(times)) for name, times in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=31)
    parser.add_argument("--oasdiff", type=Path, help="an oasdiff 1.15.3 binary")
    parser.add_argument("--instructions", action="store_true", help="count them (callgrind)")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    here = Path.cwd()
    os.chdir(work)  # no settings around: a folder of its own, not this repository
    try:
        sql = work / "one.sql"
        sql.write_text(MIGRATION)
        old, new = work / "old.json", work / "new.json"
        old.write_text(json.dumps(openapi(False), indent=1))
        new.write_text(json.dumps(openapi(True), indent=1))
        env = bytecode.cached(work / "pycache")
        tool = [sys.executable, "-m", "release_safety"]
        script = Path(sys.executable).with_name("release-safety")
        if script.exists():
            tool = [str(script)]
        commands: dict[str, Command] = {
            "python -c pass": ([sys.executable, "-c", "pass"], env),
            "release-safety --version": ([*tool, "--version"], env),
            "lint-migrations one.sql": ([*tool, "lint-migrations", str(sql)], env),
            "lint-migrations one.sql --json": ([*tool, "lint-migrations", str(sql), "--json"], env),
            "diff-openapi (3 KB pair)": ([*tool, "diff-openapi", str(old), str(new)], env),
            "diff-openapi --json (3 KB pair)": (
                [*tool, "diff-openapi", str(old), str(new), "--json"],
                env,
            ),
        }
        if options.oasdiff:
            commands["oasdiff breaking (3 KB pair)"] = (
                [str(options.oasdiff), "breaking", str(old), str(new)],
                env,
            )
        for command, environment in commands.values():  # warm: bytecode written, pages cached
            subprocess.run(command, capture_output=True, check=False, env=environment)
        version = subprocess.run([*tool, "--version"], capture_output=True, text=True, env=env)
        timed = alternate(commands, options.runs)
        base, base_best = timed["python -c pass"]
        peer, _ = timed.get("oasdiff breaking (3 KB pair)", (0.0, 0.0))
        sizes = f"{old.stat().st_size:,} and {new.stat().st_size:,} bytes"
        print(f"`{version.stdout.strip()}`; the pair: {sizes}; {options.runs} rounds.\n")
        print("| command | median ms | x python -c pass | x oasdiff | best ms | best: x pass |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for name, (seconds, best) in timed.items():
            versus = f"{seconds / peer:.1f}x" if peer and name.startswith("diff-openapi") else "-"
            print(
                f"| `{name}` | {seconds * 1000:.1f} | {seconds / base:.1f}x | {versus} "
                f"| {best * 1000:.1f} | {best / base_best:.1f}x |"
            )
        if options.instructions:
            counts = {
                name: callgrind.instructions(command, env, "bench_startup")
                for name, (command, env) in commands.items()
            }
            print("\ninstructions (callgrind, one run each):\n")
            print("| command | instructions | x python -c pass |")
            print("| --- | ---: | ---: |")
            for name, count in counts.items():
                ratio = count / counts["python -c pass"]
                print(f"| `{name}` | {count:,} | {ratio:.2f}x |")
    finally:
        os.chdir(here)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
