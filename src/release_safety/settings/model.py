"""`.release-safety.toml` (or `[tool.release-safety]` in `pyproject.toml`): where migrations, specs,
snapshots and config live in a repository, and the rules `lint-migrations` and `check-pr` leave
out.

Every key has a default (documented in the README): by default each surface discovers its
documents where real projects keep them, and a glob never looks inside vendored, test or hidden
folders. A maintainer can declare a surface absent (`absent = "reason"`). A wrong key or a wrong
type is bad input naming the file and the key.
"""

from __future__ import annotations

import json
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from release_safety.common.errors import InputError
from release_safety.common.patterns import REMEMBERED, Pattern, compile_pattern
from release_safety.contract.versions import DEFAULT_TAG_PATTERN, TagPattern, Version
from release_safety.git.snapshot import Snapshot
from release_safety.settings.file import (
    DEFAULT_POSTGRES_VERSION,
    DEFAULT_SERVER_TIMEZONE,
    DEFAULT_TEMPLATE,
    PYPROJECT,
    find_settings,
    finding_file,
    key_line,
    read_settings,
    settings_data,
    settings_text,
)
from release_safety.settings.file import SETTINGS_FILE as SETTINGS_FILE
from release_safety.settings.reasons import hollow_reason

SKIPPED_FOLDERS = frozenset(
    {
        "vendor",
        "node_modules",
        "bower_components",
        "third_party",
        "third-party",
        "test",
        "tests",
        "testdata",
        "__tests__",
        "__mocks__",
        "mocks",
        "stub",
        "stubs",
        "fixtures",
        "e2e",
        "example",
        "examples",
        "sample",
        "samples",
        "cypress",
        "playwright",
        "acceptance",
        "seeds",
        "seeders",
    }
)
"""Folders a glob does not look into (nor any folder whose name starts with a dot), unless the
glob names the folder itself: vendored code, tests (end-to-end and acceptance suites among them),
seed data and examples are not the service's contract."""


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


MigrationFormat = Literal[
    "sql",
    "golang-migrate",
    "goose",
    "popx",
    "dbmate",
    "flyway",
    "sqitch",
    "knex",
    "diesel",
    "prisma",
    "sqlx",
    "drizzle",
    "atlas",
    "liquibase",
    "rails",
    "django",
    "alembic",
    "typeorm",
    "ecto",
    "sequelize",
    "go-embedded",
]
"""The migration tools whose files a source reads, by name (docs/settings: their naming rules)."""

Engine = Literal["postgres", "mysql", "mariadb", "sqlite", "clickhouse", "cockroachdb", "mssql"]
"""The database engines a migration source runs on, each judged as itself."""

FORMAT_PATTERNS: dict[str, str] = {
    "sql": r".*\.sql",
    "golang-migrate": r"\d+_[^/]*\.up\.sql",
    "goose": r"\d+_[^/]*\.sql",
    "popx": r"\d+_[^/]*\.up(?:\.autocommit)?\.sql",
    "dbmate": r"\d+_[^/]*\.sql",
    "flyway": r"(?:V\d+(?:[._]\d+)*|R)__[^/]*\.sql",
    "sqitch": r".*\.sql",
    "knex": r"\d{14}_[\w.-]+\.(?:ts|js)",
    "diesel": r"up\.sql",
    "prisma": r"migration\.sql",
    "sqlx": r"\d+_[^/]*\.sql",
    "drizzle": r"\d+_[^/]*\.sql",
    "atlas": r"[^/]*\.sql",
    "liquibase": r"[^/]*\.(?:sql|xml|ya?ml|json)",
    "rails": r"\d+_\w+(?:\.\w+)?\.rb",
    "django": r"\d{4}_\w+\.py",
    "alembic": r"[A-Za-z0-9][\w.-]*\.py",
    "typeorm": r"\d{13}-[\w.-]+\.(?:ts|js)",
    "ecto": r"\d+_\w+\.exs",
    "sequelize": r"\d{14}-[\w.-]+\.(?:js|cjs|ts)",
    "go-embedded": r"[^/]*\.go",
}
"""The file names each format's tool runs, when a source gives no `pattern`."""


