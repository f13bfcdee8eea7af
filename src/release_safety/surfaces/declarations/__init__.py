"""The declarations surface: breaks engineers declare, by annotation comment or in the registry.

See docs/declarations.md for the annotation grammar, the registry format and the hollow-reason
rules.
"""

from release_safety.surfaces.declarations.surface import analyse

__all__ = ["analyse"]
