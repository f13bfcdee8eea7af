"""Where a surface's documents are at each ref, and what to say when they are not there.

Settings entries (paths or globs) are matched against each ref's tree; a glob never looks into
vendored, test, example or hidden folders it does not name. Single-document surfaces (REST,
MCP) pair the documents of the two refs: by path, else a lone document that moved, else the one
predecessor discovery finds at the old ref; a document new at this release with no predecessor
is a first appearance (nothing in it can break the previous release).

Problems the user must fix in the settings are findings of their own rules (`SETTINGS_ERRORS`):
a path set explicitly that matches nothing at either ref of the span being judged (the release
layer has already left out, with a coverage note, an entry that names files at other releases:
`release/span.py`), or several candidates where discovery expects one. A strict command
(`generate`, `check-pr`) turns them into exit 2; a lenient one (`backfill`, the run with the
previous release's settings) reports the surface not checked. A surface the maintainer declared
absent is checked, says so, and looks no further than to confirm discovery finds nothing.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar
from weakref import WeakKeyDictionary

from release_safety.contract.reports import (
    SETTINGS_KEYS,
    Coverage,
    Finding,
    Rule,
    Surface,
    SurfaceReport,
    absent_entry,
    gone_hint,
    not_checked_finding,
    register,
)
from release_safety.git.snapshot import Snapshot
from release_safety.settings.file import finding_file
from release_safety.settings.model import compile_glob, is_glob, skipped
from release_safety.settings.reasons import hollow_reason

SETTINGS_PATH_UNMATCHED = register(
    Rule(
        id="settings-path-unmatched",
        surface="all",
        severity="unknown",
        title="A path set in the settings matches nothing",
        why="A typo or a moved file would leave the surface silently unread; a surface that "
        "read nothing checked nothing.",
        unsafe='[rest]\nspecs = ["server/openapi.jsn"]',
        safe="Fix the path in the settings, or declare the surface absent with a reason.",
    )
)
DISCOVERY_AMBIGUOUS = register(
    Rule(
        id="discovery-ambiguous",
        surface="all",
        severity="unknown",
        title="Several documents could be the surface's",
        why="Picking one silently could judge the wrong API; the tool never guesses.",
        unsafe="openapi.yaml and admin/openapi.yaml in one repository, no settings.",
        safe='Name the documents to check: [rest] specs = ["openapi.yaml"].',
    )
)
DOCUMENT_ADDED = register(
    Rule(
        id="document-added",
        surface="all",
        severity="advisory",
        title="A document appears for the first time",
        why="Nothing in it existed at the previous release, so nothing in it can break it.",
    )
)
DOCUMENT_MOVED = register(
    Rule(
        id="document-moved",
        surface="all",
        severity="advisory",
        title="A document moved; it is compared with its previous place",
        why="The surface follows the document to its new path instead of losing it.",
    )
)
DECLARED_ABSENT = register(
    Rule(
        id="surface-declared-absent",
        surface="all",
        severity="advisory",
        title="The maintainer declared that the service has no such surface",
        why="A service without, say, MCP tools has nothing to check there; the settings say "
        "so with a reason, and the artifact repeats it.",
        unsafe="",
        safe='[mcp]\nabsent = "the service exposes no MCP server"',
    )
)
ABSENT_CONTRADICTED = register(
    Rule(
        id="absent-contradicted",
        surface="all",
        severity="unknown",
        title="A surface declared absent has files of its kind after all",
        why="The surface's search finds files of its kind (SQL or code migrations, an API "
        "document, routes the code registers, an env template, a descriptor) at either ref "
        "where the settings say there "
        "are none: a declaration never stops the search, so it cannot hide what is there "
        "(9 false-safe releases were measured when it did). Either the declaration is stale "
        "or the files are not the service's.",
        unsafe='[migrations]\nabsent = "its migrations are written in Python"  # alembic/versions/',
        safe="Remove `absent` and name the files (or exclude them with a reason), or move them "
        "out of the way.",
    )
)
ABSENT_REASON_HOLLOW = register(
    Rule(
        id="surface-absent-reason-hollow",
        surface="all",
        severity="unknown",
        title="A surface is declared absent with a hollow reason",
        why="A placeholder (the TODO `release-safety init` writes) or a reason that says "
        "nothing declares nothing: the surface is neither read nor known to be absent.",
        unsafe='[mcp]\nabsent = "TODO: write why the service has no MCP server"',
        safe='[mcp]\nabsent = "the service exposes no MCP server to agents"',
    )
)
SETTINGS_ERRORS = frozenset({SETTINGS_PATH_UNMATCHED.id, DISCOVERY_AMBIGUOUS.id})


def matching(snapshot: Snapshot | None, pattern: str) -> list[str]:
    """The files of the snapshot a settings entry names, sorted."""
    if snapshot is None:
        return []
    if not is_glob(pattern):
        return [pattern] if snapshot.blob_id(pattern) is not None else []
    key = snapshot.tree_key()
    found = _GLOBBED.get((key, pattern)) if key is not None else None
    if found is None:
        found = _globbed(snapshot, pattern)
        if key is not None:
            _GLOBBED[(key, pattern)] = found
            while len(_GLOBBED) > 4096:
                _GLOBBED.popitem(last=False)
    return list(found)


def names_any(
    snapshot: Snapshot, pattern: str, keep: Callable[[str], bool] = lambda path: True
) -> bool:
    """Whether the snapshot has a file the entry names that `keep` keeps: `matching`'s answer
    where its tree's matches are known, else the first such file found (a release's settings
    are fitted before its surfaces run: the whole match is left to the surface that reads it)."""
    if not is_glob(pattern):
        return snapshot.blob_id(pattern) is not None and keep(pattern)
    key = snapshot.tree_key()
    found = _GLOBBED.get((key, pattern)) if key is not None else None
    if found is not None:
        return any(keep(path) for path in found)
    hit = names(pattern)
    return any(hit(path) and keep(path) for path in _candidates(snapshot, pattern))


def names(pattern: str) -> Callable[[str], bool]:
    """Whether a glob entry names a path: what `matching` asks of each path of a tree."""
    regex = compile_glob(pattern)
    return lambda path: regex.fullmatches(path) and not skipped(pattern, path)


_GLOBBED: OrderedDict[tuple[str, str], list[str]] = OrderedDict()
"""The paths a glob matches per tree (`Snapshot.tree_key`), for the trees after it."""


def _globbed(snapshot: Snapshot, pattern: str) -> list[str]:
    """The paths a glob matches: those of the tree this one differs from with the changed
    paths matched again when they are known (consecutive releases), else every path."""
    hit = names(pattern)
    base = snapshot.changed_from()
    before = _GLOBBED.get((base[0], pattern)) if base is not None else None
    if base is None or before is None:
        return [p for p in _candidates(snapshot, pattern) if hit(p)]
    changed = base[1]
    may = _may_match(pattern)
    added = [p for p, blob in changed.items() if blob is not None and may(p) and hit(p)]
    kept = [p for p in before if p not in changed]
    return sorted([*kept, *added]) if added else kept


def _may_match(pattern: str) -> Callable[[str], bool]:
    """A cheap test a path passes whenever the glob matches it: its file name or a folder of
    it is the glob's literal last part (a glob naming a folder names the files in it), or
    ends with the last part's literal end (`*.go`)."""
    name = pattern.rpartition("/")[2]
    if not is_glob(name):
        inside = f"/{name}/"
        return lambda path: path.rpartition("/")[2] == name or inside in f"/{path}"
    tail = re.split(r"[*?\[\]]", name)[-1]
    below = tail + "/"
    return lambda path: path.endswith(tail) or below in path


