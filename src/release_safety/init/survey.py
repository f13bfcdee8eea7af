"""What `release-safety init` finds in a repository: its release tags and, at HEAD and at each of
the last releases (on whatever branch they live), each surface's documents, found by the
surfaces' own discovery (`surfaces/discovery.py`, the migrations search, the config source kinds,
the deployment descriptor finder), each with why it was taken. An entry found at any of them is
written: the settings are fitted to each release's span when judged (`release/span.py`), so a
place the project used at some releases only is a coverage note at the others.

`init/text.py` writes the settings from a `Survey`; nothing here writes a file.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatch

from release_safety.contract.versions import DEFAULT_TAG_PATTERN, TagPattern
from release_safety.git.repository import GitRepo, ReleaseTag
from release_safety.git.snapshot import Change, Snapshot, compare_trees
from release_safety.settings.model import (
    DEFAULT_CONFIG_SOURCES,
    DEFAULT_DEPLOYMENT_SOURCES,
    DEFAULT_MCP_SNAPSHOTS,
    DEFAULT_MIGRATION_SOURCES,
    DEFAULT_REST_SPECS,
    ConfigSource,
    DeploymentSettings,
    MigrationSource,
    RouteSource,
    compile_glob,
    is_glob,
    skipped,
)
from release_safety.surfaces.config.schema_config import is_schema
from release_safety.surfaces.config.sources import source_kind
from release_safety.surfaces.config.structured import load
from release_safety.surfaces.deployment import descriptor_kind, find
from release_safety.surfaces.discovery import matched
from release_safety.surfaces.migrations.find.discover import migration_files, migrations_anywhere
from release_safety.surfaces.migrations.find.roots import migration_roots
from release_safety.surfaces.rest.routes.model import RouteReading
from release_safety.surfaces.rest.routes.read import own_code, read_routes
from release_safety.surfaces.rest.routes.recognise import recognise

VERSION_AT_END = re.compile(r"^(?P<prefix>.*?)(?P<version>\d+\.\d+\.\d+)$")
"""A tag that ends with a release version: `v1.2.3`, `1.2.3`, `server-v1.2.3`."""

RECENT = 10
"""The releases init fits the settings to by default (`--releases N`)."""

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
    r"|(?:^|/)(?:build\.rs|setup\.py|noxfile\.py|(?!next\.|nuxt\.)[\w-]+\.config\.[cm]?[jt]s"
    r"|[Gg]ulpfile\.js)$"
    r"|(?:^|/)(?:setup[-_.]?jest|karma\.conf|protractor\.conf)\.[cm]?[jt]s$"
)
"""Build scripts and tooling: code of the repository that is not the service's configuration
(a framework's own server config, `next.config.js`, is the service's: its server reads it)."""
_SERVER_CONFIG = re.compile(r"(?:next|nuxt)\.config\.[cm]?[jt]s")
NOT_THE_SERVICE = (
    (
        re.compile(r"(?:^|/)seed(?:s|ers?|ing)?(?:/|[._-][^/]*$|$)", re.I),
        "seed data for development",
    ),
    (
        re.compile(
            r"(?:^|/)(?:e2e|cypress|playwright|acceptance|integration[-_]?tests?)(?:/|[._-])", re.I
        ),
        "an end-to-end or acceptance test suite, not the service",
    ),
    (re.compile(r"(?:^|/)(?:fixtures?|testdata|mocks?)/", re.I), "test fixtures"),
    (re.compile(r"(?:^|/)(?:examples?|samples?)/", re.I), "an example, not the service"),
)
"""Code that reads the environment but is not the service (issue 42: a seed script, an
acceptance-test runner copying `process.env`), each with the reason `init` lists it with."""
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
    routes: list[tuple[RouteSource, str]] = field(default_factory=list)
    """Where no OpenAPI document is found: the code that registers routes, per framework the
    dependency files name (`routes.recognise`), each with what the route readers read there."""
    mcp: list[Taken] = field(default_factory=list)
    config: list[tuple[ConfigSource, str]] = field(default_factory=list)
    deployment: list[Taken] = field(default_factory=list)
    deployment_left: list[Taken] = field(default_factory=list)
    deployment_kept: list[Taken] = field(default_factory=list)
    """Descriptors the default discovery leaves out that the project's docs tell operators to
    use (`compose.example.yml` named in the README): taken back by name."""
    deployment_globs: list[str] = field(default_factory=list)
    """The default deployment globs that match at HEAD (written beside `deployment_kept`)."""
    config_left: list[Taken] = field(default_factory=list)
    """Code that reads the environment but is not the service's (seeds, end-to-end suites)."""
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


