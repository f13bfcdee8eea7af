"""The schema the catalogue's examples for other engines than PostgreSQL run on: the same
tables as the PostgreSQL fixture's, as each engine writes them."""

from __future__ import annotations

from release_safety.surfaces.migrations.engines.postgres.heaviness import FileAnalysis
from release_safety.surfaces.migrations.lint import analyse_text, schema_of
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.schema.model import Schema

FIXTURES = {
    "mysql": "CREATE TABLE users (id INT, email VARCHAR(255) NOT NULL, name VARCHAR(100), "
    "age INT, PRIMARY KEY (id));\n",
    "clickhouse": "CREATE TABLE events (id UInt64, a String) ENGINE = MergeTree ORDER BY id;\n",
}
_SCHEMAS: dict[str, Schema] = {}


def engine_history(engine: str) -> Schema:
    """The fixture schema on `engine`, as the engine's judge replays it."""
    if engine not in _SCHEMAS:
        _SCHEMAS[engine] = schema_of(FIXTURES[engine], Reading(), engine=engine)
    return _SCHEMAS[engine]


def on_engine(sql: str, engine: str) -> FileAnalysis:
    """The analysis of `sql` run on the engine's fixture schema."""
    return analyse_text(
        sql, "m.sql", "sql", Reading(), history=engine_history(engine), engine=engine
    )
