"""A config JSON Schema with the documents its `$ref`s name by a relative path (`defs.json#/$defs/
port`, `../common.yaml`) taken in: each such document is placed under the schema's `$defs`
(keyed `release-safety:<its path>`), and the references to it, and its own local ones, are
rewritten to point there. A reference the repository cannot answer (a remote or absolute URI,
`ory://...`, a file missing at that ref, a fragment that is not a JSON pointer) is left as
written: the schema reader reports it as a gap.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from typing import Any

from release_safety.surfaces.config import structured
from release_safety.surfaces.config.reads import SourceError

Read = Callable[[str], bytes | None]
"""A file of the repository at the ref, None when there is none."""

KEY = "release-safety:"
MAX_DOCUMENTS = 64
"""Documents taken in per schema; past it, references stay as written (gaps)."""


def _escaped(path: str) -> str:
    return (KEY + path).replace("~", "~0").replace("/", "~1")


def _file(reference: str, base: str) -> str | None:
    """The repository path a reference's document part names from the document at `base`."""
    if "://" in reference or reference.startswith(("/", "urn:")) or ":" in reference:
        return None
    path = posixpath.normpath(posixpath.join(posixpath.dirname(base), reference))
    return None if path.startswith("../") or path == ".." else path


def _kind(path: str) -> str:
    return "json" if path.endswith(".json") else "yaml"


def bundle(
    document: Any, path: str, read: Read, ids: Mapping[str, str] | None = None
) -> tuple[Any, tuple[str, ...]]:
    """The schema at `path` with the documents it names taken in, and their paths; `ids` names
    other sources by their `$id` (`ory://tracing-config` -> the vendored file that says so)."""
    taken: dict[str, Any] = {}

    def reference(ref: str, base: str) -> str:
        document_part, _, fragment = ref.partition("#")
        if fragment and not fragment.startswith("/"):
            return ref  # an anchor (`#port`): not followed
        if not document_part:
            return ref if base == path else f"#/$defs/{_escaped(base)}{fragment}"
        target = (ids or {}).get(document_part) or _file(document_part, base)
        if target is None:
            return ref
        if target == path:
            return f"#{fragment}"
        if target not in taken:
            data = read(target)
            if data is None or len(taken) >= MAX_DOCUMENTS:
                return ref
            try:
                loaded = structured.load(data, _kind(target))
            except SourceError:
                return ref
            taken[target] = None  # a document that names itself again is not read twice
            taken[target] = rewrite(loaded, target)
        return f"#/$defs/{_escaped(target)}{fragment}"

    def rewrite(node: Any, base: str) -> Any:
        if isinstance(node, dict):
            return {
                key: reference(value, base)
                if key == "$ref" and isinstance(value, str)
                else rewrite(value, base)
                for key, value in node.items()
            }
        if isinstance(node, list):
            return [rewrite(item, base) for item in node]
        return node

    if not isinstance(document, dict):
        return document, ()
    bundled = rewrite(document, path)
    if not taken:
        return document, ()
    defs = bundled.get("$defs")
    bundled["$defs"] = {
        **(defs if isinstance(defs, dict) else {}),
        **{KEY + target: value for target, value in taken.items()},
    }
    return bundled, tuple(sorted(taken))
