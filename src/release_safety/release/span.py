"""Settings that hold across history: the source entries that apply to one release's span.

A settings file written today judges every earlier release, and a project moves its files
(migrations from `db/migrations` to `server/migrations`, an env template that appears in a
later release). So, per explicitly set entry of `migrations.sources`, `config.sources`,
`deployment.sources`, `rest.specs` and `mcp.snapshots`:

- it names files at either ref of the span: it applies (one with files at the earlier ref only
  is a surface's document gone at this release, judged by the surface);
- it names files at neither ref but at HEAD or at a release tag: it does not apply to this span,
  and a `settings-entry-not-in-span` advisory says so (a coverage note: nothing is read through
  it here, and the search for files no source reads still runs);
- it names files nowhere (neither ref, HEAD nor any release tag): a typo, an error naming the
  key, the settings file and the nearest path (exit 2 in a strict run; a lenient one keeps the
  entry, and the surface is not checked).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial

from release_safety.contract.finding import Finding, Rule, register
from release_safety.contract.kinds import Surface
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import ConfigSource, MigrationSource, Settings
from release_safety.surfaces.discovery import names_any

ENTRY_NOT_IN_SPAN = register(
    Rule(
        id="settings-entry-not-in-span",
        surface="settings",
        severity="advisory",
        title="A settings entry names nothing at this release: it applies to other releases",
        why="A settings file judges every release, and a project moves its files: an entry "
        "that matches nothing at either ref of a release but does at HEAD or at another "
        "release is a place the project used at another time, not a typo. It reads nothing "
        "here; files no source reads are still searched for.",
        unsafe="",
        safe='[[migrations.sources]]\npath = ["db/migrations", "server/migrations"]',
    )
)

Present = Callable[[Snapshot], bool]
"""True when an entry names a file at the snapshot's ref."""


@dataclass(frozen=True)
class Entry:
    """One explicitly set source entry: its surface, its key (with the index of a migrations
    source, as the surface names it), the entry as written, its path, and how it reads."""

    surface: Surface
    key: str
    shown: str
    text: str
    present: Present


Elsewhere = Callable[[Entry], str | None]
"""The ref (HEAD or a release tag) where an entry names a file, else None."""


@dataclass
class Span:
    """The settings for one span, the notes on the entries left out, and the typos."""

    settings: Settings
    notes: list[Finding] = field(default_factory=list)
    typos: list[str] = field(default_factory=list)


def _migrations(source: MigrationSource, snapshot: Snapshot) -> bool:
    # deferred: a release whose settings name no migration source fits them without the
    # migrations' readers, which the process judging migrations imports after the fork
    from release_safety.surfaces.migrations.find.discover import migration_files

    return bool(migration_files(snapshot, [source]))


def _config(source: ConfigSource, snapshot: Snapshot) -> bool:
    """`matched_sources(snapshot, [source])` holds a file: the first file it names that its
    exclusions leave in is enough."""
    return names_any(snapshot, source.path, lambda path: not source.excluded(path))


def _path(path: str, snapshot: Snapshot) -> bool:
    return names_any(snapshot, path)


PATH_KEYS: tuple[tuple[Surface, str], ...] = (
    ("deployment", "sources"),
    ("rest", "specs"),
    ("mcp", "snapshots"),
)
"""The keys whose entries are paths or globs (or tables with a `path`), read as such."""


def entries(settings: Settings) -> dict[tuple[Surface, str], list[Entry]]:
    """The explicitly set entries of each (section, key) that reads files."""
    found: dict[tuple[Surface, str], list[Entry]] = {}
    if _set(settings, "migrations", "sources"):
        found[("migrations", "sources")] = [
            Entry(
                "migrations",
                f"migrations.sources[{i}]",
                s.describe(),
                s.path,
                partial(_migrations, s),
            )
            for i, s in enumerate(settings.migrations.sources)
        ]
    if _set(settings, "config", "sources"):
        found[("config", "sources")] = [
            Entry("config", "config.sources", repr(s.path), s.path, partial(_config, s))
            for s in settings.config.sources
        ]
    for section, key in PATH_KEYS:
        if _set(settings, section, key):
            values = getattr(getattr(settings, section), key)
            paths = [v if isinstance(v, str) else v.path for v in values]
            found[(section, key)] = [
                Entry(section, f"{section}.{key}", repr(p), p, partial(_path, p)) for p in paths
            ]
    return found


