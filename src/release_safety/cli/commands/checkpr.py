"""`release-safety check-pr`: the pull-request gate on declared breaks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click

from release_safety.cli.commands.options import help_epilog, repo_option
from release_safety.cli.render.annotations import gate_shown
from release_safety.cli.render.formats import (
    chosen_format,
    format_options,
    github,
    sarif,
    styled,
    summary_line,
    use_color,
)
from release_safety.cli.render.github import comment_body, headline
from release_safety.cli.render.markdown import upgrade_safety_section
from release_safety.cli.rulesoff import rules_off, without
from release_safety.common import jsonio
from release_safety.contract.release import Release
from release_safety.contract.reports import Finding, all_findings
from release_safety.git.repository import GitRepo
from release_safety.git.snapshot import Snapshot
from release_safety.release.generate import Generated, analyse_release
from release_safety.release.pullrequest import FAIL_ON, FailOn, GateResult, gate
from release_safety.settings.atref import gate_settings_file, release_settings, settings_at_ref
from release_safety.settings.file import SETTINGS_FILE
from release_safety.surfaces.declarations import registry as reg


@dataclass(frozen=True)
class PrCheck:
    """The gate's answer for merge-base..head, and the analysis it rests on."""

    base: str
    head: str
    merge_base: str
    result: GateResult
    generated: Generated
    head_as_typed: str
    settings_path: str
    """The settings file in the repository (where it would be when absent): what a finding
    without a file of its own concerns."""

    def summary(self) -> str:
        """The job summary: the comment's content, then the would-be release's section."""
        findings = all_findings(self.generated.reports)
        section = upgrade_safety_section(
            self.generated.artifact, findings, self.generated.decision.reasons
        )
        section = section.replace("## Upgrade safety", "## If released as is", 1)
        return self.comment() + "\n" + section

    def settings_changes(self) -> list[Finding]:
        """The settings diff between the merge base and the head, every change judged."""
        return [f for f in all_findings(self.generated.reports) if f.surface == "settings"]

    def as_typed(self, text: str) -> str:
        """`text` with the commit ids the analysis ran on named as the user typed them (the
        head as given, the merge base as `merge-base(BASE, HEAD)`)."""
        named = text.replace(self.merge_base, f"merge-base({self.base}, {self.head_as_typed})")
        return named.replace(self.head, self.head_as_typed)

    def comment(self) -> str:
        return comment_body(self.result, self.merge_base, self.head, self.settings_changes())

    def to_json_data(self) -> dict[str, object]:
        r = self.result
        return {
            "passed": r.passed,
            "failOn": r.fail_on,
            "headline": headline(r),
            "base": self.base,
            "head": self.head,
            "mergeBase": self.merge_base,
            "uncovered": [f.to_dict() for f in r.uncovered],
            "covered": [
                {"finding": c.finding.to_dict(), "declaration": c.declaration.model_dump()}
                for c in r.covered
            ],
            "problems": [f.to_dict() for f in r.problems],
            "warnings": [f.to_dict() for f in r.warnings],
            "declared": [d.model_dump() for d in r.declared],
            "acknowledged": [f.to_dict() for f in r.acknowledged],
            "overrides": {
                "added": [f.to_dict() for f in r.overrides_added],
                "removed": [f.to_dict() for f in r.overrides_removed],
            },
            "settings": [f.to_dict() for f in self.settings_changes()],
            "notChecked": r.not_checked,
            "rollingUpdateSafe": self.generated.artifact.compatibility.rollingUpdateSafe,
        }


def registry_files(snapshot: Snapshot, path: str) -> dict[int, str]:
    """The line of each registry entry that names a `migration`, mapped to that file."""
    if snapshot.blob_id(path) is None:
        return {}
    registry = reg.load(snapshot.read(path))
    if registry is None:
        return {}
    named: dict[int, str] = {}
    for id_, raw in registry.raw.items():
        if isinstance(raw, dict) and isinstance(raw.get("migration"), str):
            named[registry.line_of("declarations", id_)] = raw["migration"]
    return named


def check_pull_request(
    repo_path: Path,
    config: Path | None,
    base: str,
    head: str,
    label: str = "pr",
    fail_on: FailOn = "breaking",
) -> PrCheck:
    """Analyse merge-base(base, head)..head with every surface and apply the gate.

    The head's settings are used, and the merge base's as well when they differ: a pull request
    cannot hide a break by editing the settings, and a narrowing it brings must be declared.
    """
    repo = GitRepo(repo_path)
    try:
        merge_base = repo.merge_base(base, head)
        head_commit = repo.resolve(head)
        where = gate_settings_file(repo, config)
        current = settings_at_ref(repo, head_commit, where)
        settings = release_settings(repo, current, merge_base, where)
        release = Release(
            version=label,
            to_ref=head_commit,
            from_ref=merge_base,
            previous_version=None,
            release_date=repo.commit_date(head_commit),
        )
        generated = analyse_release(repo, settings, release, say_settings=False)
        registry = current.settings.declarations.registry
        named = registry_files(repo.snapshot(head_commit), registry)
    finally:
        repo.close()
    off = rules_off(current.settings.rules.off, current.where)
    result = gate(without(generated.reports, off), registry, named, fail_on)
    anchor = current.path or (where if isinstance(where, str) else SETTINGS_FILE)
    return PrCheck(base, head_commit, merge_base, result, generated, head, anchor)


