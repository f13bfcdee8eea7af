"""What classification remembers between the statements of one migration file."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Context:
    """Schema knowledge gathered from earlier statements of the same migration.

    `created` tables are empty and unused by the previous release; `not_null` columns are known
    NOT NULL; `null_checks` maps a CHECK (col IS NOT NULL) constraint to its column and whether
    it is validated; `indexes` maps index names created here to their table.
    """

    postgres_version: int = 15
    created: set[str] = field(default_factory=set)
    created_types: set[str] = field(default_factory=set)
    not_null: set[tuple[str, str]] = field(default_factory=set)
    nullable: set[tuple[str, str]] = field(default_factory=set)
    null_checks: dict[tuple[str, str], tuple[str, bool]] = field(default_factory=dict)
    indexes: dict[str, str] = field(default_factory=dict)

    def validated_not_null(self, table: str, column: str) -> bool:
        """A valid CHECK (column IS NOT NULL) exists on the table."""
        return any(
            t == table and col == column and valid
            for (t, _), (col, valid) in self.null_checks.items()
        )
