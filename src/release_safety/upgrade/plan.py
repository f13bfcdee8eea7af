"""Upgrade plan: the route from one version to another, hop by hop, and how to roll each hop.

Pure, over a validated index. The route goes through the floor (for an install below it) and
every required stop strictly between the two versions; inside each stretch it jumps as far as
every release's `minPreviousVersion` allows, adding a stop just before the first release that
cannot be reached directly (the fewest hops). Each hop is RollingUpdate only when every release
in it is true and its coverage is complete, else Recreate (rule 8), with its deployment mapping
and, for a Recreate hop, the Recreate note the release it lands on carries in the index (the
maintainers' `recreateNote` override), when it carries one.
"""

from __future__ import annotations

from typing import Literal

from release_safety.contract.model import Closed, MissingRange, ReleaseVersion, TriState
from release_safety.contract.versions import Version
from release_safety.upgrade import span
from release_safety.upgrade.span import (
    Direction,
    Releases,
    direction_of,
    evaluate_span,
    missing_ranges,
)

Strategy = Literal["RollingUpdate", "Recreate"]
StopReason = Literal["target", "floor", "required-stop", "min-previous-version"]


class HelmDeployment(Closed):
    upgradeMode: Strategy


class Deployment(Closed):
    compose: str
    helm: HelmDeployment
    note: str | None


class ForcingRelease(Closed):
    version: ReleaseVersion
    rollingUpdateSafe: TriState
    backfilled: bool


class Hop(Closed):
    fromVersion: str
    toVersion: str
    strategy: Strategy
    stopReason: StopReason
    stopRequiredBy: list[ReleaseVersion]
    releases: list[ReleaseVersion]
    forcedBy: list[ForcingRelease]
    missingRanges: list[MissingRange]
    deployment: Deployment


class UpgradePlan(Closed):
    """What `upgrade-plan --json` prints: the hops, or why no complete route exists."""

    fromVersion: str
    toVersion: str
    direction: Direction
    complete: bool
    hops: list[Hop]
    missingRanges: list[MissingRange]
    problem: str | None


def deployment(strategy: Strategy, version: str, note: str | None) -> Deployment:
    """Rule 8: the compose steps and the Helm chart's `upgrade.mode` for one hop, with the
    Recreate note of the release it lands on (`recreateNote` in the index) for a Recreate hop."""
    if strategy == "RollingUpdate":
        compose = f"change the image tag to {version} and start with the new tag"
        return Deployment(compose=compose, helm=HelmDeployment(upgradeMode=strategy), note=None)
    compose = f"stop the application, change the image tag to {version}, start it again"
    return Deployment(compose=compose, helm=HelmDeployment(upgradeMode=strategy), note=note)


def _ranges(gaps: list[span.MissingRange]) -> list[MissingRange]:
    return [MissingRange(afterVersion=g.afterVersion, beforeVersion=g.beforeVersion) for g in gaps]


def plan_upgrade(index: Releases, from_version: str, to_version: str) -> UpgradePlan:
    """The route from `from_version` to `to_version`; malformed versions raise InputError."""
    start, target = Version.parse(from_version), Version.parse(to_version)
    direction = direction_of(start, target)
    check = evaluate_span(index, str(start), str(target))
    header = {"fromVersion": str(start), "toVersion": str(target), "direction": direction}
    if direction == "downgrade":
        return UpgradePlan(
            **header,
            complete=False,
            hops=[],
            missingRanges=_ranges(check.missingRanges),
            problem="a downgrade is never proven safe: the index only covers upgrades",
        )
    if direction == "same-version":
        return UpgradePlan(
            **header,
            complete=check.safe,
            hops=[],
            missingRanges=_ranges(check.missingRanges),
            problem=None if check.safe else f"{start} is not in the index",
        )
    hops: list[Hop] = []
    position = start
    problem: str | None = None
    required_by = _requirers(index, start, target)
    for stop in [*check.requiredStops, str(target)]:
        reason = _why_stop(index, target, Version.parse(stop))
        stretch, problem = _stretch(
            index, position, Version.parse(stop), reason, required_by.get(stop, [])
        )
        hops.extend(stretch)
        if problem is not None:
            break
        position = Version.parse(stop)
    missing = list(
        {(g.afterVersion, g.beforeVersion): g for hop in hops for g in hop.missingRanges}.values()
    )
    return UpgradePlan(
        **header,
        complete=problem is None and not missing,
        hops=hops,
        missingRanges=missing,
        problem=problem,
    )


def _requirers(index: Releases, start: Version, target: Version) -> dict[str, list[str]]:
    """Each stop with the releases between the two versions that require it, in one pass
    (a pass per stop is quadratic: 100,000 stops)."""
    found: dict[str, list[str]] = {}
    for entry in index.between(start, target):
        stops = dict.fromkeys(entry["requiredStops"])
        if entry["syntheticRequiredStop"]:
            stops[entry["version"]] = None
        for stop in stops:
            found.setdefault(str(Version.parse(stop)), []).append(entry["version"])
    return found


