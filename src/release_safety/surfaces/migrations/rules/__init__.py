"""The migration rule catalogue: every rule with its examples, as data."""

from release_safety.surfaces.migrations.rules.catalogue import CATALOGUE, Example, MigrationRule

__all__ = ["CATALOGUE", "Example", "MigrationRule"]
