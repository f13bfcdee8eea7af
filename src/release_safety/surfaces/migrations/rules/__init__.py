"""The migration rule catalogue: every rule with its examples, as data."""

from release_safety.surfaces.migrations.rules.catalogue import (
    ACKNOWLEDGEMENT_INVALID,
    ACKNOWLEDGEMENT_UNUSED,
    BLOCKING_TABLE_LOCK,
    CATALOGUE,
    Example,
    MigrationRule,
)

__all__ = [
    "ACKNOWLEDGEMENT_INVALID",
    "ACKNOWLEDGEMENT_UNUSED",
    "BLOCKING_TABLE_LOCK",
    "CATALOGUE",
    "Example",
    "MigrationRule",
]
