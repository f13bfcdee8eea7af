"""The environment a timed command runs in, as an installed tool runs: its bytecode written once
and then read, kept under a folder of the benchmark's own (a shell that sets
`PYTHONDONTWRITEBYTECODE` would otherwise have an editable install compile every module at every
run, and time the compiler)."""

from __future__ import annotations

import os
from pathlib import Path

_BYTECODE = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")


def cached(pycache: Path | str) -> dict[str, str]:
    """This process's environment with bytecode written and read under `pycache`."""
    return {**_without_bytecode(), "PYTHONPYCACHEPREFIX": str(pycache)}


def compiling() -> dict[str, str]:
    """This process's environment with no bytecode written: every module compiled every run."""
    return {**_without_bytecode(), "PYTHONDONTWRITEBYTECODE": "1"}


def _without_bytecode() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in _BYTECODE}
