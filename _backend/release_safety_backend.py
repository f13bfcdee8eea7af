"""The build backend: setuptools', asking for mypy only when the build compiles.

`pip install .` builds the pure-Python package (no compiler, no mypy in the build
environment: seconds); `RELEASE_SAFETY_COMPILE=1` (the release workflow's wheels, `.ci/run`) or
`=auto` (compile where it can) adds mypy to what the build needs and `setup.py` compiles the
hot modules with mypyc.
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every hook, as setuptools defines it)

MYPY = "mypy>=2.4"


def compiles() -> bool:
    """Whether this build compiles (RELEASE_SAFETY_COMPILE set, and not to 0)."""
    return os.environ.get("RELEASE_SAFETY_COMPILE", "0") not in ("", "0")


def get_requires_for_build_wheel(config_settings: dict[str, object] | None = None) -> list[str]:
    needed: list[str] = _setuptools.get_requires_for_build_wheel(config_settings)
    return [*needed, MYPY] if compiles() else needed