_HOLDS_FOLDER: dict[tuple[str, str], bool] = {}
"""`MigrationSource.holds_folder` per source path and folder."""


def _holds_folder(path: str, folder: str) -> bool:
    """True when the files of `folder` (not the root) lie in a folder the glob `path` names."""
    if not compile_glob(path).fullmatches(folder):
        return False
    return not skipped(path + "/**", folder + "/")  # the folder's parts, no file


class MigrationSource(_Closed):
    """One place migrations live: a folder glob, file-name patterns, a format, an edition and
    the database they migrate."""

    path: str = Field(description="folder glob; `**` spans folders (`**/migrations`)")
    pattern: str | None = Field(
        default=None,
        description="regular expression (RE2) matched against the whole file NAME, not its "
        "path; default: the names the format's tool runs",
    )
    exclude: str | None = Field(
        default=None, description="file names (not paths) to leave out (RE2, whole name)"
    )
    format: MigrationFormat = Field(
        default="sql",
        description="the tool that runs the files: sql, golang-migrate, goose, popx, dbmate, "
        "flyway, sqitch, knex, diesel, prisma, sqlx, drizzle, atlas, liquibase, rails, django, "
        "alembic, typeorm, ecto, sequelize or go-embedded (a Go file listing its migrations: "
        "name the file in `pattern`) (its naming, order, transaction and up/down "
        "rules)",
    )
    dialect: Engine | None = Field(
        default=None,
        description="the database engine the files run on (postgres, mysql, mariadb, sqlite, "
        "clickhouse, cockroachdb or mssql); default: what the tool's config, the folder "
        "names or the files say, else postgres",
    )
    edition: Literal["core", "ee", "auto"] = "auto"
    database: str = Field(
        default="main",
        description="the database these files migrate; sources of different databases replay "
        "separate schemas",
    )

    @field_validator("format", mode="before")
    @classmethod
    def _known_format(cls, value: object) -> object:
        if isinstance(value, str) and value not in FORMAT_PATTERNS:
            raise ValueError(
                f"unknown migration format {value!r}; valid: {', '.join(FORMAT_PATTERNS)}"
            )
        return value

    @property
    def name_pattern(self) -> str:
        """The file-name pattern: the one given, else the format's own."""
        return self.pattern if self.pattern is not None else FORMAT_PATTERNS[self.format]

    @field_validator("pattern", "exclude")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            compile_pattern(value)  # ValueError says why RE2 refuses it
        return value

    def matches(self, path: str) -> bool:
        """True when the repository path is a migration file of this source."""
        folder, _, name = path.rpartition("/")
        return self.holds_folder(folder) and self.names(name)

    def names(self, name: str) -> bool:
        """True when a file name is one of this source's migrations (its pattern, not its
        `exclude`), wherever the file is."""
        if not compile_pattern(self.name_pattern).fullmatches(name):
            return False
        return not (self.exclude and compile_pattern(self.exclude).fullmatches(name))

    def holds(self, path: str) -> bool:
        """True when the repository path lies in a folder of this source, whatever its name."""
        return self.holds_folder(path.rpartition("/")[0])

    def holds_folder(self, folder: str) -> bool:
        """True when the files of a folder lie in a folder of this source (kept per source path
        and folder: the search for migrations asks it of every folder a release changes)."""
        key = (self.path, folder)
        answer = _HOLDS_FOLDER.get(key)
        if answer is None:
            if len(_HOLDS_FOLDER) >= REMEMBERED:
                _HOLDS_FOLDER.clear()
            answer = _HOLDS_FOLDER[key] = bool(folder) and _holds_folder(self.path, folder)
        return answer

    def describe(self) -> str:
        """The source in one line, as the settings would write it."""
        parts = [f"path={self.path!r}", f"pattern={self.name_pattern!r}"]
        if self.exclude:
            parts.append(f"exclude={self.exclude!r}")
        parts.append(f"format={self.format!r}")
        if self.database != "main":
            parts.append(f"database={self.database!r}")
        if self.dialect is not None:
            parts.append(f"dialect={self.dialect!r}")
        return f"{{{', '.join(parts)}}}"

    def with_folder(self, folder: str) -> MigrationSource:
        """This source read from another folder (where a release moved its migrations)."""
        return self.model_copy(update={"path": folder})

    def entry(self) -> str:
        """The source's keys as a settings entry writes them (TOML strings), its pattern only
        when not the format's own."""
        keys = {"path": self.path, "format": self.format}
        if self.pattern is not None and self.pattern != FORMAT_PATTERNS[self.format]:
            keys["pattern"] = self.pattern
        if self.exclude:
            keys["exclude"] = self.exclude
        if self.database != "main":
            keys["database"] = self.database
        if self.dialect is not None:
            keys["dialect"] = self.dialect
        return ", ".join(f"{key} = {json.dumps(value)}" for key, value in keys.items())

    def edition_of(self, path: str) -> Literal["core", "ee"]:
        if self.edition != "auto":
            return self.edition
        return "ee" if "ee" in path.split("/")[:-1] else "core"


