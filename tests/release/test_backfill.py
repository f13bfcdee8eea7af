"""Backfill over real git repositories: entry by entry, resumable, killable."""

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.contract.schemas import validate_document
from release_safety.git.builder import RepoBuilder
from release_safety.release.backfill import contiguous_parts


def history(builder: RepoBuilder, count: int) -> list[str]:
    versions = []
    for i in range(count):
        version = f"0.{1890 + i}.{i % 3}"
        files = (
            {f"db/migrations/{i:04}_step.sql": f"CREATE TABLE t{i} (id int);\n"}
            if i % 4 == 0
            else {}
        )
        builder.release(version, files, prefix="v" if i % 2 else "")
        versions.append(version)
        if i % 5 == 0:
            builder.commit("between releases")
            builder.tag(f"v{version}-rc.1")
    return versions


@pytest.fixture
def repo(make_repo: Callable[[str], RepoBuilder]) -> tuple[RepoBuilder, list[str]]:
    builder = make_repo("service")
    return builder, history(builder, 30)


def test_backfill_entry_by_entry(repo: tuple[RepoBuilder, list[str]], tmp_path: Path) -> None:
    builder, versions = repo
    index, artifacts = tmp_path / "index.json", tmp_path / "artifacts"
    floor = versions[3]
    args = ["backfill", "--repo", str(builder.path), "--index", str(index), "--floor", floor]
    assert run([*args, "--artifacts-dir", str(artifacts)]) == 0
    data = json.loads(index.read_text())
    validate_document(data, "index", "release-safety-index")
    entries = data["entries"]
    assert [e["version"] for e in entries] == versions[3:]
    assert data["backfillFloorVersion"] == floor
    for position, entry in enumerate(entries, start=3):
        assert entry["backfilled"] is True
        assert entry["rollingUpdateSafe"] != True  # noqa: E712 - never true when backfilled
        assert entry["previousVersion"] == versions[position - 1]
        assert entry["syntheticRequiredStop"] is (entry["version"] == floor)
        assert (floor in entry["requiredStops"]) is (entry["version"] == floor)
        artifact = json.loads((artifacts / entry["version"] / "release-safety.json").read_text())
        validate_document(artifact, entry["version"], "release-safety")
        assert artifact["releaseDate"] == entry["releaseDate"]


def test_floor_and_through_given_with_a_tags_v(
    repo: tuple[RepoBuilder, list[str]], tmp_path: Path
) -> None:
    builder, versions = repo
    index = tmp_path / "index.json"
    args = ["backfill", "--repo", str(builder.path), "--index", str(index), "--no-cache"]
    assert run([*args, "--floor", f"v{versions[3]}", "--through", f"v{versions[5]}"]) == 0
    data = json.loads(index.read_text())
    validate_document(data, "index", "release-safety-index")
    assert data["backfillFloorVersion"] == versions[3]
    assert [e["version"] for e in data["entries"]] == versions[3:6]