def survey(repo: GitRepo, ref: str = "HEAD", releases: int = RECENT) -> Survey:
    """Everything init writes down, read from the tags, the tree at `ref` and the trees of the
    last `releases` release tags (the floor is set once they are judged: `init` command)."""
    pattern, why = infer_tags(repo.tag_names())
    tags = Tags(pattern, why, repo.release_tags(TagPattern(pattern)))
    tree = repo.snapshot(ref)
    left_out = vendored(tree)

    def without(snapshot: Snapshot) -> Snapshot:
        return _Without(snapshot, left_out) if left_out else snapshot

    head = without(tree)
    recent = [(t, without(repo.snapshot(t.tag))) for t in tags.releases[-releases:]]
    trees = [head, *(snapshot for _, snapshot in reversed(recent))]  # newest first
    found = Survey(tags, code_migrations=code_migrations(head))
    found.migrations, found.not_embedded = embedded_only(head, _migrations(trees))
    found.code_migrations = [  # a Go list of migrations has its source
        p for p in found.code_migrations if not any(s.matches(p) for s, _ in found.migrations)
    ]
    found.rest, found.rest_left = _api_documents(head)
    found.rest += _also_at(trees[1:], found.rest, lambda s: _api_documents(s)[0])
    if not found.rest:
        found.routes = routes(head, [snapshot for _, snapshot in recent])
    found.mcp = [Taken(p, "an MCP tool snapshot") for p in matched(head, DEFAULT_MCP_SNAPSHOTS)]
    found.mcp += _also_at(
        trees[1:],
        found.mcp,
        lambda s: [Taken(p, "an MCP tool snapshot") for p in matched(s, DEFAULT_MCP_SNAPSHOTS)],
    )
    found.config_left = left_out_code(trees)
    found.config = _config(trees, found.config_left)
    templates = [
        Taken(c.path, why) for c, why in found.config if c.kind is None and not is_glob(c.path)
    ]
    found.config += [
        (ConfigSource(path=t.value), t.why) for t in _also_at(trees[1:], templates, _env_templates)
    ]
    found.deployment, found.deployment_left = _descriptors(head)
    found.deployment_kept, found.deployment_left = _documented(head, found.deployment_left)
    found.deployment_globs = [g for g in DEFAULT_DEPLOYMENT_SOURCES if matched(head, [g])]
    found.vendored = left_out
    return found


def _also_at(
    trees: Sequence[Snapshot], taken: Sequence[Taken], finder: Callable[[Snapshot], list[Taken]]
) -> list[Taken]:
    """The entries `finder` finds at older trees (newest first) that `taken` lacks, each said
    to be where the project kept the file at those releases (named by the newest one)."""
    known = {t.value for t in taken}
    more: dict[str, Taken] = {}
    for snapshot in trees:
        for entry in finder(snapshot):
            if entry.value not in known and entry.value not in more:
                why = f"{entry.why}, at {snapshot.ref} and maybe before (not at HEAD)"
                more[entry.value] = Taken(entry.value, why)
    return list(more.values())


def _migrations(trees: Sequence[Snapshot]) -> list[tuple[MigrationSource, str]]:
    """A source per root the migrations search finds files in (`find.roots`) at HEAD or at a
    recent release (`trees`, newest first), with the tool its files are written for and the
    engine they run on: one source per root however many migrations it holds (a folder per
    migration is diesel's or prisma's root above it), described at the newest tree that has it."""
    found: dict[tuple[str, str], tuple[MigrationSource, str]] = {}
    for tree in trees:
        for root in migration_roots(tree):
            go_list = root.source.format == "go-embedded"  # one source per Go file
            key = (root.source.path, (root.source.pattern or "") if go_list else "")
            if key not in found:
                where = "" if tree is trees[0] else f", at {tree.ref} (not at HEAD)"
                found[key] = (root.source, root.why() + where)
    return [found[key] for key in sorted(found)]


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

    def run(source: MigrationSource) -> bool:  # a Go list of migrations is compiled in
        return source.format == "go-embedded" or embedded(source.path)

    if not any(embedded(s.path) for s, _ in sources):  # the embeds name no migrations folder
        return sources, []
    return [(s, why) for s, why in sources if run(s)], [s.path for s, _ in sources if not run(s)]


