"""git decides nothing (issue 35, class 2): what is judged is the commit the release tag names
and the objects as git stores them, whatever refs, replace objects, shallow history or the
repository's own configuration say."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

CREATE = "CREATE TABLE users (id int PRIMARY KEY, email text);\n"
DROP = "ALTER TABLE users DROP COLUMN email;\n"


@pytest.fixture
def dropping(make_repo: Callable[[str], RepoBuilder]) -> RepoBuilder:
    """1.0.0 creates a table; 1.1.0 drops one of its columns (a breaking release)."""
    builder = make_repo("service")
    builder.release("1.0.0", prefix="v", files={"db/migrations/0001_users.sql": CREATE})
    builder.release("1.1.0", prefix="v", files={"db/migrations/0002_drop.sql": DROP})
    return builder


def generated(builder: RepoBuilder, capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code = run(["generate", "--repo", str(builder.path), "--out", "-", *args])
    assert code == 0, capsys.readouterr().err
    found: dict = json.loads(capsys.readouterr().out)
    return found


def test_the_breaking_release_is_false(
    dropping: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        generated(dropping, capsys, "--to", "v1.1.0")["compatibility"]["rollingUpdateSafe"] is False
    )


def test_a_top_level_ref_that_shadows_the_tag_is_refused(
    dropping: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    dropping.git("update-ref", "refs/v1.1.0", dropping.git("rev-parse", "v1.0.0^{commit}"))
    assert run(["generate", "--repo", str(dropping.path), "--to", "v1.1.0", "--out", "-"]) == 2
    err = capsys.readouterr().err
    assert "'v1.1.0' is ambiguous" in err and "refs/tags/v1.1.0" in err
    assert "Traceback" not in err


def test_a_ref_that_shadows_the_previous_release_is_refused(
    dropping: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    dropping.git("update-ref", "refs/v1.0.0", dropping.git("rev-parse", "v1.1.0^{commit}"))
    assert run(["generate", "--repo", str(dropping.path), "--to", "v1.1.0", "--out", "-"]) == 2
    assert "'v1.0.0' is ambiguous" in capsys.readouterr().err


def test_a_branch_at_the_same_commit_as_the_tag_is_no_ambiguity(
    dropping: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    dropping.git("branch", "v1.1.0", "v1.1.0^{commit}")
    assert generated(dropping, capsys, "--to", "v1.1.0")["previousVersion"] == "1.0.0"


def test_replace_objects_do_not_hide_a_migration(
    dropping: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    stored = dropping.git("rev-parse", "v1.1.0:db/migrations/0002_drop.sql")
    (dropping.path / "harmless.sql").write_text("SELECT 1;\n")
    harmless = dropping.git("hash-object", "-w", "harmless.sql")
    dropping.git("replace", stored, harmless)
    assert dropping.git("cat-file", "-p", stored) == "SELECT 1;"  # git itself is fooled
    assert (
        generated(dropping, capsys, "--to", "v1.1.0")["compatibility"]["rollingUpdateSafe"] is False
    )


def test_two_tags_of_one_version_at_different_commits_are_an_error(
    dropping: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    dropping.git("tag", "1.0.0", "v1.1.0^{commit}")
    assert run(["generate", "--repo", str(dropping.path), "--to", "v1.1.0", "--out", "-"]) == 2
    err = capsys.readouterr().err
    assert "tags '1.0.0' and 'v1.0.0' both name release 1.0.0" in err


def test_two_tags_of_one_version_at_one_commit_are_one_release(
    dropping: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    dropping.git("tag", "1.0.0", "v1.0.0^{commit}")
    assert generated(dropping, capsys, "--to", "v1.1.0")["previousVersion"] == "1.0.0"


def test_a_shallow_clone_is_refused_with_the_fix(
    dropping: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clone = tmp_path / "shallow"
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--depth",
            "1",
            "--branch",
            "v1.1.0",
            f"file://{dropping.path}",
            str(clone),
        ],
        check=True,
        capture_output=True,
    )
    assert run(["generate", "--repo", str(clone), "--to", "v1.1.0", "--out", "-"]) == 3
    err = capsys.readouterr().err
    assert "shallow clone" in err and "fetch-depth: 0" in err


def test_the_repositorys_fsmonitor_command_never_runs(
    dropping: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = tmp_path / "fsmonitor-ran"
    hook = tmp_path / "fsmonitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch {ran}\nexit 1\n")
    hook.chmod(0o755)
    dropping.git("config", "core.fsmonitor", str(hook))
    dropping.write(".release-safety.toml", "")  # an uncommitted settings file: worktree read
    generated(dropping, capsys, "--to", "v1.1.0")
    index = tmp_path / "index.json"
    assert run(["backfill", "--repo", str(dropping.path), "--index", str(index)]) == 0
    code = run(["check-pr", "--repo", str(dropping.path), "--base", "v1.0.0", "--head", "v1.1.0"])
    assert code in (0, 1)
    assert not ran.exists()


@pytest.mark.parametrize("ref", ["v1 .1", "v1.1.0\nHEAD", "v1.1.0\t"])
def test_a_ref_with_spaces_or_controls_is_bad_input(
    dropping: RepoBuilder, capsys: pytest.CaptureFixture[str], ref: str
) -> None:
    assert run(["generate", "--repo", str(dropping.path), "--to", ref, "--out", "-"]) == 2
    err = capsys.readouterr().err
    assert "not a ref or commit name" in err and "Traceback" not in err


def test_a_document_path_outside_the_repository_is_bad_input(
    dropping: RepoBuilder, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(dropping.path)
    assert run(["diff-openapi", "v1.0.0:../../etc/passwd", "v1.1.0:api.yaml"]) == 2
    assert "is outside the repository" in capsys.readouterr().err
