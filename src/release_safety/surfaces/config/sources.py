"""Which files the config surface reads at a ref, and what kind of source each is.

A `config.sources` entry is a path or a glob (a glob never looks into vendored, test, example
or hidden folders it does not name, and leaves out test files: `*_test.go`, `test_*.py`,
`*.test.ts`, ...), with optional `exclude` globs. A file matched by several entries belongs to
the first.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial

from release_safety.code.memo import Memo, per_tree
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import ConfigSource
from release_safety.surfaces.config.structured import KINDS, TEMPLATE_SUFFIXES
from release_safety.surfaces.discovery import matching

CODE = {
    ".ts": "ts",
    ".mts": "ts",
    ".cts": "ts",
    ".tsx": "tsx",
    ".js": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".jsx": "js",
    ".py": "python",
    ".go": "go",
    ".rs": "rust",
    ".sh": "shell",
}


def matched_sources(snapshot: Snapshot, sources: Sequence[ConfigSource]) -> dict[str, ConfigSource]:
    """Every file the entries name at the snapshot's ref, sorted, with its entry (kept per
    tree and entries: the ref between two consecutive releases is looked at twice)."""
    tree, key = snapshot.tree_key(), tuple(sources)
    found: dict[str, ConfigSource] = per_tree(
        _MATCHED, tree, key, lambda: _matched(snapshot, sources)
    )
    return dict(found)


_MATCHED: Memo[tuple[str, tuple[ConfigSource, ...]], dict[str, ConfigSource]] = Memo(8)


_EXCLUDED: Memo[ConfigSource, Memo[str, bool]] = Memo(8)
"""Per entry, whether it leaves out each path asked so far (`ConfigSource.excluded`, which
depends on the path alone): consecutive trees share most of their paths."""


def _matched(snapshot: Snapshot, sources: Sequence[ConfigSource]) -> dict[str, ConfigSource]:
    found: dict[str, ConfigSource] = {}
    for source in sources:
        excluded = _EXCLUDED.get(source, partial(Memo[str, bool], 1 << 16))
        for path in matching(snapshot, source.path):
            if path not in found and not excluded.get(path, partial(source.excluded, path)):
                found[path] = source
    return dict(sorted(found.items()))


@lru_cache(maxsize=1 << 15)  # asked of every matched file at every ref
def source_kind(path: str) -> str | None:
    """`dotenv`, `ts`, `tsx`, `js`, `python`, `go`, `rust`, `shell`, `toml`, `yaml` or `json` by
    file name (a template suffix such as `.tmpl` is looked through); None when unknown."""
    name = path.rpartition("/")[2]
    kind = CODE.get(_suffix(name))
    if kind is not None:
        return kind
    if name == ".env" or name.startswith((".env.", "env.")) or name.endswith(".env"):
        return "dotenv"
    for template in TEMPLATE_SUFFIXES:
        if name.endswith(template) and "." in name.removesuffix(template):
            name = name.removesuffix(template)
            break
    return KINDS.get(_suffix(name))


def _suffix(name: str) -> str:
    """The last suffix of a file name (`.go`), empty for none or a leading dot alone."""
    stem, dot, suffix = name.rpartition(".")
    return dot + suffix if stem.strip(".") else ""
