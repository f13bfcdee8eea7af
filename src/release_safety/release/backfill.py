"""Backfill: generate a backfilled entry for every release tag from the floor up.

Every release is judged with today's settings (the maintainer's best knowledge of where the
surfaces were), leniently: a path the settings name that an old release does not have makes
that surface not checked for that release, not the whole run fail. Resumable (entries already
in the index are kept unless `regenerate`), checkpointed (every few seconds the artifacts
written since the last checkpoint are synced, and the new entries are merged into the index as
it is on disk, under its lock, so a killed run resumes where it stopped and an `index update`
made meanwhile is kept), and parallel (`jobs` worker processes, each with its own git reader
and caches, spawned rather than forked, each ending when the backfill's process does, even
killed). Only the workers import the analysers; the backfill's process lists, merges and writes.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import math
import multiprocessing
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from release_safety.common import jsonio
from release_safety.common.errors import InputError
from release_safety.common.spelling import word
from release_safety.contract.index import (
    apply_floor,
    entry_from_artifact,
    index_lock,
    merge,
    read_index,
    write_index,
)
from release_safety.contract.model import Artifact, Index, IndexEntry
from release_safety.contract.release import Release
from release_safety.contract.versions import Version
from release_safety.git.repository import GitRepo, ReleaseTag
from release_safety.release.previous import earlier_tag
from release_safety.settings.atref import ReleaseSettings, SettingsAt
from release_safety.settings.model import Settings

CHECKPOINT_SECONDS = 2.0
ORPHAN_CHECK_SECONDS = 0.2
RESULTS_AT_ONCE = 8
"""Releases a worker analyses before it hands their outcomes over."""


@dataclass(frozen=True)
class Outcome:
    """One release's backfilled artifact, and the error when generation failed."""

    artifact: Artifact
    error: str | None = None


def releases_to_backfill(
    tags: list[ReleaseTag],
    floor: str | None,
    through: str | None,
    earlier: ReleaseTag | None = None,
) -> list[Release]:
    """Every release tag from the floor through `through`, each with the tag before it (the
    first with `earlier`, the nearest version tag below it outside the pattern, if any)."""
    low = Version.parse(floor) if floor else None
    high = Version.parse(through) if through else None
    if low is not None and all(t.version != low for t in tags):
        raise InputError(f"floor {floor} is not a release tag of this repository")
    releases = []
    for i, tag in enumerate(tags):
        if (low is not None and tag.version < low) or (high is not None and high < tag.version):
            continue
        previous = tags[i - 1] if i else earlier
        releases.append(
            Release(
                version=str(tag.version),
                to_ref=tag.commit,
                from_ref=previous.commit if previous else None,
                previous_version=str(previous.version) if previous else None,
                release_date=tag.date,
                previous_tag=earlier.tag if earlier and not i else None,
            )
        )
    return releases


_worker: tuple[GitRepo, ReleaseSettings, bool] | None = None


