"""A private, throwaway PostgreSQL server: initdb'd in a temporary folder, listening on a free
loopback port with its unix socket in that folder. As root, the server runs as the `postgres`
user (or `nobody`). Used by the tests' session fixture and by `bench/score_real_migrations.py`.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class ServerError(Exception):
    """PostgreSQL could not be started here; the message says why."""


def _bindir() -> Path:
    candidates: list[Path] = []
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        candidates.append(Path(out.stdout.strip()))
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True
    )
    candidates.extend(Path(p) for p in versions)
    for bindir in candidates:
        if (bindir / "initdb").exists() and (bindir / "pg_ctl").exists():
            return bindir
    raise ServerError(
        "PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's `postgresql` "
        "package; the migration heaviness rules are verified on a real server"
    )


def _as_server_user(argv: list[str], user: str | None) -> list[str]:
    return ["runuser", "-u", user, "--", *argv] if user else argv


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def pg_server() -> Iterator[str]:
    """Start a throwaway PostgreSQL cluster; yield its connection string; stop and remove it."""
    bindir = _bindir()
    user: str | None = None
    # As root the server user must reach the folder: /tmp, whatever TMPDIR says.
    root = Path(tempfile.mkdtemp(prefix="rs-pg-", dir="/tmp" if os.geteuid() == 0 else None))
    if os.geteuid() == 0:
        user = next(
            (name for name in ("postgres", "nobody") if _has_user(name)),
            None,
        )
        if user is None:
            raise ServerError("running as root without a `postgres` or `nobody` user")
        entry = pwd.getpwnam(user)
        os.chown(root, entry.pw_uid, entry.pw_gid)
    data = root / "data"
    port = _free_port()
    initdb = [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"]
    subprocess.run(
        _as_server_user([*initdb, "--no-sync", "-E", "UTF8", "--locale=C"], user),
        check=True,
        capture_output=True,
    )
    options = (
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c TimeZone=UTC"
    )
    pg_ctl = str(bindir / "pg_ctl")
    start = [pg_ctl, "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start"]
    result = subprocess.run(_as_server_user(start, user), capture_output=True, text=True)
    if result.returncode != 0:
        log = (root / "log").read_text() if (root / "log").exists() else ""
        raise ServerError(f"PostgreSQL did not start: {result.stderr}\n{log}")
    try:
        yield f"host=127.0.0.1 port={port} user=postgres dbname=postgres"
    finally:
        stop = [pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]
        subprocess.run(_as_server_user(stop, user), capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True
