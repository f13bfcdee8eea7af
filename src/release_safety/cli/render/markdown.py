"""The "Upgrade safety" section for release notes and job summaries."""

from __future__ import annotations

from collections.abc import Sequence

from release_safety.cli.render import reasons_text
from release_safety.contract.model import (
    Artifact,
    ConfigChange,
    ConfigDefaultChanged,
    ConfigRemoved,
    TriState,
)
from release_safety.contract.reports import Finding
from release_safety.release.judgedwith import SETTINGS_ADOPTED, SETTINGS_DEFAULTS

HEADLINES = {
    True: "✅ Safe to roll: a rolling update is advised.",
    False: "⛔ Not safe to roll: use the Recreate strategy (stop, change tag, start).",
    "unknown": "⚠️ UNKNOWN: rolling-update safety could not be proven: use the Recreate strategy.",
}


def _flag(value: TriState) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


_MARKS = {"breaking": "⛔", "unknown": "⚠️", "advisory": "ℹ️"}


def _value(value: str | None) -> str:
    return f"`{_cell(value)}`" if value is not None else "no default"


def config_sentence(change: ConfigChange) -> str:
    """A config change as a sentence: `FOO` removed, `BAR` renamed to `BAZ`, the default of `X`
    changed from `a` to `b`."""
    if isinstance(change, ConfigRemoved):
        previous = change.previousDefault
        was = f" (its default was {_value(previous)})" if previous is not None else ""
        return f"`{_cell(change.name)}` removed{was}"
    if isinstance(change, ConfigDefaultChanged):
        return (
            f"default of `{_cell(change.name)}` changed from {_value(change.previousDefault)}"
            f" to {_value(change.defaultValue)}"
        )
    value = change.defaultValue
    default = f" (default {_value(value)})" if value is not None else ""
    return f"`{_cell(change.previousName)}` renamed to `{_cell(change.name)}`{default}"


def why(verdict: TriState, reasons: Sequence[Finding]) -> list[str]:
    """The line saying why a release is not safe to roll: the first reasons of its verdict, or,
    for an artifact read back without them, where to find them. None for a safe release."""
    if verdict is True:
        return []
    if not reasons:
        return [
            "- Why: the reasons are not recorded with this artifact: run `release-safety "
            "generate --evidence FILE` on the release for every finding",
        ]
    return [f"- Why: {_cell(reasons_text(reasons, ' (see Evidence)'))}"]


def _deployment(findings: Sequence[Finding]) -> list[str]:
    """The deployment surface's findings (the artifact has no object for them)."""
    found = [f for f in findings if f.surface == "deployment"]
    if not found:
        return []
    severities = {f.severity for f in found}
    state = "yes" if "breaking" in severities else "unknown" if "unknown" in severities else "no"
    lines = [f"### Deployment (breaking: {state})", ""]
    for f in sorted(found, key=lambda f: (list(_MARKS).index(f.severity), f.sort_key())):
        where = f" (`{_cell(f.place() or '')}`)" if f.file else ""
        lines.append(f"- {_MARKS[f.severity]} {_cell(f.message)}{where}")
    return [*lines, ""]


JUDGED_WITH = frozenset({SETTINGS_ADOPTED.id, SETTINGS_DEFAULTS.id})
"""The findings that name settings a release did not commit itself (`release/judgedwith.py`)."""


def upgrade_safety_section(
    artifact: Artifact, findings: Sequence[Finding] = (), reasons: Sequence[Finding] = ()
) -> str:
    """Markdown: headline, why (the verdict's `reasons`), strategy, migrations, breaks per
    surface (the deployment surface's from `findings`), declared breaks, stops, evidence (the
    findings and the reasons, such as a backfilled release's, that no surface reported)."""
    verdict = artifact.compatibility.rollingUpdateSafe
    stops = artifact.upgrade.requiredStops
    lines = [
        "## Upgrade safety",
        "",
        f"**{HEADLINES[verdict]}**",
        "",
        *why(verdict, reasons),
        f"- Rolling update safe: `{_flag(verdict)}`",
        f"- Recommended strategy: `{artifact.compatibility.recommendedStrategy}`",
        f"- Previous version: `{artifact.previousVersion or 'none'}`",
        f"- Minimum previous version: `{artifact.upgrade.minPreviousVersion or 'none'}`",
        f"- Required stops: {', '.join(f'`{v}`' for v in stops) or 'none'}",
        *(f"- Judged with {_cell(f.message)}" for f in findings if f.rule in JUDGED_WITH),
        "",
    ]
    migrations = artifact.migrations
    lines += [
        f"### Migrations ({migrations.count}:"
        f" {migrations.coreCount} core, {migrations.eeCount} ee)",
        "",
    ]
    if migrations.files:
        lines += [
            "| file | edition | tables | locks | rewrites | scans |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for migration in migrations.files:
            h = migration.heaviness
            tables = ", ".join(f"`{t}`" for t in migration.tables) or "–"
            lines.append(
                f"| `{_cell(migration.name)}` | {migration.edition} | {tables}"
                f" | {_flag(h.locksTable)} | {_flag(h.rewritesTable)} | {_flag(h.scansTable)} |"
            )
        lines.append("")
    surfaces = [("REST API", artifact.api.rest), ("MCP tools", artifact.api.mcp)]
    for title, api in surfaces:
        state = "not checked" if not api.checked else f"breaking: {_flag(api.breaking)}"
        lines += [f"### {title} ({state})", ""]
        lines += [f"- ⛔ {_cell(c)}" for c in api.changes]
        lines += [f"- ℹ️ {_cell(a)}" for a in api.advisories]
        if api.changes or api.advisories:
            lines.append("")
    config = artifact.config
    state = "not checked" if not config.checked else f"breaking: {_flag(config.breaking)}"
    lines += [f"### Configuration ({state})", ""]
    for change in config.changes:
        lines.append(f"- {config_sentence(change)}")
    if config.changes:
        lines.append("")
    lines += _deployment(findings)
    if artifact.declaredBreaks:
        lines += [
            "### Declared breaks",
            "",
            "| file | line | required stop | reason |",
            "| --- | --- | --- | --- |",
        ]
        for d in artifact.declaredBreaks:
            lines.append(
                f"| `{_cell(d.file)}` | {d.line} | {_flag(d.requiredStop)} | {_cell(d.reason)} |"
            )
        lines.append("")
    accepted = [f for f in findings if f.acknowledged]
    if accepted:
        lines += [
            "### Acknowledged by the maintainers",
            "",
            "| rule | where | finding | reason |",
            "| --- | --- | --- | --- |",
        ]
        for f in accepted:
            where = f"`{_cell(f.place() or '')}`" if f.file else "–"
            reason = (f.acknowledged or "").split(": ", 1)[-1]
            lines.append(f"| `{f.rule}` | {where} | {_cell(f.message)} | {_cell(reason)} |")
        lines.append("")
    evidence = list(dict.fromkeys(f for f in [*findings, *reasons] if f.severity != "advisory"))
    if evidence:
        lines += [
            "### Evidence",
            "",
            "| rule | severity | where | finding |",
            "| --- | --- | --- | --- |",
        ]
        for f in evidence:
            where = f"`{_cell(f.place() or '')}`" if f.file else "–"
            lines.append(f"| `{f.rule}` | {f.severity} | {where} | {_cell(f.message)} |")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