def is_glob(pattern: str) -> bool:
    return any(char in pattern for char in "*?[")


def skipped(pattern: str, path: str) -> bool:
    """True when `path` lies in a skipped folder below the literal folders `pattern` names."""
    named = _named_folders(pattern)
    if named is None:
        return False
    folders = path.split("/")[:-1]
    return any(
        (part in SKIPPED_FOLDERS or part.startswith(".")) and part not in named for part in folders
    )


@lru_cache(maxsize=256)
def _named_folders(pattern: str) -> frozenset[str] | None:
    """The literal folders a glob names (None for a plain path, which skips nothing)."""
    if not is_glob(pattern):
        return None
    return frozenset(part for part in pattern.split("/")[:-1] if not is_glob(part))


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> str:
    """A settings glob as a regular expression for a full match (RE2 syntax), translated by
    pathspec as a `.gitignore` line anchored at the repository root: `*`, `?` and `[...]` stay
    within a folder, `**` spans folders (none included), and a glob naming a folder names the
    files in it."""
    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern  # deferred: start-up

    regex, _ = GitIgnoreBasicPattern.pattern_to_regex("/" + pattern.removeprefix("/"))
    return rf"(?:{regex})(?s:.*)" if regex else r"[^\s\S]"


@lru_cache(maxsize=512)
def compile_glob(pattern: str) -> Pattern:
    """A settings glob compiled for a full match (`glob_regex`), with its literal parts checked
    before RE2 is asked (`glob_literals`)."""
    return compile_pattern(glob_regex(pattern), *glob_literals(pattern))


@lru_cache(maxsize=256)
def glob_literals(pattern: str) -> tuple[str, tuple[str, ...]]:
    """Text every path the glob matches holds: the start it must have (its first literal run,
    when the glob starts with one) and its literal runs after it, in order. A run ends at a
    folder separator, a wildcard (`*`, `?`) or a bracket expression (`[a-z]`, one character);
    from an escape (`\\`) or a bracket that does not close or holds a bracket or an escape,
    the rest of the folder's part is left out, and trailing spaces (which `.gitignore` drops)
    are cut."""
    runs = [run for part in pattern.removeprefix("/").split("/") for run in _runs(part)]
    return runs[0], tuple(run for run in runs[1:] if run)


def _runs(part: str) -> list[str]:
    """The literal runs of one folder's part of a glob (see `glob_literals`)."""
    runs, run, at = [], "", 0
    while at < len(part):
        char = part[at]
        if char == "\\":
            break
        if char in "*?":
            runs.append(run.rstrip())
            run, at = "", at + 1
            continue
        if char == "[":
            first = at + 1 + (part[at + 1 : at + 2] in ("!", "^"))
            first += part[first : first + 1] == "]"  # a `]` first is one of the characters
            end = part.find("]", first)
            if end < 0 or "[" in part[at + 1 : end] or "\\" in part[at + 1 : end]:
                break  # unclosed, or a class or escape inside (`[[:alpha:]]`): not read
            runs.append(run.rstrip())
            run, at = "", end + 1
            continue
        run += char
        at += 1
    runs.append(run.rstrip())
    return runs