def code_migrations(head: Snapshot) -> list[str]:
    """Migrations written in code in the folders the search looks in (Django's
    `0001_initial.py`, goose's Go files...), which no source reads: what the search for
    migrations takes for one (`unread_migration`)."""
    read = migration_files(head, DEFAULT_MIGRATION_SOURCES)  # knex files are read
    return [p for p in migrations_anywhere(head) if p not in read and not p.endswith(".sql")]


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


def routes(head: Snapshot, recent: Sequence[Snapshot]) -> list[tuple[RouteSource, str]]:
    """The route sources of a service without an OpenAPI document: one per framework its
    dependency files name (`recognise`) at `head` or at a recent release (a framework the
    project has since left still serves those releases), whose code registers routes there,
    as the route readers read it, with what they read (routes, files, registrations not read);
    when none does, every framework over the whole repository, if that reads any. A source
    whose folder is missing at a recent release is widened to the whole repository, its
    framework kept, so the file holds there. Nothing read: none (the surface is then declared
    absent)."""
    trees = [head, *reversed(recent)]
    recognised = list(dict.fromkeys(s for tree in trees for s in recognise(tree)))
    found = _read_routes(trees, recognised) if recognised else []
    return found or _read_routes(trees, [RouteSource()])


def _read_routes(
    trees: Sequence[Snapshot], sources: Sequence[RouteSource]
) -> list[tuple[RouteSource, str]]:
    """The sources that read routes or registrations at HEAD, else at the newest recent
    release that has some (`trees`, HEAD first, then newest first), each fitted to the recent
    releases first (widened to `**` where its folder is missing at one), written once (a
    framework read everywhere needs no narrower entry), with what it reads."""
    fitted: dict[RouteSource, None] = {}
    for source in sources:
        if any(not own_code(s.paths(), source.path) for s in trees[1:]):
            source = RouteSource(framework=source.framework, prefix=source.prefix)
        fitted[source] = None
    everywhere = {(s.framework, s.prefix) for s in fitted if s.path == "**"}
    found = []
    for source in fitted:
        if source.path != "**" and (source.framework, source.prefix) in everywhere:
            continue
        for tree in trees:
            reading = read_routes(tree, [source])
            if reading.routes or reading.gaps:
                where = "" if tree is trees[0] else f", at {tree.ref} (not at HEAD)"
                found.append((source, _routes_read(reading, source) + where))
                break
    return found


def _routes_read(reading: RouteReading, source: RouteSource) -> str:
    """What the route readers read through one source, for its comment."""
    files = sorted({route.file for route in reading.routes})
    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    by = source.framework or f"every framework ({', '.join(sorted(reading.frameworks))} read)"
    why = f"{by}: {len(reading.routes)} route(s) in {len(files)} file(s)"
    why += f" ({shown})" if files else ""
    if reading.gaps:
        first = reading.gaps[0]
        why += (
            f"; {len(reading.gaps)} registration(s) not read ({first.what} at "
            f"{first.file}:{first.line}...)"
        )
    return why


def _start(data: bytes) -> str:
    return data[:4096].decode("utf-8", errors="replace")


def _env_templates(snapshot: Snapshot) -> list[Taken]:
    """The env templates of a tree (names only)."""
    defaults = set(matched(snapshot, DEFAULT_CONFIG_SOURCES))
    return [
        Taken(path, "an env template: the variable names operators set")
        for path in matched(snapshot, [EVERYWHERE])
        if source_kind(path) == "dotenv"
        and (path in defaults or _ENV_TEMPLATE.search(path.rpartition("/")[2]))
        and not ConfigSource(path=EVERYWHERE).excluded(path)
    ]


