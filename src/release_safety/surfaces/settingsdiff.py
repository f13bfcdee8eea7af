"""The settings surface: what changed in `.release-safety.toml` between the two refs.

A change that can make a surface read or weigh less is `settings-narrowed` (unknown): a source
entry removed or changed, a surface declared absent, the tag pattern, placeholders, template
default, migrations' server time zone or PostgreSQL version changed, external `$ref`s or
annotations turned off, the declarations registry or the overrides file moved, a rule turned off
(`[rules] off`: `check-pr` then reports less), a migration or descriptor excluded, an image
taken as stateless. When the previous ref had no settings file (the release that adopts one), or
left a source list to discovery, the two are compared by what they find: only files discovery
found and the new settings do not (or a surface declared absent where discovery found documents)
are a narrowing. A migrations source removed for one that reads the migrations where the release
moved them (`git mv`, names and bytes kept) narrows nothing: what each finds is compared with
the moved files where they now are. A source list of a section that was declared absent read
nothing, so any list is a widening. A change that only adds (a new source, an absent surface
brought back) or touches nothing checked (the floor, the index location, declared config
renames) is `settings-changed` (advisory). A `config.sources` entry is compared by path: an
exclude added or widened, values no longer taken as defaults, or a new environment prefix or
separator narrows; an exclude removed or values now taken as defaults widens.

A narrowing is accepted in the settings file itself, with a reason:

    [[accept]]
    key = "deployment.exclude"
    reason = "docker-compose.dev.yml starts a contributor's stack; operators run the chart"

The `settings-narrowed` findings of that key then become advisories that quote the reason
(`acknowledged`), so adopting the tool or leaving developer files out costs no release; the
notes, the evidence and `check-pr` list them. An entry accepts only in the release that adds it
(one already in the previous ref's settings accepts nothing: a later narrowing of the same key
needs its own), and only with a reason that says something (the hollow-reason rules of declared
breaks). An entry that accepts nothing is `settings-acceptance-unused` (advisory).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from release_safety.contract.reports import Coverage, Finding, Rule, SurfaceReport, register
from release_safety.git.snapshot import Snapshot
from release_safety.settings.atref import SettingsAt
from release_safety.settings.file import PYPROJECT, finding_file
from release_safety.settings.model import ConfigSource, RouteSource, Settings
from release_safety.settings.reasons import hollow_reason, normalise
from release_safety.surfaces.config.sources import matched_sources
from release_safety.surfaces.discovery import matched

RULE_TURNED_OFF = register(
    Rule(
        id="rule-turned-off",
        surface="settings",
        severity="advisory",
        title="A rule is turned off for lint-migrations and check-pr",
        why="`[rules] off` silences a rule where code is reviewed; the release still weighs "
        "it, and says so here, so a verdict never changes silently.",
        unsafe='[rules]\noff = ["blocking-table-lock"]',
        safe="Acknowledge one finding inline with a reason "
        "(`-- release-safety: acknowledge(rule-id): reason`) rather than a rule everywhere.",
    )
)
SETTINGS_NARROWED = register(
    Rule(
        id="settings-narrowed",
        surface="settings",
        severity="unknown",
        title="A settings change may make a surface read or weigh less",
        why="Settings decide what the tool reads; a change that drops a source, declares a "
        "surface absent or changes how migrations are read could hide a break, so a release "
        "that brings one is never proven safe unless the settings accept it with a reason "
        "(`[[accept]]`), and a pull request must accept or declare it.",
        unsafe='[[migrations.sources]]\npath = "docs"   # was "db/migrations"',
        safe="When reading less is intended, accept it with a reason (`[[accept]]` with the "
        "key and the reason); else keep the previous entry for one release beside the new one.",
    )
)
SETTINGS_CHANGED = register(
    Rule(
        id="settings-changed",
        surface="settings",
        severity="advisory",
        title="A settings change that only adds, or touches nothing checked",
        why="A new source or an index location is worth knowing; it cannot hide a break.",
    )
)
SETTINGS_ACCEPTANCE_UNUSED = register(
    Rule(
        id="settings-acceptance-unused",
        surface="settings",
        severity="advisory",
        title="An accepted narrowing accepts nothing in this release",
        why="An `[[accept]]` entry accepts the narrowings of its key in the release that adds "
        "it; one the release does not need (no narrowing of that key, or an entry of an "
        "earlier release) accepts nothing, and a later narrowing needs an entry of its own.",
        safe="Remove the entry.",
    )
)
SETTINGS_UNREADABLE = register(
    Rule(
        id="settings-unreadable",
        surface="settings",
        severity="unknown",
        title="The previous release's settings cannot be read",
        why="Without them the release cannot be checked with what the previous release "
        "checked, so a narrowing could go unseen.",
        safe="Nothing to do for this release; the next one compares with this one's settings.",
    )
)

SOURCE_KEYS = (
    "migrations.sources",
    "rest.specs",
    "rest.routes",
    "mcp.snapshots",
    "config.sources",
    "deployment.sources",
)
WEIGHING_KEYS = (
    "tag_pattern",
    "postgres_version",
    "migrations.placeholders",
    "migrations.template_default",
    "migrations.server_timezone",
    "declarations.registry",
    "overrides.file",
)
SECTION_SOURCES = tuple(
    key
    for index, key in enumerate(SOURCE_KEYS)
    if all(not k.startswith(key.split(".")[0] + ".") for k in SOURCE_KEYS[:index])
)
"""The first source key of each section (what `absent` replaces), in SOURCE_KEYS' order."""
LOOSENING_FLAGS = ("rest.external_refs", "declarations.annotations")
"""Booleans whose change from true to false reads less."""
LESSENING_LISTS = {
    "rules.off": ("turned off", "turned back on"),
    "migrations.exclude": ("now leaves out", "no longer leaves out"),
    "deployment.exclude": ("now leaves out", "no longer leaves out"),
    "deployment.stateless": ("now leaves out", "no longer leaves out"),
}
"""Lists whose new entries make the tool judge or report less (a rule turned off, a migration
or descriptor excluded, an image taken as stateless), with the words for an entry added and
one removed; an entry removed only adds."""


