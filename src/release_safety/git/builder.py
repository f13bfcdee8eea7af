"""Build real git repositories commit by commit: the demo's sample service and the tests'."""

from __future__ import annotations

import os
import signal
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path


class RepoBuilder:
    """A new git repository whose commits get fixed, increasing dates (reproducible ids)."""

    def __init__(self, path: Path, start: datetime | None = None) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._clock = start or datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.name", "Release Bot")
        self.git("config", "user.email", "release-bot@example.com")
        self.git("config", "commit.gpgsign", "false")
        self.git("config", "tag.gpgsign", "false")

    def git(self, *args: str) -> str:
        env = {
            **os.environ,
            "GIT_AUTHOR_DATE": self._clock.isoformat(),
            "GIT_COMMITTER_DATE": self._clock.isoformat(),
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        command = ["git", *args]
        pipe = subprocess.PIPE
        # Ctrl-C must not leave a git running on in a folder the caller then removes: it is held
        # back while git starts (an interrupt inside Popen would orphan it), then git is killed
        # and reaped (run() waits a quarter of a second only)
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            process = subprocess.Popen(
                command, cwd=self.path, env=env, stdout=pipe, stderr=pipe, text=True
            )
            try:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
                out, err = process.communicate()
            except BaseException:
                process.kill()
                process.communicate()
                raise
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        if process.returncode != 0:
            raise subprocess.CalledProcessError(process.returncode, command, out, err)
        return out.strip()

    def write(self, path: str, text: str | bytes) -> RepoBuilder:
        target = self.path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8")
        return self

    def delete(self, path: str) -> RepoBuilder:
        (self.path / path).unlink()
        return self

    def move(self, old: str, new: str) -> RepoBuilder:
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        (self.path / old).rename(self.path / new)
        return self

    def commit(self, message: str, hours: float = 24) -> str:
        """Commit everything; the clock moves on by `hours` first. Returns the commit id."""
        self._clock += timedelta(hours=hours)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def tag(self, name: str, annotated: bool = False) -> RepoBuilder:
        if annotated:
            self.git("tag", "-a", name, "-m", f"release {name}")
        else:
            self.git("tag", name)
        return self

    def release(self, version: str, files: dict[str, str] | None = None, prefix: str = "") -> str:
        """Write `files`, commit and tag `prefix + version`; returns the commit id."""
        for path, text in (files or {}).items():
            self.write(path, text)
        commit = self.commit(f"release {version}")
        self.tag(prefix + version)
        return commit