_NAMES: WeakKeyDictionary[Snapshot, tuple[Sequence[str], dict[str, list[str]], set[str]]] = (
    WeakKeyDictionary()
)


def _candidates(snapshot: Snapshot, pattern: str) -> Sequence[str]:
    """The snapshot's paths a glob can match, sorted, narrowed cheaply before the regex: by
    file name when the glob's last part is literal (`**/openapi.yaml`), else by its literal end
    (`*.go`). A glob naming a folder names the files in it, so a name that is also a folder's
    keeps every path."""
    paths = snapshot.paths()
    name = pattern.rpartition("/")[2]
    if is_glob(name):
        may = _may_match(pattern)
        return [p for p in paths if may(p)]
    known = _NAMES.get(snapshot)
    if known is None or known[0] is not paths:
        by_name: dict[str, list[str]] = {}
        folders: set[str] = set()
        for path in paths:
            folder, _, file = path.rpartition("/")
            by_name.setdefault(file, []).append(path)
            folders.update(folder.split("/"))
        known = _NAMES[snapshot] = (paths, by_name, folders)
    return paths if name in known[2] else known[1].get(name, [])


def matched(snapshot: Snapshot | None, patterns: Sequence[str]) -> list[str]:
    """Every file any of the entries names, sorted, each once."""
    return sorted({path for pattern in patterns for path in matching(snapshot, pattern)})


