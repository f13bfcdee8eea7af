"""Liquibase runs changesets, not files: a changelog that shipped may gain changesets (the usual
way to add a migration to a single changelog or a master), and only a shipped changeset that
changed is an edit. Each changeset of formatted SQL (`--changeset author:id` up to the next
one), XML (`<changeSet>` to `</changeSet>`) or YAML (a `- changeSet:` item) is a span of lines;
the part of a changelog a release adds is its text with the shipped changesets' lines
emptied (lines keep their numbers)."""

from __future__ import annotations

import re
from typing import Any

from release_safety.surfaces.migrations.sql.changelog import is_changelog

_SQL_CHANGESET = re.compile(r"^--\s*changeset\s+(?P<key>\S+)", re.IGNORECASE | re.MULTILINE)

Span = tuple[str, int, int]
"""A changeset: `author:id`, its first and last line (1-based, inclusive)."""


def spans(text: str, path: str) -> list[Span]:
    """The changesets of a changelog, in order; ValueError for one that cannot be read."""
    if path.endswith(".xml"):
        return _xml_spans(text)
    if is_changelog(path):
        return _yaml_spans(text)
    lines = text.count("\n") + 1
    found = list(_SQL_CHANGESET.finditer(text))
    starts = [text.count("\n", 0, m.start()) + 1 for m in found]
    ends = [s - 1 for s in starts[1:]] + [lines]
    return [(m["key"], s, e) for m, s, e in zip(found, starts, ends, strict=True)]


def _xml_spans(text: str) -> list[Span]:
    from xml.parsers import expat

    parser = expat.ParserCreate()
    found: list[Span] = []
    open_: list[tuple[str, int]] = []
    depth = [0]

    def start(tag: str, attrs: dict[str, str]) -> None:
        depth[0] += 1
        if tag.rpartition(":")[2] == "changeSet" and depth[0] == 2:
            key = f"{attrs.get('author', '')}:{attrs.get('id', '')}"
            open_.append((key, parser.CurrentLineNumber))

    def end(tag: str) -> None:
        if tag.rpartition(":")[2] == "changeSet" and depth[0] == 2 and open_:
            key, first = open_.pop()
            found.append((key, first, parser.CurrentLineNumber))
        depth[0] -= 1

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise ValueError(f"not well-formed XML: {exc}") from exc
    return found


def _yaml_spans(text: str) -> list[Span]:
    from release_safety.common.yamltree import YamlError, load_yaml

    try:
        tree = load_yaml(text)
    except YamlError as exc:
        raise ValueError(str(exc)) from exc
    entries: Any = tree.data.get("databaseChangeLog") if isinstance(tree.data, dict) else None
    if not isinstance(entries, list):
        return []
    starts = [tree.line("databaseChangeLog", i) for i in range(len(entries))]
    ends = [s - 1 for s in starts[1:]] + [text.count("\n") + 1]
    found: list[Span] = []
    for entry, first, last in zip(entries, starts, ends, strict=True):
        changeset = entry.get("changeSet") if isinstance(entry, dict) else None
        if isinstance(changeset, dict):
            found.append((f"{changeset.get('author', '')}:{changeset.get('id', '')}", first, last))
    return found


def _texts(text: str, found: list[Span]) -> dict[str, str]:
    lines = text.split("\n")
    return {key: "\n".join(lines[first - 1 : last]).rstrip() for key, first, last in found}


def edited_line(old: str, new: str, path: str) -> int | None:
    """The first line of a shipped changeset the release changed or removed (1 when the file
    cannot be read as a changelog), None when every shipped one is as it shipped (entries
    that are not changesets, such as includes, may be added)."""
    try:
        before, after = spans(old, path), spans(new, path)
    except ValueError:
        return 1
    if not before:  # includes only (a master): no changeset shipped in it can change
        return None
    kept, now = _texts(old, before), _texts(new, after)
    lines = {key: first for key, first, _ in after}
    changed = [key for key in kept if now.get(key) != kept[key]]
    return min((lines.get(key, 1) for key in changed), default=None)


def added_part(old: str, new: str, path: str) -> str:
    """`new` with the lines of the changesets `old` shipped emptied: what the release adds."""
    shipped = {key for key, _, _ in spans(old, path)}
    lines = new.split("\n")
    for key, first, last in spans(new, path):
        if key in shipped:
            lines[first - 1 : last] = [""] * (last - first + 1)
    return "\n".join(lines)
