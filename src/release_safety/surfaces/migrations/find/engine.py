"""The database engine a migration root's files run on, and what says so: the source's
`dialect`, the tool's config (prisma's `migration_lock.toml` provider, drizzle's journal or
`drizzle.config.*` dialect, Atlas's `atlas.hcl` dev or url, the one engine feature of the
diesel or sqlx dependency in `Cargo.toml`, the one adapter of Rails' `config/database.yml`), a
folder named for an engine (`mysql/`,
`clickhouse_migrations/`), the one database image of a compose file at or above the root,
else PostgreSQL, assumed.

`json` is imported where a drizzle journal is read: a lint of other files loads none."""

from __future__ import annotations

import re

from release_safety.common.value import HashableValue
from release_safety.surfaces.migrations.find.tools import Placed, Read

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Final

ENGINE_NAMES = {
    "postgres": "postgres",
    "postgresql": "postgres",
    "pg": "postgres",
    "mysql": "mysql",
    "mariadb": "mariadb",
    "sqlite": "sqlite",
    "sqlite3": "sqlite",
    "clickhouse": "clickhouse",
    "cockroach": "cockroachdb",
    "cockroachdb": "cockroachdb",
    "crdb": "cockroachdb",
    "sqlserver": "mssql",
    "mssql": "mssql",
}
"""Each spelling of an engine in tools' config and folder names, and the engine it names."""
LABELS = {
    "postgres": "PostgreSQL",
    "mysql": "MySQL",
    "mariadb": "MariaDB",
    "sqlite": "SQLite",
    "clickhouse": "ClickHouse",
    "cockroachdb": "CockroachDB",
    "mssql": "SQL Server",
}
_FOLDER_WORD = re.compile(
    r"(?:^|[_.-])(" + "|".join(sorted(ENGINE_NAMES, key=len, reverse=True)) + r")(?:$|[_.-])",
    re.IGNORECASE,
)
ASSUMED = "assumed: no dialect setting, tool config or folder name says otherwise"
# The patterns of tools' config files are compiled when one is read (`re`'s cache keeps them):
# a root without such a file, most of them, never pays for them.
_PROVIDER = r"""(?m)^\s*provider\s*=\s*["'](?P<name>\w+)["']"""
_CARGO_DEPENDENCY = (
    r"(?m)^\s*(?:diesel|sqlx)\s*=\s*\{[^}]*?\bfeatures\s*=\s*\[(?P<features>[^\]]*)\]"
)
_CARGO_FEATURE = r"[\"'](\w+)[\"']"
_CONFIGS = ("drizzle.config.ts", "drizzle.config.js", "drizzle.config.mjs", "drizzle.config.json")
_DRIZZLE_DIALECT = r"""\bdialect["']?\s*:\s*["'](?P<name>\w+)["']"""
_COMPOSE = ("compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml")
_IMAGE = (
    r"(?m)^\s*image:\s*[\"']?(?:[\w.-]+/)*(?P<name>postgresql|postgres|postgis|mysql|mariadb|"
    r"clickhouse-server|cockroach|mssql-server)\b"
)
_IMAGES = {
    "postgresql": "postgres",
    "postgres": "postgres",
    "postgis": "postgres",
    "mysql": "mysql",
    "mariadb": "mariadb",
    "clickhouse-server": "clickhouse",
    "cockroach": "cockroachdb",
    "mssql-server": "mssql",
}
_RAILS_ADAPTER = r"(?m)^\s*adapter:\s*[\"']?(?P<name>\w+)"
_RAILS_ADAPTERS = {
    "postgresql": "postgres",
    "postgis": "postgres",
    "mysql2": "mysql",
    "trilogy": "mysql",
    "sqlite3": "sqlite",
    "sqlserver": "mssql",
}
"""ActiveRecord's adapter names and the engine each runs on."""
_ATLAS_URL = r"""\b(?:dev|url)\s*=\s*"(?:docker://)?(?P<name>[a-z0-9]+)[:/+]"""


class EngineOf(HashableValue):
    """A root's engine and what said so."""

    FIELDS = ("engine", "said_by")

    engine: Final[str]
    said_by: Final[str]

    def __init__(self, engine: str, said_by: str) -> None:
        self.engine = engine
        self.said_by = said_by

    @property
    def label(self) -> str:
        return LABELS[self.engine]