def tried(key: str, patterns: Sequence[str]) -> list[str]:
    return [f"{key} = {pattern!r}" for pattern in patterns]


def unmatched(
    surface: Surface,
    key: str,
    patterns: Sequence[str],
    snapshot: Snapshot,
    origin: str,
    old: Snapshot | None = None,
) -> list[Finding]:
    """A finding for every explicitly set entry that names no file at the snapshot's ref nor
    at `old`, the other ref of the span (`origin`: the settings file). An entry that names
    files at `old` only is a surface's document gone at this release, judged as such."""
    return [
        unmatched_finding(surface, key, pattern, snapshot.ref, origin)
        for pattern in patterns
        if not matching(snapshot, pattern) and not matching(old, pattern)
    ]


def unmatched_finding(surface: Surface, key: str, entry: str, ref: str, origin: str) -> Finding:
    """An explicitly set entry of the settings file `origin` that names no file at `ref`."""
    absent = absent_entry(surface)
    hint = (
        f"Correct {entry!r} in {origin} ({key}) to the path the files have at {ref}, or remove it"
    )
    return SETTINGS_PATH_UNMATCHED.finding(
        surface,
        f"{origin}: key {key!r}: {entry!r} matches nothing at {ref}",
        finding_file(origin),
        hint=f"{hint}; a service without the surface declares {absent}." if absent else f"{hint}.",
    )


@dataclass(frozen=True)
class Sought:
    """What a document surface looks for: the settings key and its entries, whether the
    settings set them, where discovery looks by default, and the settings file."""

    surface: Surface
    key: str
    patterns: Sequence[str]
    explicit: bool
    defaults: Sequence[str]
    origin: str


@dataclass
class Documents:
    """The documents of a single-document surface at two refs, paired for comparison.

    `pairs` holds (old path, new path); old is None for a first appearance. `problems` are the
    findings that leave the surface not checked (settings errors, documents that cannot be
    paired); `notes` are advisories (moves, first appearances).
    """

    pairs: list[tuple[str | None, str]] = field(default_factory=list)
    problems: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)


