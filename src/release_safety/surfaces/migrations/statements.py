"""What extraction hands to classification: a migration file as a list of statements."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from release_safety.surfaces.migrations.lexer import Tok


@dataclass(frozen=True)
class Statement:
    """One SQL statement of a migration, or a statement whose text could not be determined.

    `sql` is None when the text is dynamic (built at run time, a `DO` body that cannot be read);
    `reason` then says why. `line` is 1-based in the migration file.
    """

    sql: str | None
    line: int
    reason: str | None = None
    toks: list[Tok] | None = field(default=None, compare=False, repr=False)
    """Its tokens when the split already read them (`tokenize(sql)`), else None."""


@dataclass(frozen=True)
class Extracted:
    """A migration file's statements and whether they run in one transaction."""

    statements: list[Statement] = field(default_factory=list)
    transactional: bool = True
    wrapped: bool = False
    """The tool that runs the file wraps it in a transaction for certain (its markers, knex's
    default): a statement that cannot run in one fails there."""
