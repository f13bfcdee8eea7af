"""What `release-safety init` finds in a repository: its release tags and, at HEAD, each
surface's documents, found by the surfaces' own discovery (`surfaces/discovery.py`, the migrations
search, the config source kinds, the deployment descriptor finder), each with why it was taken.

`init/text.py` writes the settings from a `Survey`; nothing here writes a file.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatch

from release_safety.contract.versions import DEFAULT_TAG_PATTERN, TagPattern
from release_safety.git.repository import GitRepo, ReleaseTag
from release_safety.git.snapshot import Change, Snapshot, compare_trees
from release_safety.settings.model import (
    DEFAULT_CONFIG_SOURCES,
    DEFAULT_MCP_SNAPSHOTS,
    DEFAULT_MIGRATION_SOURCES,
    DEFAULT_REST_SPECS,
    ConfigSource,
    DeploymentSettings,
    MigrationSource,
    Settings,
)
from release_safety.surfaces.config.schema_config import is_schema
from release_safety.surfaces.config.sources import source_kind
from release_safety.surfaces.config.structured import load
from release_safety.surfaces.deployment import descriptor_kind, find
from release_safety.surfaces.discovery import matched
from release_safety.surfaces.migrations.find.discover import in_code, migration_files
from release_safety.surfaces.migrations.find.roots import migration_roots

VERSION_AT_END = re.compile(r"^(?P<prefix>.*?)(?P<version>\d+\.\d+\.\d+)$")
"""A tag that ends with a release version: `v1.2.3`, `1.2.3`, `server-v1.2.3`."""

RECENT = 10
"""The releases init fits the settings to: the floor is the oldest of them the entries fit."""

EVERYWHERE = "**/*"
"""The glob the wider searches use: every file but vendored, test, example and hidden ones."""

_API_DOCUMENT = re.compile(r"\A(?:\s|#[^\n]*\n)*[{]?\s*[\"']?(?:openapi|swagger)[\"']?\s*:")
_API_NAME = re.compile(r"(?:openapi|swagger|api)[^/]*\.(?:ya?ml|json)$", re.IGNORECASE)
_NOT_THE_SERVICE = re.compile(r"(?:^|/)(?:[^/]*client[^/]*|sdks?|generated|gen|docs?)/", re.I)
_ENV_TEMPLATE = re.compile(r"example|sample|template|dist|defaults?", re.IGNORECASE)
_SCHEMA_NAME = re.compile(r"config[^/]*\.schema\.json$|schema[^/]*config[^/]*\.json$", re.I)
READS = {
    "go": re.compile(r"\bos\.(?:Getenv|LookupEnv)\(|envconfig|caarlos0/env|spf13/viper|configx"),
    "rust": re.compile(r"\benv::var(?:_os)?\(|figment::providers::Env|Environment::with_prefix"),
    "python": re.compile(r"\bos\.(?:environ|getenv)\b|environ\.Env\(|\bEnv\(\)|Dynaconf\("),
    "ts": re.compile(r"\bprocess\.env\b|from ['\"](?:env-var|convict|@nestjs/config)['\"]"),
}
"""How each language's code reads its configuration (what makes a file a config source)."""
READS["js"] = READS["tsx"] = READS["ts"]
_KIND_NAMES = {
    "compose": "a compose file",
    "chart": "a Helm chart",
    "dockerfile": "a Dockerfile",
    "": "a descriptor",
}
_TOOLING = re.compile(
    r"(?:^|/)(?:tools?|scripts?|hack|ci|bin|contrib|benches|docs?)/"
    r"|(?:^|/)(?:build\.rs|setup\.py|noxfile\.py|[\w-]+\.config\.[cm]?[jt]s|[Gg]ulpfile\.js)$"
    r"|(?:^|/)(?:setup[-_.]?jest|karma\.conf|protractor\.conf)\.[cm]?[jt]s$"
)
"""Build scripts and tooling: code of the repository that is not the service's configuration."""
EXTENSIONS = {"go": "go", "rust": "rs", "python": "py", "ts": "ts", "tsx": "tsx", "js": "js"}


@dataclass(frozen=True)
class Taken:
    """One entry the settings will hold, and the one-line reason it was taken."""

    value: str
    why: str


@dataclass(frozen=True)
class Tags:
    """The release tags: the pattern inferred, why, and the releases it names."""

    pattern: str
    why: str
    releases: Sequence[ReleaseTag]