def locate(sought: Sought, old: Snapshot | None, new: Snapshot) -> Documents:
    """Find and pair the surface's documents at both refs (see the module docstring)."""
    surface, key, patterns = sought.surface, sought.key, sought.patterns
    found = Documents(tried=tried(key, patterns))
    if sought.explicit:
        found.problems += unmatched(surface, key, patterns, new, sought.origin, old)
    new_docs = matched(new, patterns)
    if not sought.explicit and len(new_docs) > 1:
        message = (
            f"several candidate documents at {new.ref}: {', '.join(new_docs)}; name the one(s) "
            f"to check in {sought.origin} ({key} = [...])"
        )
        listed = ", ".join(f'"{d}"' for d in new_docs)
        named = SETTINGS_KEYS[surface][0]
        hint = f"Name the documents to check, keeping the service's: {named} = [{listed}]."
        found.problems.append(
            not_checked_finding(surface, message, rule=DISCOVERY_AMBIGUOUS, hint=hint)
        )
        return found
    old_docs = matched(old, patterns)
    found.pairs = [(d, d) for d in new_docs if d in old_docs]
    only_old = [d for d in old_docs if d not in new_docs]
    for path in (d for d in new_docs if d not in old_docs):
        candidates = _predecessors(old, new, only_old, sought.defaults, found)
        if len(candidates) > 1:
            assert old is not None
            reason = (
                f"{path} is new and {old.ref} has several documents it may replace: "
                f"{', '.join(candidates)}"
            )
            hint = (
                f"Name the old and new documents in {SETTINGS_KEYS[surface][0]} so each pairs by "
                "path, or keep the "
                f"one of {', '.join(candidates)} that {path} replaces at its path."
            )
            found.problems.append(not_checked_finding(surface, reason, path, hint=hint))
            continue
        before = candidates[0] if candidates else None
        if before is None:
            found.notes.append(DOCUMENT_ADDED.finding(surface, f"{path} is new at {new.ref}", path))
        else:
            message = f"{before} moved to {path}; the two are compared"
            found.notes.append(DOCUMENT_MOVED.finding(surface, message, path))
            if before in only_old:
                only_old.remove(before)
        found.pairs.append((before, path))
    if old is not None:
        for path in only_old:
            reason = f"{path} is present at {old.ref} but gone at {new.ref}"
            hint = gone_hint(surface, path)
            found.problems.append(not_checked_finding(surface, reason, path, hint=hint))
    if not old_docs and not new_docs and not found.problems:
        refs = f"{old.ref} or {new.ref}" if old is not None else new.ref
        reason = f"no document found at {refs}; tried {', '.join(found.tried)}"
        found.problems.append(not_checked_finding(surface, reason))
    return found


def _predecessors(
    old: Snapshot | None,
    new: Snapshot,
    unpaired: Sequence[str],
    defaults: Sequence[str],
    found: Documents,
) -> list[str]:
    """The documents at the old ref that a document new at this ref may replace: those the
    settings or discovery find there that are neither paired already nor still present."""
    if old is None:
        return []
    taken = {before for before, _ in found.pairs}
    candidates = {*unpaired, *matched(old, defaults)} - taken
    return sorted(d for d in candidates if new.blob_id(d) is None)


