"""Start-up (issue 18): what each quick command imports, checked in a fresh interpreter.
Timings live in bench/; these tests hold the imports that made them slow out of the way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from release_safety.cli.commands.group import cli
from release_safety.cli.main import COMMANDS, run
from release_safety.git.builder import RepoBuilder

PROBE = """
import contextlib, io, json, sys
from release_safety.cli.main import run
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = run(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def imported(*args: str, probe: str = PROBE) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True
    )
    found = json.loads(done.stdout)
    return found["code"], set(found["modules"])


def test_the_static_short_help_is_each_commands_own() -> None:
    context = click.Context(cli)
    for name, (_, short_help) in COMMANDS.items():
        command = cli.get_command(context, name)
        assert command is not None
        assert command.get_short_help_str(10_000) == short_help, name


@pytest.mark.parametrize("args", [["--help"], ["upgrade-check", "--help"], ["--version"]])
def test_help_imports_no_analyser(args: list[str]) -> None:
    code, modules = imported(*args)
    assert code == 0
    heavy = {"pydantic", "sqlglot", "tree_sitter", "release_safety.release.generate", "httpx"}
    heavy |= {"release_safety.upgrade.indexsource", "jsonschema_rs"}  # help reads no index
    assert not heavy & modules
    commands = {m for m in modules if m.startswith("release_safety.cli.commands.")}
    light = {"group", "upgrade", "options"}  # options: the shared click options and help
    assert commands <= {f"release_safety.cli.commands.{name}" for name in light}


def one_release_index(folder: Path) -> Path:
    """An index of one release, 1.0.0, written in `folder`."""
    entry = {
        "version": "1.0.0",
        "previousVersion": None,
        "releaseDate": "2026-01-01T00:00:00Z",
        "rollingUpdateSafe": True,
        "requiredStops": [],
        "minPreviousVersion": None,
        "backfilled": False,
        "syntheticRequiredStop": False,
    }
    doc = {"schemaVersion": "1", "generatedAt": None, "backfillFloorVersion": None}
    index = folder / "index.json"
    index.write_text(json.dumps({**doc, "entries": [entry]}))
    return index


def test_upgrade_check_builds_no_pydantic_model(tmp_path: Path) -> None:
    index = one_release_index(tmp_path)
    code, modules = imported(
        "upgrade-check", "--from", "1.0.0", "--to", "1.0.0", "--index", str(index)
    )
    assert code == 0
    assert "click" in modules  # text output goes through the click command
    code, modules = imported(
        "upgrade-check", "--from", "1.0.0", "--to", "1.0.0", "--index", str(index), "--json"
    )
    assert code == 0
    assert "click" not in modules  # the plain JSON call: quickcheck.py
    assert not {"pydantic", "httpx", "re2", "release_safety.contract.model"} & modules
    # a local index needs nothing of fetching a URL (hashing, decoding, the cache), nor pathlib
    assert not {"pathlib", "hashlib", "zlib", "platformdirs"} & modules
    code, modules = imported("validate", str(index))
    assert code == 0 and "pydantic" not in modules


# What a fresh interpreter imports for a command, beyond what it had at start; its standard
# output goes to the null device (a lint ends in os._exit, so `run` is called, not `main`).
TOP_LEVEL_PROBE = """
import os, sys
before = set(sys.modules)
from release_safety.cli.main import run
saved = os.dup(1)
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
code = run(sys.argv[1:])
sys.stdout.flush()
os.dup2(saved, 1)
print(code, *sorted(set(sys.modules) - before))
"""


def top_level(folder: Path, *args: str) -> tuple[int, set[str], set[str]]:
    """The exit code, then the top-level packages the command run in `folder` imported: not of
    the standard library, then of it (C accelerators, `_name`, left out)."""
    probe = [sys.executable, "-c", TOP_LEVEL_PROBE, *args]
    done = subprocess.run(probe, cwd=folder, capture_output=True, text=True, check=True)
    code, *names = done.stdout.split()
    found = {name.partition(".")[0] for name in names if not name.startswith("_")}
    stdlib = found & sys.stdlib_module_names
    return int(code), found - stdlib, stdlib


