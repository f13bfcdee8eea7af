"""Special files and huge files given by name (issue 35 class 8): refused from what `stat`
says, before a byte is read, in one line with exit 2; never a hang, never memory."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.git.builder import RepoBuilder

CLI = [sys.executable, "-m", "release_safety"]


def answer(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI run as a process, killed after 60 s (a read that blocks fails the test)."""
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, timeout=60, cwd=cwd, check=False
    )


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "0001_pipe.sql"
    os.mkfifo(path)
    return path


@pytest.fixture
def sparse(tmp_path: Path) -> Path:
    path = tmp_path / "0001_huge.sql"
    with open(path, "wb") as handle:
        handle.truncate(300 * 1024**3)  # 300 GB, no block written
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["lint-migrations", "{}"],
        ["validate", "{}"],
        ["diff-openapi", "{}", "{}"],
        ["generate", "--to", "HEAD", "--version", "1.0.0", "--config", "{}", "--out", "-"],
    ],
    ids=["lint-migrations", "validate", "diff-openapi", "generate-config"],
)
@pytest.mark.parametrize("kind", ["device", "fifo", "sparse"])
def test_special_and_huge_files_are_refused_unread(
    command: list[str], kind: str, fifo: Path, sparse: Path, tmp_path: Path
) -> None:
    path = {"device": Path("/dev/zero"), "fifo": fifo, "sparse": sparse}[kind]
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=a",
            "-c",
            "user.email=a@b",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "start",
        ],
        check=True,
    )
    done = answer(*[part.replace("{}", str(path)) for part in command], cwd=repo)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0], done.stderr
    expected = {"device": "a character device", "fifo": "a pipe", "sparse": "bytes, more than"}
    assert expected[kind] in lines[0]
    assert "Traceback" not in done.stderr


def test_an_index_that_is_a_pipe_could_not_be_read(fifo: Path) -> None:
    done = answer("upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--index", str(fifo))
    assert done.returncode == 3
    assert "a pipe, not a regular file" in done.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["lint-migrations", "db/migrations", "--format", "github"],
        ["lint-migrations", "db/migrations/0002_leak.sql"],
        ["diff-openapi", "openapi.yaml", "openapi.yaml"],
    ],
    ids=["lint-folder", "lint-file", "diff-openapi"],
)
def test_a_link_out_of_the_repository_is_never_read(
    command: list[str], make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    """A pull request's link to a file outside the repository (a token, `/proc/self/environ`)
    is bad input naming the link: not a word of the file reaches an annotation (issue 35
    class 8: the first words were printed)."""
    secret = tmp_path / "token.txt"
    secret.write_text("ROOT-TOKEN-4f2a\n")
    builder = make_repo("linked")
    builder.write("db/migrations/0001_init.sql", "CREATE TABLE t (id int);\n")
    (builder.path / "db/migrations/0002_leak.sql").symlink_to(secret)
    (builder.path / "openapi.yaml").symlink_to(secret)
    builder.commit("links")
    done = answer(*command, cwd=builder.path)
    assert done.returncode == 2, done.stderr
    assert "ROOT-TOKEN" not in done.stdout + done.stderr
    assert (
        done.stderr.count("\n") == 1
        and f"a link to {secret}, outside the repository" in done.stderr
    )
