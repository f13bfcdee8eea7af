"""The environment-config surface: the variables and config keys the service reads, with their
defaults, at both refs (Go, Rust, Python, TypeScript/JavaScript code; env files; TOML, YAML and
JSON config files), and what changed between them.

Checked means understood. Every reader reports, beside the variables it resolved, the gaps it
met (a read through a computed name, a config library it does not model). The coverage keeps
both (`understood`, `unmodelled`), and the surface is not checked when a gap is blocking (it
stands between the tool and the variables) or lies in a file the release changed, when the
sources read no variable at all, or when most of what the previous release resolved
disappears at once (a loader moved or lost its prefix: one finding, not hundreds of removals).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, NoReturn

from release_safety.code.memo import Memo
from release_safety.contract.model import ConfigChange
from release_safety.contract.reports import (
    ConfigReport,
    Coverage,
    Finding,
    Unmodelled,
    absent_entry,
    gone_hint,
    not_checked_finding,
)
from release_safety.git.snapshot import Snapshot
from release_safety.settings.model import (
    DEFAULT_CONFIG_SOURCES,
    ConfigSource,
    Settings,
)
from release_safety.surfaces.config import schema_config  # registers its rule
from release_safety.surfaces.config.diff import Delta, Var, collect, diff, unlisted
from release_safety.surfaces.config.reads import EnvRead, Gap, SourceError
from release_safety.surfaces.config.rules import (
    LOADER_LOST,
    NOT_UNDERSTOOD,
    NOTHING_READ,
    change,
    finding,
)
from release_safety.surfaces.config.runtime import build_time, runtime_files
from release_safety.surfaces.config.sources import matched_sources, source_kind
from release_safety.surfaces.discovery import declared_absent, reason_of, tried, unmatched_finding

if TYPE_CHECKING:
    from release_safety.surfaces.config.rust_src import RustFacts

# The readers are imported where their files are read: a ref with no such file does not load
# them, and importing the surface (its `sources`) loads none.

__all__ = ["analyse", "source_kind"]

_CACHE: Memo[tuple[Any, ...], Any] = Memo(16384)
"""Parse results per (kind and options, blob id): reads, Rust facts, documents; or the
SourceError parsing raised."""
_REFS: Memo[tuple[Any, ...], _Ref] = Memo(4)
"""What the sources of a ref say, per (settings entries, each matched file's path and blob id):
consecutive releases share the ref between them, and most of its files."""


class _NotChecked(Exception):
    def __init__(self, reason: str, file: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.file = file
        self.line = line


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> ConfigReport:
    """Diff the settings read at `old` and at `new`."""
    config = settings.config
    if config.absent is not None:
        return declared_absent(
            ConfigReport,
            "config",
            config.absent,
            new,
            DEFAULT_CONFIG_SOURCES,
            settings.origin,
            settings.absent_line("config"),
            old,
        )
    sources = config.sources
    looked = tried("config.sources", [source.describe() for source in sources])
    # the earlier ref first: the later one's matches then follow from its changed paths alone
    old_files = matched_sources(old, sources) if old is not None else {}
    new_files = matched_sources(new, sources)
    new_files = {**new_files, **runtime_files(new, new_files)}
    old_files = {**old_files, **runtime_files(old, old_files)}
    problems = []
    if settings.explicitly_set("config", "sources"):
        covered = {*new_files.values(), *old_files.values()}
        problems = [
            unmatched_finding("config", "config.sources", source.path, new.ref, settings.origin)
            for source in sources
            if source not in covered
        ]
    old_blobs = {p: old.blob_id(p) or "" for p in old_files} if old is not None else {}
    new_blobs = {p: new.blob_id(p) or "" for p in new_files}
    coverage = Coverage.of(looked, old_blobs, new_blobs)
    if not new_files and not old_files:
        refs = f"{old.ref} or {new.ref}" if old is not None else new.ref
        reason = f"no source found at {refs}; tried {', '.join(looked)}"
        problems.append(not_checked_finding("config", reason))
    elif old is not None and not new_files and not problems:
        reason = f"sources found at {old.ref} but none at {new.ref}"
        hint = gone_hint("config", "the configuration")
        problems.append(not_checked_finding("config", reason, hint=hint))
    if problems:
        return _not_checked(problems, coverage)
    try:
        now = _read(new, new_files, new_blobs, sources)
        before = None
        if old is not None and old_files:
            before = _read(old, old_files, old_blobs, sources)
    except _NotChecked as exc:
        problem = not_checked_finding("config", exc.reason, exc.file, line=exc.line)
        return _not_checked([problem], coverage)
    coverage.understood = {
        name: f"{var.file}:{var.line}" for name, var in sorted(now.variables.items())
    }
    coverage.unmodelled = [_unmodelled(path, gap) for path, gap in now.gaps]
    coverage.skipped = {
        side: f"{ref.skipped} file{'s' if ref.skipped > 1 else ''} skipped: {_UNREACHED}"
        for side, ref in (("old", before), ("new", now))
        if ref is not None and ref.skipped
    }
    changed = {p for p, blob in new_blobs.items() if old_blobs.get(p) != blob}
    if before is not None:  # a schema whose referenced documents changed changed too
        changed |= {p for p, taken in now.taken.items() if before.taken.get(p, {}) != taken}
    kept = {(p, g.what, g.subject) for p, g in before.gaps if g.subject} if before else set()
    problems = [
        _gap_finding(path, gap)
        for path, gap in now.gaps
        if gap.blocking
        or (before is not None and path in changed and (path, gap.what, gap.subject) not in kept)
    ]
    if not now.variables and not now.gaps and (before is None or not before.variables):
        files = ", ".join(list(new_files)[:3]) + (", ..." if len(new_files) > 3 else "")
        problems.append(
            NOTHING_READ.finding(
                "config",
                f"config surface not checked: the sources matched {len(new_files)} file(s) "
                f"({files}) and none of them reads an environment variable or config key",
                next(iter(new_files)),
                hint=f"Point [config] sources at the code or files that read the configuration "
                f"(not only {files}), or declare {absent_entry('config')}.",
            )
        )
    if before is None:  # a first release, or sources new at this one: nothing can break
        return _report([], problems, coverage)
    declared = {**_moves(before, now), **config.renames}
    deltas = diff(before.variables, now.variables, declared)
    deltas += unlisted(before.variables, now.variables)
    lost = _lost(before.variables, deltas)
    if lost is not None:
        problems.append(lost)
        deltas = [delta for delta in deltas if delta.kind != "removed"]
    changes = [entry for entry in map(change, deltas) if entry is not None]
    try:
        problems += _contracts(before, now, new, changed)
    except _NotChecked as exc:
        problem = not_checked_finding("config", exc.reason, exc.file, line=exc.line)
        return _not_checked([problem], coverage)
    return _report(changes, problems + [finding(delta) for delta in deltas], coverage)


_UNREACHED = "no environment read reachable"
"""Why a TypeScript / JavaScript source was not parsed (`ts_resolve.reads`)."""


def _contracts(before: _Ref, now: _Ref, new: Snapshot, changed: set[str]) -> list[Finding]:
    """The findings of what the keys of each changed JSON Schema source may hold."""
    found: list[Finding] = []
    for path, (schema, document, prefix, separator) in sorted(now.schemas.items()):
        previous = before.schemas.get(path)
        if previous is None or path not in changed:
            continue
        try:
            deltas = schema_config.deltas(previous[0], schema, path)
        except SourceError as exc:
            _raise(new, path, exc)
        places = schema_config.Places(new.read(path), document)
        found += schema_config.findings(deltas, path, places, schema, prefix, separator)
    return found


def _report(changes: list[ConfigChange], found: list[Finding], coverage: Coverage) -> ConfigReport:
    """The report: not checked when a finding is unknown (its reason said), else checked."""
    unknown = [f for f in found if f.severity == "unknown"]
    return ConfigReport(
        surface="config",
        checked=not unknown,
        reason=reason_of(unknown),
        changes=changes,
        findings=sorted(found, key=Finding.sort_key),
        coverage=coverage,
    )


def _unmodelled(path: str, gap: Gap) -> Unmodelled:
    return Unmodelled(
        file=gap.path or path,
        line=gap.line,
        what=gap.what,
        way_out=gap.way_out,
        blocking=gap.blocking,
    )


def _gap_finding(path: str, gap: Gap) -> Finding:
    """The unknown finding of a gap the release cannot be judged past."""
    file = gap.path or path
    why = "it loads the variables" if gap.blocking else "the release changes this file"
    return NOT_UNDERSTOOD.finding(
        "config",
        f"config surface not checked: {file}:{gap.line}: {gap.what} ({why})",
        file,
        gap.line,
        hint=gap.way_out,
    )


LOST_AT_ONCE = 10
"""Removals from this many on, and more than half of what the previous release resolved, are
a lost loader, not a release that stopped reading its variables."""


def _lost(before: dict[str, Var], deltas: list[Delta]) -> Finding | None:
    """One unknown finding when most of the previous release's variables vanish at once,
    naming the loader most of them came through."""
    removed = [delta.old for delta in deltas if delta.kind == "removed" and delta.old]
    if len(removed) < LOST_AT_ONCE or 2 * len(removed) <= len(before):
        return None
    loaders = Counter(var.via or f"the reads of {var.file}" for var in removed)
    loader, count = loaders.most_common(1)[0]
    first = min(
        (var for var in removed if (var.via or f"the reads of {var.file}") == loader),
        key=lambda var: (var.file, var.line),
    )
    return LOADER_LOST.finding(
        "config",
        f"config surface not checked: {len(removed)} of the {len(before)} variables the "
        f"previous release resolved are gone at once ({count} of them through {loader}): "
        "a loader that moved or lost its prefix, not a release that stopped reading them",
        first.file,
        first.line,
        hint=(
            f"If {loader} moved, widen `config.sources` to the file that now loads the "
            "variables (or set its `env_prefix`); if the release really stops reading them, "
            "declare the break."
        ),
    )


def _not_checked(problems: list[Finding], coverage: Coverage) -> ConfigReport:
    return ConfigReport(
        surface="config",
        checked=False,
        reason=reason_of(problems),
        findings=problems,
        coverage=coverage,
    )


@dataclass
class _Ref:
    """What the sources of one ref say: the variables, and each structured file's document
    with how its keys are named (for the moves between two versions)."""

    variables: dict[str, Var]
    documents: dict[str, tuple[Any, str | None, str]] = field(default_factory=dict)
    gaps: list[tuple[str, Gap]] = field(default_factory=list)
    schemas: dict[str, tuple[Any, Any, str, str]] = field(default_factory=dict)
    """Each JSON Schema source's schema and document, with its variables' prefix and
    separator."""
    taken: dict[str, dict[str, str | None]] = field(default_factory=dict)
    """Each JSON Schema source's documents taken in through `$ref` (path -> blob id)."""
    skipped: int = 0
    """TypeScript / JavaScript sources not parsed: no environment read reachable from them."""


def _moves(before: _Ref, now: _Ref) -> dict[str, str]:
    """Renames found in config files whose values moved to other keys: new name -> old."""
    from release_safety.surfaces.config import structured

    found: dict[str, str] = {}
    for path, (document, prefix, separator) in now.documents.items():
        previous = before.documents.get(path)
        if previous is None or previous[0] == document:
            continue
        for after, earlier in structured.moves(previous[0], document).items():
            old_name = structured.name_of(earlier, previous[1], previous[2])
            found[structured.name_of(after, prefix, separator)] = old_name
    return found


def _cached(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """`make()`, or the SourceError it raised, once per key."""

    def guarded() -> Any:
        try:
            return make()
        except SourceError as exc:
            return exc

    return _CACHE.get(key, guarded)


def _raise(snapshot: Snapshot, path: str, error: SourceError) -> NoReturn:
    where = f"{error.path or path}:{error.line} at {snapshot.ref}"
    raise _NotChecked(f"{where}: {error.message}", error.path or path, error.line)


def _read(
    snapshot: Snapshot,
    files: dict[str, ConfigSource],
    blobs: dict[str, str],
    sources: Sequence[ConfigSource],
) -> _Ref:
    """The variables the matched files of one ref (with their blob ids, and those of the
    Python modules they import) read, once per set of files: which entry a file belongs to
    follows from its path and the entries."""
    python = {p: blob for p, blob in blobs.items() if source_kind(p) == "python"}
    imported: tuple[tuple[str, str], ...] = ()
    try:
        if python:
            from release_safety.surfaces.config import python_resolve

            imported = python_resolve.imported(snapshot, python)
    except SourceError as exc:
        _raise(snapshot, exc.path or next(iter(python)), exc)
    key = (tuple(sources), tuple(blobs.items()), imported, _referenced(snapshot, blobs))
    return _REFS.get(key, lambda: _fold(snapshot, files, blobs))


def _referenced(snapshot: Snapshot, blobs: dict[str, str]) -> tuple[tuple[str, str | None], ...]:
    """The documents the JSON Schema sources take in through `$ref`, with their blob ids."""
    taken = _taken_in(snapshot, blobs)[1]
    return tuple((file, snapshot.blob_id(file)) for files in taken.values() for file in files)


def _taken_in(
    snapshot: Snapshot, paths: Iterable[str]
) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """The structured sources by their `$id` (`ory://tracing-config`), and per source the
    documents its `$ref`s take in (files of the repository, or sources by `$id`)."""
    from release_safety.surfaces.config import schema_refs, structured

    documents: dict[str, Any] = {}
    for path in paths:
        kind = source_kind(path)
        if kind is not None and kind in structured.KINDS.values():
            documents[path] = _parsed(snapshot, path, kind, partial(structured.load, kind=kind))
    ids = {
        document["$id"]: path
        for path, document in documents.items()
        if isinstance(document, dict) and isinstance(document.get("$id"), str)
    }
    taken = {
        path: schema_refs.bundle(document, path, partial(_file, snapshot), ids)[1]
        for path, document in documents.items()
    }
    return ids, {path: files for path, files in taken.items() if files}


def _fold(snapshot: Snapshot, files: dict[str, ConfigSource], blobs: dict[str, str]) -> _Ref:
    """`_read` itself (_NotChecked, never kept, when a file cannot be read)."""
    from release_safety.surfaces.config import go_resolve, structured

    kinds: dict[str, str] = {}
    for path in files:
        kind = source_kind(path)
        if kind is None:
            raise _NotChecked(f"{path}: cannot tell what kind of source this is", path)
        kinds[path] = kind
    located: list[tuple[str, EnvRead | Gap]] = []
    go_blobs = {p: blobs[p] for p, k in kinds.items() if k == "go"}
    if go_blobs:
        others = frozenset(p for p, k in kinds.items() if k != "go")
        try:
            located += go_resolve.reads(snapshot, go_blobs, others)
        except SourceError as exc:
            _raise(snapshot, next(iter(go_blobs)), exc)
    python_blobs = {p: blobs[p] for p, k in kinds.items() if k == "python"}
    if python_blobs:
        from release_safety.surfaces.config import python_resolve

        try:
            located += python_resolve.reads(snapshot, python_blobs)
        except SourceError as exc:
            _raise(snapshot, next(iter(python_blobs)), exc)
    rust = _rust(snapshot, [p for p, k in kinds.items() if k == "rust"])
    for path, facts in rust.items():
        located += [(path, read) for read in facts.reads]
    if rust:
        from release_safety.surfaces.config import rust_resolve

        located += rust_resolve.reads(rust)
    result = _Ref({})
    tabled = any(source.defaults_table for source in files.values())
    scripts = {p: (k, blobs[p]) for p, k in kinds.items() if k in ("ts", "tsx", "js")}
    resolved = None
    if scripts:
        from release_safety.surfaces.config import ts_resolve

        resolved = ts_resolve.reads(snapshot, scripts)
    parsed = {
        *(resolved.parsed if resolved else ()),
        *(p for p in scripts if files[p].defaults_table),
    }
    result.skipped = len(scripts) - len(parsed)
    ids, taken = _taken_in(snapshot, kinds)
    inside = {file for files in taken.values() for file in files}  # read as part of another
    for path, kind in kinds.items():
        source = files[path]
        reads: list[EnvRead | Gap]
        if path in inside:
            continue
        if kind in structured.KINDS.values():
            document = _parsed(snapshot, path, kind, partial(structured.load, kind=kind))
            if source.kind == "jsonschema" or schema_config.is_schema(document):
                reads = _schema(snapshot, path, source, document, result, ids)
                located += [(path, read) for read in reads]
                continue
            prefix, separator = _prefix(path, source, rust)
            defaults = source.defaults if source.defaults is not None else not _template(path)
            how = f"{kind} {defaults} {prefix} {separator}"
            read = partial(
                structured.parse,
                document=document,
                defaults=defaults,
                prefix=prefix,
                separator=separator,
            )
            reads = _parsed(snapshot, path, how, read)
            result.documents[path] = (document, prefix, separator)
        elif kind == "dotenv":
            defaults = bool(source.defaults)
            reads = _parsed(
                snapshot,
                path,
                f"dotenv {defaults}",
                partial(_dotenv, defaults=defaults),
            )
        elif kind in ("ts", "tsx", "js"):
            if path not in parsed:
                continue  # no environment read reachable: nothing to read
            from release_safety.surfaces.config import typescript

            table = source.defaults_table
            how = f"{kind} {table} {tabled}"
            script = partial(typescript.parse, dialect=kind, table=table, copies_named=tabled)
            reads = _parsed(snapshot, path, how, script)
        elif kind == "shell":
            from release_safety.surfaces.config import shell

            reads = _parsed(snapshot, path, "shell", shell.parse)
        else:  # go, rust and python: read above
            continue
        located += [(path, read) for read in reads]
    located += resolved.located if resolved else []
    inlined = build_time(snapshot, kinds)  # Next.js `env` keys: set at build, not by operators
    result.variables = collect(
        (p, r) for p, r in located if isinstance(r, EnvRead) and r.name not in inlined
    )
    result.gaps = [(p, r) for p, r in located if isinstance(r, Gap)]
    return result


def _rust(snapshot: Snapshot, paths: list[str]) -> dict[str, RustFacts]:
    """The facts of the Rust files that can change what the ref reads, in `paths` order: each
    whose facts say something by themselves, then, until no more are added, each naming what
    those depend on. The others are not parsed (`rust_resolve.depended_on`)."""
    if not paths:
        return {}
    from release_safety.surfaces.config import rust_resolve, rust_src

    wanted = {p for p in paths if _parsed(snapshot, p, "rust on its own", rust_src.on_its_own)}
    while True:
        facts = {p: _parsed(snapshot, p, "rust", rust_src.parse) for p in paths if p in wanted}
        names = rust_src.naming(rust_resolve.depended_on(facts))
        more = {path for path in paths if path not in wanted and names(snapshot.read(path))}
        if not more:
            return facts
        wanted |= more


def _schema(
    snapshot: Snapshot,
    path: str,
    source: ConfigSource,
    document: Any,
    result: _Ref,
    ids: Mapping[str, str],
) -> list[EnvRead | Gap]:
    """A JSON Schema source's variables (its schema kept in `result` for the contract diff)."""
    from release_safety.surfaces.config import schema_refs

    prefix = source.env_prefix or ""
    separator = (
        source.env_separator
        if "env_separator" in source.model_fields_set
        else schema_config.SEPARATOR
    )
    document, taken = schema_refs.bundle(document, path, partial(_file, snapshot), ids)
    result.taken[path] = {file: snapshot.blob_id(file) for file in taken}
    deps = " ".join(f"{file}={blob}" for file, blob in result.taken[path].items())
    schema = _parsed(snapshot, path, f"jsonschema {deps}", lambda _: schema_config.build(document))
    result.schemas[path] = (schema, document, prefix, separator)
    read = partial(schema_config.reads, document=document, prefix=prefix, separator=separator)
    how = f"jsonschema {prefix} {separator} {deps}"
    found: list[EnvRead | Gap] = _parsed(snapshot, path, how, read)
    return found


def _file(snapshot: Snapshot, path: str) -> bytes | None:
    """A file of the snapshot, None when it has none at `path`."""
    return snapshot.read(path) if snapshot.blob_id(path) is not None else None


def _dotenv(data: bytes, defaults: bool) -> list[EnvRead]:
    from release_safety.surfaces.config import dotenv

    return dotenv.parse(data.decode("utf-8", errors="replace"), defaults)


def _parsed(snapshot: Snapshot, path: str, how: str, parse: Callable[[bytes], Any]) -> Any:
    """A file parsed once per (how, blob id); not checked when it does not parse."""
    found = _cached((how, snapshot.blob_id(path)), lambda: parse(snapshot.read(path)))
    if isinstance(found, SourceError):
        _raise(snapshot, path, found)
    return found


def _template(path: str) -> bool:
    """A file whose name marks it as a template or an example (values are examples)."""
    from release_safety.surfaces.config import structured

    name = PurePosixPath(path).name.lower()
    return name.endswith(structured.TEMPLATE_SUFFIXES) or "example" in name or "sample" in name


def _prefix(path: str, source: ConfigSource, rust: dict[str, RustFacts]) -> tuple[str | None, str]:
    """A structured file's environment prefix and separator: the settings', else the one of
    the code that loads the file (`include_str!` beside the source, or a loader's path)."""
    if source.env_prefix is not None:
        return source.env_prefix, source.env_separator
    for code, facts in sorted(rust.items()):
        if len(facts.loaders) != 1:
            continue
        for written, relative in facts.files:
            named = _normalised(f"{PurePosixPath(code).parent}/{written}") if relative else written
            if named == path or path.endswith("/" + named.lstrip("./")):
                loader = facts.loaders[0]
                return loader.prefix, loader.separator or source.env_separator
    return None, source.env_separator


def _normalised(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)
