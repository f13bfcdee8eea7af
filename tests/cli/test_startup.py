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
from release_safety.cli.main import COMMANDS

PROBE = """
import contextlib, io, json, sys
from release_safety.cli.main import run
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = run(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def imported(*args: str) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True
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


def test_upgrade_check_builds_no_pydantic_model(tmp_path: Path) -> None:
    index = tmp_path / "index.json"
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
    index.write_text(json.dumps({**doc, "entries": [entry]}))
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
