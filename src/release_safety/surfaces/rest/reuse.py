"""What a normalisation read, so the next version of a document reuses what did not change.

A named schema (a `$ref`) or a path item is taken from the previous version when its raw value
is equal there, so is the raw value of every `$ref` it reaches, and none of those lies on a
reference cycle (a cycle's shape depends on which member is met first, so cycles are always
rebuilt). What is reused is then exactly what a fresh normalisation would build, and an
unchanged part of the API is the same object in both versions, which the diff skips at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from release_safety.surfaces.jsonschema.build import missing, resolve
from release_safety.surfaces.jsonschema.issues import SpecIssue
from release_safety.surfaces.jsonschema.model import Schema
from release_safety.surfaces.rest.operation import Operation


@dataclass
class PathTrace:
    """A path item's operations, the `$ref`s their normalisation followed, and its height."""

    refs: frozenset[str]
    height: int
    operations: dict[tuple[str, str], Operation]


@dataclass
class Trace:
    """One normalisation's record: its raw document, and for each `$ref` it followed the
    schema built (named schemas only), the `$ref`s that build followed and its height; the
    spec errors found, by owner (a `$ref` or a path item's pointer)."""

    root: dict[str, Any]
    schemas: dict[str, Schema] = field(default_factory=dict)
    refs: dict[str, frozenset[str]] = field(default_factory=dict)
    heights: dict[str, int] = field(default_factory=dict)
    issues: dict[str, list[SpecIssue]] = field(default_factory=dict)
    paths: dict[str, PathTrace] = field(default_factory=dict)

    def adopt(self, previous: Trace, refs: frozenset[str]) -> None:
        """Take the records of `refs` and of everything they reach from `previous`."""
        pending = list(refs)
        while pending:
            ref = pending.pop()
            if ref in self.refs or ref not in previous.refs:
                continue
            self.refs[ref] = previous.refs[ref]
            self.heights[ref] = previous.heights[ref]
            if ref in previous.schemas:
                self.schemas.setdefault(ref, previous.schemas[ref])
            if ref in previous.issues:
                self.issues[ref] = previous.issues[ref]
            pending.extend(previous.refs[ref])


class Reuse:
    """Decides which `$ref`s and path items of a new document the previous trace can supply;
    what it supplies is recorded in the new document's trace (`current`) as well."""

    def __init__(self, previous: Trace, current: Trace, max_depth: int) -> None:
        self.previous = previous
        self.current = current
        self.root = current.root
        self.max_depth = max_depth
        self.verdicts: dict[str, bool] = {}
        self.visiting: set[str] = set()
        self.same_security = previous.root.get("security") == self.root.get("security") and (
            scheme_names(previous.root) == scheme_names(self.root)
        )

    def _same(self, ref: str) -> bool:
        """The raw value at `ref` is equal in both documents and so is all it reaches, acyclic."""
        known = self.verdicts.get(ref)
        if known is not None:
            return known
        if ref in self.visiting:  # a cycle: every member of it says no
            return False
        self.visiting.add(ref)
        target, _, pointer = ref.partition("#")
        old = resolve(self.previous.root, pointer)
        good = (
            not target
            and not missing(old)
            and old == resolve(self.root, pointer)
            and all(self._same(r) for r in self.previous.refs.get(ref, ()))
        )
        self.visiting.discard(ref)
        self.verdicts[ref] = good
        return good

    def schema(self, ref: str, depth: int) -> Schema | None:
        """The previous schema for `ref`, reached at `depth`, when it can stand unchanged."""
        found = self.previous.schemas.get(ref)
        if found is None or depth + self.previous.heights[ref] > self.max_depth:
            return None
        if not self._same(ref):
            return None
        self.current.adopt(self.previous, frozenset((ref,)))
        return found

    def path(self, path: str, owner: str, item: Any) -> PathTrace | None:
        """The previous record of a path item (whose spec errors `owner` holds), when its
        operations can stand unchanged."""
        found = self.previous.paths.get(path)
        if found is None or not self.same_security or found.height > self.max_depth:
            return None
        old = _paths(self.previous.root).get(path)
        if old is None or old != item or not all(self._same(r) for r in found.refs):
            return None
        self.current.adopt(self.previous, found.refs)
        if owner in self.previous.issues:
            self.current.issues[owner] = self.previous.issues[owner]
        return found


def _paths(root: dict[str, Any]) -> dict[str, Any]:
    paths = root.get("paths")
    return paths if isinstance(paths, dict) else {}


def scheme_names(root: dict[str, Any]) -> set[str]:
    """The security schemes a document defines (requirements may name only these)."""
    components = root.get("components")
    schemes = components.get("securitySchemes") if isinstance(components, dict) else None
    return {str(name) for name in schemes} if isinstance(schemes, dict) else set()
