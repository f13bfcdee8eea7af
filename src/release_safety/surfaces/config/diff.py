"""From env reads at two refs to the variables' changes: removed, renamed, default changed,
became required, added.

Renames are paired, in this order, and only one to one (an ambiguous pairing is no pairing):

1. with fallback: a new variable whose read falls back to a variable still read
   (`process.env.NEW || process.env.OLD`): the old name is kept, so the rename is an advisory;
2. declared: the settings name it (`[config] renames`), or a config file moved a key's value
   as it was to another key;
3. same reading site: a removed and an added variable whose value goes to the same place in
   the same file (the assigned name, object key or struct field: `port: process.env.X`);
4. same default: a removed and an added variable with the same non-empty default whose names
   share a word (`TIMEOUT_MS` -> `REQUEST_TIMEOUT_MS`, `WORKERS` -> `WORKER_COUNT`;
   `CACHE_PERMISSIONS` and `WEBSOCKETS_LOGS_ENABLED`, both `true`, are not a rename).

Whatever stays unpaired is a removal or an addition.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from release_safety.surfaces.config.reads import EnvRead
from release_safety.surfaces.config.sources import CODE

DeltaKind = Literal[
    "removed",
    "renamed",
    "renamed-with-fallback",
    "default-changed",
    "default-added",
    "became-required",
    "added-required",
    "added-optional",
    "required-unlisted",
]


@dataclass(frozen=True)
class Var:
    """Everything the sources of one ref say about one variable."""

    name: str
    default: str | None
    required: bool
    file: str
    line: int
    sites: frozenset[str]
    fallback_for: frozenset[str]
    listed: bool = False
    """An example file lists it."""
    key: bool = False
    """A config-file key, not an environment variable."""
    fallback_only: bool = False
    """Every read of it is a fallback of another variable."""
    via: str | None = None
    """The loader its first read comes through (`EnvRead.via`)."""


@dataclass(frozen=True)
class Delta:
    """One variable's change; `old` / `new` are the variable at each ref (None when absent)."""

    kind: DeltaKind
    name: str
    old: Var | None
    new: Var | None
    previous_name: str | None = None


def collect(reads: Iterable[tuple[str, EnvRead]]) -> dict[str, Var]:
    """Fold `(file, read)` pairs into one `Var` per name (defaults joined when they differ),
    placed at its definition: a read in code before a config or env file, a file that only
    lists it last."""
    grouped: dict[str, list[tuple[str, EnvRead]]] = {}
    for file, read in reads:
        grouped.setdefault(read.name, []).append((file, read))
    variables: dict[str, Var] = {}
    for name, located in grouped.items():
        located.sort(
            key=lambda item: (
                item[1].listed,
                not is_code(item[0]),
                item[1].fallback_for is not None,
                item[0],
                item[1].line,
            )
        )
        defaults = sorted({read.default for _, read in located if read.default is not None})
        default = " | ".join(d or "''" for d in defaults) if len(defaults) > 1 else None
        default = defaults[0] if len(defaults) == 1 else default
        file, first = located[0]
        variables[name] = Var(
            name=name,
            default=default,
            required=default is None and any(read.required for _, read in located),
            file=file,
            line=first.line,
            sites=frozenset(_site(f, r.site) for f, r in located if r.site),
            fallback_for=frozenset(r.fallback_for for _, r in located if r.fallback_for),
            listed=any(read.listed for _, read in located),
            key=all(read.key for _, read in located),
            fallback_only=all(read.fallback_for for _, read in located),
            via=first.via,
        )
    return variables


def is_code(file: str) -> bool:
    """A file of code (a read there defines the variable), not a config or env file."""
    name = PurePosixPath(file).name
    return "." in name and name.rpartition(".")[2] in _CODE_SUFFIXES


_CODE_SUFFIXES = {suffix.lstrip(".") for suffix in CODE}


