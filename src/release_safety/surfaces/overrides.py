"""Maintainers' upgrade overrides, `release-safety.overrides.json` (docs/overrides.md).

    {
      "$schema": "...",                                            optional
      "default": {"minPreviousVersion": "1.2.0", "requiredStop": false, "note": "...",
                  "recreateNote": "..."},
      "versions": {
        "1.4.0": {"minPreviousVersion": "1.2.0", "requiredStop": true, "note": "..."}
      }
    }

Every block and key is optional; objects are closed and versions are `X.Y.Z` (`vX.Y.Z` is
read as the same version). The file is validated strictly: a malformed file is bad input
(exit 2), because ignoring it would drop a maintainer's required stop, the falsely-safe
direction. An absent file means nothing applies.

For release V (a version that is not `X.Y.Z`, such as a preview, counts as newer than all):

- floors: `default.minPreviousVersion` when it is below V, and `versions[v].minPreviousVersion`
  for every v at or below V (a floor keeps binding the releases after the one that set it);
  `minPreviousVersion` is the highest of them;
- required stops: every v at or below V whose `requiredStop` is true (a version's own block
  wins over `default.requiredStop`, which applies to V itself);
- the Recreate note (what operators must know to roll V with the Recreate strategy, such as how
  the service's Helm chart runs its migration job): `versions[v].recreateNote` of the highest v
  at or below V that sets one, else `default.recreateNote`; none when neither does.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, NamedTuple

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StringConstraints,
    ValidationError,
    field_validator,
)

from release_safety.common.errors import InputError
from release_safety.common.jsonio import parse_json
from release_safety.contract.model import GivenVersion, Upgrade
from release_safety.contract.reports import (
    Coverage,
    DeclarationsReport,
    Finding,
    OverridesReport,
    Rule,
    register,
)
from release_safety.contract.versions import Version, is_release, plain_version, version_key
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.declarations.jsonpos import KeyPath, key_lines
from release_safety.surfaces.discovery import reason_of, unmatched

UPGRADE_FLOOR = register(
    Rule(
        id="upgrade-floor",
        surface="overrides",
        severity="advisory",
        title="A maintainer set an upgrade floor",
        why="Installs older than the floor must upgrade through an intermediate version first "
        "(docs/contract.md#verdict-rules, rule 4).",
    )
)
REQUIRED_STOP = register(
    Rule(
        id="upgrade-required-stop",
        surface="overrides",
        severity="advisory",
        title="A maintainer marked a required stop",
        why="Upgrades crossing a required stop must land on it and run its migrations first "
        "(docs/contract.md#verdict-rules, rule 3).",
    )
)

OVERRIDE_REMOVED = register(
    Rule(
        id="upgrade-override-removed",
        surface="overrides",
        severity="breaking",
        title="A required stop or upgrade floor was removed",
        why="Operators on older versions lose a stop or floor a maintainer set for their "
        "upgrade; removing one is a decision reviewers must see, like a break.",
        unsafe="`release-safety.overrides.json` deleted while it marks 1.4.0 a required stop.",
        safe="Keep the override, or declare its removal in the pull request.",
    )
)


class OverrideBlock(BaseModel):
    """`{minPreviousVersion, requiredStop, note, recreateNote}`; every key optional, nothing
    else allowed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    minPreviousVersion: GivenVersion | None = None
    requiredStop: StrictBool | None = None
    note: str | None = None
    recreateNote: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)] | None = (
        None
    )

    @field_validator("requiredStop", mode="before")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("must be true or false, not null")
        return value


class OverridesFile(BaseModel):
    """The whole file: an optional `$schema`, a `default` block and per-version blocks."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: str | None = Field(default=None, alias="$schema")
    default: OverrideBlock = OverrideBlock()
    versions: dict[GivenVersion, OverrideBlock] = {}

    @field_validator("versions", mode="before")
    @classmethod
    def _one_key_a_version(cls, value: Any) -> Any:
        """`1.4.0` and `v1.4.0` name one version: two blocks for it would drop one silently."""
        if isinstance(value, dict):
            seen: dict[str, str] = {}
            for key in value:
                plain = plain_version(key) if isinstance(key, str) else key
                if plain in seen:
                    raise ValueError(f"{seen[plain]!r} and {key!r} name the same version")
                seen[plain] = key
        return value


def _key(loc: tuple[int | str, ...]) -> str:
    """A validation error's place: `versions["1.4.0"].requiredStop`."""
    text = ""
    for part in loc:
        if part == "[key]":
            text += " (the version key)"
        elif isinstance(part, str) and part.isidentifier():
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part)}]"
    return text or "(top level)"


