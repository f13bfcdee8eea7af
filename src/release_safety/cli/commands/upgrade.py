"""`upgrade-check` and `upgrade-plan`: may an install roll from one version to another, and how.

Exit codes: 0 when the span is proven safe (check) or a complete route exists (plan); 1 unsafe,
unknown or incomplete; 2 bad usage or a malformed version; 3 the index could not be fetched,
read or validated.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from release_safety.cli.commands.options import help_epilog
from release_safety.cli.render import VERDICT_WORDS
from release_safety.common.jsonio import dumps_plain
from release_safety.common.spelling import word
from release_safety.contract.versions import Version
from release_safety.upgrade.check import INDEX_OPTIONS, check_json, load_releases
from release_safety.upgrade.span import (
    MissingRange,
    Releases,
    SpanResult,
    Verdicts,
    evaluate_span,
    releases_by_verdict,
)

if TYPE_CHECKING:
    from release_safety.contract.model import MissingRange as ContractRange
    from release_safety.upgrade.plan import Hop, UpgradePlan


def _index_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The click options of `upgrade.check.INDEX_OPTIONS`."""
    for option in reversed(INDEX_OPTIONS):
        if option.metavar is None:
            decorate = click.option(option.name, option.parameter, is_flag=True, help=option.help)
        else:
            decorate = click.option(
                option.name,
                option.parameter,
                required=option.required,
                metavar=option.metavar,
                help=option.help,
            )
        command = decorate(command)
    return command


@click.command(
    "upgrade-check",
    epilog=help_epilog(
        ["release-safety upgrade-check --from 1.4.0 --to 1.6.0 --index release-safety-index.json"],
        [
            "0 proven safe to roll in one hop",
            "1 not proven safe (false or unknown)",
            "2 bad input (an unknown version, a bad index)",
            "3 could not fetch or read the index",
        ],
    ),
)
@_index_options
def upgrade_check(
    from_version: str,
    to_version: str,
    as_json: bool,
    index_source: str | None,
    offline: bool,
    index_sha256: str | None,
) -> int:
    """Is rolling from --from to --to in one hop proven safe? Exit 0 only when it is."""
    if as_json:
        text, code = check_json(from_version, to_version, index_source, offline, index_sha256)
        click.echo(text, nl=False)
        return code
    releases = load_releases(from_version, to_version, index_source, offline, index_sha256)
    result = evaluate_span(releases, from_version, to_version)
    same_index = _same_index(index_source, offline, index_sha256)
    click.echo(render_check(result, releases, same_index), nl=False)
    return 0 if result.safe else 1


@click.command(
    "upgrade-plan",
    epilog=help_epilog(
        [
            "release-safety upgrade-plan --from 1.4.0 --to 1.6.0 --index release-safety-index.json",
            "release-safety upgrade-plan --from 1.4.0 --to 1.6.0 --format markdown >> "
            "$GITHUB_STEP_SUMMARY",
        ],
        ["0 a plan printed", "2 bad input", "3 could not fetch or read the index"],
    ),
)
@_index_options
@click.option(
    "--format",
    "format_",
    type=click.Choice(["text", "json", "markdown"]),
    help="text (default), json (as --json), or markdown: the route drawn as a Mermaid graph "
    "GitHub renders in a comment or a job summary.",
)
def upgrade_plan(
    from_version: str,
    to_version: str,
    as_json: bool,
    index_source: str | None,
    offline: bool,
    index_sha256: str | None,
    format_: str | None,
) -> int:
    """The route from --from to --to: hops, strategy per hop, deployment mapping."""
    from release_safety.upgrade.plan import (  # deferred: upgrade-check does not need them
        plan_markdown,
        plan_upgrade,
    )

    releases = load_releases(from_version, to_version, index_source, offline, index_sha256)
    plan = plan_upgrade(releases, from_version, to_version)
    if as_json or format_ == "json":
        click.echo(dumps_plain(plan.to_json_data()), nl=False)
    elif format_ == "markdown":
        click.echo(plan_markdown(plan), nl=False)
    else:
        click.echo(render_plan(plan), nl=False)
    return 0 if plan.complete else 1


def _listing(items: list[str]) -> str:
    return ", ".join(items) if items else "none"


def _gap(gap: MissingRange | ContractRange) -> str:
    if gap.afterVersion and gap.beforeVersion:
        return f"between {gap.afterVersion} and {gap.beforeVersion}"
    if gap.beforeVersion:
        return f"before {gap.beforeVersion}"
    if gap.afterVersion:
        return f"after {gap.afterVersion}"
    return "everything (the index is empty)"


def _same_index(index_source: str | None, offline: bool, index_sha256: str | None) -> list[str]:
    """The index options as the user gave them, for a command line to run next."""
    args = ["--index", index_source] if index_source else []
    return (
        args
        + (["--offline"] if offline else [])
        + (["--index-sha256", index_sha256] if index_sha256 else [])
    )


