"""Files under concurrency and kills (issue 17 items 4, 7 and 10): no lost update, no orphan,
no stale temporary file, no mode changed to 0600. Real processes and signals throughout."""

from __future__ import annotations

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
from release_safety.git.builder import RepoBuilder
from release_safety.release.artifact import unknown_artifact

CLI = [sys.executable, "-m", "release_safety"]


def write_artifact(folder: Path, version: str, previous: str | None) -> Path:
    path = folder / f"{version}.json"
    artifact = unknown_artifact(version, previous, "2026-01-01T00:00:00Z")
    path.write_text(json.dumps(artifact.to_json_data()))
    return path


def indexed(index: Path) -> list[str]:
    return [entry["version"] for entry in json.loads(index.read_text())["entries"]]


@pytest.mark.parametrize("linked", [False, True], ids=["one-path", "half-through-a-link"])
def test_concurrent_index_updates_lose_no_entry(tmp_path: Path, linked: bool) -> None:
    """Half the writers name the index through a link to it (issue 35 class 6): the lock is
    taken on the file the path resolves to, so they wait for each other too."""
    index = tmp_path / "release-safety-index.json"
    link = tmp_path / "link" / "index.json"
    link.parent.mkdir()
    link.symlink_to(index)
    versions = [f"1.{minor}.0" for minor in range(20 if linked else 12)]
    artifacts = [write_artifact(tmp_path, v, None) for v in versions]
    updates = [
        subprocess.Popen(
            [
                *CLI,
                "index",
                "update",
                "--index",
                str(link if linked and i % 2 else index),
                "--artifact",
                str(artifact),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for i, artifact in enumerate(artifacts)
    ]
    for update in updates:
        _, err = update.communicate()
        assert update.returncode == 0, err
    assert sorted(indexed(index)) == sorted(versions)


def history(builder: RepoBuilder, count: int) -> list[str]:
    versions = []
    for i in range(count):
        version = f"0.{i}.0"
        builder.release(version, {f"db/migrations/{i:04}_t.sql": f"CREATE TABLE t{i} (id int);\n"})
        versions.append(version)
    return versions


def test_an_index_update_during_a_backfill_is_kept_and_keeps_the_backfill(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    builder = make_repo("service")
    versions = history(builder, 40)
    index = tmp_path / "release-safety-index.json"
    often = ["--checkpoint-seconds", "0", "--no-cache"]
    backfill = subprocess.Popen(
        [*CLI, "backfill", "--repo", str(builder.path), "--index", str(index), *often],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    own: list[str] = []
    while backfill.poll() is None or not own:
        if index.exists():
            version = f"9.{len(own)}.0"
            artifact = write_artifact(tmp_path, version, None)
            update = [*CLI, "index", "update", "--index", str(index), "--artifact", str(artifact)]
            subprocess.run(update, check=True, capture_output=True)
            own.append(version)
        else:
            time.sleep(0.05)
    assert backfill.wait() == 0
    assert indexed(index) == versions + own
    entries = {e["version"]: e for e in json.loads(index.read_text())["entries"]}
    assert all(entries[v]["backfilled"] for v in versions)
    assert not any(entries[v]["backfilled"] for v in own)


def test_a_second_backfill_into_the_same_artifacts_folder_stops_at_once(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from release_safety.common.jsonio import FileLock

    builder = make_repo("service")
    history(builder, 2)
    artifacts = tmp_path / "artifacts"
    args = ["backfill", "--repo", str(builder.path), "--index", str(tmp_path / "i.json")]
    with FileLock(artifacts, 0.0, "the artifacts folder"):
        assert run([*args, "--artifacts-dir", str(artifacts)]) == 3
    assert "being written by another run" in capsys.readouterr().err
    assert run([*args, "--artifacts-dir", str(artifacts)]) == 0


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            tree.setdefault(parent, []).append(int(entry.name))
    return tree


def _descendants(pid: int) -> set[int]:
    tree, found, todo = _children(), set(), [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _cmdline(pid: int) -> bytes:
    """The process's command line, or nothing when it ended meanwhile (reading /proc of a
    process that exits between two looks raises ProcessLookupError)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_kill_9_of_a_parallel_backfill_leaves_no_process_behind(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    builder = make_repo("service")
    history(builder, 60)
    outputs = ["--index", str(tmp_path / "i.json"), "--artifacts-dir", str(tmp_path / "a")]
    backfill = subprocess.Popen(
        [*CLI, "backfill", "--repo", str(builder.path), "--jobs", "2", "--no-cache", *outputs],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen: set[int] = set()
    for _ in range(600):  # until both workers and a git reader run (or the backfill ended)
        seen |= _descendants(backfill.pid)
        commands = [_cmdline(p) for p in seen if _running(p)]
        if sum(b"git" in c for c in commands) and len(seen) >= 3:
            break
        if backfill.poll() is not None:
            pytest.fail("the backfill ended before it could be killed")
        time.sleep(0.05)
    os.kill(backfill.pid, signal.SIGKILL)
    backfill.wait()
    for _ in range(300):
        left = [pid for pid in seen if _running(pid)]
        if not left:
            break
        time.sleep(0.1)
    assert not left, [_cmdline(p) for p in left]


def test_temporaries_of_killed_writers_are_removed_by_the_next_write(tmp_path: Path) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    index = tmp_path / "release-safety-index.json"
    stale = tmp_path / f".{index.name}.{gone.pid}.0badc0de.tmp"
    live = tmp_path / f".{index.name}.{os.getppid()}.0badc0de.tmp"  # a process that runs
    legacy_old = tmp_path / f".{index.name}.ab12_xyz.tmp"
    legacy_new = tmp_path / f".{index.name}.cd34_xyz.tmp"
    other = tmp_path / ".other.json.1.0badc0de.tmp"
    for path in (stale, live, legacy_old, legacy_new, other):
        path.write_text("half a file")
    two_hours_ago = time.time() - 7200
    os.utime(legacy_old, (two_hours_ago, two_hours_ago))
    artifact = write_artifact(tmp_path, "1.0.0", None)
    assert run(["index", "update", "--index", str(index), "--artifact", str(artifact)]) == 0
    assert not stale.exists() and not legacy_old.exists()
    assert live.exists() and legacy_new.exists() and other.exists()


def test_writes_keep_the_mode_of_the_file_they_replace(tmp_path: Path) -> None:
    index = tmp_path / "release-safety-index.json"
    artifact = write_artifact(tmp_path, "1.0.0", None)
    assert run(["index", "update", "--index", str(index), "--artifact", str(artifact)]) == 0
    index.chmod(0o640)
    artifact = write_artifact(tmp_path, "1.1.0", "1.0.0")
    assert run(["index", "update", "--index", str(index), "--artifact", str(artifact)]) == 0
    assert index.stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_a_new_file_gets_0644_under_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    index = tmp_path / "release-safety-index.json"
    artifact = write_artifact(tmp_path, "1.0.0", None)
    subprocess.run(
        [*CLI, "index", "update", "--index", str(index), "--artifact", str(artifact)],
        check=True,
        capture_output=True,
        preexec_fn=lambda: os.umask(umask),
    )
    assert index.stat().st_mode & 0o777 == mode