def _why_stop(index: Releases, target: Version, stop: Version) -> StopReason:
    if stop == target:
        return "target"
    return "floor" if index.floor == stop else "required-stop"


def _stretch(
    index: Releases, start: Version, end: Version, reason: StopReason, required_by: list[str]
) -> tuple[list[Hop], str | None]:
    """Hops from `start` to the stop `end`, split where a release's minPreviousVersion demands;
    the releases of the stretch are walked once, each landing resuming where the last one was
    found."""
    hops: list[Hop] = []
    position = start
    entries = index.between(position, end)
    at = 0
    while True:
        blocker = next(
            (
                found
                for found in range(at, len(entries))
                if (minimum := entries[found]["minPreviousVersion"]) is not None
                and Version.parse(minimum) > position
            ),
            None,
        )
        if blocker is None:
            hops.append(_hop(index, position, end, reason, required_by))
            return hops, None
        needy = entries[blocker]
        if blocker == at:
            problem = (
                f"{needy['version']} needs {needy['minPreviousVersion']} or later to upgrade "
                f"from, and no indexed release between {position} and {needy['version']} gets "
                "there"
            )
            return hops, problem
        landing = Version.parse(entries[blocker - 1]["version"])
        hops.append(_hop(index, position, landing, "min-previous-version", [needy["version"]]))
        position, at = landing, blocker


def _hop(
    index: Releases, start: Version, end: Version, reason: StopReason, required_by: list[str]
) -> Hop:
    entries = index.between(start, end)
    missing = _ranges(missing_ranges(index, entries, start, end))
    forced = [
        ForcingRelease(
            version=entry["version"],
            rollingUpdateSafe=entry["rollingUpdateSafe"],
            backfilled=entry["backfilled"],
        )
        for entry in entries
        if entry["rollingUpdateSafe"] is not True
    ]
    strategy: Strategy = "Recreate" if forced or missing else "RollingUpdate"
    landing = entries[-1] if entries and entries[-1]["version"] == str(end) else None
    return Hop(
        fromVersion=str(start),
        toVersion=str(end),
        strategy=strategy,
        stopReason=reason,
        stopRequiredBy=sorted(required_by, key=lambda v: Version.parse(v).key()),
        releases=[entry["version"] for entry in entries],
        forcedBy=forced,
        missingRanges=missing,
        deployment=deployment(strategy, str(end), landing.get("recreateNote") if landing else None),
    )


_STOP_WORDS: dict[StopReason, str] = {
    "target": "target",
    "floor": "floor",
    "required-stop": "required stop",
    "min-previous-version": "stop: minimum previous version",
}


def _node(version: str) -> str:
    """A Mermaid node id for a version (`v1_2_3`): ids take no dots."""
    return "v" + "".join(c if c.isalnum() else "_" for c in version)


def plan_markdown(plan: UpgradePlan) -> str:
    """The route as Markdown with a Mermaid graph (GitHub renders it in a comment or a job
    summary): one node per version the route stops at, labelled with why it stops there, one
    edge per hop labelled with its strategy; a hop that must be Recreate is drawn dashed."""
    title = f"## Upgrade plan: {plan.fromVersion} → {plan.toVersion}"
    lines = [title, "", "```mermaid", "graph LR"]
    lines.append(f'  {_node(plan.fromVersion)}["{plan.fromVersion}<br/>running"]')
    for hop in plan.hops:
        why = _STOP_WORDS[hop.stopReason]
        lines.append(f'  {_node(hop.toVersion)}["{hop.toVersion}<br/>{why}"]')
    for hop in plan.hops:
        arrow = "-->" if hop.strategy == "RollingUpdate" else "-.->"
        lines.append(f"  {_node(hop.fromVersion)} {arrow}|{hop.strategy}| {_node(hop.toVersion)}")
    lines += ["```", ""]
    if plan.hops:
        lines += ["| hop | strategy | stops because | releases | forced by |"]
        lines += ["| --- | --- | --- | --- | --- |"]
        for hop in plan.hops:
            forced = ", ".join(
                f"`{f.version}` ({str(f.rollingUpdateSafe).lower()})" for f in hop.forcedBy
            )
            cells = [
                f"{hop.fromVersion} → {hop.toVersion}",
                f"`{hop.strategy}`",
                _STOP_WORDS[hop.stopReason]
                + (f" ({', '.join(hop.stopRequiredBy)})" if hop.stopRequiredBy else ""),
                ", ".join(f"`{v}`" for v in hop.releases) or "–",
                forced or "–",
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    if not plan.complete:
        lines.append(f"**Incomplete**: {plan.problem or 'releases are missing from the index'}.")
        lines.append("")
    return "\n".join(lines)