@dataclass
class Survey:
    """What init found at HEAD, surface by surface (an empty list: nothing found)."""

    tags: Tags
    migrations: list[tuple[MigrationSource, str]] = field(default_factory=list)
    code_migrations: list[str] = field(default_factory=list)
    rest: list[Taken] = field(default_factory=list)
    rest_left: list[Taken] = field(default_factory=list)
    mcp: list[Taken] = field(default_factory=list)
    config: list[tuple[ConfigSource, str]] = field(default_factory=list)
    deployment: list[Taken] = field(default_factory=list)
    deployment_left: list[Taken] = field(default_factory=list)
    floor: Taken | None = None
    not_embedded: list[str] = field(default_factory=list)
    vendored: list[str] = field(default_factory=list)


def infer_tags(names: Sequence[str]) -> tuple[str, str]:
    """The tag pattern the tags call for, and why: the prefix most tags put before `X.Y.Z`
    (`v`, none, `server-v`), `v?` when both `v` and none are used and never for one version;
    the default pattern when no tag ends with a version."""
    prefixes = Counter(m["prefix"] for m in map(VERSION_AT_END.match, names) if m is not None)
    if not prefixes:
        return (
            DEFAULT_TAG_PATTERN,
            "no tag ends with a version yet: `v1.2.3` and `1.2.3` will be releases",
        )
    best = max(prefixes, key=lambda p: (prefixes[p], p == "v"))
    taken = {best}
    versions: dict[str, set[str]] = {}
    for match in filter(None, map(VERSION_AT_END.match, names)):
        versions.setdefault(match["prefix"], set()).add(match["version"])
    if {"", "v"} <= prefixes.keys() and best in ("", "v") and not versions[""] & versions["v"]:
        taken = {"", "v"}  # both spellings, never of one version: either is a release
    prefix = "v?" if taken == {"", "v"} else re.escape(best)
    pattern = f"^{prefix}(?P<version>\\d+\\.\\d+\\.\\d+)$"
    left = sorted(p for p in prefixes if p not in taken)
    total = sum(prefixes[p] for p in taken)
    shown = " and ".join(f"`{p}1.2.3`" if p else "`1.2.3`" for p in sorted(taken))
    why = f"{total} of the tags are {shown}"
    if left:
        why += "; " + ", ".join(f"`{p}X.Y.Z` ({prefixes[p]})" for p in left) + " are not releases"
    return pattern, why


_REPLACED = re.compile(r"=>\s*\./(?P<folder>[\w./-]+?)/?\s*$", re.MULTILINE)


def vendored(head: Snapshot) -> list[str]:
    """Folders of the repository that hold another project's code: the local targets of the
    root `go.mod`'s `replace` directives (`github.com/ory/x => ./oryx`)."""
    if head.blob_id("go.mod") is None:
        return []
    return sorted({m["folder"] for m in _REPLACED.finditer(_text(head.read("go.mod")))})


