"""The instructions one run of a command executes, counted by valgrind's callgrind: a measure of
the work that no other load on the machine moves (valgrind runs a command about fifty times
slower)."""

from __future__ import annotations

import subprocess
import tempfile


def instructions(argv: list[str], env: dict[str, str], script: str) -> int:
    """The instructions one run of `argv` executes (every thread; a forked child's are its
    own), with the hash seed fixed; `script` names the benchmark in its error."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out", *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            env={**env, "PYTHONHASHSEED": "0"},
        ).stderr
    counted = [line for line in out.splitlines() if "Collected :" in line]
    if not counted:
        raise SystemExit(f"{script}: valgrind counted nothing: {out.strip()[-300:]}")
    return int(counted[-1].rsplit(":", 1)[1])
