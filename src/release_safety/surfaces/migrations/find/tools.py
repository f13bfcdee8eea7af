"""Which tool runs a migration file, from where, and whether it runs it on an upgrade: the
source's `format`, or for a source left to discovery (`format = "sql"`) what the files and the
tool's config around them say.

- diesel: one folder per migration (`<version>_<name>/up.sql`, `down.sql`), run by folder
  name; `up.sql` runs, `down.sql` never does. `metadata.toml` with `run_in_transaction = false`
  runs it outside a transaction.
- prisma: `<timestamp>_<name>/migration.sql`, run by folder name; the folder's `down.sql`
  (written by hand for `migrate diff`) never runs. `migration_lock.toml` names the provider.
- sqlx: `<version>_<name>.sql` and reversible `<version>_<name>.up.sql` / `.down.sql`, by
  version as a number; `.down.sql` never runs forward (nor does it for golang-migrate, popx
  or a plain `sql` source, nor a Flyway undo script `U<version>__`).
- drizzle: `<idx>_<name>.sql` run in the order of `meta/_journal.json` (a file the journal does
  not name is not run); `--> statement-breakpoint` separates statements.
- Atlas: the `.sql` files of a folder holding `atlas.sum`, by name; a file the sum does not
  list is not run.
- Liquibase formatted SQL (`--liquibase formatted sql`): `--changeset` sections, `--rollback`
  lines are comments that never run forward (`sql.liquibase`).

`json` is imported where a journal is read: a lint of other files loads none.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from release_safety.common.value import HashableValue
from release_safety.surfaces.migrations.find.liquibase import master_of

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Final

_VERSION_FOLDER = re.compile(r"\d[\d-]*_[^/]*")
"""A folder per migration: diesel's `2019-03-05-123456_create_users`, prisma's
`20210101000000_init`."""
_DOWN = re.compile(r".*\.down(?:\.autocommit)?\.sql|U\d+(?:[._]\d+)*__.*\.sql")
"""A down part (golang-migrate, sqlx, popx) or a Flyway undo script: never run on upgrade."""

Exists = Callable[[str], bool]
Read = Callable[[str], "str | None"]


class Placed(HashableValue):
    """A migration file's tool (a format name), the folder its tool runs migrations from, and
    whether the tool runs it on an upgrade (a down part never does)."""

    FIELDS = ("tool", "root", "forward")

    tool: Final[str]
    root: Final[str]
    forward: Final[bool]

    def __init__(self, tool: str, root: str, forward: bool) -> None:
        self.tool = tool
        self.root = root
        self.forward = forward


def migration_name(path: str) -> str:
    """A migration's name as its tool knows it: the file name, or for a folder per migration
    (diesel, prisma) the folder and the file (`2021-01-01-000000_init/up.sql`)."""
    folder, _, name = path.rpartition("/")
    leaf = folder.rpartition("/")[2]
    if name in ("up.sql", "down.sql", "migration.sql") and _VERSION_FOLDER.fullmatch(leaf):
        return f"{leaf}/{name}"
    return name


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def place(path: str, fmt: str, exists: Exists) -> Placed:
    """Where `path` stands among the migrations of its source's format `fmt` (`exists`:
    whether a path of the same tree is a file)."""
    folder, _, name = path.rpartition("/")
    parent, _, leaf = folder.rpartition("/")
    per_migration = _VERSION_FOLDER.fullmatch(leaf) is not None
    tool = fmt
    if tool == "sql":
        tool = _detected(folder, name, per_migration, exists)
    if tool in ("diesel", "prisma"):
        forward = name == ("up.sql" if tool == "diesel" else "migration.sql")
        return Placed(tool, parent if per_migration else folder, forward and per_migration)
    if tool == "liquibase":  # the folder of its master changelog, when there is one
        master = master_of(folder, exists)
        return Placed(tool, master.rpartition("/")[0] if master is not None else folder, True)
    if tool in ("sql", "sqlx", "golang-migrate", "popx", "flyway"):
        return Placed(tool, folder, _DOWN.fullmatch(name) is None)
    return Placed(tool, folder, True)


def _detected(folder: str, name: str, per_migration: bool, exists: Exists) -> str:
    """The tool a `sql` source's file is written for, from its place and its neighbours."""
    if per_migration and name in ("migration.sql", "up.sql", "down.sql"):
        prisma = name == "migration.sql" or exists(_join(folder, "migration.sql"))
        return "prisma" if prisma else "diesel"
    if exists(_join(folder, "meta/_journal.json")):
        return "drizzle"
    if exists(_join(folder, "atlas.sum")):
        return "atlas"
    return "sql"


def journal_order(text: str) -> dict[str, int]:
    """The files a drizzle journal (`meta/_journal.json`) runs, each with its position; a
    journal that cannot be read runs nothing known (ValueError)."""
    import json

    try:
        entries = json.loads(text)["entries"]
        tags = [str(entry["tag"]) for entry in sorted(entries, key=lambda e: int(e["idx"]))]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"meta/_journal.json cannot be read: {exc}") from exc
    return {f"{tag}.sql": position for position, tag in enumerate(tags)}


# Compiled when first used (`re` keeps it): read only where an atlas.sum is.
_SUM_LINE = r"(?m)^(?P<name>[^\s]+\.sql) h1:"


def sum_order(text: str) -> dict[str, int]:
    """The files an `atlas.sum` lists, by name (Atlas runs them in name order)."""
    names = sorted(found["name"] for found in re.finditer(_SUM_LINE, text))
    return {name: position for position, name in enumerate(names)}
