"""Hostile round 4, class 9 (issue 45): the SARIF log is uploaded to code scanning, so it names
no path of the machine that made it and its uris are URI references; standard output that
cannot take the answer (`/dev/full`) is `cannot write`, as a file named by `--out` is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from release_safety.git.builder import RepoBuilder

CLI = [sys.executable, "-m", "release_safety"]
ODD = "db/migrations/0002_a b%2C[x].up.sql"


@pytest.fixture
def repo(make_repo: Callable[[str], RepoBuilder]) -> Path:
    builder = make_repo("service")
    builder.release("1.0.0", {"db/migrations/0001_add.sql": "CREATE TABLE t (id int);\n"})
    builder.write(ODD, "ALTER TABLE t ADD COLUMN x int NOT NULL DEFAULT 1;\n")
    builder.commit("odd name")
    return builder.path


def run(args: list[str], cwd: Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    kwargs.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(
        [*CLI, *args], cwd=cwd, stderr=subprocess.PIPE, text=True, check=False, **kwargs
    )


def test_a_sarif_error_names_no_local_path(repo: Path) -> None:
    done = run(["check-pr", "--base", "1.0.0", "--head", "nosuchref", "--format", "sarif"], repo)
    assert done.returncode == 2, done.stderr
    log = json.loads(done.stdout)
    (note,) = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert "nosuchref" in note["message"]["text"]
    assert str(repo) not in done.stdout and str(repo.resolve()) not in done.stdout
    assert str(repo) in done.stderr  # the local line still says where


def test_a_sarif_error_from_elsewhere_names_no_local_path(repo: Path, tmp_path: Path) -> None:
    args = ["check-pr", "--repo", str(repo), "--base", "1.0.0", "--head", "nosuchref"]
    done = run([*args, "--format", "sarif"], tmp_path)
    assert done.returncode == 2, done.stderr
    assert str(repo) not in done.stdout and str(tmp_path) not in done.stdout
    assert "nosuchref" in done.stdout


def test_sarif_uris_are_percent_encoded(repo: Path) -> None:
    done = run(["lint-migrations", "--format", "sarif", ODD], repo)
    log = json.loads(done.stdout)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    }
    assert uris == {"db/migrations/0002_a%20b%252C%5Bx%5D.up.sql"}


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_generate_to_a_full_stdout_says_cannot_write(repo: Path) -> None:
    with open("/dev/full", "w") as full:
        done = run(["generate", "--to", "1.0.0", "--out", "-"], repo, stdout=full)
    assert done.returncode == 3
    # the one error line ends stderr (a repository without settings is said so before it)
    *said, error = done.stderr.splitlines()
    assert error == "release-safety: standard output: cannot write: No space left on device"
    assert [line for line in said if "warning: settings:" not in line] == []
    named = run(["generate", "--to", "1.0.0", "--out", "/dev/full"], repo)
    assert named.returncode == 3
    *said, error = named.stderr.splitlines()
    assert "cannot write" in error
    assert [line for line in said if "warning: settings:" not in line] == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_rules_to_a_full_stdout_says_cannot_write(repo: Path) -> None:
    with open("/dev/full", "w") as full:
        done = run(["rules", "--json"], repo, stdout=full)
    assert (done.returncode, done.stderr) == (
        3,
        "release-safety: standard output: cannot write: No space left on device\n",
    )