def _text(check: PrCheck) -> str:
    r = check.result
    lines = [headline(r)]

    def line(f: Finding, level: str, after: str = "") -> None:
        where = f"{f.file or check.settings_path}:{f.line or 1}"
        lines.append(f"{where}: {styled(level)}: {check.as_typed(f.message)} [{f.rule}]{after}")

    def placed(f: Finding) -> tuple[str, int]:
        return (f.file or check.settings_path, f.line or 1)

    for f in sorted(r.uncovered, key=placed):
        line(f, "error", " (undeclared)")
    for f in sorted(r.problems, key=placed):
        line(f, "error")
    for f in sorted(r.warnings, key=placed):
        line(f, "warning" if r.fail_on == "breaking" else "error")
    for c in sorted(r.covered, key=lambda c: placed(c.finding)):
        line(c.finding, "declared", f" (by {c.declaration.file}:{c.declaration.line})")
    for f in sorted(r.acknowledged, key=placed):
        line(f, "acknowledged")
    for f in sorted(r.overrides_added, key=placed):
        line(f, "override", " (added)")
    notes = [f for f in check.settings_changes() if f.severity == "advisory" and not f.acknowledged]
    for f in notes:
        line(f, "note")
    listed = [*r.uncovered, *r.problems, *r.warnings, *r.acknowledged, *r.overrides_added, *notes]
    declared = [c.finding for c in r.covered]
    files = {f.file or check.settings_path for f in [*listed, *declared]}
    severities = [f.severity for f in listed] + ["declared"] * len(declared)
    lines.append(summary_line(severities, len(files), len(files)))
    return "\n".join(lines) + "\n"


@click.command(
    "check-pr",
    epilog=help_epilog(
        [
            "release-safety check-pr --base main --head HEAD",
            "release-safety check-pr --base origin/main --head HEAD --format sarif > gate.sarif",
            "release-safety check-pr --base main --head HEAD --fail-on unknown",
        ],
        [
            "0 the gate passes",
            "1 an undeclared break or a problem (--fail-on unknown: any unknown finding too)",
            "2 bad input (an unknown ref, bad settings)",
            "3 could not check",
        ],
    ),
)
@click.option("--base", required=True, help="The pull request's base branch or commit.")
@click.option("--head", required=True, help="The pull request's head commit.")
@repo_option
@click.option("--config", type=click.Path(path_type=Path), help="Settings file to use.")
@format_options
@click.option("--summary", help="Write the Markdown job summary to this file.")
@click.option("--comment", help="Write the pull-request comment body to this file.")
@click.option(
    "--fail-on",
    type=click.Choice(FAIL_ON),
    default="breaking",
    show_default=True,
    help="What fails the gate: an undeclared break or narrowing (breaking), or any finding that "
    "cannot be proven either way as well (unknown: a migration no source reads, an unparseable "
    "statement, a surface not checked). Choose unknown once the releases come out decisive, so "
    "a pull request cannot make the next one unknown.",
)
def check_pr(
    base: str,
    head: str,
    repo_path: Path,
    config: Path | None,
    format_: str | None,
    as_json: bool,
    summary: str | None,
    comment: str | None,
    color: str,
    fail_on: FailOn,
) -> int:
    """Fail when a breaking change of the pull request is not declared in it. Exit 1 on fail."""
    chosen = chosen_format(format_, as_json)
    check = check_pull_request(repo_path, config, base, head, fail_on=fail_on)
    if summary:
        jsonio.write_atomic(Path(summary), check.summary())
    if comment:
        jsonio.write_atomic(Path(comment), check.comment())
    rendered: dict[str, Callable[[], str]] = {
        "json": lambda: jsonio.dumps(check.to_json_data()),
        "text": lambda: _text(check),
        "markdown": check.comment,
        "github": lambda: github(gate_shown(check.result)),
        "sarif": lambda: sarif(gate_shown(check.result), str, "check-pr", check.settings_path),
    }
    click.echo(rendered[chosen](), nl=False, color=use_color(color) if chosen == "text" else False)
    return 0 if check.result.passed else 1
