"""release-safety: is upgrading to this release safe to roll, and why."""

__version__ = "0.1.0"