def parse(text: str, where: str) -> OverridesFile:
    """Validate the file's text; anything wrong is an `InputError` naming the file and the key."""
    data = parse_json(text, where, strict=True)
    try:
        overrides = OverridesFile.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        reason = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        raise InputError(f"{where}: key {_key(tuple(error['loc']))!r}: {reason}") from exc
    for version, block in overrides.versions.items():
        floor = block.minPreviousVersion
        if floor is not None and version_key(floor) >= version_key(version):
            raise InputError(
                f"{where}: key {_key(('versions', version, 'minPreviousVersion'))!r}: "
                f"the floor {floor} is not below the version it guards"
            )
    return overrides


def _at_or_below(candidate: str, version: str) -> bool:
    this = Version.maybe(version)
    return this is None or Version.parse(candidate) <= this


def _below(candidate: str, version: str) -> bool:
    this = Version.maybe(version)
    return this is None or Version.parse(candidate) < this


class Floor(NamedTuple):
    """A floor that applies: the version, where it was set (`default` or a version), its note."""

    version: str
    source: str
    note: str


def resolve(overrides: OverridesFile, version: str) -> tuple[list[Floor], list[str]]:
    """The floors that apply to `version`, and its required stops sorted numerically."""
    default = overrides.default
    floors: list[Floor] = []
    if default.minPreviousVersion is not None and _below(default.minPreviousVersion, version):
        floors.append(Floor(default.minPreviousVersion, "default", default.note or ""))
    stop_by_default = default.requiredStop is True
    stops: set[str] = set()
    for at, block in overrides.versions.items():
        if not _at_or_below(at, version):
            continue
        if block.minPreviousVersion is not None:
            floors.append(Floor(block.minPreviousVersion, at, block.note or ""))
        own = block.requiredStop
        if own is True or (own is None and at == version and stop_by_default):
            stops.add(at)
    if stop_by_default and is_release(version) and version not in overrides.versions:
        stops.add(version)
    return floors, sorted(stops, key=version_key)


def recreate_note(overrides: OverridesFile, version: str) -> str | None:
    """The Recreate note that applies to `version`: the highest version block at or below it
    that sets one, else the default's."""
    notes = [
        (at, block.recreateNote)
        for at, block in overrides.versions.items()
        if block.recreateNote is not None and _at_or_below(at, version)
    ]
    if notes:
        return max(notes, key=lambda found: version_key(found[0]))[1]
    return overrides.default.recreateNote


def _evidence(
    overrides: OverridesFile,
    floors: list[Floor],
    stops: list[str],
    lines: dict[KeyPath, int],
    path: str,
) -> list[tuple[str, Finding]]:
    """One advisory per floor and per stop that applies, at its block's line, with its note;
    each with what it sets (`_applied`'s words)."""
    findings: list[tuple[str, Finding]] = []
    for floor in floors:
        at_default = floor.source == "default"
        line = lines.get(("default",) if at_default else ("versions", floor.source), 1)
        where = "the default" if at_default else f"set at {floor.source}"
        note = f": {floor.note}" if floor.note else ""
        what = f"upgrade floor {floor.version}"
        findings.append((what, _advisory(UPGRADE_FLOOR, path, line, f"{what} ({where}){note}")))
    for stop in stops:
        block = overrides.versions.get(stop, overrides.default)
        line = lines.get(("versions", stop), lines.get(("default",), 1))
        note = f": {block.note}" if block.note else ""
        what = f"required stop {stop}"
        findings.append((what, _advisory(REQUIRED_STOP, path, line, f"{what}{note}")))
    return findings


def _applied(floors: list[Floor], stops: list[str]) -> set[str]:
    """What the floors and stops that apply set, in words (`required stop 1.4.0`)."""
    return {f"required stop {stop}" for stop in stops} | {
        f"upgrade floor {floor.version}" for floor in floors
    }


def _earlier(before: str | None, path: str) -> OverridesFile | None:
    """The file at the previous ref; None when it had none (a malformed one set nothing)."""
    if before is None:
        return None
    try:
        return parse(before, path)
    except InputError:
        return None


def _advisory(rule: Rule, path: str, line: int, message: str) -> Finding:
    return Finding(
        rule=rule.id,
        severity="advisory",
        surface="overrides",
        file=path,
        line=line,
        message=message,
    )


