"""The contract as models: the per-release artifact, the index and the upgrade-check result.

The contract of docs/contract.md (the artifact, the index, upgrade-check). Every object is
closed; field order is the JSON order.
The JSON Schemas under `schemas/` are generated from these models (`release-safety schema`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    WithJsonSchema,
)

from release_safety.contract.versions import (
    MAX_VERSION_LENGTH,
    RELEASE_VERSION_PATTERN,
    plain_version,
)

Unknown = Literal["unknown"]
TriState = StrictBool | Unknown
"""`true`, `false` or the string `"unknown"`: only `true` is ever safe."""

ReleaseVersion = Annotated[str, Field(pattern=RELEASE_VERSION_PATTERN)]
GivenVersion = Annotated[
    str,
    BeforeValidator(lambda value: plain_version(value) if isinstance(value, str) else value),
    Field(pattern=RELEASE_VERSION_PATTERN),
]
"""A release version as a maintainer writes it (`v1.4.0` too), kept in its plain form."""
AnyVersion = Annotated[str, Field(min_length=1, max_length=MAX_VERSION_LENGTH)]
"""A version as a release names itself (`pr-123` too), of a bounded length."""
_TIMESTAMP = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"


def _a_real_moment(text: str) -> str:
    """`2025-99-99T99:99:99Z` has the shape of a timestamp but names no moment."""
    datetime.fromisoformat(text)  # ValueError names what is out of range
    return text


Timestamp = Annotated[
    str,
    Field(pattern=_TIMESTAMP, json_schema_extra={"format": "date-time"}),
    AfterValidator(_a_real_moment),
]
Count = Annotated[StrictInt, Field(ge=0)]


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    def to_json_data(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


# --- release-safety.json (schemaVersion 2) -------------------------------------------------


class Heaviness(Closed):
    locksTable: TriState
    rewritesTable: TriState
    scansTable: TriState


class MigrationFile(Closed):
    name: str
    edition: Literal["core", "ee"]
    tables: list[str]
    heaviness: Heaviness


class Migrations(Closed):
    present: TriState
    count: Count
    coreCount: Count
    eeCount: Count
    files: list[MigrationFile]


class Compatibility(Closed):
    rollingUpdateSafe: TriState
    recommendedStrategy: Literal["RollingUpdate", "Recreate"]


class ApiSurface(Closed):
    checked: StrictBool
    breaking: TriState
    changes: list[str]
    breakingCount: Count
    advisories: list[str]
    advisoryCount: Count


class Api(Closed):
    rest: ApiSurface
    mcp: ApiSurface


class ConfigRemoved(Closed):
    """An environment variable no longer read, with the default it had."""

    type: Literal["removed"]
    name: str
    previousDefault: str | None


class ConfigRenamed(Closed):
    """A variable read under a new name (`name`) where `previousName` was read before."""

    type: Literal["renamed"]
    name: str
    previousName: str
    defaultValue: str | None


class ConfigDefaultChanged(Closed):
    """A variable whose default changed."""

    type: Literal["defaultChanged"]
    name: str
    previousDefault: str | None
    defaultValue: str | None


ConfigChange = Annotated[
    ConfigRemoved | ConfigRenamed | ConfigDefaultChanged, Field(discriminator="type")
]


class Config(Closed):
    checked: StrictBool
    breaking: TriState
    changes: list[ConfigChange]


RecreateNote = Annotated[
    str | None,
    WithJsonSchema(
        {
            "type": "string",
            "minLength": 1,
            "title": "Recreatenote",
            "description": "What operators must know to roll this release with the Recreate "
            "strategy (the maintainers' `recreateNote` override); absent when none is set.",
        }
    ),
    Field(
        min_length=1,
        exclude_if=lambda value: value is None,
        json_schema_extra=lambda schema: schema.pop("default", None),
    ),
]
"""An optional note, left out of the JSON when there is none (schemaVersion unchanged)."""


class Upgrade(Closed):
    minPreviousVersion: ReleaseVersion | None
    requiredStops: list[ReleaseVersion]
    recreateNote: RecreateNote = None


class DeclaredBreak(Closed):
    """An engineer-declared break; `id` is the registry's id, present only for a registry
    declaration (an annotation comment has none)."""

    file: str
    line: Annotated[StrictInt, Field(ge=1)]
    reason: str
    requiredStop: StrictBool
    id: Annotated[
        str | None,
        WithJsonSchema({"type": "string", "minLength": 1, "title": "Id"}),
        Field(
            min_length=1,
            exclude_if=lambda value: value is None,
            json_schema_extra=lambda schema: schema.pop("default", None),
        ),
    ] = None


class Artifact(Closed):
    """`release-safety.json`: one release's verdict and what it rests on."""

    schemaVersion: Literal["2"]
    version: AnyVersion
    previousVersion: AnyVersion | None
    releaseDate: Timestamp
    migrations: Migrations
    compatibility: Compatibility
    api: Api
    config: Config
    upgrade: Upgrade
    declaredBreaks: list[DeclaredBreak]


# --- release-safety-index.json (schemaVersion 1) -------------------------------------------


class IndexEntry(Closed):
    version: ReleaseVersion
    previousVersion: ReleaseVersion | None
    releaseDate: Timestamp
    rollingUpdateSafe: TriState
    requiredStops: list[ReleaseVersion]
    minPreviousVersion: ReleaseVersion | None
    backfilled: StrictBool
    syntheticRequiredStop: StrictBool
    recreateNote: RecreateNote = None


class Index(Closed):
    """`release-safety-index.json`: every release's single-step verdict, oldest first."""

    schemaVersion: Literal["1"]
    generatedAt: Timestamp | None
    backfillFloorVersion: ReleaseVersion | None
    entries: list[IndexEntry]


# --- upgrade-check --json ------------------------------------------------------------------


class MissingRange(Closed):
    afterVersion: ReleaseVersion | None
    beforeVersion: ReleaseVersion | None


class UpgradeCheckResult(Closed):
    """What `upgrade-check --json` prints: the span's verdict and what it rests on."""

    fromVersion: ReleaseVersion
    toVersion: ReleaseVersion
    direction: Literal["upgrade", "same-version", "downgrade"]
    safe: StrictBool
    verdict: TriState
    requiredStops: list[ReleaseVersion]
    minPreviousVersion: ReleaseVersion | None
    coveredVersions: list[ReleaseVersion]
    missingRanges: list[MissingRange]


SCHEMAS: dict[str, type[Closed]] = {
    "release-safety": Artifact,
    "release-safety-index": Index,
    "upgrade-check": UpgradeCheckResult,
}