def _value(settings: Settings, key: str) -> Any:
    value: Any = settings.model_dump(mode="json")
    for part in key.split("."):
        value = value[part]
    return value


def _entries(settings: Settings, key: str) -> list[str]:
    if key == "migrations.sources":
        return [source.describe() for source in settings.migrations.sources]
    if key == "config.sources":
        return [source.describe() for source in settings.config.sources]
    if key == "deployment.sources":
        return [source.describe() for source in settings.deployment.sources]
    if key == "rest.routes":
        return [source.describe() for source in settings.rest.routes]
    return [str(entry) for entry in _value(settings, key)]


def _listed(settings: Settings, key: str) -> set[str]:
    """A list setting's entries as text (a table entry as its sorted JSON)."""
    return {
        json.dumps(entry, sort_keys=True) if isinstance(entry, dict) else str(entry)
        for entry in _value(settings, key)
    }


def key_line(text: str | None, key: str) -> int:
    """The line where the settings text sets `key` (its table's header when the key is not
    written there, else 1)."""
    if not text:
        return 1
    section, _, name = key.rpartition(".")
    lines = text.splitlines()
    header = re.compile(rf"^\s*\[\[?\s*{re.escape(section or name)}\b")
    assignment = re.compile(rf"^\s*{re.escape(name)}\s*=")
    in_section = not section
    found_header = 0
    for number, line in enumerate(lines, start=1):
        if re.match(r"^\s*\[", line):
            in_section = bool(header.match(line))
            if in_section and not found_header:
                found_header = number
            continue
        if in_section and assignment.match(line):
            return number
    return found_header or 1


def _shown(entries: Sequence[str]) -> str:
    listed = ", ".join(entries[:5])
    return listed + (f" and {len(entries) - 5} more" if len(entries) > 5 else "")


def _finding(rule: Rule, current: SettingsAt, key: str, message: str) -> Finding:
    origin = current.settings.origin
    hint = _accept_hint(origin, key) if rule is SETTINGS_NARROWED else None
    line = key_line(current.text, key)
    return rule.finding("settings", f"key {key!r}: {message}", current.settings.file, line, hint)


def _accept_table(file: str) -> str:
    return "[[tool.release-safety.accept]]" if file == PYPROJECT else "[[accept]]"


def _accept_hint(file: str, key: str) -> str:
    """How to accept a narrowing of `key` in the settings file `file`, or to avoid it."""
    return (
        f"If reading less is intended, accept it in {file}: "
        f'{_accept_table(file)} key = "{key}", '
        'reason = "<what this leaves out and why no operator relies on it>"; '
        f"else {_undo(key)}."
    )


