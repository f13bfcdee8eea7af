"""The migrations surface: which tables each new migration touches, how heavily, and whether
it breaks the previous release's running code."""

from release_safety.surfaces.migrations.analyse import analyse

__all__ = ["analyse"]