def _empty_added(was: Var, now: Var) -> bool:
    """An empty default where there was none: an unset variable reads as empty already (Go's
    `os.Getenv`, `process.env.X || ''`), so nothing changes for an install that leaves it unset.
    The other way is a change (code may now meet `undefined` where it met `''`)."""
    return was.default is None and not was.required and now.default == ""


def _site(file: str, site: str) -> str:
    """A site within its file, unless the reader placed it already (`folder#const NAME`)."""
    return site if "#" in site else f"{file}#{site}"


def diff(
    old: dict[str, Var], new: dict[str, Var], declared: Mapping[str, str] | None = None
) -> list[Delta]:
    """Every change from `old` to `new` (`declared`: known renames, new name -> old name),
    sorted by variable name."""
    renames = dict(declared or {})
    removed = sorted(old.keys() - new.keys())
    added = sorted(new.keys() - old.keys())
    deltas: list[Delta] = []
    for name in list(added):
        kept = sorted(o for o in old.keys() & new.keys() if name in new[o].fallback_for)
        if kept:
            deltas.append(Delta("renamed-with-fallback", name, old[kept[0]], new[name], kept[0]))
            added.remove(name)
    for after, before in sorted(renames.items()):
        if after in added and before in removed:
            deltas.append(Delta("renamed", after, old[before], new[after], before))
            removed.remove(before)
            added.remove(after)
    for same in (_same_site, _same_default):
        for before, after in _pairs(removed, added, old, new, same):
            deltas.append(Delta("renamed", after, old[before], new[after], before))
            removed.remove(before)
            added.remove(after)
    deltas += [Delta("removed", name, old[name], None) for name in removed]
    for name in added:
        kind: DeltaKind = "added-required" if new[name].required else "added-optional"
        deltas.append(Delta(kind, name, None, new[name]))
    for name in sorted(old.keys() & new.keys()):
        was, now = old[name], new[name]
        if was.default != now.default and not _empty_added(was, now):
            kind = "default-added" if was.default is None and was.required else "default-changed"
            deltas.append(Delta(kind, name, was, now))
        elif now.required and not was.required:
            deltas.append(Delta("became-required", name, was, now))
    return sorted(deltas, key=lambda d: (d.name, d.kind))


def _same_site(a: str, was: Var, b: str, now: Var) -> bool:
    return not now.fallback_only and bool(was.sites & now.sites)


def _same_default(a: str, was: Var, b: str, now: Var) -> bool:
    return was.default is not None and was.default == now.default and _share_a_word(a, b)


def _share_a_word(a: str, b: str) -> bool:
    """The names share a word of three letters or more, or one's word starts the other's
    (`WORKERS`, `WORKER_COUNT`)."""
    words = [[w for w in re.split(r"[^A-Z0-9]+", name.upper()) if len(w) >= 3] for name in (a, b)]
    return any(x.startswith(y) or y.startswith(x) for x in words[0] for y in words[1])


def _pairs(
    removed: list[str],
    added: list[str],
    old: dict[str, Var],
    new: dict[str, Var],
    same: Callable[[str, Var, str, Var], bool],
) -> list[tuple[str, str]]:
    """Removed/added names that match each other and nothing else."""
    matches = {r: [a for a in added if same(r, old[r], a, new[a])] for r in removed}
    claimed: dict[str, int] = {}
    for found in matches.values():
        for a in found:
            claimed[a] = claimed.get(a, 0) + 1
    return [(r, hit[0]) for r, hit in matches.items() if len(hit) == 1 and claimed[hit[0]] == 1]


def unlisted(old: dict[str, Var], new: dict[str, Var]) -> list[Delta]:
    """Variables the code requires that no example file lists, where example files list
    others, new at this release (newly required, or no longer listed)."""
    if not any(var.listed for var in new.values()):
        return []
    found = []
    for name, var in sorted(new.items()):
        if var.key or not var.required or var.listed:
            continue
        was = old.get(name)
        if was is None or was.listed or not was.required:
            found.append(Delta("required-unlisted", name, was, var))
    return found