class _Without:
    """A snapshot without the files of some folders (vendored code), for discovery."""

    def __init__(self, snapshot: Snapshot, folders: Sequence[str]) -> None:
        self._snapshot = snapshot
        prefixes = tuple(f"{folder}/" for folder in folders)
        self._paths = [p for p in snapshot.paths() if not p.startswith(prefixes)]
        self._kept = set(self._paths)

    @property
    def ref(self) -> str:
        return self._snapshot.ref

    def paths(self) -> Sequence[str]:
        return self._paths

    def blob_id(self, path: str) -> str | None:
        return self._snapshot.blob_id(path) if path in self._kept else None

    def read(self, path: str) -> bytes:
        return self._snapshot.read(path)

    def read_each(self, paths: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        return self._snapshot.read_each([p for p in paths if p in self._kept])

    def tree_key(self) -> str | None:
        return None

    def changes_since(self, old: Snapshot | None) -> list[Change]:
        return compare_trees(old, self)

    def changed_from(self) -> tuple[str, Mapping[str, str | None]] | None:
        return None


def survey(repo: GitRepo, ref: str = "HEAD") -> Survey:
    """Everything init writes down, read from the tags and the tree at `ref`, and the floor:
    the oldest of the last `RECENT` releases from which every entry names a file."""
    pattern, why = infer_tags(repo.tag_names())
    tags = Tags(pattern, why, repo.release_tags(TagPattern(pattern)))
    tree = repo.snapshot(ref)
    left_out = vendored(tree)
    head: Snapshot = _Without(tree, left_out) if left_out else tree
    recent = [(t, repo.snapshot(t.commit)) for t in tags.releases[-RECENT:]]
    found = Survey(tags, code_migrations=code_migrations(head))
    found.migrations, found.not_embedded = embedded_only(head, _migrations(head))
    found.rest, found.rest_left = _api_documents(head)
    found.mcp = [Taken(p, "an MCP tool snapshot") for p in matched(head, DEFAULT_MCP_SNAPSHOTS)]
    found.config = _config(head, [snapshot for _, snapshot in recent])
    found.deployment, found.deployment_left = _descriptors(head)
    found.floor = _floor(found, recent)
    found.vendored = left_out
    return found


def _floor(found: Survey, recent: Sequence[tuple[ReleaseTag, Snapshot]]) -> Taken | None:
    """The oldest recent release from which on every entry names a file at each release (an
    entry that names nothing at a release judged with the file is an error there), and why."""
    if not recent:
        return None
    floor: ReleaseTag | None = recent[0][0]
    gap: tuple[str, ReleaseTag] | None = None
    for tag, snapshot in recent:
        missing = _missing(found, snapshot)
        if missing is not None:
            floor, gap = None, (missing, tag)
        elif floor is None:
            floor = tag
    if floor is None:  # the newest release lacks an entry: HEAD has files it does not
        floor = recent[-1][0]
    if gap is None:
        why = (
            f"the oldest of the last {len(recent)} releases ({floor.tag}), at each of which "
            "every entry below names a file: backfill judges from here"
        )
    else:
        why = (
            f"{floor.tag}: {gap[0]} names nothing at {gap[1].tag}, so older releases need "
            "their own settings; backfill judges from here"
        )
    return Taken(str(floor.version), why)


def _missing(found: Survey, snapshot: Snapshot) -> str | None:
    """The first entry that names no file at the snapshot, or None."""
    for source, _ in found.migrations:
        if not migration_files(snapshot, [source]):
            return f"[[migrations.sources]] {source.path!r}"
    for key, taken in (("rest.specs", found.rest), ("mcp.snapshots", found.mcp)):
        for entry in taken:
            if not matched(snapshot, [entry.value]):
                return f"{key} {entry.value!r}"
    for config, _ in found.config:
        if not matched(snapshot, [config.path]):
            return f"config.sources {config.path!r}"
    return None


def _migrations(head: Snapshot) -> list[tuple[MigrationSource, str]]:
    """A source per root the migrations search finds files in (`find.roots`), with the tool
    its files are written for and the engine they run on: a folder per migration is diesel's
    or prisma's root above it, a folder with dialect files (`.postgres.up.sql`) is popx's."""
    return [(root.source, root.why()) for root in migration_roots(head)]


_EMBED = re.compile(r"^//go:embed\s+(?P<patterns>.+)$", re.MULTILINE)


def embedded_only(
    head: Snapshot, sources: list[tuple[MigrationSource, str]]
) -> tuple[list[tuple[MigrationSource, str]], list[str]]:
    """The sources a Go binary runs when its code embeds migrations (`//go:embed
    migrations/sql/*.sql`): those whose folder an embed names; the folders of the others, left
    out (a Go service that embeds its migrations runs no other folder)."""
    go = [p for p in head.paths() if p.endswith(".go") and not p.endswith("_test.go")]
    embeds: list[str] = []
    for path, data in head.read_each(go):
        folder = path.rpartition("/")[0]
        for found in _EMBED.finditer(_text(data)):
            embeds += [posixpath.join(folder, p.strip('"`')) for p in found["patterns"].split()]
    if not embeds:
        return sources, []

    def embedded(folder: str) -> bool:
        probe = f"{folder}/x.sql"
        return any(fnmatch(probe, e) or folder == e or folder.startswith(f"{e}/") for e in embeds)

    kept = [(s, why) for s, why in sources if embedded(s.path)]
    if not kept:  # the embeds name no migrations folder: they say nothing about migrations
        return sources, []
    return kept, [s.path for s, _ in sources if not embedded(s.path)]


def code_migrations(head: Snapshot) -> list[str]:
    """Migrations written in code in the folders the search looks in (Django's
    `0001_initial.py`, goose's Go files...), which no source reads: what the search for
    migrations takes for one (`unread_migration`)."""
    settings = Settings()
    paths = matched(head, [source.path for source in DEFAULT_MIGRATION_SOURCES])
    read = migration_files(head, DEFAULT_MIGRATION_SOURCES)  # knex files are read
    return [p for p in paths if p not in read and not p.endswith(".sql") and in_code(p, settings)]


def _api_documents(head: Snapshot) -> tuple[list[Taken], list[Taken]]:
    """The OpenAPI documents of the service: files the REST globs find, else files named like
    an API document that open with `openapi:` / `swagger:`; those in generated clients, SDKs
    or docs are left out while another document remains."""
    paths = matched(head, DEFAULT_REST_SPECS)
    if not paths:
        named = [p for p in matched(head, [EVERYWHERE]) if _API_NAME.search(p)]
        paths = [p for p, data in head.read_each(named) if _API_DOCUMENT.match(_start(data))]
    ours = [p for p in paths if not _NOT_THE_SERVICE.search(p)] or paths
    taken = [Taken(p, "an OpenAPI document (it opens with `openapi:`/`swagger:`)") for p in ours]
    left = [Taken(p, "in a generated client, SDK or docs folder") for p in paths if p not in ours]
    return taken, left


def _start(data: bytes) -> str:
    return data[:4096].decode("utf-8", errors="replace")


def _config(head: Snapshot, recent: Sequence[Snapshot]) -> list[tuple[ConfigSource, str]]:
    """Env templates (names only), JSON Schemas of the configuration, and, per language, the
    folder of the code that reads the environment or loads a config library."""
    everything = [
        p for p in matched(head, [EVERYWHERE]) if not ConfigSource(path=EVERYWHERE).excluded(p)
    ]
    found: list[tuple[ConfigSource, str]] = []
    defaults = set(matched(head, DEFAULT_CONFIG_SOURCES))
    for path in everything:
        name = path.rpartition("/")[2]
        if source_kind(path) == "dotenv" and (path in defaults or _ENV_TEMPLATE.search(name)):
            found.append(
                (ConfigSource(path=path), "an env template: the variable names operators set")
            )
    schemas: dict[str, list[str]] = {}
    for path, data in head.read_each([p for p in everything if _SCHEMA_NAME.search(p)]):
        try:
            document = load(data, "json")
        except Exception:  # not JSON: not a schema init can name
            continue
        if is_schema(document):
            schemas.setdefault(f"**/{path.rpartition('/')[2]}", []).append(path)
    for glob, paths in schemas.items():
        why = f"JSON Schemas of the configuration ({', '.join(paths)}): each key a variable"
        found.append((ConfigSource(path=glob, kind="jsonschema"), why))
    found += _code_sources(head, everything, recent)
    return found


def _code_sources(
    head: Snapshot, paths: Sequence[str], recent: Sequence[Snapshot]
) -> list[tuple[ConfigSource, str]]:
    """Per language, the code that reads the environment or loads a config library: a glob
    of its kind in the top folder holding such files (`server/**/*.js`), or everywhere
    (`**/*.rs`) when several do or the folder is missing at a recent release; a file at the
    root by its path. Migration files are the migrations surface's, not configuration."""
    migrations = migration_files(head, DEFAULT_MIGRATION_SOURCES)
    by_kind: dict[str, list[str]] = {}
    for path in paths:
        kind = source_kind(path)
        if kind in READS and path not in migrations and _TOOLING.search(path) is None:
            by_kind.setdefault(kind, []).append(path)
    by_entry: dict[str, dict[str, list[str]]] = {}
    for kind, files in sorted(by_kind.items()):
        readers = by_entry.setdefault(kind, {})
        for path, data in head.read_each(files):
            if READS[kind].search(_text(data)):
                top, _, rest = path.partition("/")
                entry = f"{top}/**/*.{EXTENSIONS[kind]}" if rest else path
                readers.setdefault(entry, []).append(path)
    if any("/" in entry for readers in by_entry.values() for entry in readers):
        # loose scripts at the root, beside code in folders, are not the service
        by_entry = {
            kind: {entry: read for entry, read in readers.items() if "/" in entry}
            for kind, readers in by_entry.items()
        }
    found = []
    for kind, readers in by_entry.items():
        everywhere = f"**/*.{EXTENSIONS[kind]}"
        if not readers:
            continue
        if len(readers) > 1 or any(not matched(s, list(readers)) for s in recent):
            readers = {everywhere: [p for read in readers.values() for p in read]}
        for entry, read in readers.items():
            shown = ", ".join(read[:3]) + (f" and {len(read) - 3} more" if len(read) > 3 else "")
            why = f"{kind} code that reads the environment or a config loader: {shown}"
            found.append((ConfigSource(path=entry), why))
    return found


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _descriptors(head: Snapshot) -> tuple[list[Taken], list[Taken]]:
    """The deployment descriptors the default discovery finds, and those it leaves out as
    developer-only (`find`, the surface's own)."""
    found = find(head, DeploymentSettings())
    taken = [
        Taken(path, f"{_KIND_NAMES[kind or descriptor_kind(path) or '']} operators deploy with")
        for path, kind in sorted(found.paths.items())
    ]
    left = [Taken(path, why) for path, why in sorted(found.left_out.items())]
    return taken, left