DEFAULT_MIGRATION_SOURCES = (
    MigrationSource(
        path="**/migrations",
        pattern=r".*\.sql",
        exclude=r"(?:.*\.)?down\.sql|U\d+(?:[._]\d+)*__.*\.sql",
        format="sql",
    ),
    MigrationSource(
        path="**/migrations",
        pattern=r"\d{14}_[\w.-]+\.(?:ts|js)",
        exclude=r".*\.d\.ts",
        format="knex",
    ),
    MigrationSource(path="**/drizzle", format="drizzle"),
    MigrationSource(path="**/db/changelog", format="liquibase"),
    MigrationSource(path="**/db/migrate", format="rails"),
    MigrationSource(path="**/migrations", format="django"),
    MigrationSource(path="**/alembic/versions", format="alembic"),
    MigrationSource(path="**/migrations/versions", format="alembic"),
    MigrationSource(path="**/migrations", exclude=r".*\.d\.ts", format="typeorm"),
    MigrationSource(path="**/migration", exclude=r".*\.d\.ts", format="typeorm"),
    MigrationSource(path="**/priv/*/migrations", format="ecto"),
    MigrationSource(path="**/migrations", exclude=r".*\.d\.ts", format="sequelize"),
)


_ABSENT = Field(
    default=None,
    description="the service has no such surface, and why (nothing is then looked for; a "
    "hollow reason, such as the TODO `init` writes, leaves the surface unknown)",
)


class _Surface(_Closed):
    absent: str | None = _ABSENT


def each_path(entries: object) -> object:
    """Source entries with one `path` each: an entry naming several (`path = ["db/migrations",
    "server/db/migrations"]`, the places a project has kept the files over its history) is
    read as one entry per path, its other keys repeated. Each then holds where it matches: an
    entry that matches nothing at either ref of a release is a coverage note there, not an
    error (docs/init.md, "Settings that hold across history")."""
    if not isinstance(entries, (list, tuple)):
        return entries
    out: list[object] = []
    for entry in entries:
        paths = entry.get("path") if isinstance(entry, dict) else None
        if isinstance(paths, list) and paths:
            out += [{**entry, "path": path} for path in paths]
        else:
            out.append(entry)
    return out


class MigrationExclusion(_Closed):
    """Files the search for migrations finds that no source is meant to read, and why."""

    path: str = Field(description="path glob of the files left out (`tools/**/migrations/*.go`)")
    reason: str = Field(description="why these files are not migrations the release runs")

    @field_validator("reason")
    @classmethod
    def _says_why(cls, value: str) -> str:
        hollow = hollow_reason(value)
        if hollow:
            raise ValueError(f"the reason {value!r} is hollow: {hollow}")
        return value

    def covers(self, path: str) -> bool:
        return compile_glob(self.path).fullmatches(path)


class MigrationSettings(_Surface):
    sources: tuple[MigrationSource, ...] = Field(
        default=DEFAULT_MIGRATION_SOURCES,
        description="where migrations live, one table per migrations root (`path` may list "
        "the several folders the project has kept them in)",
    )
    exclude: tuple[MigrationExclusion, ...] = Field(
        default=(),
        description="files the search for migrations finds that no source reads, each with "
        "the reason (without one, such a file the release touches is `migration-not-read`)",
    )
    placeholders: dict[str, str] = Field(
        default_factory=dict, description="literal text replaced before parsing"
    )
    template_default: str = Field(
        default=DEFAULT_TEMPLATE, description="what any remaining `{{ ... }}` template becomes"
    )
    server_timezone: str = Field(
        default=DEFAULT_SERVER_TIMEZONE,
        description="the database server's TimeZone, which migrations run with unless they "
        "SET it (timestamp <-> timestamptz rewrites unless it is UTC)",
    )

    @field_validator("sources", mode="before")
    @classmethod
    def _one_path_each(cls, value: object) -> object:
        return each_path(value)


