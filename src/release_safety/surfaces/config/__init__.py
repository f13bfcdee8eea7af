"""The environment-config surface: which variables the application reads, with their defaults,
at both refs (example env files, TypeScript/JavaScript, Python and Go sources), and what changed.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import PurePosixPath

from release_safety import discovery
from release_safety.discovery import declared_absent, reason_of
from release_safety.findings import ConfigReport, Coverage, Finding, not_checked_finding
from release_safety.settings import DEFAULT_CONFIG_SOURCES, Settings
from release_safety.snapshot import Snapshot
from release_safety.surfaces.config import dotenv, go_src, python_src, typescript
from release_safety.surfaces.config.diff import Var, collect, diff
from release_safety.surfaces.config.reads import EnvRead, SourceError
from release_safety.surfaces.config.rules import change, finding

__all__ = ["analyse", "source_kind"]

_CACHE_SIZE = 8192
_CACHE: OrderedDict[tuple[str, str], tuple[EnvRead, ...] | SourceError] = OrderedDict()
_CODE = {
    ".ts": "ts",
    ".mts": "ts",
    ".cts": "ts",
    ".tsx": "tsx",
    ".js": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".jsx": "js",
    ".py": "python",
    ".go": "go",
}


class _NotChecked(Exception):
    def __init__(self, reason: str, file: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.file = file


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> ConfigReport:
    """Diff the environment variables read at `old` and at `new`."""
    config = settings.config
    if config.absent is not None:
        return declared_absent(ConfigReport, "config", config.absent, new, DEFAULT_CONFIG_SOURCES)
    patterns = config.sources
    tried = discovery.tried("config.sources", patterns)
    problems = (
        discovery.unmatched("config", "config.sources", patterns, new)
        if settings.explicitly_set("config", "sources")
        else []
    )
    new_paths = discovery.matched(new, patterns)
    old_paths = discovery.matched(old, patterns)
    coverage = Coverage.of(
        tried,
        {p: old.blob_id(p) for p in old_paths} if old is not None else {},
        {p: new.blob_id(p) for p in new_paths},
    )
    if not new_paths and not old_paths:
        refs = f"{old.ref} or {new.ref}" if old is not None else new.ref
        reason = f"no source found at {refs}; tried {', '.join(tried)}"
        problems.append(not_checked_finding("config", reason))
    elif old is not None and not new_paths and not problems:
        problems.append(
            not_checked_finding("config", f"sources found at {old.ref} but none at {new.ref}")
        )
    if problems:
        return _not_checked(problems, coverage)
    try:
        new_vars = _variables(new, new_paths)
        old_vars = _variables(old, old_paths) if old is not None and old_paths else None
    except _NotChecked as exc:
        return _not_checked([not_checked_finding("config", exc.reason, exc.file)], coverage)
    if old_vars is None:  # a first release, or sources new at this one: nothing can break
        return ConfigReport(surface="config", checked=True, coverage=coverage)
    deltas = diff(old_vars, new_vars)
    changes = [entry for entry in map(change, deltas) if entry is not None]
    findings = sorted((finding(delta) for delta in deltas), key=lambda f: f.sort_key())
    return ConfigReport(
        surface="config", checked=True, changes=changes, findings=findings, coverage=coverage
    )


def _not_checked(problems: list[Finding], coverage: Coverage) -> ConfigReport:
    return ConfigReport(
        surface="config",
        checked=False,
        reason=reason_of(problems),
        findings=problems,
        coverage=coverage,
    )


def source_kind(path: str) -> str | None:
    """`dotenv`, `ts`, `tsx`, `js`, `python` or `go` by file name; None when unknown."""
    name = PurePosixPath(path).name
    suffix = PurePosixPath(name).suffix
    if suffix in _CODE:
        return _CODE[suffix]
    if name == ".env" or name.startswith((".env.", "env.")) or name.endswith(".env"):
        return "dotenv"
    return None


def _variables(snapshot: Snapshot, paths: list[str]) -> dict[str, Var]:
    """The variables read by the matched sources."""
    located: list[tuple[str, EnvRead]] = []
    for path in paths:
        kind = source_kind(path)
        if kind is None:
            raise _NotChecked(f"{path}: cannot tell what kind of source this is", path)
        reads = _reads(snapshot, path, kind)
        if isinstance(reads, SourceError):
            where = f"{path}:{reads.line} at {snapshot.ref}"
            raise _NotChecked(f"{where}: {reads.message}", path)
        located += [(path, read) for read in reads]
    return collect(located)


def _reads(snapshot: Snapshot, path: str, kind: str) -> tuple[EnvRead, ...] | SourceError:
    """The reads of one source, parsed once per blob id and kind."""
    blob = snapshot.blob_id(path) or ""
    key = (kind, blob)
    cached = _CACHE.get(key)
    if cached is not None:
        _CACHE.move_to_end(key)
        return cached
    data = snapshot.read(path)
    result: tuple[EnvRead, ...] | SourceError
    try:
        if kind == "dotenv":
            result = tuple(dotenv.parse(data.decode("utf-8", errors="replace")))
        elif kind == "python":
            result = tuple(python_src.parse(data.decode("utf-8", errors="replace")))
        elif kind == "go":
            result = tuple(go_src.parse(data))
        else:
            result = tuple(typescript.parse(data, kind))
    except SourceError as exc:
        result = exc
    _CACHE[key] = result
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return result