def _undo(key: str) -> str:
    """How to leave out a narrowing of `key`, for that kind of key."""
    section = key.partition(".")[0]
    if key in SOURCE_KEYS:
        return f"keep the entries `{key}` read before beside the new ones for one more release"
    if key.endswith(".absent"):
        sources = next(k for k in SOURCE_KEYS if k.startswith(f"{section}."))
        return f"point `{sources}` at the surface's documents rather than declaring it absent"
    if key in LESSENING_LISTS:
        return f"take the new entries out of `{key}`"
    return f"set `{key}` back to its previous value"


def _found(settings: Settings, key: str, refs: Sequence[Snapshot | None]) -> set[str]:
    """What a source key of the settings finds at the refs, as `ref:path` strings; a migration
    the last ref moved (`git mv migrations db/sql`) is named where it now is."""
    # deferred, here and below: the surfaces' readers load where those surfaces run (a
    # release may judge them in another process, `release/generate.run_surfaces`)
    from release_safety.surfaces.migrations.find.discover import migration_files, moved_migrations
    from release_safety.surfaces.rest.routes.read import own_code

    found: set[str] = set()
    last = refs[-1] if refs else None
    moved: dict[str, str] = {}
    if key == "migrations.sources" and len(refs) > 1 and last is not None:
        moved = {before: path for path, before in moved_migrations(refs[-2], last).items()}
    for snapshot in refs:
        if snapshot is None:
            continue
        if key == "migrations.sources":
            paths = list(migration_files(snapshot, settings.migrations.sources))
            if snapshot is not last and last is not None:
                at = {path: moved[path] for path in paths if path in moved}
                found |= {f"{last.ref}:{path}" for path in at.values()}
                paths = [path for path in paths if path not in at]
        elif key == "config.sources":
            paths = list(matched_sources(snapshot, settings.config.sources))
        elif key == "deployment.sources":
            paths = matched(snapshot, [source.path for source in settings.deployment.sources])
        elif key == "rest.routes":
            sources = settings.rest.routes or (RouteSource(),)
            paths = [p for s in sources for p in own_code(snapshot.paths(), s.path)]
        else:
            paths = matched(snapshot, _value(settings, key))
        found |= {f"{snapshot.ref}:{path}" for path in paths}
    return found


def _followed(
    previous: SettingsAt, current: SettingsAt, removed: list[str], refs: Sequence[Snapshot | None]
) -> bool:
    """True when the migrations sources removed (as `describe` writes them) read nothing at the
    new ref because the release moved their migrations (`git mv`), and the new sources read
    every one where it now is."""
    from release_safety.surfaces.migrations.find.discover import migration_files, moved_migrations

    old, new = (refs[-2], refs[-1]) if len(refs) > 1 else (None, None)
    if new is None or not moved_migrations(old, new):
        return False
    sources = [s for s in previous.settings.migrations.sources if s.describe() in removed]
    if any(migration_files(new, [source]) for source in sources):
        return False
    key = "migrations.sources"
    return not _found(previous.settings, key, refs) - _found(current.settings, key, refs)


def _source_findings(
    previous: SettingsAt, current: SettingsAt, key: str, refs: Sequence[Snapshot | None]
) -> list[Finding]:
    before, after = _entries(previous.settings, key), _entries(current.settings, key)
    if before == after:
        return []
    section, _, name = key.partition(".")
    if _value(current.settings, f"{section}.absent") is not None:
        return []  # the section's `absent` finding says what changed
    if _value(previous.settings, f"{section}.absent") is not None:
        message = f"now reads {_shown(after)} (the section was declared absent)"
        return [_finding(SETTINGS_CHANGED, current, key, message)]
    if not previous.settings.explicitly_set(section, name):  # from discovery: what each finds
        lost = sorted(_found(previous.settings, key, refs) - _found(current.settings, key, refs))
        if lost:
            message = f"discovery found {_shown(lost)}, the new settings do not"
            return [_finding(SETTINGS_NARROWED, current, key, message)]
        message = "set for the first time; it finds everything discovery found"
        return [_finding(SETTINGS_CHANGED, current, key, message)]
    removed = [e for e in before if e not in after]
    added = [e for e in after if e not in before]
    less: list[str] = []
    more: list[str] = []
    if key == "config.sources":
        removed, added, less, more = _config_sources(previous.settings, current.settings)
    findings = []
    if removed and key == "migrations.sources" and _followed(previous, current, removed, refs):
        message = f"no longer reads {_shown(removed)}; what it read is read where it moved"
        findings.append(_finding(SETTINGS_CHANGED, current, key, message))
    elif removed:
        message = f"no longer reads {_shown(removed)}"
        findings.append(_finding(SETTINGS_NARROWED, current, key, message))
    if less:
        findings.append(_finding(SETTINGS_NARROWED, current, key, f"reads less: {_shown(less)}"))
    if added:
        findings.append(_finding(SETTINGS_CHANGED, current, key, f"now also reads {_shown(added)}"))
    if more:
        findings.append(_finding(SETTINGS_CHANGED, current, key, f"reads more: {_shown(more)}"))
    return findings