class DocumentError(Exception):
    """A document of a pair could not be read or compared: the surface is not checked."""

    def __init__(self, reason: str, path: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path


Compare = Callable[[Snapshot | None, str | None, Snapshot, str], list[Finding]]
"""(old snapshot, old path or None, new snapshot, new path) -> findings; DocumentError when a
document cannot be read."""


def document_surface(
    sought: Sought, old: Snapshot | None, new: Snapshot, compare: Compare
) -> SurfaceReport:
    """The report of a surface of documents (REST, MCP): each pair of `locate` compared, each
    finding prefixed with its document's path when there are several, what was read recorded."""
    surface = sought.surface
    docs = locate(sought, old, new)
    problems, found = list(docs.problems), list(docs.notes)
    read_old: dict[str, str | None] = {}
    read_new: dict[str, str | None] = {}
    for before, path in docs.pairs:
        read_new[path] = new.blob_id(path)
        if before is not None and old is not None:
            read_old[before] = old.blob_id(before)
        try:
            compared = compare(old if before is not None else None, before, new, path)
        except DocumentError as exc:
            problems.append(not_checked_finding(surface, exc.reason, exc.path))
            continue
        prefix = f"{path}: " if len(docs.pairs) > 1 else ""
        found += [f.replace(message=prefix + f.message) for f in compared]
    return SurfaceReport(
        surface=surface,
        checked=not problems,
        reason=reason_of(problems),
        findings=sorted([*problems, *found], key=Finding.sort_key),
        coverage=Coverage.of(docs.tried, read_old, read_new),
    )


R = TypeVar("R", bound=SurfaceReport)


def absent_report(
    kind: type[R],
    surface: Surface,
    reason: str,
    new: Snapshot,
    found: Sequence[str],
    looked: Sequence[str],
    origin: str,
    line: int | None = None,
    old: Snapshot | None = None,
    old_found: Sequence[str] = (),
) -> R:
    """The report of a surface declared absent in the settings file `origin` (at `line`):
    checked, with the reason as an advisory, and an unknown `absent-contradicted` finding when
    the search (`looked`, what it tried) found files of its kind after all, at `new` (`found`)
    or at `old` (`old_found`); not checked when the reason is hollow."""
    file = finding_file(origin)
    line = line if file else None  # a file outside the repository is named at no line
    hollow = hollow_reason(reason)
    if hollow:
        problem = ABSENT_REASON_HOLLOW.finding(
            surface,
            f"{surface} surface not checked: the reason of [{surface}] absent is hollow "
            f"({hollow}): {reason!r}",
            file,
            line,
            hint=f"write the reason in {origin} [{surface}] absent: why the service has no "
            f"{surface} surface, in words operators can check (or remove `absent` and name "
            "the files to read)",
        )
        return kind(
            surface=surface,
            checked=False,
            reason=reason_of([problem]),
            findings=[problem],
            coverage=Coverage.of(looked),
        )
    message = f"{surface} surface declared absent in {origin} ([{surface}] absent): {reason}"
    hint = f"Should the service gain a {surface} surface, remove [{surface}] absent from {origin}."
    findings = [DECLARED_ABSENT.finding(surface, message, file, line, hint)]
    at, there = (new.ref, found) if found else (old.ref if old else new.ref, old_found)
    if there:
        spot = there[0] if there is found else None  # a file gone at `new` has no line there
        findings.append(contradicted(surface, origin, at, there, spot))
    coverage = Coverage.of(looked, absent=reason)
    findings.sort(key=Finding.sort_key)
    return kind(surface=surface, checked=True, findings=findings, coverage=coverage)


def contradicted(
    surface: Surface,
    origin: str,
    at: str,
    there: Sequence[str],
    spot: str | None = None,
    line: int | None = None,
    key: str | None = None,
) -> Finding:
    """The `absent-contradicted` finding: the surface declared absent in `origin`, and the ref
    `at` has `there` (files, or what the surface read, named with their place), at `spot`
    (`line`); `key` is the setting that names them (the surface's documents key unless given)."""
    shown = ", ".join(there[:5]) + (f" and {len(there) - 5} more" if len(there) > 5 else "")
    message = f"{surface} surface declared absent, but {at} has {shown}"
    hint = (
        f"If {there[0]} is the service's, remove [{surface}] absent from {origin} and name "
        f"it in {key or SETTINGS_KEYS[surface][0]}; if not, move it out of the way (or out of "
        "the repository's tracked files)."
    )
    return ABSENT_CONTRADICTED.finding(surface, message, spot, line, hint=hint)


def declared_absent(
    kind: type[R],
    surface: Surface,
    reason: str,
    new: Snapshot,
    defaults: Sequence[str],
    origin: str,
    line: int | None = None,
    old: Snapshot | None = None,
) -> R:
    """`absent_report` for a surface whose discovery is a list of globs (at both refs)."""
    looked = tried(f"{surface} (discovery)", defaults)
    found = matched(new, defaults)
    before = matched(old, defaults) if old is not new else []
    return absent_report(kind, surface, reason, new, found, looked, origin, line, old, before)


def reason_of(problems: Sequence[Finding]) -> str | None:
    """Why a surface was not checked, from the findings that stopped it; None when none did."""
    prefix = " surface not checked: "
    texts = [f.message.split(prefix, 1)[-1] for f in problems]
    return "; ".join(dict.fromkeys(texts)) or None


def is_settings_error(finding: Finding) -> bool:
    """True for a finding the user fixes in the settings (exit 2 in strict commands)."""
    return finding.rule in SETTINGS_ERRORS
