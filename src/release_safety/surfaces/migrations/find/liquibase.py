"""Liquibase's order: the master changelog (`db.changelog-master.*`, `changelog-master.*`,
`changelog.*` or `master.*` in the root folder) runs its own changesets, then each `include`
(`file`) and `includeAll` (`path`: that folder's changelogs by name) in the order written,
depth first; a changelog no include reaches is not run. Paths are the classpath's: beside the
including changelog with `relativeToChangelogFile`, else from a resources folder above it or
the repository root."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.surfaces.migrations.sql.changelog import Node, classpath, is_changelog, parse

MASTERS = tuple(
    f"{stem}.{ext}"
    for stem in ("db.changelog-master", "changelog-master", "changelog", "master")
    for ext in ("yaml", "yml", "xml", "json", "sql")
)
"""The names a master changelog goes by, the first found in the root folder."""
_MAX_DEPTH = 32

Read = Callable[[str], "str | None"]
Files = Callable[[str], list[str]]


def master_of(folder: str, exists: Callable[[str], bool]) -> str | None:
    """The master changelog of the nearest folder at or above `folder` that holds one."""
    parts = folder.split("/") if folder else []
    for end in range(len(parts), -1, -1):
        found = master_in("/".join(parts[:end]), exists)
        if found is not None:
            return found
    return None


def master_in(folder: str, exists: Callable[[str], bool]) -> str | None:
    """The master changelog in `folder`, or None."""
    for name in MASTERS:
        path = f"{folder}/{name}" if folder else name
        if exists(path):
            return path
    return None


def include_order(master: str, read: Read, files: Files) -> dict[str, int]:
    """Every changelog the master reaches, with its position in the run (the master first)."""
    order: dict[str, int] = {}
    _visit(master, read, files, order, 0)
    return order


def _visit(path: str, read: Read, files: Files, order: dict[str, int], depth: int) -> None:
    if path in order or depth > _MAX_DEPTH:
        return
    order[path] = len(order)
    text = read(path)
    if text is None or not is_changelog(path):
        return
    try:
        root = parse(text, path)
    except ValueError:
        return  # read (and refused) as a migration of its own
    for entry in root.children:
        for target in _targets(entry, path, read, files):
            _visit(target, read, files, order, depth + 1)


def _targets(entry: Node, path: str, read: Read, files: Files) -> list[str]:
    """The changelogs an include or includeAll entry names, in the order they run."""
    relative = entry.attrs.get("relativeToChangelogFile", "false").lower() == "true"
    if entry.tag == "include":
        found = _resolve(entry.attrs.get("file", ""), path, relative, lambda p: read(p) is not None)
        return [found] if found is not None else []
    if entry.tag == "includeAll":
        folder = _resolve(
            entry.attrs.get("path", "").rstrip("/"), path, relative, lambda p: bool(files(p))
        )
        if folder is None:
            return []
        return sorted(p for p in files(folder) if p.endswith((".sql", ".xml", ".yaml", ".yml")))
    return []


def _resolve(where: str, path: str, relative: bool, found: Callable[[str], bool]) -> str | None:
    if not where:
        return None
    return next((c for c in classpath(where, path, relative) if found(c)), None)
