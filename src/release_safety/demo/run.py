"""Build the sample service repository, then generate and index every release."""

from __future__ import annotations

import shlex
import textwrap
from dataclasses import dataclass
from pathlib import Path

from release_safety.common import jsonio
from release_safety.contract.index import apply_floor, empty_index, entry_from_artifact, upsert
from release_safety.contract.model import TriState
from release_safety.demo.service import RELEASES
from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.release.artifact import surface_breaking
from release_safety.release.generate import Generated, analyse_release, prepare
from release_safety.settings.model import load_settings


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


WIDTH = 100
"""Every line the demo prints fits a terminal this wide (a path longer than a line excepted)."""

LEGEND = (
    "safe: rollingUpdateSafe, the verdict (only yes may roll; unknown counts as no)",
    "strategy: recommendedStrategy (RollingUpdate only when safe is yes)",
    "breaks: the surfaces that break the previous release (migrations, rest, mcp, config, "
    "deployment; with ? where a break is not proven either way), and declared: breaks its "
    "engineers declared",
    "stops: required stops; min-previous: the oldest version that may upgrade directly",
)


def _wrap(text: str, indent: str, hang: str) -> list[str]:
    """`text` in lines of at most WIDTH, the first after `indent`, the rest after `hang`;
    rule ids, paths and SQL stay whole."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=hang,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _cell(value: bool | str) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def _breaks(generated: Generated) -> str:
    """The surfaces that break the previous release (`name?` where unknown), then `declared`
    when engineers declared a break."""
    artifact = generated.artifact
    by_surface = {r.surface: r for r in generated.reports}
    flags: dict[str, TriState] = {
        "migrations": surface_breaking(by_surface["migrations"]),
        "rest": artifact.api.rest.breaking,
        "mcp": artifact.api.mcp.breaking,
        "config": artifact.config.breaking,
        "deployment": surface_breaking(by_surface["deployment"]),
    }
    names = [name if flag is True else f"{name}?" for name, flag in flags.items() if flag]
    if artifact.declaredBreaks:
        names.append("declared")
    return ",".join(names) or "-"


def table(result: DemoResult) -> list[str]:
    """One line per release: verdict, strategy, what breaks, stops and minimum previous
    version; then the legend."""
    rows = [["version", "safe", "strategy", "breaks", "stops", "min-previous"]]
    for generated in result.generated:
        artifact = generated.artifact
        rows.append(
            [
                artifact.version,
                _cell(artifact.compatibility.rollingUpdateSafe),
                artifact.compatibility.recommendedStrategy,
                _breaks(generated),
                ",".join(artifact.upgrade.requiredStops) or "-",
                artifact.upgrade.minPreviousVersion or "-",
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    legend = [line for item in LEGEND for line in _wrap(item, "  ", "    ")]
    return [*lines, "", "legend:", *legend]


def explain(result: DemoResult) -> list[str]:
    """What each release changed and, under each one not safe to roll, the findings its
    verdict rests on: rule, file:line, what, and the safer way (the way out of an unknown)."""
    stories = {r.version: r.story for r in RELEASES}
    pad = max(len(g.release.version) for g in result.generated) + 2
    lines = [
        "release by release; under each one not safe to roll, why (rule, file:line, the way out):"
    ]
    for generated in result.generated:
        version = generated.release.version
        lines += _wrap(f"{version.ljust(pad)}{stories[version]}", "", " " * pad)
        verdict = generated.decision.rolling_update_safe
        if verdict is True:
            continue
        lines.append(f"{' ' * pad}rollingUpdateSafe {str(verdict).lower()}, because of:")
        for finding in generated.decision.reasons:
            text = f"[{finding.rule}] {finding.place() or finding.surface}: {finding.message}"
            lines += _wrap(text, f"{' ' * pad}- ", " " * (pad + 4))
            if finding.hint:
                label = "way out" if finding.severity == "unknown" else "safer"
                lines += _wrap(f"{label}: {finding.hint}", " " * (pad + 2), " " * (pad + 4))
    return lines


def next_steps(result: DemoResult) -> list[str]:
    """The upgrade-check and upgrade-plan to try on the index the demo wrote, from its folder."""
    first, last = result.generated[0].release.version, result.generated[-1].release.version
    span = f"--from {first} --to {last} --index {result.index.name}"
    return [
        f"next: may an install on {first} roll straight to {last}? ask the index the demo wrote:",
        f"  cd {shlex.quote(str(result.index.parent))}",
        f"  release-safety upgrade-check {span}",
        f"  release-safety upgrade-plan {span}",
    ]
