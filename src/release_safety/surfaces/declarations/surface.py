"""The declarations surface: breaks declared between two refs, by annotation or registry."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import release_safety.surfaces.declarations.registry as reg
import release_safety.surfaces.declarations.rules as rules
from release_safety.contract.model import DeclaredBreak
from release_safety.contract.reports import RULES, Coverage, DeclarationsReport, Finding
from release_safety.git.snapshot import Snapshot, changes_between
from release_safety.settings.model import Settings
from release_safety.settings.reasons import hollow_reason
from release_safety.surfaces.annotations import (
    ACKNOWLEDGE,
    Annotation,
    Parsed,
    remembered,
    scan_blob,
)
from release_safety.surfaces.comments import holds_comments, syntax_for
from release_safety.surfaces.discovery import SETTINGS_PATH_UNMATCHED, reason_of, unmatched
from release_safety.surfaces.migrations.find.discover import source_of


def _finding(rule: str, file: str, line: int, message: str, hint: str | None = None) -> Finding:
    return Finding(
        rule=rule,
        severity=RULES[rule].severity,
        surface="declarations",
        file=file,
        line=line,
        message=message,
        hint=hint,
    )


def _malformed(path: str, line: int, problem: str) -> Finding:
    """A registry entry that does not read, with the line to correct."""
    hint = f"Correct line {line} of {path}: {problem}."
    return _finding(rules.REGISTRY_MALFORMED.id, path, line, problem, hint)


class _Collector:
    """Declared breaks and findings, gathered from annotations and the registry."""

    def __init__(self) -> None:
        self.declared: list[DeclaredBreak] = []
        self.findings: list[Finding] = []

    def declare(
        self,
        file: str,
        line: int,
        reason: str,
        stop: bool,
        reason_line: int,
        id_: str | None = None,
    ) -> None:
        self.declared.append(
            DeclaredBreak(file=file, line=line, reason=reason, requiredStop=stop, id=id_)
        )
        self.findings.append(_finding(rules.DECLARED_BREAK.id, file, line, reason))
        hollow = hollow_reason(reason)
        if hollow:
            self.findings.append(
                _finding(
                    rules.HOLLOW.id,
                    file,
                    reason_line,
                    f"declared break reason {reason!r} is hollow: {hollow}",
                    "Say what breaks and for whom, in at least a short sentence.",
                )
            )

    def report(self, coverage: Coverage) -> DeclarationsReport:
        return DeclarationsReport(
            surface="declarations",
            checked=not any(f.rule == SETTINGS_PATH_UNMATCHED.id for f in self.findings),
            reason=reason_of([f for f in self.findings if f.rule == SETTINGS_PATH_UNMATCHED.id]),
            findings=sorted(self.findings, key=Finding.sort_key),
            declared=sorted(self.declared, key=lambda d: (d.file, d.line, d.reason)),
            coverage=coverage,
        )


def _annotations(snapshot: Snapshot, paths: Sequence[str]) -> dict[str, tuple[Parsed, ...]]:
    """The annotation attempts of each present path that can hold a comment; blobs not
    scanned before are read once, in one stream, and scanned as they arrive. A file of a
    binary format (`recipes.zip`) is not read: an annotation is a comment line, and it has none
    (a clone that lacks such a blob still judges the release)."""
    out: dict[str, tuple[Parsed, ...]] = {}
    unseen: dict[str, list[str]] = {}  # blob id -> its paths, the first one read
    for path in paths:
        blob = snapshot.blob_id(path)
        if blob is None or not holds_comments(path):
            continue
        known = remembered(blob, syntax_for(path))
        if known is None:
            unseen.setdefault(blob, []).append(path)
        else:
            out[path] = known
    first = {found[0]: blob for blob, found in unseen.items()}
    for path, data in snapshot.read_each(list(first)):
        blob = first[path]
        for same in unseen[blob]:
            syntax = syntax_for(same)
            known = remembered(blob, syntax)
            out[same] = known if known is not None else scan_blob(blob, data, syntax)
    return out


def _scan_annotations(
    old: Snapshot | None,
    new: Snapshot,
    skip: Iterable[str],
    out: _Collector,
    is_migration: Callable[[str], bool],
) -> None:
    """Annotations present at the new ref and not at the old one, across every changed file.

    Old annotations of every changed file (deleted, modified, moved) form one pool, so an
    annotation that moved within a file or to another file is not counted again.
    """
    skipped = set(skip)
    changes = [c for c in changes_between(old, new) if c.path not in skipped]
    present = [c for c in changes if c.status != "deleted"]
    attempts = _annotations(new, [c.path for c in present])
    found = [(change, parsed) for change in present for parsed in attempts.get(change.path, ())]
    if not found:
        return
    pool: Counter[tuple[str, ...]] = Counter()
    if old is not None:
        before = _annotations(old, [c.old_path or c.path for c in changes if c.status != "added"])
        for parsed_before in before.values():
            pool.update(p.key() for p in parsed_before)
    for change, parsed in found:
        if pool[parsed.key()] > 0:
            pool[parsed.key()] -= 1
            continue
        if parsed.kind == ACKNOWLEDGE:  # the migrations surface applies them in migrations
            if not is_migration(change.path):
                message = (
                    "an acknowledgement outside a migration file has no effect: only migration "
                    "rules can be acknowledged, next to the statement"
                )
                out.findings.append(
                    _finding(rules.ACKNOWLEDGEMENT_MISPLACED.id, change.path, parsed.line, message)
                )
            continue
        if isinstance(parsed, Annotation):
            stop = parsed.required_stop
            out.declare(change.path, parsed.line, parsed.reason, stop, parsed.line)
        else:
            out.findings.append(
                _finding(
                    rules.MALFORMED.id,
                    change.path,
                    parsed.line,
                    f"malformed release-safety annotation: {parsed.problem}",
                    "Write `release-safety: breaking[(required-stop)] <reason>`.",
                )
            )


def _read(snapshot: Snapshot | None, path: str) -> bytes | None:
    if snapshot is None or snapshot.blob_id(path) is None:
        return None
    return snapshot.read(path)


def _scan_registry(old: Snapshot | None, new: Snapshot, path: str, out: _Collector) -> None:
    """Ids new at the new ref are declared; removed or edited old ids are findings."""
    before = reg.load(_read(old, path))
    after = reg.load(_read(new, path))
    for problem in after.problems if after is not None else []:
        out.findings.append(_malformed(path, problem.line, problem.message))
    if before is not None and not before.readable:
        message = (
            "the registry at the previous ref cannot be read, so every declaration now in it "
            "counts as new"
        )
        hint = (
            f"Restore {path} as the previous release has it if the file broke there; else "
            "nothing to do: its declarations count as new in this release only."
        )
        out.findings.append(_finding(rules.REGISTRY_MALFORMED.id, path, 1, message, hint))
    _check_append_only(before, after, path, out)
    if after is not None:
        _added(before.raw if before is not None else {}, after, new, path, out)


def _check_append_only(
    before: reg.Registry | None, after: reg.Registry | None, path: str, out: _Collector
) -> None:
    """Every id of the previous ref is still there, unchanged."""
    if before is None:
        return
    new_raw = after.raw if after is not None else {}
    anchor = after.line_of("declarations") if after is not None else 1
    for id_, old_entry in sorted(before.raw.items()):
        if id_ not in new_raw:
            message = (
                f"declaration {id_!r} was removed (line {before.line_of('declarations', id_)} at "
                "the previous ref); declaration ids are append-only"
            )
            hint = (
                f"Put declaration {id_!r} back in {path} as the previous release has it; "
                "declare new breaks under new ids."
            )
            out.findings.append(_finding(rules.ID_REMOVED.id, path, anchor, message, hint))
        elif after is not None and reg.edited(old_entry, new_raw[id_]):
            message = (
                f"declaration {id_!r} was edited; declaration ids are append-only, declare a new "
                "id for a new break"
            )
            line = after.line_of("declarations", id_)
            hint = (
                f"Restore declaration {id_!r} as released, and declare the corrected break "
                f"under a new id ({id_}-2)."
            )
            out.findings.append(_finding(rules.ID_EDITED.id, path, line, message, hint))


def _added(
    old_raw: dict[str, Any], after: reg.Registry, new: Snapshot, path: str, out: _Collector
) -> None:
    """Ids new at this ref: declared breaks, advisories, or findings when malformed or copied."""
    released = {_content(e) for e in old_raw.values() if isinstance(e, dict)}
    for id_ in sorted(set(after.raw) - set(old_raw)):
        checked = reg.entry(after, id_)
        if isinstance(checked, list):
            for problem in checked:
                out.findings.append(_malformed(path, problem.line, problem.message))
        elif _content(after.raw[id_]) in released:
            message = f"declaration {id_!r} repeats the reason and stop of a released declaration"
            hint = f"Say what {id_!r} breaks in its own words, or remove the copy."
            out.findings.append(_finding(rules.DUPLICATE.id, path, checked.line, message, hint))
        elif checked.advisory:
            message = f"declaration {id_!r} reaches no external caller: {checked.reason}"
            out.findings.append(_finding(rules.NO_EXTERNAL_CALLERS.id, path, checked.line, message))
        else:
            stop = checked.required_stop
            out.declare(path, checked.line, checked.reason, stop, checked.reason_line, id_)
            migration = after.raw[id_].get("migration")
            if migration is not None and not _exists(new, migration):
                line = after.line_of("declarations", id_, "migration")
                message = f"declaration {id_!r} names a migration that does not exist: {migration}"
                hint = f"Point `migration` of {id_!r} at the migration's path, or remove the key."
                out.findings.append(
                    _finding(rules.REGISTRY_MALFORMED.id, path, line, message, hint)
                )


def _exists(snapshot: Snapshot, path: str) -> bool:
    """True when the path is a file of the snapshot (control characters never are)."""
    if any(ord(char) < 32 for char in path):
        return False
    return snapshot.blob_id(path) is not None


def _content(raw: object) -> str:
    if not isinstance(raw, dict):
        return ""
    return json.dumps([raw.get("reason"), raw.get("requiredStop")])


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> DeclarationsReport:
    """Breaks declared between the refs; malformed or hollow declarations are unknown findings."""
    out = _Collector()
    registry_path = settings.declarations.registry
    tried = [f"declarations.registry = {registry_path!r}"]
    if settings.explicitly_set("declarations", "registry"):
        out.findings += unmatched(
            "declarations", "declarations.registry", [registry_path], new, settings.origin
        )
    if settings.declarations.annotations:
        tried.append("annotations in every changed file")
        skip = (registry_path, settings.overrides.file)
        _scan_annotations(old, new, skip, out, lambda path: source_of(path, settings) is not None)
    _scan_registry(old, new, registry_path, out)
    coverage = Coverage.of(
        tried,
        {registry_path: old.blob_id(registry_path)} if old is not None else {},
        {registry_path: new.blob_id(registry_path)},
    )
    return out.report(coverage)