_DEFAULTS_RANK = {True: 2, None: 1, False: 0}
"""How much an entry's `defaults` flag makes the surface weigh: values as defaults (true),
by the file's kind (unset), names only (false)."""


def _narrows(before: ConfigSource, after: ConfigSource) -> bool:
    """True when an entry's new options can make the surface read or weigh less: an exclude
    added or widened, values no longer taken as defaults, the names of a file's keys changed,
    a table of defaults no longer read or another one read."""
    return (
        bool(set(after.exclude) - set(before.exclude))
        or _DEFAULTS_RANK[after.defaults] < _DEFAULTS_RANK[before.defaults]
        or (after.env_prefix, after.env_separator) != (before.env_prefix, before.env_separator)
        or before.defaults_table not in (None, after.defaults_table)
    )


def _config_sources(
    previous: Settings, current: Settings
) -> tuple[list[str], list[str], list[str], list[str]]:
    """`config.sources` entries compared by path: (removed, added, changed to read less,
    changed to read more), each described as the settings write it."""
    before = {s.path: s for s in previous.config.sources}
    after = {s.path: s for s in current.config.sources}
    removed = [s.describe() for path, s in before.items() if path not in after]
    added = [s.describe() for path, s in after.items() if path not in before]
    less: list[str] = []
    more: list[str] = []
    for path in (p for p in before if p in after and before[p] != after[p]):
        change = f"{before[path].describe()} -> {after[path].describe()}"
        (less if _narrows(before[path], after[path]) else more).append(change)
    return removed, added, less, more


def diff_settings(
    previous: SettingsAt, current: SettingsAt, refs: Sequence[Snapshot | None]
) -> list[Finding]:
    """Every change between the previous ref's settings and the current ones, judged."""
    findings = _accepted(_changes(previous, current, refs), previous, current)
    return sorted(findings, key=Finding.sort_key)


def _changes(
    previous: SettingsAt, current: SettingsAt, refs: Sequence[Snapshot | None]
) -> list[tuple[str, Finding]]:
    """Every change between the two settings, judged, with the key it concerns (before
    acceptances apply)."""
    old, new = previous.settings, current.settings
    findings: list[tuple[str, Finding]] = []
    for key in SOURCE_KEYS:
        findings += [(key, f) for f in _source_findings(previous, current, key, refs)]
    for source_key in SECTION_SOURCES:
        key = source_key.split(".")[0] + ".absent"
        was, now = _value(old, key), _value(new, key)
        if now is not None and was is None:
            hides = previous.text is not None or _found(old, source_key, refs)
            rule = SETTINGS_NARROWED if hides else SETTINGS_CHANGED
            findings.append((key, _finding(rule, current, key, f"declared absent: {now}")))
        elif now is None and was is not None:
            findings.append(
                (key, _finding(SETTINGS_CHANGED, current, key, "no longer declared absent"))
            )
    for key in WEIGHING_KEYS:
        was, now = _value(old, key), _value(new, key)
        if was != now:
            findings.append((key, _finding(SETTINGS_NARROWED, current, key, f"{was!r} -> {now!r}")))
    for key in LOOSENING_FLAGS:
        was, now = _value(old, key), _value(new, key)
        if was != now:
            rule = SETTINGS_NARROWED if was and not now else SETTINGS_CHANGED
            findings.append((key, _finding(rule, current, key, f"{was!r} -> {now!r}")))
    for key, (added, removed) in LESSENING_LISTS.items():
        was_set, now_set = _listed(old, key), _listed(new, key)
        if now_set - was_set:
            message = f"{added} {_shown(sorted(now_set - was_set))}"
            findings.append((key, _finding(SETTINGS_NARROWED, current, key, message)))
        if was_set - now_set:
            message = f"{removed} {_shown(sorted(was_set - now_set))}"
            findings.append((key, _finding(SETTINGS_CHANGED, current, key, message)))
    for key in ("floor_version", "index_url", "index_path", "config.renames"):
        was, now = _value(old, key), _value(new, key)
        if was != now:
            findings.append((key, _finding(SETTINGS_CHANGED, current, key, f"{was!r} -> {now!r}")))
    return findings


