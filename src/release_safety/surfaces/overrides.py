"""Maintainers' upgrade overrides, `release-safety.overrides.json` (docs/overrides.md).

    {
      "$schema": "...",                                            optional
      "default": {"minPreviousVersion": "1.2.0", "requiredStop": false, "note": "..."},
      "versions": {
        "1.4.0": {"minPreviousVersion": "1.2.0", "requiredStop": true, "note": "..."}
      }
    }

Every block and key is optional; objects are closed and versions are `X.Y.Z`. The file is
validated strictly: a malformed file is bad input (exit 2), because ignoring it would drop a
maintainer's required stop, the falsely-safe direction. An absent file means nothing applies.

For release V (a version that is not `X.Y.Z`, such as a preview, counts as newer than all):

- floors: `default.minPreviousVersion` when it is below V, and `versions[v].minPreviousVersion`
  for every v at or below V (a floor keeps binding the releases after the one that set it);
  `minPreviousVersion` is the highest of them;
- required stops: every v at or below V whose `requiredStop` is true (a version's own block
  wins over `default.requiredStop`, which applies to V itself).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, field_validator

from release_safety.discovery import reason_of, unmatched
from release_safety.errors import InputError
from release_safety.findings import (
    Coverage,
    DeclarationsReport,
    Finding,
    OverridesReport,
    Rule,
    register,
)
from release_safety.jsonio import parse_json
from release_safety.model import ReleaseVersion, Upgrade
from release_safety.settings import Settings
from release_safety.snapshot import Snapshot
from release_safety.surfaces.declarations.jsonpos import KeyPath, key_lines
from release_safety.versions import Version, is_release, version_key

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


class OverrideBlock(BaseModel):
    """`{minPreviousVersion, requiredStop, note}`; every key optional, nothing else allowed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    minPreviousVersion: ReleaseVersion | None = None
    requiredStop: StrictBool | None = None
    note: str | None = None

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
    versions: dict[ReleaseVersion, OverrideBlock] = {}


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


def _evidence(
    overrides: OverridesFile,
    floors: list[Floor],
    stops: list[str],
    lines: dict[KeyPath, int],
    path: str,
) -> list[Finding]:
    """One advisory per floor and per stop that applies, at its block's line, with its note."""
    findings: list[Finding] = []
    for floor in floors:
        at_default = floor.source == "default"
        line = lines.get(("default",) if at_default else ("versions", floor.source), 1)
        where = "the default" if at_default else f"set at {floor.source}"
        note = f": {floor.note}" if floor.note else ""
        message = f"upgrade floor {floor.version} ({where}){note}"
        findings.append(_advisory(UPGRADE_FLOOR, path, line, message))
    for stop in stops:
        block = overrides.versions.get(stop, overrides.default)
        line = lines.get(("versions", stop), lines.get(("default",), 1))
        note = f": {block.note}" if block.note else ""
        findings.append(_advisory(REQUIRED_STOP, path, line, f"required stop {stop}{note}"))
    return sorted(findings, key=Finding.sort_key)


def _advisory(rule: Rule, path: str, line: int, message: str) -> Finding:
    return Finding(
        rule=rule.id,
        severity="advisory",
        surface="overrides",
        file=path,
        line=line,
        message=message,
    )


def analyse(new: Snapshot, settings: Settings, version: str) -> OverridesReport:
    """The overrides that apply to `version`; a malformed file raises `InputError`."""
    path = settings.overrides.file
    blob = new.blob_id(path)
    coverage = Coverage.of([f"overrides.file = {path!r}"], {}, {path: blob})
    if blob is None:
        explicit = settings.explicitly_set("overrides", "file")
        findings = (
            unmatched("overrides", "overrides.file", [path], new, settings.origin)
            if explicit
            else []
        )
        return OverridesReport(
            surface="overrides",
            checked=not findings,
            reason=reason_of(findings),
            findings=findings,
            coverage=coverage,
        )
    try:
        text = new.read(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text") from exc
    overrides = parse(text, path)
    floors, stops = resolve(overrides, version)
    findings = _evidence(overrides, floors, stops, key_lines(text), path)
    highest = max((f.version for f in floors), key=version_key, default=None)
    return OverridesReport(
        surface="overrides",
        checked=True,
        findings=findings,
        min_previous_version=highest,
        required_stops=stops,
        coverage=coverage,
    )


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
    )
