"""Each migration tool's own rules beyond the file names it runs (`settings.model.FORMAT_PATTERNS`):
which of a version's files it picks, the order it runs them in, and how it reads them.

- golang-migrate, goose, dbmate, popx and plain SQL run files by their numeric version, the
  leading digits of the name compared as numbers (`00010_x.sql` after `0002_y.sql`), then by
  name; a name without a version runs before the versioned ones, by name.
- popx/fizz (and plain SQL, for a multi-dialect folder left to discovery) runs, of a version's
  files, the PostgreSQL one (`<version>_<name>.postgres.up.sql`), else the generic one
  (`<version>_<name>.up.sql`); other dialects' files (`.mysql.`, `.sqlite3.`, `.cockroach.`,
  `.mssql.`, and pop's synonyms `.sqlite.`, `.cockroachdb.`, `.crdb.`) are not for PostgreSQL
  (`.postgresql.` and `.pg.` are). A `.autocommit` file (`.autocommit.up.sql` or
  `.up.autocommit.sql`) runs outside a transaction.
- Flyway runs versioned files (`V<version>__<description>.sql`) by their version parts as
  numbers, then the repeatable ones (`R__<description>.sql`) by description.
- sqitch runs the `deploy/` scripts in the order of the `sqitch.plan` beside that folder; a
  script the plan does not name is not run.
- knex, Atlas and Liquibase's formatted SQL (without a changelog) run their files by name;
  diesel and prisma their folders by name, drizzle its journal's order (`tools`).
- Rails, TypeORM, Ecto and Sequelize run their files by version (the leading digits); Django by
  its apps' dependency graph and Alembic by its revision chain (`frameworks/order.py`).
- go-embedded: one Go file whose list's elements are the migrations, run in the list's order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from release_safety.surfaces.migrations.find.liquibase import include_order, master_in
from release_safety.surfaces.migrations.find.tools import journal_order

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Literal

    from release_safety.settings.model import MigrationSource

    Reader = Literal[
        "sql", "knex", "rails", "django", "alembic", "typeorm", "ecto", "sequelize", "go-embedded"
    ]

OrderKey = tuple[int, tuple[int, ...], str, str]
CODE_READERS: tuple[Reader, ...] = (
    "knex",
    "rails",
    "django",
    "alembic",
    "typeorm",
    "ecto",
    "sequelize",
    "go-embedded",
)
"""The formats whose migrations are code, read by `frameworks/`."""

_VERSION = re.compile(r"(\d+)")
# Compiled when first used (`re` keeps it): a root of another tool never pays for flyway's,
# sqitch's or Django's patterns.
_FLYWAY = r"(?:V(?P<version>\d+(?:[._]\d+)*)|R)__(?P<description>.*)"
# pop's file names (compiled when first used, as the two above: most files' names do not say
# `autocommit`, and only a folder of several dialects needs it)
_DIALECT = (
    r"(?P<stem>\d+_[^.]+)\.(?:(?P<dialect>postgres(?:ql)?|pg|mysql|sqlite3?|cockroach(?:db)?"
    r"|crdb|mssql)\.)?"
    r"(?P<before>autocommit\.)?(?P<direction>up|down)(?P<after>\.autocommit)?\.(?:sql|fizz)"
)
_POSTGRES = ("postgres", "postgresql", "pg")
"""PostgreSQL's names in a file name, as pop's dialect synonyms give them."""
_PLAN_CHANGE = r"(?m)^(?P<change>[^\s@:%#\[][^\s\[]*)"


def reader(source: MigrationSource) -> Reader:
    """How the files of a source are read: a framework's code (knex, Rails, Django, Alembic,
    TypeORM, Ecto, Sequelize), or SQL (with each SQL tool's up/down markers, `sections`)."""
    return next((code for code in CODE_READERS if code == source.format), "sql")


def outside_transaction(path: str) -> bool:
    """True when popx runs the file outside a transaction (`.autocommit` in its name)."""
    name = path.rpartition("/")[2]
    found = "autocommit" in name and re.fullmatch(_DIALECT, name)
    return bool(found and (found["before"] or found["after"]))


def dialect_skipped(paths: Iterable[str]) -> set[str]:
    """The files of a multi-dialect folder PostgreSQL does not run: other dialects' files, and
    a generic file whose version has a PostgreSQL one."""
    chosen: set[tuple[str, str, str]] = set()
    named: dict[str, re.Match[str]] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        found = re.fullmatch(_DIALECT, name)
        if found:
            named[path] = found
            if found["dialect"] in _POSTGRES:
                chosen.add((folder, found["stem"], found["direction"]))
    return {
        path
        for path, found in named.items()
        if found["dialect"] not in (None, *_POSTGRES)
        or (
            found["dialect"] is None
            and (path.rpartition("/")[0], found["stem"], found["direction"]) in chosen
        )
    }


def order_key(path: str, tool: str, listing: Listing) -> OrderKey | None:
    """Where a file runs among its database's migrations; None when its tool does not run it
    (a sqitch script its plan does not name, a drizzle file its journal does not, a Django
    squash of migrations that are there). `listing(kind, folder)` is the order a sqitch plan or
    a drizzle journal in `folder` gives (None when there is none, or it cannot be read:
    drizzle's files then run by name), or the graph of Alembic's or Django's files."""
    folder, _, name = path.rpartition("/")
    if tool == "flyway":
        found = re.fullmatch(_FLYWAY, name.removesuffix(".sql"))
        if found is None:
            return (2, (), name, path)
        if found["version"] is None:
            return (1, (), found["description"], path)
        parts = tuple(int(p) for p in re.split(r"[._]", found["version"]))
        return (0, parts, found["description"], path)
    if tool == "sqitch":
        changes = listing("sqitch", folder.rpartition("/")[0])
        position = None if changes is None else changes.get(name.removesuffix(".sql"))
        return None if position is None else (0, (position,), name, path)
    if tool == "drizzle":
        journal = listing("drizzle", folder)
        if journal is not None:
            position = journal.get(name)
            return None if position is None else (0, (position,), name, path)
        return (0, (), name, path)
    if tool in ("diesel", "prisma"):  # one folder per migration, run by folder name
        return (0, (), folder.rpartition("/")[2], path)
    if tool == "liquibase":  # the include order of the nearest master changelog above
        folders = folder.split("/") if folder else []
        for end in range(len(folders), -1, -1):
            included = listing("liquibase", "/".join(folders[:end]))
            if included is not None:
                position = included.get(path)
                return None if position is None else (0, (position,), name, path)
        return (0, (), name, path)
    if tool in GRAPHED:  # Alembic's chain in its versions folder, Django's graph of every app
        graph = listing(tool, folder if tool == "alembic" else "")
        position = None if graph is None else graph.get(path)
        return None if position is None else (0, (position,), name, path)
    if tool in ("knex", "atlas"):
        return (0, (), name, path)
    version = _VERSION.match(name)
    return (0, (int(version.group(1)),) if version else (), name, path)


Listing = Callable[[str, str], "Mapping[str, int] | None"]
Files = Callable[[str], list[str]]


def listings(read: Callable[[str], str | None], files: Files | None = None) -> Listing:
    """`order_key`'s listing over a tree (`read`: a file's text, None when absent; `files`:
    the files below a folder, for Liquibase's includeAll), each sqitch plan, drizzle journal
    or Liquibase master changelog read once; a journal that cannot be read lists nothing (its
    files then run by name)."""
    found: dict[tuple[str, str], Mapping[str, int] | None] = {}

    def listing(kind: str, folder: str) -> Mapping[str, int] | None:
        if (kind, folder) not in found:
            if kind in GRAPHED:  # deferred: the SQL lint reads no framework's code
                from release_safety.surfaces.migrations.frameworks.order import framework_order

                graphed = _graphed(kind, folder, files or (lambda _: []))
                found[kind, folder] = framework_order(kind, {p: read(p) or "" for p in graphed})
                return found[kind, folder]
            if kind == "liquibase":
                master = master_in(folder, lambda p: read(p) is not None)
                below = files or (lambda _: [])
                found[kind, folder] = None if master is None else include_order(master, read, below)
                return found[kind, folder]
            name = "sqitch.plan" if kind == "sqitch" else "meta/_journal.json"
            text = read(f"{folder}/{name}" if folder else name)
            found[kind, folder] = None if text is None else _listed(kind, text)
        return found[kind, folder]

    return listing


GRAPHED = ("django", "alembic")
"""The formats whose tool orders its files by a graph the files declare (`frameworks/order`)."""
_DJANGO = r"(?:.*/)?migrations/\d{4}_\w+\.py"


def _graphed(kind: str, folder: str, files: Files) -> list[str]:
    """The files of a graph: an Alembic versions folder's revisions, or every Django
    migration of the tree (an app's migrations depend on other apps')."""
    if kind == "alembic":
        inside = [p for p in files(folder) if p.rpartition("/")[0] == folder]
        return [p for p in inside if p.endswith(".py") and not p.rpartition("/")[2].startswith("_")]
    return [p for p in files(folder) if re.fullmatch(_DJANGO, p)]


def _listed(kind: str, text: str) -> Mapping[str, int] | None:
    if kind == "sqitch":
        return plan_order(text)
    try:
        return journal_order(text)
    except ValueError:
        return None


def plan_order(text: str) -> dict[str, int]:
    """The changes a `sqitch.plan` deploys, each with its position (a change reworked later
    keeps its first position: its script in `deploy/` is the newest one)."""
    order: dict[str, int] = {}
    for found in re.finditer(_PLAN_CHANGE, text):
        order.setdefault(found["change"], len(order))
    return order
