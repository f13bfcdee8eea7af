"""The schema as of the previous release, as classification reads it: a `typing.Protocol`,
apart from `model` (compiled, imported by every lint) so that a lint loads no `typing`;
only mypy imports this module."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping

    from release_safety.surfaces.migrations.schema.model import Column, Table


class PreviousRelease(Protocol):
    """What classification reads of the schema as of the previous release (what old code was
    written against): its tables and columns, and whether facts about them hold. Nothing
    else: a schema continued with `copy(hand_over=True)` keeps only these intact."""

    @property
    def tables(self) -> Mapping[str, Table]: ...

    def doubt(self, *names: str) -> str | None: ...

    def column(self, table: str, column: str) -> Column | None: ...

    def has_column(self, table: str, column: str) -> bool | None: ...
