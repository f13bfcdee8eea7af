"""The user cache folder (`RELEASE_SAFETY_CACHE_DIR` overrides it)."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR_ENV = "RELEASE_SAFETY_CACHE_DIR"


def cache_dir() -> Path:
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs  # deferred: quick commands with a local index never need it

    return Path(platformdirs.user_cache_dir("release-safety"))
