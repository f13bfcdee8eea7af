"""`.release-safety.toml`: where migrations, specs, snapshots and config live in a repository.

Every key has a default (documented in the README), so a repository without the file works.
A wrong key or a wrong type is bad input naming the file and the key.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from release_safety.errors import InputError
from release_safety.versions import DEFAULT_TAG_PATTERN, TagPattern, Version

SETTINGS_FILE = ".release-safety.toml"


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MigrationSource(_Closed):
    """One place migrations live: a folder glob, file-name patterns, a format and an edition."""

    path: str = Field(description="folder glob; `**` spans folders (`**/migrations`)")
    pattern: str = Field(default=r".*\.sql", description="regular expression on the file name")
    exclude: str | None = Field(default=None, description="file names to leave out (regex)")
    format: Literal["sql", "knex"] = "sql"
    edition: Literal["core", "ee", "auto"] = "auto"

    @field_validator("pattern", "exclude")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from exc
        return value

    def matches(self, path: str) -> bool:
        """True when the repository path is a migration file of this source."""
        folder, _, name = path.rpartition("/")
        if not re.fullmatch(self.pattern, name):
            return False
        if self.exclude and re.fullmatch(self.exclude, name):
            return False
        at_or_below = rf"(?:{_glob_regex(self.path)})(?:/.*)?"
        return bool(folder) and re.fullmatch(at_or_below, folder) is not None

    def edition_of(self, path: str) -> Literal["core", "ee"]:
        if self.edition != "auto":
            return self.edition
        return "ee" if "ee" in path.split("/")[:-1] else "core"


def glob_match(pattern: str, path: str) -> bool:
    """Glob match where `**` matches any number of folders (including none)."""
    return re.fullmatch(_glob_regex(pattern), path) is not None


@lru_cache(maxsize=64)
def _glob_regex(pattern: str) -> str:
    """A glob as a regular expression: `*` within a folder, `**` across folders."""
    regex = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            regex += r"(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            regex += r".*"
            i += 2
        else:
            chunk = fnmatch.translate(pattern[i]).removeprefix("(?s:").removesuffix(r")\Z")
            regex += r"[^/]*" if pattern[i] == "*" else chunk
            i += 1
    return regex


DEFAULT_MIGRATION_SOURCES = (
    MigrationSource(
        path="**/migrations",
        pattern=r".*\.sql",
        exclude=r".*\.down\.sql|U\d+(?:[._]\d+)*__.*\.sql",
        format="sql",
    ),
    MigrationSource(
        path="**/migrations",
        pattern=r"\d{14}_[\w.-]+\.(?:ts|js)",
        exclude=r".*\.d\.ts",
        format="knex",
    ),
)


class MigrationSettings(_Closed):
    sources: tuple[MigrationSource, ...] = DEFAULT_MIGRATION_SOURCES
    placeholders: dict[str, str] = Field(
        default_factory=dict, description="literal text replaced before parsing"
    )
    template_default: str = Field(
        default="public", description="what any remaining `{{ ... }}` template becomes"
    )


class RestSettings(_Closed):
    specs: tuple[str, ...] = Field(
        default=("openapi.yaml", "openapi.yml", "openapi.json", "swagger.json", "swagger.yaml"),
        description="candidate paths; at each ref the first one present is the document",
    )
    external_refs: bool = False


class McpSettings(_Closed):
    snapshots: tuple[str, ...] = ("mcp-tools.json",)


class ConfigSettings(_Closed):
    sources: tuple[str, ...] = Field(
        default=(".env.example", ".env.sample", "example.env"),
        description="paths or globs of env examples and code that reads the environment",
    )


class DeclarationSettings(_Closed):
    registry: str = "release-safety.declarations.json"
    annotations: bool = True


class OverrideSettings(_Closed):
    file: str = "release-safety.overrides.json"


class Settings(_Closed):
    tag_pattern: str = DEFAULT_TAG_PATTERN
    floor_version: str | None = None
    postgres_version: int = Field(default=15, ge=9, le=30)
    index_url: str | None = None
    index_path: str = "release-safety-index.json"
    migrations: MigrationSettings = MigrationSettings()
    rest: RestSettings = RestSettings()
    mcp: McpSettings = McpSettings()
    config: ConfigSettings = ConfigSettings()
    declarations: DeclarationSettings = DeclarationSettings()
    overrides: OverrideSettings = OverrideSettings()

    @field_validator("floor_version")
    @classmethod
    def _is_version(cls, value: str | None) -> str | None:
        if value is not None:
            Version.parse(value)
        return value

    @field_validator("tag_pattern")
    @classmethod
    def _tag_pattern(cls, value: str) -> str:
        TagPattern(value)
        return value

    @cached_property
    def tags(self) -> TagPattern:
        return TagPattern(self.tag_pattern)

    def explicitly_set(self, section: str) -> bool:
        """True when the settings file named this section rather than leaving the default."""
        return section in self.model_fields_set


def parse_settings(text: str, where: str) -> Settings:
    """Settings from TOML text; errors name `where` and the offending key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: not valid TOML: {exc}") from exc
    try:
        return Settings.model_validate(data)
    except InputError as exc:
        raise InputError(f"{where}: {exc.message}") from exc
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        reason = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        raise InputError(f"{where}: key {key!r}: {reason}") from exc


def load_settings(repo_path: Path, config: Path | None) -> Settings:
    """The settings file named, else the repository's `.release-safety.toml`, else defaults."""
    path = config or repo_path / SETTINGS_FILE
    if config is None and not path.exists():
        return Settings()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read settings: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: settings are not UTF-8 text (byte {exc.start})") from exc
    return parse_settings(text, str(path))
