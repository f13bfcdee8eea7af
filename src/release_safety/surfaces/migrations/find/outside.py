"""SQL run outside a migration tool: a schema the server recreates at start-up from SQL files,
a data-migration folder a script runs. Such a file is found by name (`.sql`) and by what it
holds (a schema change, or an UPDATE or DELETE), wherever no source reads it and outside the
folders that are not the service's (tests, examples, fixtures, seeds, docs, vendored code); a
release that adds or changes one is `migration-not-read`, with the way out: a source that
reads it with its tool, or an exclusion with the reason it does not run against the service's
database."""

from __future__ import annotations

import re

from release_safety.contract.reports import Unmodelled
from release_safety.settings.model import SKIPPED_FOLDERS

_CHANGES = re.compile(
    r"^[ \t]*(?:(?:CREATE|ALTER|DROP)\s+(?:OR\s+REPLACE\s+)?(?:UNIQUE\s+)?"
    r"(?:TABLE|INDEX|VIEW|MATERIALIZED\s+VIEW|TYPE|SCHEMA|SEQUENCE|FUNCTION|TRIGGER)\b"
    r"|UPDATE\s+\S+\s+SET\b|DELETE\s+FROM\b)",
    re.IGNORECASE | re.MULTILINE,
)
_NOT_THE_SERVICES = SKIPPED_FOLDERS | {"seeds", "seed", "docs", "doc", "benchmarks", "bench"}


def outside_sql(path: str, text: str, exclusion: str) -> Unmodelled | None:
    """The gap a SQL file no source reads leaves, when it changes a schema or its rows."""
    folders = path.split("/")[:-1]
    if not path.endswith(".sql") or any(
        f in _NOT_THE_SERVICES or f.startswith(".") for f in folders
    ):
        return None
    found = _CHANGES.search(text)
    if found is None:
        return None
    folder = path.rpartition("/")[0] or "."
    return Unmodelled(
        file=path,
        line=text.count("\n", 0, found.start()) + 1,
        what="SQL outside any migration tool (no source reads it): the server or a script "
        "may run it against the database at start-up or by hand, and what it changes is not "
        "judged",
        way_out=f"if it runs against the service's database on upgrade, add a "
        f"[[migrations.sources]] with path = {folder!r} and the format of what runs it, so "
        f"it is read, {exclusion}",
    )