def test_resumable_and_release_entries_kept(
    repo: tuple[RepoBuilder, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    builder, versions = repo
    index = tmp_path / "index.json"
    own = tmp_path / "own.json"
    newest = f"v{versions[-1]}"  # odd positions are tagged with a v
    assert run(["generate", "--repo", str(builder.path), "--to", newest, "--out", str(own)]) == 0
    assert run(["index", "update", "--index", str(index), "--artifact", str(own)]) == 0
    args = [
        "backfill",
        "--repo",
        str(builder.path),
        "--index",
        str(index),
        "--through",
        versions[9],
    ]
    capsys.readouterr()
    assert run(args) == 0
    assert "10 generated, 0 kept" in capsys.readouterr().out
    assert run(["backfill", "--repo", str(builder.path), "--index", str(index)]) == 0
    assert "19 generated, 11 kept (1 releases' own entries)" in capsys.readouterr().out
    entries = {e["version"]: e for e in json.loads(index.read_text())["entries"]}
    assert len(entries) == 30 and entries[versions[-1]]["backfilled"] is False
    assert (
        run(
            [
                "backfill",
                "--repo",
                str(builder.path),
                "--index",
                str(index),
                "--regenerate",
                "--jobs",
                "2",
            ]
        )
        == 0
    )
    assert "29 generated, 1 kept" in capsys.readouterr().out
    assert run(["backfill", "--repo", str(builder.path), "--index", str(index), "--force"]) == 0
    assert json.loads(index.read_text())["entries"][-1]["backfilled"] is True


def test_jobs_give_the_same_index(repo: tuple[RepoBuilder, list[str]], tmp_path: Path) -> None:
    builder, _ = repo
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert run(["backfill", "--repo", str(builder.path), "--index", str(one)]) == 0
    assert run(["backfill", "--repo", str(builder.path), "--index", str(two), "--jobs", "2"]) == 0
    assert one.read_bytes() == two.read_bytes()


def test_killed_backfill_resumes_to_the_same_index(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    builder = make_repo("big")
    history(builder, 40)
    whole, killed = tmp_path / "whole.json", tmp_path / "killed.json"
    base = [sys.executable, "-m", "release_safety", "backfill", "--repo", str(builder.path)]
    subprocess.run([*base, "--index", str(whole)], check=True, capture_output=True)
    process = subprocess.Popen(
        [*base, "--index", str(killed), "--checkpoint-seconds", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if killed.exists() and len(json.loads(killed.read_text() or "{}").get("entries", [])) >= 5:
            break
        time.sleep(0.005)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    partial = json.loads(killed.read_text())["entries"]
    assert 5 <= len(partial) < 40, "the kill must land midway"
    subprocess.run([*base, "--index", str(killed)], check=True, capture_output=True)
    assert killed.read_bytes() == whole.read_bytes()


def test_unknown_floor_is_bad_input(
    repo: tuple[RepoBuilder, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    builder, _ = repo
    assert (
        run(
            [
                "backfill",
                "--repo",
                str(builder.path),
                "--index",
                str(tmp_path / "i.json"),
                "--floor",
                "9.9.9",
            ]
        )
        == 2
    )
    assert "not a release tag" in capsys.readouterr().err
    assert not (tmp_path / "i.json").exists()


def test_a_failing_release_becomes_unknown_and_the_run_goes_on(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    builder = make_repo("service")
    builder.release("1.0.0", {"db/migrations/001.sql": "CREATE TABLE a (id int);\n"})
    builder.release("1.1.0", {"db/migrations/002.sql": "ALTER TABLE a DROP COLUMN id;\n"})
    builder.release("1.2.0", {"release-safety.overrides.json": '{"versions": {"1.2.0": 7}}\n'})
    builder.release("1.3.0", {"release-safety.overrides.json": "{}\n"})
    index = tmp_path / "index.json"
    assert run(["backfill", "--repo", str(builder.path), "--index", str(index)]) == 0
    captured = capsys.readouterr()
    assert (
        "warning: 1.2.0: InputError: " in captured.err
        and "release-safety.overrides.json" in captured.err
    )
    assert "3 generated" not in captured.out and "4 generated, 0 kept" in captured.out
    entries = {e["version"]: e for e in json.loads(index.read_text())["entries"]}
    assert entries["1.1.0"]["rollingUpdateSafe"] is False  # a proven break survives backfill
    assert entries["1.2.0"]["rollingUpdateSafe"] == "unknown"
    assert entries["1.2.0"]["previousVersion"] == "1.1.0"
    assert entries["1.3.0"]["rollingUpdateSafe"] == "unknown"


def test_parallel_workers_read_dockerfiles_with_the_go_parser(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    """The Dockerfile parser is a Go library, loaded by the backfill's process; a Go runtime
    does not survive fork (forked workers deadlocked in it), so the workers are spawned."""
    builder = make_repo("service")
    steps = "".join(f"RUN echo step {i} && apt-get install -y tool{i}\n" for i in range(200))
    builder.write("db/migrations/001_init.sql", "CREATE TABLE users (id int);\n")
    builder.write(".release-safety.toml", '[deployment]\nsources = ["images/*/Dockerfile"]\n')
    majors = {"1.0.0": 15, "1.1.0": 15, "1.2.0": 15, "1.3.0": 17, "1.4.0": 17, "1.5.0": 18}
    for version, major in majors.items():
        dockerfile = f"FROM postgres:{major}.{version[2]}\n{steps}"
        builder.release(version, {"images/db/Dockerfile": dockerfile})
    index, artifacts = tmp_path / "index.json", tmp_path / "artifacts"
    outputs = ["--index", str(index), "--artifacts-dir", str(artifacts)]
    command = [sys.executable, "-m", "release_safety", "backfill", "--repo", str(builder.path)]
    # a hang is a failure here, not a stuck suite
    parallel = [*command, *outputs, "--jobs", "2"]
    subprocess.run(parallel, check=True, capture_output=True, timeout=120)
    verdicts = {}
    for version in majors:
        artifact = json.loads((artifacts / version / "release-safety.json").read_text())
        validate_document(artifact, version, "release-safety")
        verdicts[version] = artifact["compatibility"]["rollingUpdateSafe"]
    assert verdicts == {
        "1.0.0": "unknown",
        "1.1.0": "unknown",  # 15.0 -> 15.1: an update, and a backfilled entry is never true
        "1.2.0": "unknown",
        "1.3.0": False,  # postgres 15 -> 17, read from the Dockerfile
        "1.4.0": "unknown",
        "1.5.0": False,
    }
    one = tmp_path / "one.json"
    subprocess.run([*command, "--index", str(one)], check=True, capture_output=True, timeout=120)
    assert one.read_bytes() == index.read_bytes()


@pytest.mark.parametrize(("count", "jobs"), [(538, 2), (143, 2), (10, 3), (2, 2), (3, 8), (1, 4)])
def test_workers_get_contiguous_parts_the_newer_ones_shorter(count: int, jobs: int) -> None:
    """Each worker goes through consecutive releases (what it learnt of one tree serves the
    next); newer releases cost more, so their parts are shorter; none is empty."""
    releases = list(range(count))
    parts = contiguous_parts(releases, jobs)
    assert [r for part in parts for r in part] == releases
    assert len(parts) == min(count, jobs) and all(parts)
    assert all(len(a) >= len(b) for a, b in itertools.pairwise(parts))