def _end_with_parent(parent: int) -> None:
    """A worker whose backfill process is gone (even killed with SIGKILL) ends too; its git
    readers then read end-of-file and end as well."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="release-safety-orphan-watch", daemon=True).start()


def _open_worker(repo_path: str, settings: Settings, use_cache: bool) -> None:
    global _worker
    import release_safety.release.generate  # noqa: F401  the analysers, before the first release

    judged_with = ReleaseSettings(SettingsAt(settings, "the backfill's settings"))
    _worker = (GitRepo(repo_path), judged_with, use_cache)


def _init_worker(repo_path: str, settings: Settings, use_cache: bool, parent: int) -> None:
    _end_with_parent(parent)
    _open_worker(repo_path, settings, use_cache)
    atexit.register(_end_worker)


def _end_worker() -> None:
    """A worker's last act, once its results are sent: stop its git readers (reaped, not left
    to init) and end without tearing the interpreter down (a few tenths of a second)."""
    assert _worker is not None
    _worker[0].close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _generate_one(release: Release) -> Outcome:
    """Generate in a worker; any failure becomes an all-unknown artifact with the error."""
    from release_safety.release.artifact import unknown_artifact
    from release_safety.release.generate import analyse_release

    assert _worker is not None
    repo, settings, use_cache = _worker
    repo.known_commits(*(ref for ref in (release.to_ref, release.from_ref) if ref))
    try:
        generated = analyse_release(
            repo, settings, release, backfilled=True, use_cache=use_cache, strict=False
        )
        return Outcome(generated.artifact)
    except Exception as exc:
        fallback = unknown_artifact(release.version, release.previous_version, release.release_date)
        return Outcome(fallback, f"{type(exc).__name__}: {exc}")


def generate_all(
    repo_path: Path, settings: Settings, releases: list[Release], jobs: int, use_cache: bool
) -> Iterator[Outcome]:
    """Outcomes in release order; `jobs` > 1 gives each process a contiguous part."""
    global _worker
    if jobs <= 1 or len(releases) < 2:
        _open_worker(str(repo_path), settings, use_cache)
        try:
            for release in releases:
                yield _generate_one(release)
        finally:
            assert _worker is not None
            _worker[0].close()  # this process's reader: close it rather than leave it running
            _worker = None
        return
    # One worker per contiguous part, each its own single-process pool: a worker goes through
    # consecutive releases, so each tree, diff and parse is carried to the next release rather
    # than done again by another worker (interleaved chunks cost a third more in all).
    # Spawned, not forked: this process may have loaded the Dockerfile parser, a Go library
    # whose runtime does not survive fork (a forked worker deadlocks in it). A spawned worker
    # costs its imports once (about a second, the workers in parallel) and gets its settings
    # pickled.
    parts = contiguous_parts(releases, jobs)
    context = multiprocessing.get_context("spawn")
    with contextlib.ExitStack() as stack:
        pools = [
            stack.enter_context(
                ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=context,
                    initializer=_init_worker,
                    initargs=(str(repo_path), settings, use_cache, os.getpid()),
                )
            )
            for _ in parts
        ]
        results = [
            pool.map(_generate_one, part, chunksize=RESULTS_AT_ONCE)
            for pool, part in zip(pools, parts, strict=True)
        ]
        for outcomes in results:
            yield from outcomes


NEWEST_COST = 2.5
"""A release's cost at the newest release, the oldest's being 1 (`contiguous_parts`)."""


def contiguous_parts(releases: list[Release], jobs: int) -> list[list[Release]]:
    """`jobs` contiguous parts of about equal cost, taking a release's cost to grow from 1 at
    the oldest to `NEWEST_COST` at the newest (repositories grow: the newer half of
    supabase/auth's releases cost 1.7 times the older half; each part after the first also
    starts on trees it has not read). With 3, harbor's first worker of two ended its 88
    releases with 8.5 s of CPU, the second its 55 with 7.6 s; with 2.5, 86 and 57: 7.9-8.1 s
    and 7.7-7.9 s."""
    n, rise = len(releases), NEWEST_COST - 1
    total = (1 + NEWEST_COST) / 2  # the cost of all, the oldest's being 1 and the whole 1 long
    bounds = [
        round(n * (math.sqrt(1 + 2 * rise * total * j / jobs) - 1) / rise) for j in range(jobs + 1)
    ]
    return [releases[a:b] for a, b in itertools.pairwise(bounds) if b > a]


@dataclass
class BackfillResult:
    index: Index
    generated: int
    skipped: int
    kept_release_entries: int
    failures: list[str]
    verdicts: Counter[str] = field(default_factory=Counter)
    """The generated entries by verdict (`true`, `false`, `unknown`)."""


def backfill(
    *,
    repo_path: Path,
    settings: Settings,
    index: Index,
    index_path: Path,
    floor: str | None,
    through: str | None,
    artifacts_dir: Path | None,
    regenerate: bool,
    force: bool,
    jobs: int,
    progress: Callable[[int, int, Outcome], None],
    checkpoint_seconds: float = CHECKPOINT_SECONDS,
    use_cache: bool = True,
) -> BackfillResult:
    """Run the backfill, checkpointing the index; returns the final index (floor applied)."""
    repo = GitRepo(repo_path)
    try:
        tags = repo.release_tags(settings.tags)
        earlier = earlier_tag(repo, tags[0].commit, tags[0].version) if tags else None
    finally:
        repo.close()
    given = floor or settings.floor_version
    floor = str(Version.parse(given)) if given else index.backfillFloorVersion
    releases = releases_to_backfill(tags, floor, through, earlier)
    existing = {e.version: e for e in index.entries}
    todo = [
        r
        for r in releases
        if r.version not in existing
        or (regenerate and existing[r.version].backfilled)
        or (force and not existing[r.version].backfilled)
    ]
    own = [r for r in releases if r.version in existing and not existing[r.version].backfilled]
    kept = 0 if force else len(own)
    result = BackfillResult(index, 0, len(releases) - len(todo), kept, [])
    checkpoint = _Checkpoint(index_path, floor, force)
    with _artifacts_lock(artifacts_dir):
        for done, outcome in enumerate(
            generate_all(repo_path, settings, todo, jobs, use_cache), start=1
        ):
            artifact = outcome.artifact
            if outcome.error:
                result.failures.append(f"{artifact.version}: {outcome.error}")
            if artifacts_dir is not None:
                target = artifacts_dir / artifact.version / "release-safety.json"
                jsonio.write_atomic(target, jsonio.dumps(artifact.to_json_data()), durable=False)
                checkpoint.unsynced.append(target)
            entry = entry_from_artifact(artifact, backfilled=True)
            checkpoint.entries.append(entry)
            result.verdicts[word(entry.rollingUpdateSafe)] += 1
            result.generated += 1
            progress(done, len(todo), outcome)
            if time.monotonic() - checkpoint.taken >= checkpoint_seconds:
                checkpoint.take()
        result.index = checkpoint.take()
    return result


def _artifacts_lock(folder: Path | None) -> contextlib.AbstractContextManager[object]:
    """One backfill at a time writes an artifacts folder (a second one fails at once)."""
    if folder is None:
        return contextlib.nullcontext()
    return jsonio.FileLock(folder, 0.0, "the artifacts folder")


class _Checkpoint:
    """What a checkpoint makes durable: the artifacts written since the last one (synced in one
    batch), then the entries generated since, merged into the index as it is on disk now."""

    def __init__(self, index_path: Path, floor: str | None, force: bool) -> None:
        self.index_path = index_path
        self.floor = floor
        self.force = force
        self.unsynced: list[Path] = []
        self.entries: list[IndexEntry] = []
        self.taken = time.monotonic()

    def take(self) -> Index:
        jsonio.sync_files(self.unsynced)
        self.unsynced.clear()
        with index_lock(self.index_path):
            merged, _ = merge(read_index(self.index_path), self.entries, force=self.force)
            merged = apply_floor(merged, self.floor)
            write_index(self.index_path, merged)
        self.entries.clear()
        self.taken = time.monotonic()
        return merged
