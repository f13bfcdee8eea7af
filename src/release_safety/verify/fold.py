"""`generate --verify`: a release's verification folded into its judgement (pure). The
verification's findings join the migrations surface's (a `static-missed` makes the release
unsafe, an `unverified` unknown), a flag PostgreSQL showed true that the static analysis set
false is true in the artifact, and the verdict is decided again."""

from __future__ import annotations

from release_safety.contract.model import Heaviness, MigrationFile
from release_safety.contract.reports import Finding, MigrationsReport, SurfaceReport
from release_safety.contract.verification import Verification
from release_safety.release.generate import Generated, decided

_FLAGS = ("locksTable", "rewritesTable", "scansTable")


def _heavier(file: MigrationFile, observed: Heaviness | None) -> MigrationFile:
    if observed is None:
        return file
    flags = {
        name: True if getattr(observed, name) is True else getattr(file.heaviness, name)
        for name in _FLAGS
    }
    return file.model_copy(update={"heaviness": Heaviness(**flags)})


def _with(report: SurfaceReport, verification: Verification) -> SurfaceReport:
    if not isinstance(report, MigrationsReport):
        return report
    observed = {f.file.rpartition("/")[2]: f.observed for f in verification.files}
    findings = sorted([*report.findings, *verification.findings], key=Finding.sort_key)
    files = [_heavier(file, observed.get(file.name)) for file in report.files]
    return report.model_copy(update={"findings": findings, "files": files})


def with_verification(
    generated: Generated, verification: Verification, backfilled: bool = False
) -> Generated:
    """The release judged again with what PostgreSQL showed."""
    reports = [_with(report, verification) for report in generated.reports]
    return decided(generated.release, reports, backfilled)
