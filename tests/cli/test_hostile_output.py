"""Where the answer goes (issue 35 class 9): a closed standard output is could not check (exit
3, one line on standard error), a reader that has gone (`| head`) ends the command quietly
with 141 as SIGPIPE would, and a `generate` that cannot write its artifact writes none and
prints none. Never a traceback, never the "unsafe" code 1."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import BROKEN_PIPE
from release_safety.git.builder import RepoBuilder

CLI = [sys.executable, "-m", "release_safety"]
COMMANDS = [
    ["rules"],
    ["rules", "--json"],
    ["schema", "release-safety"],
    ["lint-migrations", "{sql}"],
    ["lint-migrations", "--json", "{sql}"],
    ["generate", "--repo", "{repo}", "--to", "1.0.0", "--out", "-"],
]
IDS = ["rules", "rules-json", "schema", "lint", "lint-json", "generate"]


@pytest.fixture
def arguments(make_repo: Callable[[str], RepoBuilder], tmp_path: Path) -> dict[str, str]:
    sql = tmp_path / "0001_add.sql"
    sql.write_text("ALTER TABLE users ADD COLUMN nickname text;\n")
    builder = make_repo("service")
    # its own (empty) settings file: no line says which settings judge the release
    files = {"db/migrations/0001_add.sql": sql.read_text(), ".release-safety.toml": ""}
    builder.release("1.0.0", files)
    return {"sql": str(sql), "repo": str(builder.path)}


def started(command: list[str], arguments: dict[str, str], **kwargs: object) -> subprocess.Popen:
    args = [part.format(**arguments) for part in command]
    return subprocess.Popen(  # type: ignore[call-overload,no-any-return]
        [*CLI, *args], stderr=subprocess.PIPE, text=True, **kwargs
    )


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_a_closed_stdout_is_could_not_check_in_one_line(
    command: list[str], arguments: dict[str, str]
) -> None:
    def close_stdout() -> None:
        os.close(1)

    process = started(command, arguments, preexec_fn=close_stdout)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 3, err
    assert err == "release-safety: standard output is closed: the answer cannot be written\n"


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_a_reader_gone_ends_quietly_with_the_sigpipe_code(
    command: list[str], arguments: dict[str, str]
) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first byte: every write breaks the pipe
    try:
        process = started(command, arguments, stdout=write)
    finally:
        os.close(write)
    _, err = process.communicate(timeout=120)
    assert (process.returncode, err) == (BROKEN_PIPE, "")


def test_generate_into_a_folder_it_cannot_make_writes_and_prints_nothing(
    arguments: dict[str, str], tmp_path: Path
) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("a file where the out folder would be\n")
    out = blocker / "release-safety.json"
    command = ["generate", "--repo", arguments["repo"], "--to", "1.0.0", "--out", str(out)]
    done = subprocess.run([*CLI, *command], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr.startswith(f"release-safety: {out}: cannot write")
    assert done.stderr.count("\n") == 1