_ACCEPT_HEADER = re.compile(r"^\s*\[\[\s*(?:tool\.release-safety\.)?accept\s*\]\]")


def _accept_line(text: str | None, index: int) -> int:
    """The line of the settings' `index`-th `[[accept]]` entry (the `accept = [...]` line
    when they are written inline)."""
    lines = (text or "").splitlines()
    headers = [n for n, line in enumerate(lines, start=1) if _ACCEPT_HEADER.match(line)]
    return headers[index] if index < len(headers) else key_line(text, "accept")


def _accepted(
    keyed: Sequence[tuple[str, Finding]], previous: SettingsAt, current: SettingsAt
) -> list[Finding]:
    """The findings with the settings' `[[accept]]` entries applied, plus an advisory for each
    entry that accepts nothing."""
    findings = [f for _, f in keyed]
    earlier = {(a.key, normalise(a.reason)) for a in previous.settings.accept}
    file = current.settings.origin
    unused: list[Finding] = []
    for index, entry in enumerate(current.settings.accept):
        line = _accept_line(current.text, index)
        where = f"{file}:{line}"
        hits = [
            i
            for i, (key, f) in enumerate(keyed)
            if key == entry.key and f.rule == SETTINGS_NARROWED.id and not findings[i].acknowledged
        ]
        carried = (entry.key, normalise(entry.reason)) in earlier
        if not hits:
            why = (
                "was written for an earlier release (it is in the previous settings)"
                if carried
                else f"matches no narrowing of {entry.key!r} in this release"
            )
            message = (
                f"the {_accept_table(file)} entry for key {entry.key!r} {why}: it accepts nothing"
            )
            unused.append(
                SETTINGS_ACCEPTANCE_UNUSED.finding(
                    "settings",
                    message,
                    current.settings.file,
                    line,
                    f"Remove the entry at {where}.",
                )
            )
            continue
        hollow = hollow_reason(entry.reason)
        for i in hits:
            f = findings[i]
            if carried:
                hint = (
                    f"The entry for {entry.key!r} at {where} is the previous release's: it "
                    "accepted that release's narrowing. If this one is intended too, give the "
                    "entry a reason that says what this change leaves out."
                )
                findings[i] = f.replace(hint=hint)
            elif hollow:
                hint = (
                    f"The entry for {entry.key!r} at {where} accepts nothing: its reason is "
                    f"hollow ({hollow}); say what the change leaves out and why no operator "
                    "relies on it."
                )
                findings[i] = f.replace(hint=hint)
            else:
                accepted = f"{where}: {normalise(entry.reason)}"
                findings[i] = f.replace(
                    severity="advisory",
                    message=f"{f.message} (accepted at {accepted})",
                    hint=None,
                    acknowledged=accepted,
                )
    return [*findings, *unused]


def analyse(
    previous: SettingsAt | None,
    current: SettingsAt,
    old: Snapshot | None,
    new: Snapshot,
    problem: str | None = None,
) -> SurfaceReport:
    """The settings report: the settings used at each ref and how they changed."""
    read_old = {previous.settings.origin: previous.blob} if previous is not None else {}
    coverage = Coverage.of(
        [f"settings: {current.where}"]
        + ([f"previous settings: {previous.where}"] if previous is not None else []),
        read_old,
        {current.settings.origin: current.blob},
    )
    findings: list[Finding] = []
    if problem is not None:
        findings.append(
            SETTINGS_UNREADABLE.finding("settings", problem, current.settings.origin, 1)
        )
    elif previous is not None:
        findings = diff_settings(previous, current, [old, new])
    findings += turned_off(current.settings.rules.off, current.settings.origin)
    return SurfaceReport(surface="settings", checked=True, findings=findings, coverage=coverage)


def turned_off(off: Sequence[str], origin: str) -> list[Finding]:
    """One advisory finding per rule turned off in the settings file `origin`."""
    file = finding_file(origin)
    return [
        RULE_TURNED_OFF.finding(
            "settings",
            f"{origin}: rule {rule_id!r} is off for lint-migrations and check-pr; "
            "this release still weighs it",
            file,
            1 if file else None,
        )
        for rule_id in off
    ]