def _needs_more(result: SpanResult) -> bool:
    """True when the span's minimum previous version is above the version it starts from."""
    minimum = result.minPreviousVersion
    return minimum is not None and Version.parse(minimum) > Version.parse(result.fromVersion)


def verdict_words(result: SpanResult, found: Verdicts) -> str:
    """The verdict as the text says it: SAFE; UNSAFE (a false release), UNKNOWN (nothing false,
    something unproven) or UNSAFE in one hop (every release true, but a stop or a minimum
    version in the way), each with its reasons."""
    if result.safe:
        return "SAFE"
    unproven = [version for version in found.unknown if version not in found.backfilled]
    reasons = [
        f"{label} {', '.join(versions)}"
        for label, versions in (
            ("not safe to roll:", found.unsafe),
            ("not proven safe:", unproven),
            ("backfilled, never proven safe:", found.backfilled),
            ("no coverage", [_gap(gap) for gap in result.missingRanges]),
            ("required stops in between:", result.requiredStops),
        )
        if versions
    ]
    if _needs_more(result):
        reasons.append(f"upgrading needs {result.minPreviousVersion} or later to start from")
    if result.direction == "downgrade":
        reasons.append("a rollback is never proven safe")
    said = "UNSAFE in one hop" if result.verdict is True else VERDICT_WORDS[word(result.verdict)]
    return f"{said} ({'; '.join(reasons)})"


def render_check(
    result: SpanResult, releases: Releases, index_args: list[str] | None = None
) -> str:
    """The human report: one labelled line per fact, then the route command (with the index
    options the user gave) when the span does not roll in one hop."""
    found = releases_by_verdict(releases, result.coveredVersions)
    unknown = [
        f"{version} (backfilled)" if version in found.backfilled else version
        for version in found.unknown
    ]
    minimum = result.minPreviousVersion or "none"
    if _needs_more(result):
        minimum += f" (above {result.fromVersion}: go through an intermediate version)"
    lines = [
        f"Upgrade check: {result.fromVersion} → {result.toVersion}",
        f"Direction: {result.direction}"
        + (" (a rollback is never proven safe)" if result.direction == "downgrade" else ""),
        f"Verdict: {verdict_words(result, found)}",
        f"Unsafe rolling-update safety: {_listing(found.unsafe)}",
        f"Unknown rolling-update safety: {_listing(unknown)}",
        f"Required stops: {_listing(result.requiredStops)}",
        f"Minimum previous version: {minimum}",
        f"Missing coverage: {_listing([_gap(gap) for gap in result.missingRanges])}",
        f"Covered releases: {_listing(result.coveredVersions)}",
    ]
    if not result.safe and result.direction == "upgrade":
        route = ["release-safety", "upgrade-plan", "--from", result.fromVersion]
        route += ["--to", result.toVersion, *(index_args or [])]
        lines.append(f"Route: {shlex.join(route)}")
    return "\n".join(lines) + "\n"


def _render_hop(number: int, hop: Hop) -> list[str]:
    why = hop.stopReason.replace("-", " ")
    if hop.stopRequiredBy:
        why += f", for {', '.join(hop.stopRequiredBy)}"
    forced = [
        f"{f.version} ({word(f.rollingUpdateSafe)}{', backfilled' if f.backfilled else ''})"
        for f in hop.forcedBy
    ]
    forced.extend(f"missing coverage {_gap(gap)}" for gap in hop.missingRanges)
    lines = [
        f"{number}. {hop.fromVersion} → {hop.toVersion}: {hop.strategy} (stop: {why})",
        f"   releases: {len(hop.releases)}; "
        + (f"Recreate because of: {', '.join(forced)}" if forced else "every release is true"),
        f"   compose: {hop.deployment.compose}",
        f"   helm: upgrade.mode: {hop.deployment.helm.upgradeMode}",
    ]
    if hop.deployment.note:
        lines.append(f"   note: {hop.deployment.note}")
    return lines


def render_plan(plan: UpgradePlan) -> str:
    """The human route: one numbered block per hop, then what is missing."""
    lines = [
        f"Upgrade plan: {plan.fromVersion} → {plan.toVersion}",
        f"Direction: {plan.direction}",
        f"Complete: {'yes' if plan.complete else 'no'}",
        f"Hops: {len(plan.hops)}",
    ]
    for number, hop in enumerate(plan.hops, start=1):
        lines.extend(_render_hop(number, hop))
    lines.append(f"Missing coverage: {_listing([_gap(gap) for gap in plan.missingRanges])}")
    if plan.problem:
        lines.append(f"Problem: {plan.problem}")
    return "\n".join(lines) + "\n"
