"""The user cache folder (`RELEASE_SAFETY_CACHE_DIR` overrides it)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

CACHE_DIR_ENV = "RELEASE_SAFETY_CACHE_DIR"


def cache_dir() -> Path:
    override = os.environ.get(CACHE_DIR_ENV)
    return Path(override) if override else Path(platformdirs.user_cache_dir("release-safety"))
