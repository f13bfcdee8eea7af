"""Generate one release's artifact: resolve the refs, run every surface, decide, render."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from release_safety.common.errors import CheckError, InputError, ReleaseSafetyError
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
from release_safety.release import beside, reportcache
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
from release_safety.surfaces import settingsdiff
from release_safety.surfaces.discovery import is_settings_error

if TYPE_CHECKING:  # the artifact's and the evidence's models are built after the surfaces ran
    # (imported then: in the parent, beside the child that judges config)
    from release_safety.contract.evidence import Evidence
    from release_safety.contract.model import Artifact, Upgrade


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


def _imported(module: str) -> Analyser:
    """A surface's `analyse`, its module imported when it first runs: surfaces judged in a
    forked child (`run_surfaces`) are imported there, the others here meanwhile."""

    def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport:
        found: Analyser = import_module(module).analyse
        return found(old, new, settings)

    return analyse


# Surfaces that read named files first, while git computes the diff the others need.
SNAPSHOT_SURFACES: Sequence[tuple[Surface, Analyser]] = (
    ("rest", _imported("release_safety.surfaces.rest.analyse")),
    ("mcp", _imported("release_safety.surfaces.mcp")),
    ("config", _imported("release_safety.surfaces.config")),
    ("deployment", _imported("release_safety.surfaces.deployment")),
    ("migrations", _imported("release_safety.surfaces.migrations.analyse")),
    ("declarations", _imported("release_safety.surfaces.declarations")),
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
    fork_git: GitRepo | None = None,
) -> list[SurfaceReport]:
    """Every surface's report for the release `version` between two snapshots.

    A surface whose files git cannot read (a missing object in a partial clone, say) is not
    checked, with the reason; the other surfaces still run. With `catch_input` (the run with
    the previous release's settings) bad input in a surface is "not checked" too. With
    `fork_git` (the repository the snapshots read), the `BESIDE` surfaces run in a forked
    child while this process runs the others, where a fork is possible (`release/beside.py`);
    the reports, and an error a surface raises, are those of a run one after the other.
    """
    caught: tuple[type[ReleaseSafetyError], ...] = (
        (CheckError, InputError) if catch_input else (CheckError,)
    )

    def run(surfaces: Sequence[tuple[Surface, Analyser]]) -> _Outcome:
        reports = []
        for surface, analyse in surfaces:
            try:
                reports.append(analyse(old, new, settings))
            except caught as exc:
                reports.append(_not_read(surface, exc))
            except Exception as exc:  # raised by the caller, in the surfaces' order
                return reports, (surface, exc)
        return reports, None

    there = [(s, a) for s, a in SNAPSHOT_SURFACES if s in BESIDE]
    child = None
    if fork_git is not None and beside.possible():
        fork_git.settle()
        child = beside.Beside(partial(run, there), fork_git.own_processes)
    try:
        here = run([(s, a) for s, a in SNAPSHOT_SURFACES if child is None or s not in BESIDE])
        # the overrides need no other surface's report: judged while the child works on, as is
        # the artifact's module imported (its error, if any, raised after the surfaces' own)
        last, failed = run([("overrides", _overrides(version))])
        import_module("release_safety.release.artifact")
        outcomes = [here]
        if child is not None:
            outcomes.append(_beside_outcome(child, there))
            child = None
    finally:
        if child is not None:
            child.cancel()
    reports = _in_order(outcomes)
    if failed is not None:
        raise failed[1]
    return [*reports, *last]


def _overrides(version: str) -> Analyser:
    """The overrides surface's `analyse` for the release `version`, imported when it runs."""

    def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport:
        from release_safety.surfaces import overrides

        return overrides.analyse(old, new, settings, version)

    return analyse


BESIDE: frozenset[Surface] = frozenset({"config"})
"""The surfaces a release may judge in a forked child beside the others (`run_surfaces`):
config reads the most code, about as long as the others together."""

_Outcome = tuple[list[SurfaceReport], tuple[Surface, Exception] | None]
"""The reports of some surfaces in order, up to the first that raised, and what it raised."""


def _beside_outcome(
    child: beside.Beside[_Outcome], surfaces: Sequence[tuple[Surface, Analyser]]
) -> _Outcome:
    """The child's outcome; each of its surfaces not checked, with the reason, when the child
    ended without one."""
    try:
        return child.result()
    except beside.Died as exc:
        reason = f"the process judging it beside the others ended without an answer ({exc})"
        hint = "Run the release again; if it ends so again, report it with the command."
        return [
            not_checked(s, f"{s} surface not checked: {reason}", hint=hint) for s, _ in surfaces
        ], None


def _in_order(outcomes: Sequence[_Outcome]) -> list[SurfaceReport]:
    """The reports in `SNAPSHOT_SURFACES` order, or the error of the first surface (in that
    order) that raised one, as a run one surface after the other would have raised it."""
    order = [surface for surface, _ in SNAPSHOT_SURFACES]
    raised = [failed for _, failed in outcomes if failed is not None]
    if raised:
        raise min(raised, key=lambda failed: order.index(failed[0]))[1]
    by_surface = {report.surface: report for reports, _ in outcomes for report in reports}
    return [by_surface[surface] for surface in order]


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
    from release_safety.release.artifact import pick
    from release_safety.surfaces import overrides

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
    fork_git: GitRepo | None = None,
) -> list[SurfaceReport]:
    """Every surface with the release's settings, combined with a run with the previous
    release's when they differ, and the settings surface (with `notes`, what the release was
    judged against). Each run's settings are fitted to the span first (`release/span.py`:
    an entry naming files only at other releases is left out, with a note). A strict run
    raises on bad settings (exit 2); a lenient one reports the surfaces they concern not
    checked. `fork_git`: see `run_surfaces`."""
    elsewhere = elsewhere or (lambda entry: None)
    span = fit(settings.current.settings, old, new, elsewhere)
    if strict:
        raise_typos(span)
    reports = run_surfaces(old, new, span.settings, version, fork_git=fork_git)
    if strict:
        raise_settings_errors(reports)
    if settings.differ:
        assert settings.previous is not None
        before = fit(settings.previous.settings, old, new, elsewhere).settings
        other = run_surfaces(old, new, before, version, catch_input=True, fork_git=fork_git)
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
    side_by_side: bool = False,
) -> Generated:
    """Judge the release between its two refs (or read the cached reports) and decide; the
    first release (no previous ref) is compared with itself: nothing ran before it. With
    `say_settings`, a note names the settings when they are not the release's own
    (`release/judgedwith.py`; the pull-request gate weighs both refs' own instead). With
    `side_by_side`, some surfaces may run in a forked child beside the others (`run_surfaces`;
    never in a backfill's workers, which already use the cores)."""
    new = repo.snapshot(release.to_ref)
    old = repo.snapshot(release.from_ref) if release.from_ref else new
    key, reports = None, None
    place = f"{repo.path}\0{repo.resolve('HEAD')}"
    elsewhere = elsewhere_in(place, partial(_other_refs, repo, settings.current.settings))
    if old is not new:  # git works meanwhile, and the new tree is then known from the old one
        repo.start_diff(old.commit, new.commit)
    repo.start_tree(old.commit)  # listed meanwhile too, when not known yet
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
        fork_git = repo if side_by_side else None
        reports = judge(old, new, settings, release.version, strict, notes, elsewhere, fork_git)
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
    from release_safety.release.artifact import build_artifact

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
    from release_safety.contract.evidence import Evidence, SurfaceEvidence

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
