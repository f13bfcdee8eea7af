"""The settings surface: what changed in `.release-safety.toml` between the two refs.

A change that can make a surface read or weigh less is `settings-narrowed` (unknown): a source
entry removed or changed, a surface declared absent, the tag pattern, placeholders, template
default, migrations' server time zone or PostgreSQL version changed, external `$ref`s or
annotations turned off, the declarations registry or the overrides file moved, a rule turned off
(`[rules] off`: `check-pr` then reports less), a migration or descriptor excluded, an image
taken as stateless. When the previous ref had no settings file (the
release that adopts one), or left a source list to discovery, the two are compared by what they
find: only files discovery found and the new settings do not (or a surface declared absent where
discovery found documents) are a narrowing. A source list of a section that was declared absent
read nothing, so any list is a widening. A change that only adds (a new source, an absent
surface brought back) or touches nothing checked (the floor, the index location, declared config
renames) is `settings-changed` (advisory). A `config.sources` entry is compared by path: an
exclude added or widened, values no longer taken as defaults, or a new environment prefix or
separator narrows; an exclude removed or values now taken as defaults widens.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from release_safety.discovery import matched
from release_safety.findings import Coverage, Finding, Rule, SurfaceReport, register
from release_safety.releasesettings import SettingsAt
from release_safety.rulesoff import turned_off
from release_safety.settings import ConfigSource, Settings
from release_safety.snapshot import Snapshot
from release_safety.surfaces.config.sources import matched_sources
from release_safety.surfaces.migrations.discover import migration_files

SETTINGS_NARROWED = register(
    Rule(
        id="settings-narrowed",
        surface="settings",
        severity="unknown",
        title="A settings change may make a surface read or weigh less",
        why="Settings decide what the tool reads; a change that drops a source, declares a "
        "surface absent or changes how migrations are read could hide a break, so a release "
        "that brings one is never proven safe, and a pull request must declare it.",
        unsafe='[[migrations.sources]]\npath = "docs"   # was "db/migrations"',
        safe="Keep the previous entry for one release beside the new one, or declare the "
        "change (`# release-safety: breaking ...` in the settings file).",
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
    file = current.settings.file
    return rule.finding("settings", f"key {key!r}: {message}", file, key_line(current.text, key))


def _found(settings: Settings, key: str, refs: Sequence[Snapshot | None]) -> set[str]:
    """What a source key of the settings finds at the refs, as `ref:path` strings."""
    found: set[str] = set()
    for snapshot in refs:
        if snapshot is None:
            continue
        if key == "migrations.sources":
            paths = list(migration_files(snapshot, settings.migrations.sources))
        elif key == "config.sources":
            paths = list(matched_sources(snapshot, settings.config.sources))
        elif key == "deployment.sources":
            paths = matched(snapshot, [source.path for source in settings.deployment.sources])
        else:
            paths = matched(snapshot, _value(settings, key))
        found |= {f"{snapshot.ref}:{path}" for path in paths}
    return found


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
    if removed:
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
    old, new = previous.settings, current.settings
    findings: list[Finding] = []
    for key in SOURCE_KEYS:
        findings += _source_findings(previous, current, key, refs)
    for source_key in SOURCE_KEYS:
        key = source_key.split(".")[0] + ".absent"
        was, now = _value(old, key), _value(new, key)
        if now is not None and was is None:
            hides = previous.text is not None or _found(old, source_key, refs)
            rule = SETTINGS_NARROWED if hides else SETTINGS_CHANGED
            findings.append(_finding(rule, current, key, f"declared absent: {now}"))
        elif now is None and was is not None:
            findings.append(_finding(SETTINGS_CHANGED, current, key, "no longer declared absent"))
    for key in WEIGHING_KEYS:
        was, now = _value(old, key), _value(new, key)
        if was != now:
            findings.append(_finding(SETTINGS_NARROWED, current, key, f"{was!r} -> {now!r}"))
    for key in LOOSENING_FLAGS:
        was, now = _value(old, key), _value(new, key)
        if was != now:
            rule = SETTINGS_NARROWED if was and not now else SETTINGS_CHANGED
            findings.append(_finding(rule, current, key, f"{was!r} -> {now!r}"))
    for key, (added, removed) in LESSENING_LISTS.items():
        was_set, now_set = _listed(old, key), _listed(new, key)
        if now_set - was_set:
            message = f"{added} {_shown(sorted(now_set - was_set))}"
            findings.append(_finding(SETTINGS_NARROWED, current, key, message))
        if was_set - now_set:
            message = f"{removed} {_shown(sorted(was_set - now_set))}"
            findings.append(_finding(SETTINGS_CHANGED, current, key, message))
    for key in ("floor_version", "index_url", "index_path", "config.renames"):
        was, now = _value(old, key), _value(new, key)
        if was != now:
            findings.append(_finding(SETTINGS_CHANGED, current, key, f"{was!r} -> {now!r}"))
    return sorted(findings, key=Finding.sort_key)


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
