"""What classification knows while it reads one migration file."""

from __future__ import annotations

from release_safety.surfaces.migrations.schema.model import Column, Schema

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from collections.abc import Mapping

    from release_safety.surfaces.migrations.schema.previous import PreviousRelease
    from release_safety.surfaces.migrations.sql.lexer import Tok


class Context:
    """The schema the next statement runs against and what the file has done so far.

    `schema` changes statement by statement; `before` is the schema as of the previous release
    (what old code was written against). `created` holds the tables, views and types this file
    created (empty, unknown to old code), `release_created` those earlier migrations of the
    same release created. `utc` is whether the session time zone has a zero offset (from the
    settings, then `SET TimeZone`). `replay` classifies only what changes the schema (earlier
    migrations replayed to build it).
    """

    schema: Schema
    before: PreviousRelease
    postgres_version: int
    utc: bool
    server_utc: bool
    created: set[str]
    release_created: frozenset[str]
    replay: bool
    depth: int
    """Function bodies being classified, one inside the other."""
    bodies: Mapping[str, list[tuple[str, list[Tok] | None, int]]]
    """The statements of the PL/pgSQL bodies of the statement being classified, by the body's
    text, where they were read ahead (`Statement.bodies`)."""

    def __init__(
        self,
        schema: Schema | None = None,
        before: PreviousRelease | None = None,
        postgres_version: int = 15,
        utc: bool = True,
        server_utc: bool = True,
        created: set[str] | None = None,
        release_created: frozenset[str] = frozenset(),
        replay: bool = False,
        depth: int = 0,
    ) -> None:
        self.schema = Schema() if schema is None else schema
        self.before = Schema() if before is None else before
        self.postgres_version = postgres_version
        self.utc = utc
        self.server_utc = server_utc
        self.created = set() if created is None else created
        self.release_created = release_created
        self.replay = replay
        self.depth = depth
        self.bodies = {}

    def new(self, name: str) -> bool:
        """Created by this file: no rows yet."""
        return name in self.created

    def new_in_release(self, name: str) -> bool:
        """Created by this release: the previous release's code does not use it."""
        return name in self.created or name in self.release_created

    def never_existed(self, name: str) -> bool:
        """The previous release's schema is known and has no such table, nor does the schema
        now (a `DROP TABLE IF EXISTS` of it drops nothing old code uses)."""
        before = self.before
        return (
            before.doubt(name) is None
            and name not in before.tables
            and self.schema.doubt(name) is None
            and name not in self.schema.tables
        )

    def column_is_new(self, table: str, column: str) -> bool:
        """The column did not exist at the previous release (its table did, fully known)."""
        if self.new_in_release(table):
            return True
        return self.before.has_column(*self.origin(table, column)) is False

    def before_column(self, table: str, column: str) -> Column | None:
        """The column as of the previous release (under the names it had then)."""
        return self.before.column(*self.origin(table, column))

    def origin(self, table: str, column: str) -> tuple[str, str]:
        """The names a table and a column renamed since the previous release had then."""
        renamed, seen = self.schema.renamed, {table}
        was = table
        while was not in self.before.tables and was in renamed and renamed[was] not in seen:
            was = renamed[was]
            seen.add(was)
        columns, seen_columns = self.schema.renamed_columns, {column}
        col = column
        while not self.before.has_column(was, col) and (table, col) in columns:
            col = columns[(table, col)]
            if col in seen_columns:
                break
            seen_columns.add(col)
        return was, col