# The standard library a bare start leaves out and every command below may import.
BASE = {"collections", "contextlib", "functools", "gc", "importlib", "itertools", "keyword"}
BASE |= {"operator", "reprlib", "types", "warnings"}
# The lint's: its rules, the JSON out (the standard library's for a few files: no orjson, nor
# its datetime, uuid and platform); no dataclasses (nor inspect, ast, dis, tokenize: findings
# and the classifier's values are written-out classes), no decimal (read where a number is), no
# pathlib for files named without a settings file (nor its fnmatch, urllib, ipaddress), no
# typing (names used in annotations alone are imported for mypy alone).
LINT = {"bisect", "copyreg", "enum", "json", "re"}
# upgrade-check: the index checked against its schema (jsonschema_rs imports email, socket ...)
UPGRADE = {"array", "base64", "binascii", "bisect", "calendar", "copyreg", "datetime"}
UPGRADE |= {"decimal", "email", "enum", "errno", "ipaddress", "json", "locale", "math"}
UPGRADE |= {"numbers", "quopri", "random", "re", "select", "selectors", "socket", "string"}
UPGRADE |= {"struct", "typing", "urllib"}


def test_version_imports_nothing_but_the_package(tmp_path: Path) -> None:
    code, packages, stdlib = top_level(tmp_path, "--version")
    assert code == 0
    assert packages == {"release_safety"}  # no click: main.py prints the line itself
    assert stdlib <= BASE


def test_a_one_file_json_lint_imports_the_lint_alone(tmp_path: Path) -> None:
    migration = tmp_path / "0001_init.sql"
    migration.write_text("CREATE INDEX accounts_email ON accounts (email);\n")
    code, packages, stdlib = top_level(tmp_path, "lint-migrations", str(migration), "--json")
    assert code == 1  # the index built without CONCURRENTLY: the lint did run
    assert packages == {"release_safety"}  # no click, orjson, pydantic, sqlglot, tree-sitter
    assert stdlib <= BASE | LINT
    modules = imported("lint-migrations", str(migration), "--json")[1]
    assert "release_safety.surfaces.migrations.rules.catalogue" not in modules  # no examples
    # a file of DDL alone: no reader of data statements or DO blocks, no built-in catalogue
    lazy = {"sql.simpledata", "engines.postgres.plpgsql", "schema.pgcatalog"}
    assert not {f"release_safety.surfaces.migrations.{name}" for name in lazy} & modules


def test_a_plain_text_lint_imports_no_click(tmp_path: Path) -> None:
    """`lint-migrations FILE` whose text is not coloured (standard output is no terminal) is
    answered without click, with the text and exit code click's path gives (`--format text`
    goes through click)."""
    migration = tmp_path / "0001_init.sql"
    migration.write_text("CREATE INDEX accounts_email ON accounts (email);\n")
    code, packages, stdlib = top_level(tmp_path, "lint-migrations", str(migration))
    assert code == 1
    assert packages == {"release_safety"}
    assert stdlib <= BASE | LINT
    assert "json" not in stdlib  # text: `jsonio` and the drizzle journal's readers not loaded
    answers = [
        subprocess.run(
            [sys.executable, "-m", "release_safety", "lint-migrations", *fmt, migration.name],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        for fmt in ([], ["--format", "text"])
    ]
    assert [a.returncode for a in answers] == [1, 1]
    assert answers[0].stdout == answers[1].stdout
    assert "breaking blocking-table-lock" in answers[0].stdout


def test_upgrade_check_json_imports_its_index_reader_alone(tmp_path: Path) -> None:
    index = one_release_index(tmp_path)
    args = ["upgrade-check", "--from", "1.0.0", "--to", "1.0.0", "--index", str(index), "--json"]
    code, packages, stdlib = top_level(tmp_path, *args)
    assert code == 0
    assert packages == {"release_safety", "jsonschema_rs"}
    assert stdlib <= BASE | UPGRADE


def test_diff_openapi_loads_no_repository_surface(tmp_path: Path) -> None:
    spec = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}}
    (tmp_path / "old.json").write_text(json.dumps(spec))
    (tmp_path / "new.json").write_text(json.dumps(spec))
    code, packages, _ = top_level(tmp_path, "diff-openapi", "old.json", "new.json")
    assert code == 0
    # no pydantic (settings, reports), no tree-sitter (routes read from code), no httpx
    assert not {"pydantic", "pydantic_core", "tree_sitter", "httpx", "sqlglot"} & packages


