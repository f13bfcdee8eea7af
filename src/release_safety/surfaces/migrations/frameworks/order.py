"""The order Django and Alembic run their migrations in, which their file names do not give.

- Alembic follows each revision's `down_revision` (a tuple for a merge): a revision runs after
  every revision it revises; branches run side by side, by path where nothing orders them.
- Django follows each migration's `dependencies` (`("app", "0002_x")`, across apps too); a
  squashed migration (`replaces = [...]`) runs only where none of the migrations it replaces is
  there (an install that ran them runs nothing new); otherwise they run and it does not.

A file whose graph cannot be read (a syntax error, a computed revision) keeps its place by path.
"""

from __future__ import annotations

import ast
import heapq
from collections.abc import Mapping

from release_safety.code import python
from release_safety.surfaces.migrations.frameworks.django import attribute, migration_class


def framework_order(fmt: str, texts: Mapping[str, str]) -> dict[str, int]:
    """The order of the files of a framework that runs them by a graph (path -> position)."""
    return django_order(texts) if fmt == "django" else alembic_order(texts)


def alembic_order(texts: Mapping[str, str]) -> dict[str, int]:
    """Each revision file's position in the upgrade (path -> position)."""
    revision: dict[str, str] = {}
    revises: dict[str, list[str]] = {}
    for path, text in texts.items():
        names = _constants(text)
        own = names.get("revision")
        if isinstance(own, str):
            revision[own] = path
        down = names.get("down_revision")
        revises[path] = (
            [down]
            if isinstance(down, str)
            else [d for d in down if isinstance(d, str)]
            if isinstance(down, list | tuple)
            else []
        )
    after = {path: [revision[d] for d in downs if d in revision] for path, downs in revises.items()}
    return _topological(texts, after)


def django_order(texts: Mapping[str, str]) -> dict[str, int]:
    """Each migration file's position in `migrate` (path -> position); a squashed migration
    whose replaced migrations are there is left out, as Django leaves it out for an install that
    ran them."""
    key = {path: _django_key(path) for path in texts}
    by_key = {k: path for path, k in key.items()}
    dependencies: dict[str, list[str]] = {}
    skipped: set[str] = set()
    for path, text in texts.items():
        migration = _migration_class(text)
        if migration is None:
            dependencies[path] = []
            continue
        app = key[path][0]
        replaces = _pairs(migration.get("replaces"), app)
        if any(pair in by_key for pair in replaces):
            skipped.add(path)
        dependencies[path] = [
            by_key[pair] for pair in _pairs(migration.get("dependencies"), app) if pair in by_key
        ]
    kept = {p: t for p, t in texts.items() if p not in skipped}
    after = {p: [d for d in deps if d in kept] for p, deps in dependencies.items() if p in kept}
    return _topological(kept, after)


def _django_key(path: str) -> tuple[str, str]:
    """(app label, migration name) of `<app>/migrations/<name>.py`."""
    folder, _, name = path.rpartition("/")
    app = folder.rpartition("/")[0].rpartition("/")[2]
    return app, name.removesuffix(".py")


def _pairs(value: object, app: str) -> list[tuple[str, str]]:
    if not isinstance(value, list | tuple):
        return []
    pairs = []
    for item in value:
        if (
            isinstance(item, list | tuple)
            and len(item) == 2
            and all(isinstance(i, str) for i in item)
        ):
            label = app if item[0] == "__self__" else item[0]
            pairs.append((label, item[1]))
    return pairs


def _constants(text: str) -> dict[str, object]:
    try:
        return python.constants(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError):
        return {}


def _migration_class(text: str) -> dict[str, object] | None:
    """The `dependencies` and `replaces` of `class Migration(...)`."""
    try:
        found = migration_class(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError):
        return None
    if found is None:
        return None
    return {name: attribute(found, name) for name in ("dependencies", "replaces")}


def _topological(paths: Mapping[str, str], after: Mapping[str, list[str]]) -> dict[str, int]:
    """Kahn's order over `after` (path -> the paths it runs after), the smallest path first
    among those ready; a cycle's files keep their place by path after the rest."""
    waiting = {path: set(after.get(path, [])) for path in paths}
    dependents: dict[str, list[str]] = {}
    for path, before in waiting.items():
        for other in before:
            dependents.setdefault(other, []).append(path)
    ready = [path for path, before in waiting.items() if not before]
    heapq.heapify(ready)
    order: dict[str, int] = {}
    while ready:
        path = heapq.heappop(ready)
        order[path] = len(order)
        for dependent in dependents.get(path, []):
            waiting[dependent].discard(path)
            if not waiting[dependent] and dependent not in order:
                heapq.heappush(ready, dependent)
    for path in sorted(p for p in paths if p not in order):
        order[path] = len(order)
    return order
