"""The migrations roots the default search finds in a tree: one source per root, with the tool
its files are written for and the engine they run on (what `init` writes, one
`[[migrations.sources]]` each)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from release_safety.git.snapshot import Snapshot, read_text
from release_safety.settings.model import DEFAULT_MIGRATION_SOURCES, MigrationSource
from release_safety.surfaces.migrations.find.discover import (
    below,
    migration_files,
    placements,
    sql_format,
)
from release_safety.surfaces.migrations.find.engine import (
    ASSUMED,
    EngineOf,
    engine_of,
    named_engine,
)
from release_safety.surfaces.migrations.find.formats import listings, order_key
from release_safety.surfaces.migrations.find.golists import go_lists
from release_safety.surfaces.migrations.find.tools import Placed, migration_name
from release_safety.surfaces.migrations.frameworks.goembedded import Unreadable, migration_list

_SQLX = re.compile(r"^\s*sqlx\s*=", re.MULTILINE)
ORDERS = {
    "diesel": "folder-name order (up.sql; down.sql never runs)",
    "prisma": "folder-name order (migration.sql)",
    "drizzle": "the order of meta/_journal.json",
    "sqitch": "the order of sqitch.plan",
    "knex": "file-name order",
    "atlas": "file-name order",
    "liquibase": "file-name order",
    "flyway": "version order, then the repeatables",
    "rails": "version order",
    "ecto": "version order",
    "typeorm": "timestamp order",
    "sequelize": "file-name order",
    "django": "the order of the apps' dependency graph",
    "alembic": "the order of the down_revision chain",
    "go-embedded": "the order of the Go list's elements, each in a transaction of its own",
}
"""How each tool orders its files, in words (else: by file name, versions as numbers)."""


@dataclass(frozen=True)
class Root:
    """A migrations root: the source that reads it, its files in the order they run, and the
    engine they run on."""

    source: MigrationSource
    files: list[str]
    engine: EngineOf
    listed: int | None = None
    """For a Go file listing migrations: how many it lists."""

    def why(self) -> str:
        """One line on what the root holds, for the settings `init` writes."""
        if self.listed is not None:
            return (
                f"{self.listed} migration(s) listed in Go in {self.files[0]}, run in "
                f"{ORDERS['go-embedded']}, against one database{self._engine()}"
            )
        first, last = migration_name(self.files[0]), migration_name(self.files[-1])
        order = ORDERS.get(self.source.format, f"file-name order (`{self.source.name_pattern}`)")
        return (
            f"{len(self.files)} {self.source.format} migration(s) ({first} .. {last}), run in "
            f"{order} against one database{self._engine()}"
        )

    def _engine(self) -> str:
        if self.engine.said_by == ASSUMED:
            return ""
        return f" ({self.engine.label}: {self.engine.said_by})"


def _rust_sqlx(root: str, read: Callable[[str], str | None]) -> bool:
    """True when the nearest Cargo.toml above the root depends on sqlx."""
    parts = root.split("/")
    for end in range(len(parts) - 1, -1, -1):
        text = read("/".join([*parts[:end], "Cargo.toml"]))
        if text is not None:
            return _SQLX.search(text) is not None
    return False


def migration_roots(snapshot: Snapshot) -> list[Root]:
    """Every root the default search finds files in, by path."""
    files = migration_files(snapshot, DEFAULT_MIGRATION_SOURCES)
    placed = placements(snapshot, files, DEFAULT_MIGRATION_SOURCES)

    def read(path: str) -> str | None:
        return read_text(snapshot, path) if snapshot.blob_id(path) is not None else None

    listing = listings(read, below(snapshot))
    grouped: dict[tuple[str, str], list[str]] = {}
    for path, where in placed.items():
        grouped.setdefault((where.root, where.tool), []).append(path)
    roots: list[Root] = []
    for (root, tool), paths in sorted(grouped.items()):
        fmt = tool
        if tool == "sql" and _rust_sqlx(root, read):  # a crate's sqlx migrations
            fmt = "sqlx"
        elif tool == "sql":  # a tool the file's markers and names say (goose, dbmate, popx, ...)
            formats = Counter(sql_format(snapshot, path) for path in paths)
            fmt = "popx" if "popx" in formats else formats.most_common(1)[0][0]
        engine = engine_of(placed[paths[0]], None, read)
        keys = {"path": root, "format": fmt}
        if engine.said_by != ASSUMED:
            keys["dialect"] = engine.engine
        if fmt == "sql":  # plain SQL: the default's exclusions (down files, Flyway undo)
            base = DEFAULT_MIGRATION_SOURCES[0]
            source = base.model_copy(update={"path": root, "dialect": keys.get("dialect")})
        else:
            source = MigrationSource.model_validate(keys)
        ordered = sorted(
            (key, path)
            for path in paths
            if source.matches(path) and (key := order_key(path, fmt, listing)) is not None
        )
        if ordered:
            roots.append(Root(source, [path for _, path in ordered], engine))
    return roots + _go_roots(snapshot, read)


def _go_roots(snapshot: Snapshot, read: Callable[[str], str | None]) -> list[Root]:
    """A root per Go file that lists migrations (`go-embedded`), its pattern the file's name."""
    roots = []
    for path in go_lists(snapshot):
        folder, _, name = path.rpartition("/")
        if not folder:  # a source reads folders: a file at the top is named by `init`'s note
            continue
        try:
            listed = migration_list(read(path) or "")
        except Unreadable:
            listed = None
        engine = engine_of(Placed("go-embedded", folder, True), None, read)
        named = named_engine(name.removesuffix(".go"))
        if named is not None:  # `migrations_sqlite.go` beside `migrations_postgres.go`
            engine = EngineOf(named, f"the file name {name!r}")
        keys = {"path": folder, "pattern": re.escape(name), "format": "go-embedded"}
        if engine.said_by != ASSUMED:
            keys["dialect"] = engine.engine
        source = MigrationSource.model_validate(keys)
        count = len(listed.elements) if listed is not None else 0
        roots.append(Root(source, [path], engine, count))
    return roots
