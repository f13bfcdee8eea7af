"""Nothing is left behind in any exit path: no server process, socket, data folder or scratch
database, whether the run ends, fails mid-run, or is stopped with Ctrl-C, SIGTERM or SIGKILL
(the watchdog stops the server; the next run on a `--database-url` drops the scratch database
a killed run left)."""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from verifying import release_repo, url, verify

from release_safety.verify import run as run_module
from release_safety.verify.database import Target
from release_safety.verify.run import Where

SLOW = {"migrations/0002_slow.up.sql": "SELECT pg_sleep(60);\n"}
PREFIX = "release-safety-verify-"


def _folders() -> set[str]:
    roots = {"/tmp", tempfile.gettempdir()}
    return {p for root in roots for p in glob.glob(os.path.join(root, PREFIX + "*"))}


def _processes_in(folder: str) -> list[int]:
    """The processes whose command line names `folder` (a server, its watchdog)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if folder.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def _gone(folders: set[str], seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(os.path.exists(f) or _processes_in(f) for f in folders):
            return True
        time.sleep(0.1)
    return False


def _start(path: Path, *more: str) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "release_safety", "verify-migrations", "--to", "v1.1.0"]
    return subprocess.Popen(
        [*argv, "--rows", "10", *more], cwd=path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def _wait_for_the_migration(admin: Target | None, before: set[str]) -> set[str]:
    """Wait until the slow migration runs; the new server folders."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        new = _folders() - before
        sessions = 0
        targets = [admin] if admin else [_target_of(f) for f in new]
        for target in [t for t in targets if t is not None]:
            try:
                conn = target.connect()
            except Exception:
                continue
            rows = conn.run(
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%'"
                " AND pid <> pg_backend_pid()"
            )
            conn.close()
            sessions += int(rows[0][0])
        if sessions:
            return new
        time.sleep(0.1)
    raise AssertionError("the migration never started")


def _target_of(folder: str) -> Target | None:
    pid_file = Path(folder) / "data" / "postmaster.pid"
    try:
        port = int(pid_file.read_text().splitlines()[3])
    except (OSError, IndexError, ValueError):
        return None
    return Target("127.0.0.1", port, "postgres", None, "postgres")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_run_leaves_no_server_behind(tmp_path: Path, sig: signal.Signals) -> None:
    path = release_repo(tmp_path, SLOW)
    before = _folders()
    process = _start(path)
    try:
        new = _wait_for_the_migration(None, before)
        assert new
        process.send_signal(sig)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode != 0
    assert _gone(new)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_a_stopped_run_leaves_no_scratch_database_behind(
    tmp_path: Path, admin: Target, sig: signal.Signals
) -> None:
    path = release_repo(tmp_path, SLOW)
    process = _start(path, "--database-url", url(admin))
    try:
        _wait_for_the_migration(admin, set())
        process.send_signal(sig)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    conn = admin.connect()
    if sig == signal.SIGKILL:  # nothing could clean up: the next run does, once the killed
        deadline = time.monotonic() + 10  # run's session is gone
        while (
            time.monotonic() < deadline
            and conn.run(
                "SELECT count(*) FROM pg_stat_activity WHERE datname LIKE 'release_safety_verify%'"
            )[0][0]
        ):
            time.sleep(0.1)
        later = release_repo(tmp_path / "next", {"migrations/0002_x.up.sql": "SELECT 1;\n"})
        verify(later, Where(database_url=url(admin)))
    deadline = time.monotonic() + 10
    left = ["?"]
    while left and time.monotonic() < deadline:
        left = conn.run(
            "SELECT datname FROM pg_database WHERE datname LIKE 'release_safety_verify%'"
        )
        time.sleep(0.1)
    conn.close()
    assert left == []


def test_an_error_mid_run_leaves_no_server_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("seeding broke")

    made: list[str] = []
    mkdtemp = tempfile.mkdtemp

    def recorded(*args: Any, **kwargs: Any) -> str:
        made.append(mkdtemp(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(run_module, "seed", broken)
    # This run's own folders: other workers' servers come and go in /tmp meanwhile.
    monkeypatch.setattr(tempfile, "mkdtemp", recorded)
    path = release_repo(tmp_path, {"migrations/0002_x.up.sql": "ALTER TABLE users ADD x int;\n"})
    with pytest.raises(RuntimeError, match="seeding broke"):
        verify(path, Where())
    server_folders = [folder for folder in made if PREFIX in folder]
    assert server_folders
    assert _gone(set(server_folders))