DEFAULT_REST_SPECS = tuple(
    f"**/{name}.{ext}" for name in ("openapi", "swagger") for ext in ("yaml", "yml", "json")
)
DEFAULT_MCP_SNAPSHOTS = ("**/mcp-tools.json",)
DEFAULT_CONFIG_SOURCES = tuple(
    f"**/{name}"
    for name in (".env.example", ".env.sample", ".env.template", ".env.dist", "example.env")
)


RouteFramework = Literal[
    "nextjs",
    "nestjs",
    "express",
    "fastify",
    "hono",
    "koa",
    "net/http",
    "chi",
    "gin",
    "echo",
    "gorilla",
    "fastapi",
    "flask",
    "django",
    "axum",
    "actix-web",
]


class RouteSource(_Closed):
    """One `rest.routes` entry: where the code registers routes, or a table with options."""

    path: str = Field(default="**", description="path or glob of the code (`**` spans folders)")
    framework: RouteFramework | None = Field(
        default=None, description="the framework the code uses (unset: every one the tool reads)"
    )
    prefix: str = Field(
        default="",
        description="the path the routes are served under (a Next.js basePath, a proxy's mount)",
    )

    @model_validator(mode="before")
    @classmethod
    def _from_path(cls, value: object) -> object:
        return {"path": value} if isinstance(value, str) else value

    def describe(self) -> str:
        """The entry in one line, as the settings would write it."""
        options = self.model_dump(mode="json", exclude_defaults=True, exclude={"path"})
        if not options:
            return self.path
        shown = ", ".join(f"{key}={value!r}" for key, value in options.items())
        return f"{{path={self.path!r}, {shown}}}"


class RestSettings(_Surface):
    specs: tuple[str, ...] = Field(
        default=DEFAULT_REST_SPECS,
        description="OpenAPI documents (paths or globs); the default discovers exactly one",
    )
    external_refs: bool = False
    routes: tuple[RouteSource, ...] = Field(
        default=(),
        description="the code that registers the routes (read when no OpenAPI document is "
        "found; unset: every framework the tool reads, over the whole repository)",
    )


class McpSettings(_Surface):
    snapshots: tuple[str, ...] = Field(
        default=DEFAULT_MCP_SNAPSHOTS,
        description="MCP tool snapshots (paths or globs); the default discovers exactly one",
    )


DEFAULT_CONFIG_EXCLUDES = (
    "**/*_test.go",
    "**/test_*.py",
    "**/*_test.py",
    "**/conftest.py",
    "**/*.test.*",
    "**/*.spec.*",
    "**/*mock*",
    "**/*mock*/**",
    "**/testutil/**",
    "**/testutils/**",
    "**/test_utils/**",
    "**/test-utils/**",
    "**/testhelpers/**",
    "**/testhelper/**",
    "**/testing/**",
    "**/testsupport/**",
    "**/fakes/**",
    "**/fake/**",
    "**/cypress/**",
    "**/playwright/**",
    "**/jest.config.*",
    "**/jest.setup.*",
    "**/vitest.config.*",
    "**/vitest.setup.*",
    "**/playwright.config.*",
    "**/cypress.config.*",
    "**/setupTests.*",
)
"""Test files and test helpers a config glob leaves out (vendored and test folders, mocks,
fixtures and e2e among them, are skipped by every glob): test helper packages (`testutil/`,
`testing/`, Go's convention for them), mocks and fakes, and the test runners' own config
files, as Go's tooling, Jest and Vitest treat them."""