def _set(settings: Settings, section: str, key: str) -> bool:
    return settings.explicitly_set(section, key) and getattr(settings, section).absent is None


def fit(settings: Settings, old: Snapshot | None, new: Snapshot, elsewhere: Elsewhere) -> Span:
    """The settings the span `old`..`new` is judged with (see the module docstring)."""
    span = Span(settings)
    refs = f"{old.ref} or {new.ref}" if old is not None and old.ref != new.ref else new.ref
    for (section, key), listed in entries(settings).items():
        kept = []
        for index, entry in enumerate(listed):
            # the earlier ref first: its tree is the one git lists, the later one follows from
            # it and the diff (both processes of a release judged beside need it)
            if (old is not None and entry.present(old)) or entry.present(new):
                kept.append(index)
                continue
            where = elsewhere(entry)
            if where is None:
                kept.append(index)
                span.typos.append(_typo(settings, entry, old, new))
                continue
            message = (
                f"{settings.origin}: {entry.key} = {entry.shown} matches nothing at {refs} "
                f"(it does at {where}): not read for this release"
            )
            hint = (
                f"Nothing to do if {entry.text!r} is where the project kept these files at other "
                "releases; files no entry reads are still searched for."
            )
            span.notes.append(
                ENTRY_NOT_IN_SPAN.finding("settings", message, settings.file, hint=hint)
            )
        if len(kept) < len(listed):
            part = getattr(span.settings, section)
            values = tuple(getattr(part, key)[i] for i in kept)
            update: dict[str, object] = {section: part.model_copy(update={key: values})}
            span.settings = span.settings.model_copy(update=update)
    return span


def _typo(settings: Settings, entry: Entry, old: Snapshot | None, new: Snapshot) -> str:
    """The one-line error for an entry that names nothing anywhere, with the nearest path."""
    paths = new.paths()
    folders = {p.rpartition("/")[0] for p in paths} - {""}
    nearest = difflib.get_close_matches(entry.text, [*folders, *paths], n=1, cutoff=0.5)
    near = f"; nearest: {nearest[0]!r}" if nearest else f"; nothing close to it at {new.ref}"
    before = f"{old.ref}, " if old is not None and old.ref != new.ref else ""
    return (
        f"{settings.origin}: key '{entry.key}': {entry.shown} matches nothing at {new.ref} "
        f"(nor at {before}HEAD or any release tag: a typo?){near}"
    )


def raise_typos(span: Span) -> None:
    """A strict run ends on a typo with one line naming the key, the file and the nearest path."""
    from release_safety.common.errors import InputError

    if span.typos:
        more = f" (and {len(span.typos) - 1} more)" if len(span.typos) > 1 else ""
        raise InputError(span.typos[0] + more)


def elsewhere_in(place: str, refs: Callable[[], Iterable[Snapshot]]) -> Elsewhere:
    """`Elsewhere` over the snapshots `refs` gives (HEAD first, then the release tags, newest
    first), made only when an entry matches nothing at a span; remembered per `place` (the
    repository and its HEAD) and entry, for the releases after it."""

    def find(entry: Entry) -> str | None:
        key = (place, entry.key, entry.shown)
        if key not in _FOUND:
            _FOUND[key] = next((s.ref for s in refs() if entry.present(s)), None)
            while len(_FOUND) > 1024:
                _FOUND.pop(next(iter(_FOUND)))
        return _FOUND[key]

    return find


_FOUND: dict[tuple[str, str, str], str | None] = {}
