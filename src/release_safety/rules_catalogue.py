"""Import every surface so that its rules are registered in `findings.RULES`."""

from __future__ import annotations

import importlib

SURFACE_MODULES = (
    "release_safety.verdict",
    "release_safety.surfaces.migrations",
    "release_safety.surfaces.declarations",
    "release_safety.surfaces.overrides",
    "release_safety.surfaces.rest",
    "release_safety.surfaces.mcp",
    "release_safety.surfaces.config",
)


def load_all_rules() -> None:
    for module in SURFACE_MODULES:
        importlib.import_module(module)