def _everything(tree: Snapshot) -> list[str]:
    """The files the wider searches look at: every file but vendored, test, example and
    hidden ones, and test files a config glob leaves out."""
    return [p for p in matched(tree, [EVERYWHERE]) if not ConfigSource(path=EVERYWHERE).excluded(p)]


def _config(trees: Sequence[Snapshot], left: Sequence[Taken]) -> list[tuple[ConfigSource, str]]:
    """Env templates (names only), JSON Schemas of the configuration, and, per language, the
    folder of the code that reads the environment or loads a config library, at HEAD and at
    the recent releases (`trees`, HEAD first); `left`, the code left out as not the
    service's."""
    head = trees[0]
    everything = _everything(head)
    found = [(ConfigSource(path=t.value), t.why) for t in _env_templates(head)]
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
    found += _code_sources(trees, left)
    return found


def _reading_env(
    tree: Snapshot, paths: Sequence[str], seen: dict[str, bool]
) -> list[tuple[str, str]]:
    """(kind, path) of each of `paths` whose code reads the environment or loads a config
    library (`READS`); `seen` keeps the answer per blob id, so a file unchanged between trees
    is read once."""
    kinds = {p: source_kind(p) or "" for p in paths}
    wanted = [p for p in paths if kinds[p] in READS]
    unseen = [p for p in wanted if tree.blob_id(p) not in seen]
    for path, data in tree.read_each(unseen):
        seen[tree.blob_id(path) or ""] = READS[kinds[path]].search(_text(data)) is not None
    return [(kinds[p], p) for p in wanted if seen.get(tree.blob_id(p) or "")]


def _code_sources(
    trees: Sequence[Snapshot], left: Sequence[Taken]
) -> list[tuple[ConfigSource, str]]:
    """Per language, the code that reads the environment or loads a config library at HEAD or
    at a recent release (`trees`, HEAD first: a release may be written in a language HEAD no
    longer has): a glob of its kind in the top folder holding such files (`server/**/*.js`),
    or everywhere (`**/*.rs`) when several do or the folder is missing at a tree with code of
    the kind; a file at the root by its path. Migration files are the migrations surface's,
    not configuration. A glob leaves out (`exclude`) the files it would take that init does
    not: build scripts and tooling, loose scripts at the root, and `left`, the code that is
    not the service's."""
    seen: dict[str, bool] = {}
    passed = {t.value for t in left}  # files reading the environment init does not take
    by_entry: dict[str, dict[str, list[str]]] = {}
    older: dict[str, str] = {}  # an entry found only at older releases -> the newest of them
    having: dict[str, list[Snapshot]] = {}  # kind -> the trees with code of it reading
    for tree in trees:
        migrations = set(migration_files(tree, DEFAULT_MIGRATION_SOURCES))
        paths = [p for p in _everything(tree) if p not in migrations]
        for kind, path in _reading_env(tree, paths, seen):
            if _TOOLING.search(path) is not None or not_the_service(path) is not None:
                passed.add(path)
                continue
            if tree not in having.setdefault(kind, []):
                having[kind].append(tree)
            top, _, rest = path.partition("/")
            entry = f"{top}/**/*.{EXTENSIONS[kind]}" if rest else path
            readers = by_entry.setdefault(kind, {})
            if entry not in readers and tree is not trees[0]:
                older[entry] = tree.ref
            if path not in readers.setdefault(entry, []):
                readers[entry].append(path)
    if any("/" in entry for readers in by_entry.values() for entry in readers):
        # loose scripts at the root, beside code in folders, are not the service (but for a
        # framework's server config)
        passed |= {
            p
            for readers in by_entry.values()
            for entry, read in readers.items()
            if "/" not in entry and not _SERVER_CONFIG.fullmatch(entry)
            for p in read
        }
        by_entry = {
            kind: {
                entry: read
                for entry, read in readers.items()
                if "/" in entry or _SERVER_CONFIG.fullmatch(entry)
            }
            for kind, readers in by_entry.items()
        }
    found = []
    for kind, readers in sorted(by_entry.items()):
        everywhere = f"**/*.{EXTENSIONS[kind]}"
        if not readers:
            continue
        refs = [older.get(entry) for entry in readers]
        if len(readers) > 1 or any(not matched(s, list(readers)) for s in having[kind]):
            readers = {everywhere: [p for read in readers.values() for p in read]}
        for entry, read in readers.items():
            shown = ", ".join(read[:3]) + (f" and {len(read) - 3} more" if len(read) > 3 else "")
            why = f"{kind} code that reads the environment or a config loader: {shown}"
            if None not in refs:  # no file of it at HEAD
                why += f", at {refs[0]} and maybe before (not at HEAD)"
            exclude = _folded({x for p in passed if _takes(entry, p) and (x := _exclusion(p))})
            if exclude:
                why += "; `exclude`: what the glob would take that is not the service's config"
            found.append((ConfigSource(path=entry, exclude=exclude), why))
    return found


