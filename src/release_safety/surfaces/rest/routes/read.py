"""The routes of a snapshot: every framework reader over the service's own source files, or
over the sources the settings name (`[rest] routes`).

Source files are read once per blob: whether a file may register routes (it names a
framework) is memoised by blob id, and only those files are parsed, by the reader of their
language."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from release_safety.code.memo import Memo
from release_safety.common.patterns import compile_pattern
from release_safety.settings.model import RouteSource, compile_glob, skipped
from release_safety.surfaces.rest.routes import gohttp, jsrouters, nestjs, nextjs, pyweb, rustweb
from release_safety.surfaces.rest.routes.model import Files, Found, RouteReading, read_each

Reader = Callable[[Files, Sequence[str], str], Found]
Wanted = Callable[[str, bytes], bool]


@dataclass(frozen=True)
class Family:
    """The readers of one language: which files they read and how."""

    name: str
    extensions: tuple[str, ...]
    wanted: Wanted
    read: Reader


FAMILIES = {
    "express": Family("express", jsrouters.EXTENSIONS, jsrouters.wanted, jsrouters.read),
    "nestjs": Family("nestjs", nestjs.EXTENSIONS, nestjs.wanted, nestjs.read),
    "go": Family("go", (".go",), gohttp.wanted, gohttp.read),
    "python": Family("python", (".py",), pyweb.wanted, pyweb.read),
    "rust": Family("rust", (".rs",), rustweb.wanted, rustweb.read),
}
FRAMEWORKS = {
    "nextjs": "nextjs",
    **{name: "express" for name in ("express", "fastify", "hono", "koa")},
    "nestjs": "nestjs",
    **{name: "go" for name in ("net/http", "chi", "gin", "echo", "gorilla")},
    **{name: "python" for name in ("fastapi", "flask", "django")},
    **{name: "rust" for name in ("axum", "actix-web")},
}
"""The framework names `[rest] routes` accepts, each with the reader family that reads it."""

_TESTS = compile_pattern(
    r"(?:.*/)?(?:[^/]*[._]test\.[a-z]+|[^/]*\.spec\.[a-z]+|test_[^/]*\.py|conftest\.py)"
)


class _Prefetched:
    """A snapshot whose wanted files were read in one round trip."""

    def __init__(self, snapshot: Files, texts: dict[str, bytes]) -> None:
        self.snapshot = snapshot
        self.texts = texts

    def paths(self) -> Sequence[str]:
        return self.snapshot.paths()

    def blob_id(self, path: str) -> str | None:
        return self.snapshot.blob_id(path)

    def read(self, path: str) -> bytes:
        text = self.texts.get(path)
        return text if text is not None else self.snapshot.read(path)

    def tree_key(self) -> str | None:
        return self.snapshot.tree_key()

    def changed_from(self) -> tuple[str, Mapping[str, str | None]] | None:
        return self.snapshot.changed_from()


def own_code(paths: Sequence[str], pattern: str = "**") -> list[str]:
    """The service's own source files a glob names: no vendored, test or example folder it
    does not name, no test file."""
    regex = compile_glob(pattern)
    return [
        p for p in paths if regex.fullmatches(p) and not skipped(pattern, p) and not _test_file(p)
    ]


def _test_file(path: str) -> bool:
    """A test file by its name (`_TESTS`), whose every match names `test` or `.spec.`."""
    name = path.rpartition("/")[2]
    return ("test" in name or ".spec." in name) and _TESTS.fullmatches(path)


_OWN: Memo[tuple[str, str], list[str]] = Memo(8)
"""`own_code` of a tree's paths per (tree, glob), for the next release's tree."""


def own_files(snapshot: Files, pattern: str) -> list[str]:
    """`own_code` of the snapshot's paths, kept per tree (`Snapshot.tree_key`) and glob: a tree
    known to differ from one kept only by some paths (`Snapshot.changed_from`, consecutive
    releases) takes that one's answer with those paths asked again."""
    tree = snapshot.tree_key()
    if tree is None:
        return own_code(snapshot.paths(), pattern)

    def make() -> list[str]:
        base = snapshot.changed_from()
        if base is None or (base[0], pattern) not in _OWN:
            return own_code(snapshot.paths(), pattern)
        changed = base[1]
        kept = [p for p in _OWN.peek((base[0], pattern)) if p not in changed]
        added = own_code([p for p, blob in changed.items() if blob is not None], pattern)
        return sorted([*kept, *added]) if added else kept

    return list(_OWN.get((tree, pattern), make))


def read_routes(snapshot: Files, sources: Sequence[RouteSource]) -> RouteReading:
    """Every route the snapshot registers: each source's framework (every framework when
    unset) over the files its glob names; with no sources, every framework over the whole
    repository."""
    reading = RouteReading()
    for source in sources or (RouteSource(),):
        files = own_files(snapshot, source.path)
        families = [FRAMEWORKS[source.framework]] if source.framework else ["nextjs", *FAMILIES]
        if "nextjs" in families:
            roots = nextjs.roots(snapshot, files)
            if source.framework == "nextjs" and not roots:
                roots = [_folder(source.path)]
            for root in roots:
                _add(reading, "nextjs", nextjs.read(snapshot, files, root, source.prefix))
        chosen = [FAMILIES[f] for f in families if f in FAMILIES]
        if not chosen:
            continue
        wanted = _wanted(snapshot, files, chosen)
        for family in chosen:
            mine = [p for p in wanted[0] if p.endswith(family.extensions)]
            if mine:
                _add(reading, family.name, family.read(wanted[1], mine, source.prefix))
    reading.routes = sorted(set(reading.routes))
    reading.gaps = sorted(set(reading.gaps), key=lambda g: (g.file, g.line, g.what))
    return reading


def _folder(pattern: str) -> str:
    """The literal folder a glob starts with ('' for none)."""
    parts = []
    for part in pattern.split("/"):
        if any(c in part for c in "*?["):
            break
        parts.append(part)
    return posixpath.join(*parts) if parts else ""


def _add(reading: RouteReading, framework: str, found: Found) -> None:
    routes, gaps, files = found
    reading.routes += routes
    reading.gaps += gaps
    reading.files.update(files)
    if routes:
        reading.frameworks.add(framework)


def _wanted(
    snapshot: Files, files: Sequence[str], families: Sequence[Family]
) -> tuple[list[str], _Prefetched]:
    """The files some family may read, and the snapshot with their bytes at hand."""
    extensions = tuple(e for f in families for e in f.extensions)
    candidates = [p for p in files if p.endswith(extensions)]
    decided: dict[str, bool] = {}
    unknown: list[str] = []
    names = tuple(f.name for f in families)
    for path in candidates:
        key = (names, snapshot.blob_id(path))
        if key[1] is not None and key in _DECIDED:
            decided[path] = _DECIDED[key]
        else:
            unknown.append(path)
    texts: dict[str, bytes] = {}
    for path, data in read_each(snapshot, unknown):
        verdict = any(f.wanted(path, data) for f in families)
        decided[path] = verdict
        blob = snapshot.blob_id(path)
        if blob is not None:
            if len(_DECIDED) > _DECIDED_SIZE:
                _DECIDED.clear()
            _DECIDED[(names, blob)] = verdict
        if verdict:
            texts[path] = data
    return [p for p in candidates if decided.get(p)], _Prefetched(snapshot, texts)


_DECIDED_SIZE = 200_000
_DECIDED: dict[tuple[tuple[str, ...], str | None], bool] = {}
"""Whether a blob names a framework, per set of families (memoised across releases)."""
