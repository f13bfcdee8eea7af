"""Liquibase changelogs in XML or YAML (JSON read as YAML): their changesets' `sql` changes
(split into statements, `splitStatements`/`endDelimiter` honoured) and `sqlFile` changes (the
file read beside the changelog, or from the classpath root) are read; `rollback` never runs
forward; every other change type (`dropColumn`, `createTable`, ...) is a statement whose text is
not known, so the file is `unknown` where it does something the SQL does not show. A changeset
with `runInTransaction: false` runs outside a transaction. `include`/`includeAll` entries are
the changelog's order (`find.liquibase`), not statements."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator

from release_safety.surfaces.migrations.sql.statements import Extracted, Statement

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any

ReadFile = Callable[[str], "str | None"]
_NOT_CHANGES = frozenset({"comment", "preConditions", "rollback", "validCheckSum", "tagDatabase"})
_FALSE = ("false", "no", "0")


class Node:
    """An XML element or YAML mapping entry: its tag, attributes, text, line and children."""

    tag: str
    attrs: dict[str, str]
    line: int
    text: str
    children: list[Node]
    offset: int
    """Lines between `line` and the first line of `text` (a YAML block scalar's 1)."""

    def __init__(
        self,
        tag: str,
        attrs: dict[str, str],
        line: int,
        text: str = "",
        children: list[Node] | None = None,
        offset: int = 0,
    ) -> None:
        self.tag = tag
        self.attrs = attrs
        self.line = line
        self.text = text
        self.children = [] if children is None else children
        self.offset = offset


def is_changelog(path: str) -> bool:
    return path.endswith((".xml", ".yaml", ".yml", ".json"))


def read_changelog(
    text: str, path: str, read_file: ReadFile | None, split: Callable[[str], list[Statement]]
) -> Extracted:
    """The statements a changelog's changesets run, in order; ValueError for a file that is
    not a changelog Liquibase reads."""
    root = parse(text, path)
    statements: list[Statement] = []
    transactional = True
    for changeset in (n for n in root.children if n.tag == "changeSet"):
        if changeset.attrs.get("runInTransaction", "true").lower() in _FALSE:
            transactional = False
        for change in changeset.children:
            if change.tag in _NOT_CHANGES:
                continue
            statements += _change(change, path, read_file, split)
    return Extracted(statements, transactional)


def _change(
    change: Node, path: str, read_file: ReadFile | None, split: Callable[[str], list[Statement]]
) -> list[Statement]:
    """The statements of one change of a changeset."""
    if change.tag == "sql":
        text = change.text or change.attrs.get("sql", "")
        return _split(text, change, split)
    if change.tag == "sqlFile":
        where = change.attrs.get("path", "")
        found = _sql_file(where, path, change.attrs, read_file)
        if found is None:
            return [Statement(None, change.line, f"sqlFile {where!r} is not in the repository")]
        return [
            Statement(s.sql, change.line, s.reason)
            for s in _split(found, change, split)  # findings point at the sqlFile entry
        ]
    return [
        Statement(
            None,
            change.line,
            f"a Liquibase <{change.tag}> change: only sql and sqlFile changes are read",
        )
    ]


def _split(text: str, change: Node, split: Callable[[str], list[Statement]]) -> list[Statement]:
    delimiter = change.attrs.get("endDelimiter")
    if change.attrs.get("splitStatements", "true").lower() in _FALSE:
        parts = [Statement(text.strip(), 1)] if text.strip() else []
    elif delimiter and delimiter != ";":
        parts = [
            Statement(part.strip(), 1 + text.count("\n", 0, text.find(part)))
            for part in re.split(rf"^\s*{re.escape(delimiter)}\s*$", text, flags=re.MULTILINE)
            if part.strip()
        ]
    else:
        parts = split(text)
    first = change.line + change.offset
    return [Statement(s.sql, first + s.line - 1, s.reason) for s in parts]


def _sql_file(
    where: str, path: str, attrs: dict[str, str], read_file: ReadFile | None
) -> str | None:
    """The text of an sqlFile: beside the changelog when `relativeToChangelogFile`, else from
    the classpath (a resources folder above the changelog, or the repository root)."""
    if read_file is None or not where:
        return None
    relative = attrs.get("relativeToChangelogFile", "false").lower() == "true"
    candidates = classpath(where, path, relative)
    for candidate in candidates:
        text = read_file(candidate)
        if text is not None:
            return text
    return None


def classpath(where: str, path: str, relative: bool) -> list[str]:
    """Where a changelog at `path` may mean `where`, nearest first: beside it when
    `relativeToChangelogFile`, else from each folder above it (a resources folder, the
    repository root)."""
    folder = posixpath.dirname(path)
    if relative:
        return [posixpath.normpath(posixpath.join(folder, where))]
    parts = folder.split("/") if folder else []
    return [
        posixpath.normpath(posixpath.join("/".join(parts[:i]), where.lstrip("/")))
        for i in range(len(parts), -1, -1)
    ]


def parse(text: str, path: str) -> Node:
    """A changelog as nodes (`databaseChangeLog` with its entries); ValueError when it is not
    one."""
    if path.endswith(".xml"):
        return _xml(text)
    return _yaml(text)


def _xml(text: str) -> Node:
    from xml.parsers import expat

    parser = expat.ParserCreate()
    stack: list[Node] = []
    roots: list[Node] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        node = Node(tag.rpartition(":")[2], attrs, parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)

    def end(tag: str) -> None:
        stack.pop()

    def data(chunk: str) -> None:
        if stack:
            stack[-1].text += chunk

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise ValueError(f"not well-formed XML: {exc}") from exc
    if not roots or roots[0].tag != "databaseChangeLog":
        raise ValueError("not a Liquibase changelog (no databaseChangeLog element)")
    return roots[0]


def _yaml(text: str) -> Node:
    from release_safety.common.yamltree import YamlError, load_yaml

    try:
        tree = load_yaml(text)
    except YamlError as exc:
        raise ValueError(str(exc)) from exc
    data = tree.data
    if not isinstance(data, dict) or "databaseChangeLog" not in data:
        raise ValueError("not a Liquibase changelog (no databaseChangeLog key)")
    root = Node("databaseChangeLog", {}, 1)
    for index, entry in enumerate(data["databaseChangeLog"] or []):
        for tag, value in _entries(entry):
            where: tuple[str | int, ...] = ("databaseChangeLog", index, tag)
            root.children.append(_yaml_node(tag, value, where, tree.line))
    return root


def _entries(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        yield from ((str(k), v) for k, v in value.items())


def _yaml_node(tag: str, value: Any, where: tuple[str | int, ...], line: Any) -> Node:
    attrs = {
        str(k): str(v) for k, v in (value.items() if isinstance(value, dict) else ()) if _plain(v)
    }
    node = Node(tag, attrs, line(*where))
    if tag == "sql" and isinstance(value, dict):
        node.text = str(value.get("sql") or "")
        node.line = line(*where, "sql")
        node.offset = 1 if "\n" in node.text.rstrip("\n") else 0
    changes = value.get("changes") if isinstance(value, dict) and tag == "changeSet" else None
    for index, change in enumerate(changes if isinstance(changes, list) else []):
        for child, inner in _entries(change):
            node.children.append(_yaml_node(child, inner, (*where, "changes", index, child), line))
    return node


def _plain(value: Any) -> bool:
    return value is not None and not isinstance(value, (dict, list))