def engine_of(placed: Placed, dialect: str | None, read: Read) -> EngineOf:
    """The engine `placed`'s root runs on: `dialect` (its source's setting) when given, else
    what its files say (`read`: a file of the same tree, or None)."""
    if dialect is not None:
        return EngineOf(dialect, "the source's dialect")
    root = placed.root
    if placed.tool == "prisma":
        found = _named(_PROVIDER, read(_join(root, "migration_lock.toml")))
        if found is not None:
            return EngineOf(found, f"{_join(root, 'migration_lock.toml')} provider")
    if placed.tool == "drizzle":
        journal = read(_join(root, "meta/_journal.json"))
        dialect = _journal_dialect(journal)
        if dialect is not None:
            return EngineOf(dialect, f"{_join(root, 'meta/_journal.json')} dialect")
    if placed.tool == "atlas":
        for where in _upwards(root, "atlas.hcl"):
            found = _named(_ATLAS_URL, read(where))
            if found is not None:
                return EngineOf(found, f"{where} dev/url")
    if placed.tool in ("diesel", "sqlx", "sql"):
        for where in _upwards(root, "Cargo.toml"):
            found = _cargo_engine(read(where))
            if found is not None:
                return EngineOf(found, f"{where} features")
    if placed.tool == "rails":
        where = _join(root.removesuffix("db/migrate").rstrip("/"), "config/database.yml")
        found = _rails_engine(read(where))
        if found is not None:
            return EngineOf(found, f"{where} adapter")
    if placed.tool == "drizzle":
        for where in (p for f in _CONFIGS for p in _upwards(root, f)):
            found = _named(_DRIZZLE_DIALECT, read(where))
            if found is not None:
                return EngineOf(found, f"{where} dialect")
    for folder in reversed(root.split("/")):
        named = named_engine(folder)
        if named is not None:
            return EngineOf(named, f"the folder name {folder!r}")
    for where in (p for name in _COMPOSE for p in _upwards(root, name)):
        found = _compose_engine(read(where))
        if found is not None:
            return EngineOf(found, f"the one database image of {where}")
    return EngineOf("postgres", ASSUMED)


def named_engine(name: str) -> str | None:
    """The engine a folder or file name names as a word (`mysql`, `migrations_sqlite`)."""
    word = _FOLDER_WORD.search(name)
    return ENGINE_NAMES[word.group(1).lower()] if word is not None else None


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _upwards(folder: str, name: str) -> list[str]:
    """`name` in `folder` and each folder above it, nearest first."""
    parts = folder.split("/") if folder else []
    return [_join("/".join(parts[:i]), name) for i in range(len(parts), -1, -1)]


def _named(pattern: str, text: str | None) -> str | None:
    found = re.search(pattern, text) if text is not None else None
    return ENGINE_NAMES.get(found["name"].lower()) if found is not None else None


def _compose_engine(text: str | None) -> str | None:
    """The one database engine a compose file's images run (None for none, or several)."""
    if text is None:
        return None
    engines = {_IMAGES[found["name"]] for found in re.finditer(_IMAGE, text)}
    return engines.pop() if len(engines) == 1 else None


def _cargo_engine(text: str | None) -> str | None:
    """The one engine the diesel or sqlx dependency of a Cargo.toml is built for."""
    if text is None:
        return None
    engines = {
        ENGINE_NAMES[feature]
        for found in re.finditer(_CARGO_DEPENDENCY, text)
        for feature in re.findall(_CARGO_FEATURE, found["features"])
        if feature in ENGINE_NAMES
    }
    return engines.pop() if len(engines) == 1 else None


def _journal_dialect(text: str | None) -> str | None:
    if text is None:
        return None
    import json

    try:
        dialect = json.loads(text).get("dialect")
    except (ValueError, AttributeError):
        return None
    return ENGINE_NAMES.get(str(dialect).lower()) if dialect is not None else None


def _rails_engine(text: str | None) -> str | None:
    """The one engine the adapters of a `config/database.yml` name (None for none, several,
    or one written by ERB)."""
    if text is None:
        return None
    engines = {_RAILS_ADAPTERS.get(found["name"]) for found in re.finditer(_RAILS_ADAPTER, text)}
    return engines.pop() if len(engines) == 1 else None
