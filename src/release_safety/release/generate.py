"""Generate one release's artifact: resolve the refs, run every surface, decide, render."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from release_safety.common.errors import CheckError, InputError, ReleaseSafetyError
from release_safety.contract.evidence import Evidence, SurfaceEvidence
from release_safety.contract.model import Artifact, Upgrade
from release_safety.contract.release import Release
from release_safety.contract.reports import (
    DeclarationsReport,
    Finding,
    OverridesReport,
    Surface,
    SurfaceReport,
    all_findings,
    not_checked,
)
from release_safety.contract.versions import Version, plain_version
from release_safety.git.repository import GitRepo
from release_safety.git.snapshot import Snapshot
from release_safety.release import reportcache
from release_safety.release.artifact import build_artifact, pick
from release_safety.release.combine import combine_runs
from release_safety.release.judgedwith import judged_with
from release_safety.release.previous import earlier_tag, judged_against
from release_safety.release.span import Elsewhere, elsewhere_in, fit, raise_typos
from release_safety.release.verdict import Decision, decide
from release_safety.settings.atref import (
    ReleaseSettings,
    release_settings,
    settings_at_ref,
    settings_file,
    uncommitted,
)
from release_safety.settings.model import Settings
from release_safety.surfaces import (
    config,
    declarations,
    deployment,
    mcp,
    overrides,
    settingsdiff,
)
from release_safety.surfaces.discovery import is_settings_error
from release_safety.surfaces.migrations.analyse import analyse as migrations_analyse
from release_safety.surfaces.rest.analyse import analyse as rest_analyse


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
    """Name the release and find the one before it: the highest release tag below it, else
    the nearest earlier version tag (`release/previous.py`), else none."""
    repo.resolve(to_ref)
    tags = repo.release_tags(settings.tags)
    tagged = settings.tags.version_of(to_ref)
    version = plain_version(version) if version is not None else None
    if version is None:
        if tagged is None:
            raise InputError(
                f"--to {to_ref!r} is not a release tag: name the release with --version"
            )
        version = str(tagged)
    elif tagged is not None and str(tagged) != version:
        raise InputError(f"--version {version} disagrees with the release tag {to_ref!r}")
    outside: str | None = None
    if from_ref is None:
        this = Version.maybe(version)
        below = [t for t in tags if this is None or t.version < this]
        previous_tag = below[-1] if below else earlier_tag(repo, repo.resolve(to_ref), this)
        from_ref = previous_tag.tag if previous_tag else None
        previous = str(previous_tag.version) if previous_tag else None
        outside = previous_tag.tag if previous_tag and not below else None
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
        previous_tag=outside,
    )


Analyser = Callable[[Snapshot | None, Snapshot, Settings], SurfaceReport]


# Surfaces that read named files first, while git computes the diff the others need.
SNAPSHOT_SURFACES: Sequence[tuple[Surface, Analyser]] = (
    ("rest", rest_analyse),
    ("mcp", mcp.analyse),
    ("config", config.analyse),
    ("deployment", deployment.analyse),
    ("migrations", migrations_analyse),
    ("declarations", declarations.analyse),
)


def prepare(
    repo: GitRepo,
    to_ref: str,
    from_ref: str | None = None,
    version: str | None = None,
    config: Path | None = None,
) -> tuple[Release, ReleaseSettings, str | None]:
    """The release, the settings to judge it with (`settings/atref.py`: the `config` file, else
    those committed at `to_ref`, else the adopting ones; and the previous release's), and a
    warning saying which settings judge it when they are not `to_ref`'s own, or when the
    working tree's settings differ from the committed ones `to_ref` is judged with."""
    where = settings_file(config)
    current = settings_at_ref(repo, to_ref, where, adopt=True)
    release = resolve_release(repo, current.settings, to_ref, from_ref, version)
    settings = release_settings(repo, current, release.from_ref, where, adopt=True)
    said = judged_with(current)
    return release, settings, said.message if said else uncommitted(repo, where, current, to_ref)


def run_surfaces(
    old: Snapshot | None,
    new: Snapshot,
    settings: Settings,
    version: str,
    catch_input: bool = False,
) -> list[SurfaceReport]:
    """Every surface's report for the release `version` between two snapshots.

    A surface whose files git cannot read (a missing object in a partial clone, say) is not
    checked, with the reason; the other surfaces still run. With `catch_input` (the run with
    the previous release's settings) bad input in a surface is "not checked" too.
    """
    reports = []
    caught: tuple[type[ReleaseSafetyError], ...] = (
        (CheckError, InputError) if catch_input else (CheckError,)
    )
    for surface, analyse in SNAPSHOT_SURFACES:
        try:
            reports.append(analyse(old, new, settings))
        except caught as exc:
            reports.append(_not_read(surface, exc))
    try:
        reports.append(overrides.analyse(old, new, settings, version))
    except caught as exc:
        reports.append(_not_read("overrides", exc))
    return reports


def _not_read(surface: Surface, exc: ReleaseSafetyError) -> SurfaceReport:
    """A surface whose files git could not read, or whose input was bad (in the run with the
    previous release's settings), with the way out for that case."""
    if isinstance(exc, CheckError):
        hint = (
            "Make every object of the two refs readable (a full clone: `git fetch --unshallow` "
            "and no partial-clone filter), then run again."
        )
    else:
        hint = f"Correct what the message names ({exc.message}); it is read at the earlier ref."
    return not_checked(surface, exc.message, hint=hint)


def settings_errors(reports: Sequence[SurfaceReport]) -> list[Finding]:
    """Findings the user must fix in the settings (exit 2 in a strict run)."""
    return [f for r in reports for f in r.findings if is_settings_error(f)]


def raise_settings_errors(reports: Sequence[SurfaceReport]) -> None:
    """Bad settings end a strict command with one line naming the key and the path."""
    errors = settings_errors(reports)
    if errors:
        first = errors[0].message.replace(" surface not checked: ", ": ", 1)
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InputError(first + more)


def upgrade_of(reports: Sequence[SurfaceReport], version: str) -> Upgrade:
    """The artifact's upgrade block from the overrides and the declared breaks."""
    found_overrides = pick(reports, OverridesReport, "overrides")
    found_declarations = pick(reports, DeclarationsReport, "declarations")
    return overrides.upgrade_block(
        found_overrides or OverridesReport(surface="overrides", checked=False),
        found_declarations or DeclarationsReport(surface="declarations", checked=False),
        version,
    )


def judge(
    old: Snapshot | None,
    new: Snapshot,
    settings: ReleaseSettings,
    version: str,
    strict: bool,
    notes: Sequence[Finding] = (),
    elsewhere: Elsewhere | None = None,
) -> list[SurfaceReport]:
    """Every surface with the release's settings, combined with a run with the previous
    release's when they differ, and the settings surface (with `notes`, what the release was
    judged against). Each run's settings are fitted to the span first (`release/span.py`:
    an entry naming files only at other releases is left out, with a note). A strict run
    raises on bad settings (exit 2); a lenient one reports the surfaces they concern not
    checked."""
    elsewhere = elsewhere or (lambda entry: None)
    span = fit(settings.current.settings, old, new, elsewhere)
    if strict:
        raise_typos(span)
    reports = run_surfaces(old, new, span.settings, version)
    if strict:
        raise_settings_errors(reports)
    if settings.differ:
        assert settings.previous is not None
        before = fit(settings.previous.settings, old, new, elsewhere).settings
        other = run_surfaces(old, new, before, version, catch_input=True)
        reports = combine_runs(reports, other)
    report = settingsdiff.analyse(settings.previous, settings.current, old, new, settings.problem)
    found = [*report.findings, *notes, *span.notes]
    report.findings = sorted(found, key=Finding.sort_key)
    return [*reports, report]


def analyse_release(
    repo: GitRepo,
    settings: ReleaseSettings,
    release: Release,
    backfilled: bool = False,
    use_cache: bool = False,
    strict: bool = True,
    say_settings: bool = True,
) -> Generated:
    """Judge the release between its two refs (or read the cached reports) and decide; the
    first release (no previous ref) is compared with itself: nothing ran before it. With
    `say_settings`, a note names the settings when they are not the release's own
    (`release/judgedwith.py`; the pull-request gate weighs both refs' own instead)."""
    new = repo.snapshot(release.to_ref)
    old = repo.snapshot(release.from_ref) if release.from_ref else new
    key, reports = None, None
    place = f"{repo.path}\0{repo.resolve('HEAD')}"
    elsewhere = elsewhere_in(place, partial(_other_refs, repo, settings.current.settings))
    if old is not new:  # git works meanwhile, and the new tree is then known from the old one
        repo.start_diff(old.commit, new.commit)
    if use_cache:
        fitted = fitted_key(settings, old, new, elsewhere)
        key = reportcache.report_key(fitted, release.version, old.commit, new.commit)
        reports = reportcache.load(key)
    if reports is None:
        current = settings.current
        notes = judged_against(
            release,
            current.settings.tag_pattern,
            current.settings.origin,
            settingsdiff.key_line(current.text, "tag_pattern"),
        )
        said = judged_with(current) if say_settings else None
        notes += [said] if said is not None else []
        reports = judge(old, new, settings, release.version, strict, notes, elsewhere)
        if key is not None:
            reportcache.store(key, reports)
    return decided(release, reports, backfilled)


def fitted_key(
    settings: ReleaseSettings, old: Snapshot | None, new: Snapshot, elsewhere: Elsewhere
) -> str:
    """What a release's reports depend on besides its two commits and the code, for the report
    cache: the settings and where they come from, and how each run's settings fit the span
    (`span.fit`: which entries match nothing at either ref, and whether HEAD or another release
    has their files). The last moves with HEAD and the tags, not with the release: an entry
    whose files HEAD no longer has, nor any release, is a typo now, not a coverage note."""
    runs = [settings.current.settings]
    if settings.differ and settings.previous is not None:
        runs.append(settings.previous.settings)
    parts = [settings.key()]
    for run in runs:
        span = fit(run, old, new, elsewhere)
        parts += [*(note.message for note in span.notes), *span.typos, "-"]
    return "\0".join(parts)


def decided(release: Release, reports: list[SurfaceReport], backfilled: bool = False) -> Generated:
    """The release's verdict and artifact from its surface reports."""
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


def _other_refs(repo: GitRepo, settings: Settings) -> Iterator[Snapshot]:
    """HEAD, then the release tags, newest first: where a settings entry that names nothing
    at a release is looked for (a place the project used at another time, or a typo)."""
    yield repo.snapshot("HEAD")
    for tag in reversed(repo.release_tags(settings.tags)):
        yield repo.snapshot(tag.tag)


def evidence_document(generated: Generated) -> Evidence:
    """All findings of a release, sorted, with the verdict and, per surface, whether it was
    checked and what it read (the settings entries tried, the files read with their blob ids
    at each ref)."""
    release = generated.release
    return Evidence(
        schemaVersion="1",
        version=release.version,
        previousVersion=release.previous_version,
        fromRef=release.from_ref,
        toRef=release.to_ref,
        rollingUpdateSafe=generated.decision.rolling_update_safe,
        decisionRow=generated.decision.row,
        because=generated.decision.reasons,
        surfaces=[
            SurfaceEvidence(
                surface=r.surface, checked=r.checked, reason=r.reason, coverage=r.coverage
            )
            for r in generated.reports
        ],
        findings=all_findings(generated.reports),
    )
