"""The declarations surface: breaks engineers declare, by annotation comment or in the registry.

See docs/declarations.md for the annotation grammar, the registry format and the hollow-reason
rules.
"""

from __future__ import annotations

from typing import Any

__all__ = ["analyse"]


def __getattr__(name: str) -> Any:
    """`analyse`, its module imported when first asked for: the package's modules (`jsonpos`,
    `registry`) are imported without the surface's readers."""
    if name == "analyse":
        from release_safety.surfaces.declarations.surface import analyse

        return analyse
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
