"""Generate one release's artifact: resolve the refs, run every surface, decide, render."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from release_safety import reportcache
from release_safety.artifact import build_artifact, pick
from release_safety.errors import CheckError, InputError
from release_safety.findings import (
    DeclarationsReport,
    OverridesReport,
    Surface,
    SurfaceReport,
    not_checked,
)
from release_safety.gitrepo import GitRepo
from release_safety.model import Artifact, Upgrade
from release_safety.settings import Settings
from release_safety.snapshot import Snapshot
from release_safety.surfaces import config, declarations, mcp, migrations, overrides, rest
from release_safety.verdict import Decision, decide
from release_safety.versions import Version


@dataclass(frozen=True)
class Release:
    """What is being released: its version, refs, the release before it, and its date."""

    version: str
    to_ref: str
    from_ref: str | None
    previous_version: str | None
    release_date: str


@dataclass(frozen=True)
class Generated:
    release: Release
    reports: list[SurfaceReport]
    decision: Decision
    artifact: Artifact


def resolve_release(
    repo: GitRepo,
    settings: Settings,
    to_ref: str,
    from_ref: str | None = None,
    version: str | None = None,
) -> Release:
    """Name the release and find the one before it (the highest release tag below it)."""
    repo.resolve(to_ref)
    tags = repo.release_tags(settings.tags)
    tagged = settings.tags.version_of(to_ref)
    if version is None:
        if tagged is None:
            raise InputError(
                f"--to {to_ref!r} is not a release tag: name the release with --version"
            )
        version = str(tagged)
    elif tagged is not None and str(tagged) != version:
        raise InputError(f"--version {version} disagrees with the release tag {to_ref!r}")
    if from_ref is None:
        this = Version.maybe(version)
        below = [t for t in tags if this is None or t.version < this]
        previous_tag = below[-1] if below else None
        from_ref = previous_tag.tag if previous_tag else None
        previous = str(previous_tag.version) if previous_tag else None
    else:
        repo.resolve(from_ref)
        found = settings.tags.version_of(from_ref)
        previous = str(found) if found else None
    return Release(
        version=version,
        to_ref=to_ref,
        from_ref=from_ref,
        previous_version=previous,
        release_date=repo.commit_date(to_ref),
    )


Analyser = Callable[[Snapshot | None, Snapshot, Settings], SurfaceReport]


# Surfaces that read named files first, while git computes the diff the others need.
SNAPSHOT_SURFACES: Sequence[tuple[Surface, Analyser]] = (
    ("rest", rest.analyse),
    ("mcp", mcp.analyse),
    ("config", config.analyse),
    ("migrations", migrations.analyse),
    ("declarations", declarations.analyse),
)


def run_surfaces(
    old: Snapshot | None, new: Snapshot, settings: Settings, version: str
) -> list[SurfaceReport]:
    """Every surface's report for the release `version` between two snapshots.

    A surface whose files git cannot read (a missing object in a partial clone, say) is not
    checked, with the reason; the other surfaces still run.
    """
    reports = []
    for surface, analyse in SNAPSHOT_SURFACES:
        try:
            reports.append(analyse(old, new, settings))
        except CheckError as exc:
            reports.append(not_checked(surface, exc.message))
    return [*reports, overrides.analyse(new, settings, version)]


def upgrade_of(reports: Sequence[SurfaceReport], version: str) -> Upgrade:
    """The artifact's upgrade block from the overrides and the declared breaks."""
    found_overrides = pick(reports, OverridesReport, "overrides")
    found_declarations = pick(reports, DeclarationsReport, "declarations")
    return overrides.upgrade_block(
        found_overrides or OverridesReport(surface="overrides", checked=False),
        found_declarations or DeclarationsReport(surface="declarations", checked=False),
        version,
    )


def analyse_release(
    repo: GitRepo,
    settings: Settings,
    release: Release,
    backfilled: bool = False,
    use_cache: bool = False,
) -> Generated:
    """Run every surface between the two refs (or read their cached reports) and decide."""
    old = repo.snapshot(release.from_ref) if release.from_ref else None
    new = repo.snapshot(release.to_ref)
    key, reports = None, None
    if use_cache:
        key = reportcache.report_key(
            settings, release.version, old.commit if old else None, new.commit
        )
        reports = reportcache.load(key)
    if reports is None:
        if old is not None:
            repo.start_diff(old.commit, new.commit)  # git works while the first surfaces run
        reports = run_surfaces(old, new, settings, release.version)
        if key is not None:
            reportcache.store(key, reports)
    decision = decide(reports, backfilled=backfilled)
    artifact = build_artifact(
        version=release.version,
        previous_version=release.previous_version,
        release_date=release.release_date,
        reports=reports,
        decision=decision,
        upgrade=upgrade_of(reports, release.version),
    )
    return Generated(release, reports, decision, artifact)
