"""The migrations surface report: discovery, then per-file analysis."""

from __future__ import annotations

from release_safety.findings import Finding, MigrationsReport, Rule, register
from release_safety.model import Heaviness, MigrationFile
from release_safety.settings import Settings
from release_safety.snapshot import Snapshot
from release_safety.surfaces.migrations.discover import discover

NOT_ANALYSED = register(
    Rule(
        id="migration-not-analysed",
        surface="migrations",
        severity="unknown",
        title="A migration was not analysed",
        why="Without its statements classified, a migration's locks and compatibility are unknown.",
    )
)


def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> MigrationsReport:
    added, findings = discover(old, new, settings)
    files: list[MigrationFile] = []
    for migration in added:
        unknown = Heaviness(locksTable="unknown", rewritesTable="unknown", scansTable="unknown")
        files.append(
            MigrationFile(
                name=migration.name, edition=migration.edition, tables=[], heaviness=unknown
            )
        )
        findings.append(
            Finding(
                rule=NOT_ANALYSED.id,
                severity="unknown",
                surface="migrations",
                file=migration.path,
                line=1,
                message=f"{migration.path}: statements not classified",
            )
        )
    return MigrationsReport(surface="migrations", checked=True, findings=findings, files=files)