def _read(snapshot: Snapshot, path: str) -> str | None:
    """The overrides file's text at a snapshot, None when it has none."""
    if snapshot.blob_id(path) is None:
        return None
    try:
        return snapshot.read(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text") from exc


def analyse(
    old: Snapshot | None, new: Snapshot, settings: Settings, version: str
) -> OverridesReport:
    """The overrides that apply to `version`, and a breaking finding for each required stop or
    floor the file at `old` applied to it that the file at `new` no longer does (a file
    deleted or edited away); a malformed file raises `InputError`."""
    path = settings.overrides.file
    blob = new.blob_id(path)
    coverage = Coverage.of(
        [f"overrides.file = {path!r}"], {path: old.blob_id(path)} if old else {}, {path: blob}
    )
    before = _read(old, path) if old is not None else None
    earlier = _earlier(before, path)
    text = _read(new, path)
    if text is None:
        explicit = settings.explicitly_set("overrides", "file")
        findings = (
            unmatched("overrides", "overrides.file", [path], new, settings.origin)
            if explicit
            else []
        )
        findings += _dropped(before, earlier, None, {}, version, path)
        return OverridesReport(
            surface="overrides",
            checked=not any(f.severity == "unknown" for f in findings),
            reason=reason_of([f for f in findings if f.severity == "unknown"]),
            findings=findings,
            coverage=coverage,
        )
    overrides = parse(text, path)
    floors, stops = resolve(overrides, version)
    lines = _key_lines(text)
    evidence = _evidence(overrides, floors, stops, lines, path)
    had = _applied(*resolve(earlier, version)) if earlier is not None else set()
    findings = [f for _, f in evidence] + _dropped(before, earlier, overrides, lines, version, path)
    highest = max((f.version for f in floors), key=version_key, default=None)
    return OverridesReport(
        surface="overrides",
        checked=True,
        findings=sorted(findings, key=Finding.sort_key),
        min_previous_version=highest,
        required_stops=stops,
        added=sorted((f for what, f in evidence if what not in had), key=Finding.sort_key),
        recreate_note=recreate_note(overrides, version),
        coverage=coverage,
    )


def _dropped(
    before: str | None,
    earlier: OverridesFile | None,
    now: OverridesFile | None,
    lines: dict[KeyPath, int],
    version: str,
    path: str,
) -> list[Finding]:
    """A finding for each required stop and floor the file at the previous ref (its text
    `before`, parsed: `earlier`) applied to `version` that the new file (None: deleted) drops,
    at the line of the new file's `versions` (the old file's block when it was deleted). A
    malformed earlier file set nothing."""
    if earlier is None or before is None:
        return []
    old_lines = _key_lines(before)
    old_floors, old_stops = resolve(earlier, version)
    kept = _applied(*resolve(now, version)) if now is not None else set()
    gone: list[tuple[str, KeyPath]] = [
        (f"required stop {stop}", ("versions", stop)) for stop in old_stops
    ]
    gone += [(f"upgrade floor {f.version}", _block(f.source)) for f in old_floors]
    how = "deleted" if now is None else "edited"
    return [
        OVERRIDE_REMOVED.finding(
            "overrides",
            f"{what} no longer applies to {version}: {path} was {how}",
            path,
            lines.get(("versions",), 1) if now is not None else old_lines.get(block, 1),
            hint=f"Keep the {what} in {path}; if it is truly no longer needed, declare its "
            "removal in the pull request (a registry entry naming it) so reviewers see it.",
        )
        for what, block in gone
        if what not in kept
    ]


def _key_lines(text: str) -> dict[KeyPath, int]:
    """`key_lines`, with a version key written `v1.4.0` found under the version it names."""
    lines: dict[KeyPath, int] = {}
    for path, line in key_lines(text).items():
        if len(path) > 1 and path[0] == "versions" and isinstance(path[1], str):
            path = (path[0], plain_version(path[1]), *path[2:])
        lines[path] = line
    return lines


def _block(source: str) -> KeyPath:
    """The key path of the block a floor was set in (`default`, or a version's)."""
    return ("default",) if source == "default" else ("versions", source)


def upgrade_block(
    overrides: OverridesReport, declarations: DeclarationsReport, version: str
) -> Upgrade:
    """The artifact's `upgrade`: the overrides' floor and stops, plus this version when a
    declared break asks for a stop."""
    stops = set(overrides.required_stops)
    if is_release(version) and any(d.requiredStop for d in declarations.declared):
        stops.add(version)
    return Upgrade(
        minPreviousVersion=overrides.min_previous_version,
        requiredStops=sorted(stops, key=version_key),
        recreateNote=overrides.recreate_note,
    )
