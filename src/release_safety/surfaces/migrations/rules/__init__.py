"""The migration rule catalogue: every rule with its examples, as data."""

from release_safety.surfaces.migrations.rules.catalogue import (
    ACKNOWLEDGEMENT_INVALID,
    ACKNOWLEDGEMENT_UNUSED,
    BLOCKING_TABLE_LOCK,
    BY_ID,
    CATALOGUE,
    MIGRATION_NOT_READ,
    SHIPPED_MIGRATION_DELETED,
    SHIPPED_MIGRATION_EDITED,
    Example,
    MigrationRule,
)
from release_safety.surfaces.migrations.rules.ids import RuleId

__all__ = [
    "ACKNOWLEDGEMENT_INVALID",
    "ACKNOWLEDGEMENT_UNUSED",
    "BLOCKING_TABLE_LOCK",
    "BY_ID",
    "CATALOGUE",
    "MIGRATION_NOT_READ",
    "SHIPPED_MIGRATION_DELETED",
    "SHIPPED_MIGRATION_EDITED",
    "Example",
    "MigrationRule",
    "RuleId",
]