class ConfigSource(_Closed):
    """One `config.sources` entry: a path or glob, or a table with options."""

    path: str = Field(description="path or glob (`**` spans folders)")
    exclude: tuple[str, ...] = Field(
        default=(), description="globs of files to leave out, besides test files"
    )
    defaults: bool | None = Field(
        default=None,
        description="the file's values are the defaults (env files and templates: only names "
        "unless true; other structured files: defaults unless false)",
    )
    kind: Literal["jsonschema"] | None = Field(
        default=None,
        description="what the file is when its name does not say: `jsonschema`, a JSON Schema "
        "that defines the configuration (each key a variable, its `default` the default; "
        "recognised by content too: top-level `properties` beside `$schema` or `type: object`)",
    )
    env_prefix: str | None = Field(
        default=None,
        description="a structured file's keys are also environment variables `PREFIX` + KEY "
        "(upper case), as figment's `Env::prefixed` or config-rs's `Environment` read them "
        "(a JSON Schema source: the prefix of its variables, empty for none)",
    )
    env_separator: str = Field(
        default="__",
        description="what joins nested keys in the variable's name (a JSON Schema source: "
        "`_` unless set otherwise, as koanf and configx name them)",
    )
    defaults_table: str | None = Field(
        default=None,
        description="a TypeScript / JavaScript file's object literal (by its name) whose keys "
        "are the environment variables the service reads and whose values are their defaults, "
        "for code that merges the environment over it (`{ ...DEFAULTS, ...process.env }`)",
        pattern=r"^[A-Za-z_$][\w$]*$",
    )

    @model_validator(mode="before")
    @classmethod
    def _from_path(cls, value: object) -> object:
        return {"path": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _table_in_one_file(self) -> ConfigSource:
        if self.defaults_table is not None and is_glob(self.path):
            raise ValueError(
                "defaults_table names an object of one file: give its path, not a glob"
            )
        return self

    def excluded(self, path: str) -> bool:
        """True when the entry leaves `path` out: its `exclude` globs, or, for a glob entry,
        a test file."""
        patterns = self.exclude + (DEFAULT_CONFIG_EXCLUDES if is_glob(self.path) else ())
        return _any_glob(patterns).fullmatches(path)

    def describe(self) -> str:
        """The entry in one line, as the settings would write it (the path alone when it has
        no options)."""
        options = self.model_dump(mode="json", exclude_defaults=True, exclude={"path"})
        if not options:
            return self.path
        shown = ", ".join(f"{key}={value!r}" for key, value in options.items())
        return f"{{path={self.path!r}, {shown}}}"


@lru_cache(maxsize=256)
def _any_glob(patterns: tuple[str, ...]) -> Pattern:
    """One expression matching what any of the globs matches (nothing for none)."""
    return compile_pattern("|".join(f"(?:{glob_regex(p)})" for p in patterns) or r"[^\s\S]")


class ConfigSettings(_Surface):
    sources: tuple[ConfigSource, ...] = Field(
        default=tuple(ConfigSource(path=p) for p in DEFAULT_CONFIG_SOURCES),
        description="paths or globs (or tables with `path`, `exclude`, `defaults`, "
        "`env_prefix`, `env_separator`) of code, env files and config files",
    )
    renames: dict[str, str] = Field(
        default_factory=dict,
        description="declared renames, new name = old name (env variables or config keys)",
    )

    @field_validator("sources", mode="before")
    @classmethod
    def _one_path_each(cls, value: object) -> object:
        return each_path(value)


DEFAULT_DEPLOYMENT_SOURCES = (
    *(f"**/{name}.{ext}" for name in ("docker-compose*", "compose*") for ext in ("yml", "yaml")),
    "**/Chart.yaml",
    *(f"**/{name}" for name in ("[Dd]ockerfile*", "*.[Dd]ockerfile", "Containerfile*")),
)


DEVELOPER_WORDS = frozenset(
    {
        *("dev", "devel", "develop", "development", "devcontainer", "test", "tests", "testing"),
        *("ci", "e2e", "local", "example", "examples", "sample", "samples"),
        *("integration", "integrationtest", "integrationtests", "loadtest", "bench", "hack"),
        *("tools", "tooling"),
    }
)
"""Words of a file name or folder (split at `-`, `_`, `.`) that make a descriptor
developer-only: default discovery leaves it out (`docker-compose-dev.yml`, `Dockerfile.dev`,
`docker/dev/compose.yml`, `.devcontainer/Dockerfile`, `tools/mockery/Dockerfile`)."""

DescriptorKind = Literal["compose", "helm", "dockerfile"]


class DeploymentSource(_Closed):
    """One `deployment.sources` entry: a path or glob, or a table saying what the files are."""

    path: str = Field(description="path or glob (`**` spans folders)")
    kind: DescriptorKind | None = Field(
        default=None,
        description="what the files are, whatever their names: `compose`, `helm` (a "
        "Chart.yaml) or `dockerfile` (unset: by name, else by content)",
    )

    @model_validator(mode="before")
    @classmethod
    def _from_path(cls, value: object) -> object:
        return {"path": value} if isinstance(value, str) else value

    def describe(self) -> str:
        """The entry in one line, as the settings would write it."""
        return self.path if self.kind is None else f"{{path={self.path!r}, kind={self.kind!r}}}"


class DeploymentSettings(_Surface):
    sources: tuple[DeploymentSource, ...] = Field(
        default=tuple(DeploymentSource(path=p) for p in DEFAULT_DEPLOYMENT_SOURCES),
        description="compose files, Helm charts (`Chart.yaml`) and Dockerfiles (paths or "
        "globs, or tables with `path` and `kind`)",
    )
    exclude: tuple[str, ...] = Field(
        default=(), description="globs of descriptors to leave out (besides developer-only ones)"
    )
    stateless: tuple[str, ...] = Field(
        default=(),
        description="image repositories (`example/worker`) that keep no data a major version "
        "changes, though they mount a volume",
    )

    @field_validator("sources", mode="before")
    @classmethod
    def _one_path_each(cls, value: object) -> object:
        return each_path(value)


class DeclarationSettings(_Closed):
    registry: str = "release-safety.declarations.json"
    annotations: bool = True


class OverrideSettings(_Closed):
    file: str = "release-safety.overrides.json"


class RuleSettings(_Closed):
    off: tuple[str, ...] = Field(
        default=(),
        description="rule ids `lint-migrations` and `check-pr` do not report; a release still "
        "weighs them, and says they are off",
    )


class Acceptance(_Closed):
    """A narrowing of what is checked, accepted in the settings file with a reason: the
    `settings-narrowed` findings of its key in the release that adds the entry become
    advisories (the settings surface applies it; a hollow reason accepts nothing)."""

    key: str = Field(
        description="the settings key whose narrowing is accepted, dotted as the findings name "
        "it (`deployment.exclude`, `config.sources`, `rest.absent`)"
    )
    reason: str = Field(
        description="why reading less is right: what is left out and why no operator relies "
        "on it (checked like a declared break's reason)"
    )

    @field_validator("key")
    @classmethod
    def _names_a_key(cls, value: str) -> str:
        if not _is_settings_key(value):
            raise ValueError(
                f"{value!r} names no settings key; name the key the change narrows, dotted "
                "(`deployment.exclude`, `migrations.sources`, `tag_pattern`)"
            )
        return value


def _is_settings_key(key: str) -> bool:
    """True when `key` names one setting (not a whole table, nor `accept` itself)."""
    model: type[BaseModel] = Settings
    *tables, name = key.split(".")
    for table in tables:
        field = model.model_fields.get(table)
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return False
        model = annotation
    field = model.model_fields.get(name)
    if field is None or key == "accept":
        return False
    annotation = field.annotation
    return not (isinstance(annotation, type) and issubclass(annotation, BaseModel))


class Settings(_Closed):
    tag_pattern: str = DEFAULT_TAG_PATTERN
    floor_version: str | None = None
    postgres_version: StrictInt = Field(default=DEFAULT_POSTGRES_VERSION, ge=9, le=30)
    index_url: str | None = None
    index_path: str = "release-safety-index.json"
    migrations: MigrationSettings = MigrationSettings()
    rest: RestSettings = RestSettings()
    mcp: McpSettings = McpSettings()
    config: ConfigSettings = ConfigSettings()
    deployment: DeploymentSettings = DeploymentSettings()
    declarations: DeclarationSettings = DeclarationSettings()
    overrides: OverrideSettings = OverrideSettings()
    rules: RuleSettings = RuleSettings()
    accept: tuple[Acceptance, ...] = Field(
        default=(),
        description="narrowings of what is checked accepted with a reason (`[[accept]]`), each "
        "for the release that adds it",
    )
    _origin: str = PrivateAttr(default=SETTINGS_FILE)
    _lines: dict[str, int] = PrivateAttr(default_factory=dict)

    @property
    def origin(self) -> str:
        """The file the settings were read from, as findings and errors name it
        (`.release-safety.toml`, `pyproject.toml`, or the file given with `--config`)."""
        return self._origin

    @property
    def file(self) -> str | None:
        """The settings file as findings name it (`finding_file`)."""
        return finding_file(self._origin)

    def absent_line(self, surface: str) -> int | None:
        """The line of the settings file that declares the surface absent, when known."""
        return self._lines.get(surface)

    def read_from(self, origin: str) -> Settings:
        """These settings, naming `origin` as their file."""
        self._origin = origin
        return self

    @field_validator("floor_version")
    @classmethod
    def _is_version(cls, value: str | None) -> str | None:
        return str(Version.parse(value)) if value is not None else None

    @field_validator("tag_pattern")
    @classmethod
    def _tag_pattern(cls, value: str) -> str:
        TagPattern(value)
        return value

    @cached_property
    def tags(self) -> TagPattern:
        return TagPattern(self.tag_pattern)

    def explicitly_set(self, section: str, key: str | None = None) -> bool:
        """True when the settings file named this section (or this key of it) rather than
        leaving the default."""
        if section not in self.model_fields_set:
            return False
        return key is None or key in getattr(self, section).model_fields_set


def parse_settings(text: str, where: str, table: bool = False) -> Settings | None:
    """Settings from TOML text (from its `[tool.release-safety]` table when `table`: None
    when it has none); errors name `where` and the offending key."""
    found = settings_data(text, where, table)
    if found is None:
        return None
    data, where = found
    try:
        settings = Settings.model_validate(data)
    except InputError as exc:
        raise InputError(f"{where}: {exc.message}") from exc
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        reason = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        line = key_line(text, error["loc"], ("tool", "release-safety") if table else ())
        place = where if line is None else f"{where}, line {line}"
        raise InputError(f"{place}: key {key!r}: {reason}") from exc
    prefix = ("tool", "release-safety") if table else ()
    for surface in ("migrations", "rest", "mcp", "config", "deployment"):
        if getattr(settings, surface).absent is not None:
            line = key_line(text, (surface, "absent"), prefix)
            if line is not None:
                settings._lines[surface] = line
    return settings


def settings_source(snapshot: Snapshot, path: str = SETTINGS_FILE) -> str | None:
    """The file that holds the settings at a snapshot's ref: `path`, else (for the default
    path) a root `pyproject.toml` with a `[tool.release-safety]` table; None for defaults."""
    if snapshot.blob_id(path) is not None:
        return path
    if path != SETTINGS_FILE or snapshot.blob_id(PYPROJECT) is None:
        return None
    where = f"{PYPROJECT} at {snapshot.ref}"
    found = parse_settings(settings_text(snapshot.read(PYPROJECT), where), where, table=True)
    return PYPROJECT if found is not None else None


def settings_at(snapshot: Snapshot, path: str = SETTINGS_FILE) -> Settings | None:
    """The settings committed at a snapshot's ref (`settings_source`); None for defaults."""
    source = settings_source(snapshot, path)
    if source is None:
        return None
    where = f"{source} at {snapshot.ref}"
    found = parse_settings(
        settings_text(snapshot.read(source), where), where, table=source == PYPROJECT
    )
    return found.read_from(source) if found is not None else None


def load_settings(repo_path: Path, config: Path | None) -> Settings:
    """The settings file named, else the nearest one from `repo_path` up to the repository
    root (`find_settings`), else defaults."""
    path = config or find_settings(repo_path)
    if path is None:
        return Settings()
    where = str(path)
    found = parse_settings(read_settings(path), where, table=path.name == PYPROJECT)
    if found is None:
        raise InputError(f"{where}: no [tool.release-safety] table")
    return found.read_from(where)
