"""Build the sample service repository, then generate and index every release."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from release_safety import jsonio
from release_safety.artifact import surface_breaking
from release_safety.demo.service import RELEASES
from release_safety.generate import Generated, analyse_release, prepare
from release_safety.gitrepo import GitRepo
from release_safety.index import apply_floor, empty_index, entry_from_artifact, upsert
from release_safety.repobuilder import RepoBuilder
from release_safety.settings import load_settings


@dataclass(frozen=True)
class DemoResult:
    repo: Path
    index: Path
    artifacts: list[Path]
    generated: list[Generated]


def build_repository(path: Path) -> RepoBuilder:
    """The sample service with one tag `vX.Y.Z` per demo release."""
    builder = RepoBuilder(path)
    for release in RELEASES:
        for gone in release.deletes:
            builder.delete(gone)
        builder.release(release.version, release.files, prefix="v")
    return builder


def run_demo(folder: Path) -> DemoResult:
    """Build the repository in `folder/service`, write artifacts and the index beside it."""
    builder = build_repository(folder / "service")
    repo = GitRepo(builder.path)
    index = empty_index()
    artifacts: list[Path] = []
    results: list[Generated] = []
    try:
        for tag in repo.release_tags(load_settings(builder.path, None).tags):
            release, settings, _ = prepare(repo, tag.tag)
            generated = analyse_release(repo, settings, release)
            out = folder / "artifacts" / release.version / "release-safety.json"
            jsonio.write_atomic(out, jsonio.dumps(generated.artifact.to_json_data()))
            index, _ = upsert(index, entry_from_artifact(generated.artifact, backfilled=False))
            artifacts.append(out)
            results.append(generated)
    finally:
        repo.close()
    index = apply_floor(index, RELEASES[0].version)
    index_path = folder / "release-safety-index.json"
    jsonio.write_atomic(index_path, jsonio.dumps(index.to_json_data()))
    return DemoResult(builder.path, index_path, artifacts, results)


LEGEND = (
    "safe: rollingUpdateSafe, the verdict (only yes may roll; unknown counts as no)",
    "strategy: recommendedStrategy (RollingUpdate only when safe is yes)",
    "migrations, rest, mcp, config, deployment: does that surface break the previous release "
    "(yes, no, unknown)",
    "declared: breaks engineers declared; stops: required stops; min-previous: the oldest "
    "version that may upgrade directly",
)


def explain(result: DemoResult) -> list[str]:
    """Why the first unsafe release is not safe (each finding its verdict rests on, with its
    rule, place and safer alternative), a legend for the table, and the next command to try."""
    lines = ["legend:", *(f"  {line}" for line in LEGEND), ""]
    unsafe = next((g for g in result.generated if g.decision.rolling_update_safe is not True), None)
    if unsafe is not None:
        verdict = "false" if unsafe.decision.rolling_update_safe is False else "unknown"
        lines.append(
            f"why {unsafe.release.version} is not safe to roll (rollingUpdateSafe: {verdict}):"
        )
        for finding in unsafe.decision.reasons:
            where = f"{finding.file}:{finding.line or 1}" if finding.file else finding.surface
            lines.append(f"  [{finding.rule}] {where}: {finding.message}")
            if finding.hint:
                lines.append(f"      safer: {finding.hint}")
        lines.append("")
    first, last = result.generated[0].release.version, result.generated[-1].release.version
    lines += [
        "next: may an install on the first release roll to the last one? ask the index you "
        "just wrote:",
        f"  release-safety upgrade-check --from {first} --to {last} --index {result.index}",
        f"  release-safety upgrade-plan --from {first} --to {last} --index {result.index}",
    ]
    return lines


def _cell(value: bool | str) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def table(result: DemoResult) -> list[str]:
    """One line per release: verdict, strategy and each surface's breaking flag."""
    header = ["version", "safe", "strategy", "migrations", "rest", "mcp", "config", "deployment"]
    header += ["declared"]
    header += ["stops", "min-previous"]
    rows = [[*header, "story"]]
    stories = {r.version: r.story for r in RELEASES}
    for generated in result.generated:
        artifact = generated.artifact
        by_surface = {r.surface: r for r in generated.reports}
        rows.append(
            [
                artifact.version,
                _cell(artifact.compatibility.rollingUpdateSafe),
                artifact.compatibility.recommendedStrategy,
                _cell(surface_breaking(by_surface["migrations"])),
                _cell(artifact.api.rest.breaking),
                _cell(artifact.api.mcp.breaking),
                _cell(artifact.config.breaking),
                _cell(surface_breaking(by_surface["deployment"])),
                str(len(artifact.declaredBreaks)),
                ",".join(artifact.upgrade.requiredStops) or "-",
                artifact.upgrade.minPreviousVersion or "-",
                stories[artifact.version],
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, [*widths, 0], strict=True)) for row in rows
    ]
