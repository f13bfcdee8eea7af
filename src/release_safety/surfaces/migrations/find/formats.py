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
- knex runs its files by name; Rails by version (the leading digits); Django by its apps'
  dependency graph and Alembic by its revision chain (`frameworks/order.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from release_safety.settings.model import MigrationSource

OrderKey = tuple[int, tuple[int, ...], str, str]
Reader = Literal["sql", "knex", "rails", "django", "alembic"]
CODE_READERS: tuple[Reader, ...] = ("knex", "rails", "django", "alembic")
"""The formats whose migrations are code, read by `frameworks/`."""
GRAPHED = ("django", "alembic")
"""The formats whose tool orders its files by a graph the files declare (`frameworks/order`)."""

_VERSION = re.compile(r"(\d+)")
_FLYWAY = re.compile(r"(?:V(?P<version>\d+(?:[._]\d+)*)|R)__(?P<description>.*)")
_DIALECT = re.compile(
    r"(?P<stem>\d+_[^.]+)\.(?:(?P<dialect>postgres(?:ql)?|pg|mysql|sqlite3?|cockroach(?:db)?"
    r"|crdb|mssql)\.)?"
    r"(?P<before>autocommit\.)?(?P<direction>up|down)(?P<after>\.autocommit)?\.(?:sql|fizz)"
)
_POSTGRES = ("postgres", "postgresql", "pg")
"""PostgreSQL's names in a file name, as pop's dialect synonyms give them."""
_PLAN_CHANGE = re.compile(r"^(?P<change>[^\s@:%#\[][^\s\[]*)", re.MULTILINE)


def reader(source: MigrationSource) -> Reader:
    """How the files of a source are read: a framework's code (knex, Rails, Django,
    Alembic), or SQL (with each SQL tool's up/down markers, `sections`)."""
    return next((code for code in CODE_READERS if code == source.format), "sql")


def outside_transaction(path: str) -> bool:
    """True when popx runs the file outside a transaction (`.autocommit` in its name)."""
    found = _DIALECT.fullmatch(path.rpartition("/")[2])
    return bool(found and (found["before"] or found["after"]))


def dialect_skipped(paths: Iterable[str]) -> set[str]:
    """The files of a multi-dialect folder PostgreSQL does not run: other dialects' files, and
    a generic file whose version has a PostgreSQL one."""
    chosen: set[tuple[str, str, str]] = set()
    named: dict[str, re.Match[str]] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        found = _DIALECT.fullmatch(name)
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


def order_key(
    path: str,
    source: MigrationSource,
    plan: Callable[[str], Mapping[str, int] | None],
    graph: Callable[[MigrationSource], Mapping[str, int]] | None = None,
) -> OrderKey | None:
    """Where a file runs among its database's migrations; None when its tool does not run it
    (a sqitch script its plan does not name, a Django squash of migrations that are there).
    `graph` gives the order of a framework that runs its files by a graph (Django, Alembic)."""
    name = path.rpartition("/")[2]
    if source.format in GRAPHED and graph is not None:
        position = graph(source).get(path)
        return None if position is None else (0, (position,), name, path)
    if source.format == "flyway":
        found = _FLYWAY.fullmatch(name.removesuffix(".sql"))
        if found is None:
            return (2, (), name, path)
        if found["version"] is None:
            return (1, (), found["description"], path)
        parts = tuple(int(p) for p in re.split(r"[._]", found["version"]))
        return (0, parts, found["description"], path)
    if source.format == "sqitch":
        folder = path.rpartition("/")[0]
        changes = plan(folder.rpartition("/")[0])
        position = None if changes is None else changes.get(name.removesuffix(".sql"))
        return None if position is None else (0, (position,), name, path)
    if source.format == "knex":
        return (0, (), name, path)
    version = _VERSION.match(name)
    return (0, (int(version.group(1)),) if version else (), name, path)


def plan_order(text: str) -> dict[str, int]:
    """The changes a `sqitch.plan` deploys, each with its position (a change reworked later
    keeps its first position: its script in `deploy/` is the newest one)."""
    order: dict[str, int] = {}
    for found in _PLAN_CHANGE.finditer(text):
        order.setdefault(found["change"], len(order))
    return order