def _folded(excluded: set[str]) -> tuple[str, ...]:
    """The exclusions, sorted, without those a folder among them holds already."""
    folders = [x.removesuffix("**") for x in excluded if x.endswith("/**")]
    return tuple(
        sorted(x for x in excluded if not any(x != f"{f}**" and x.startswith(f) for f in folders))
    )


def _exclusion(path: str) -> str | None:
    """How a glob leaves out a file init does not take: its non-service folder
    (`server/seeds/**`, `e2e/**`) or top tooling folder (`scripts/**`), else its path; None
    for a file in a tooling-named folder inside the code (`src/app/api/scripts/`: a route of
    the service, read as before)."""
    for pattern, _ in NOT_THE_SERVICE:
        match = pattern.search(path)
        if match is not None:
            return f"{path[: match.end()]}**" if match.group().endswith("/") else path
    match = _TOOLING.search(path)
    if match is not None and match.group().endswith("/"):
        return f"{match.group()}**" if match.start() == 0 else None
    return path


def _takes(entry: str, path: str) -> bool:
    """True when a glob entry reads `path` (a plain path names only itself)."""
    source = ConfigSource(path=entry)
    return (
        is_glob(entry)
        and compile_glob(entry).fullmatches(path)
        and not skipped(entry, path)
        and not source.excluded(path)
    )


def not_the_service(path: str) -> str | None:
    """Why code at `path` is not the service's own (seeds, end-to-end suites, fixtures,
    examples), else None."""
    return next((why for pattern, why in NOT_THE_SERVICE if pattern.search(path)), None)


def left_out_code(trees: Sequence[Snapshot]) -> list[Taken]:
    """The files that read the environment that `init` leaves out as not the service's, at
    HEAD or at a recent release (`trees`, HEAD first), each with why (a person can take any
    back by naming it in `config.sources`, or out of a glob's `exclude`)."""
    seen: dict[str, bool] = {}
    left: dict[str, Taken] = {}
    for tree in trees:
        candidates = [
            p
            for p in tree.paths()
            if source_kind(p) in READS
            and not_the_service(p) is not None
            and not p.startswith(".")
            and "/node_modules/" not in f"/{p}"
            and p not in left
        ]
        for _, path in _reading_env(tree, candidates[:2000], seen):
            why = not_the_service(path) or ""
            where = "" if tree is trees[0] else f" (at {tree.ref}, not at HEAD)"
            left[path] = Taken(path, why + where)
    return list(left.values())


_DOCS = re.compile(r"^(?:README[^/]*|docs?/.*|INSTALL[^/]*)\.(?:md|rst|txt|adoc)$", re.I)


def _documented(head: Snapshot, left: list[Taken]) -> tuple[list[Taken], list[Taken]]:
    """Of the descriptors left out as developer-only, those the project's docs name (by file
    name: the compose file operators are told to download), taken back; and the others."""
    if not left:
        return [], left
    docs = "\n".join(
        _text(data) for _, data in head.read_each([p for p in head.paths() if _DOCS.match(p)][:200])
    )
    kept, rest = [], []
    for taken in left:
        name = taken.value.rpartition("/")[2]
        if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", docs):
            kept.append(
                Taken(
                    taken.value,
                    "named in the project's docs for operators (taken back: " + taken.why + ")",
                )
            )
        else:
            rest.append(taken)
    return kept, rest


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