def test_a_plain_json_diff_openapi_imports_no_click(tmp_path: Path) -> None:
    """`diff-openapi BASE REVISION --json` is answered without click, with the JSON and the exit
    code click's path gives (`--format json` goes through click)."""
    get = {"responses": {"200": {"description": "ok"}}}
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": get}},
    }
    (tmp_path / "old.json").write_text(json.dumps(spec))
    (tmp_path / "new.json").write_text(json.dumps({**spec, "paths": {}}))
    code, packages, _ = top_level(tmp_path, "diff-openapi", "old.json", "new.json", "--json")
    assert code == 1  # the endpoint removed: the comparison did run
    assert packages == {"release_safety", "yaml", "cython_runtime"}  # no click (PyYAML: Cython)
    answers = [
        subprocess.run(
            [sys.executable, "-m", "release_safety", "diff-openapi", "old.json", "new.json", *fmt],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        for fmt in (["--json"], ["--format", "json"])
    ]
    assert [a.returncode for a in answers] == [1, 1]
    assert answers[0].stdout == answers[1].stdout
    assert json.loads(answers[0].stdout)["breakingCount"] == 1


def _go_service(tmp_path: Path) -> RepoBuilder:
    """A Go service whose release 1.1.0 reads ADDR where 1.0.0 read PORT."""
    repo = RepoBuilder(tmp_path / "svc")
    main = 'package main\n\nimport "os"\n\nfunc main() { println(os.Getenv("PORT")) }\n'
    settings = '[mcp]\nabsent = "the service exposes no MCP server to agents"\n'
    settings += '[config]\nsources = ["**/*.go"]\n'
    repo.release("1.0.0", {"main.go": main, ".release-safety.toml": settings})
    repo.release("1.1.0", {"main.go": main.replace("PORT", "ADDR")})
    return repo


def test_a_go_release_loads_no_reader_of_another_language(tmp_path: Path) -> None:
    """`generate` of a Go service: the config readers of Python, Rust and TypeScript are not
    loaded, nor BuildKit's Dockerfile parser when no Dockerfile is read (its Go runtime's
    threads would forbid judging surfaces in a forked child: `release/beside.py`). The run
    judges config in this process (no fork), so that what it loads is seen."""
    repo = _go_service(tmp_path)
    out, evidence = tmp_path / "out.json", tmp_path / "evidence.json"
    args = ["--repo", str(repo.path), "--to", "1.1.0", "--out", str(out), "--evidence"]
    alone = "import release_safety.release.beside as b\nb.possible = lambda: False\n" + PROBE
    code, modules = imported("generate", *args, str(evidence), probe=alone)
    assert code == 0
    assert "PORT" in evidence.read_text()  # the Go reader did read the code: PORT removed
    others = {"python_resolve", "python_calls", "rust_src", "rust_resolve", "ts_resolve"}
    others |= {"typescript", "tslibs", "tsschemas", "shell"}
    assert not {f"release_safety.surfaces.config.{name}" for name in others} & modules
    assert "release_safety.surfaces.config.go_resolve" in modules
    assert "dockerfile" not in modules
    assert "dockerfile" not in imported("generate", *args, str(evidence))[1]  # with the fork


def test_generate_runs_without_the_cyclic_collector(tmp_path: Path) -> None:
    """`cli.main.main` turns the cyclic collector off for `generate` (one release, its garbage
    freed as it goes, and no teardown: `_exit_at_once`), and leaves it on for `backfill` (many
    releases in one process)."""
    said = "import gc, sys, release_safety.cli.main as cli\n"
    said += "cli.run = lambda argv=None: print(gc.isenabled()) or 0\ncli.main()\n"
    for command, enabled in (("generate", "False"), ("backfill", "True")):
        done = subprocess.run([sys.executable, "-c", said, command], capture_output=True, text=True)
        assert (done.returncode, done.stdout) == (0, f"{enabled}\n"), done.stderr


def test_generate_ending_at_once_writes_all_it_writes_through_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`generate` ends without tearing the interpreter down (`cli.main._exit_at_once`): its
    artifact, evidence, notes, both streams and exit code are those `run` gives in process."""
    repo = _go_service(tmp_path)
    files = ["out.json", "evidence.json", "notes.md"]  # each run's own, in its own folder
    argv = ["generate", "--repo", str(repo.path), "--to", "1.1.0", "--out", files[0]]
    argv += ["--evidence", files[1], "--notes", files[2]]
    written = []
    for name in ("cli", "run"):
        folder = tmp_path / name
        folder.mkdir()
        if name == "cli":
            command = [sys.executable, "-m", "release_safety", *argv]
            done = subprocess.run(command, capture_output=True, text=True, cwd=folder)
            ended = (done.returncode, done.stdout, done.stderr)
        else:
            monkeypatch.chdir(folder)
            code = run(argv)
            printed = capsys.readouterr()
            ended = (code, printed.out, printed.err)
        written.append((ended, [(folder / f).read_text() for f in files]))
    assert written[0] == written[1]
    assert "PORT" in written[0][1][1]  # the evidence names the variable the release removed
