"""`release-safety init`: write the settings from what the repository holds at HEAD and at its
last releases (`init.survey`, `init.text`), after judging those releases with them, as
`generate` would: per release the verdict and why, the floor the oldest release from which on
the file holds, and nothing written when it would end the latest release with exit 2; then what
still holds the latest release back."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import click

from release_safety.cli.commands.core import verdict_summary
from release_safety.cli.commands.options import help_epilog, repo_option
from release_safety.common import jsonio
from release_safety.common.errors import InputError
from release_safety.common.localfile import read_regular
from release_safety.contract.finding import Finding
from release_safety.git.repository import GitRepo
from release_safety.init.survey import RECENT, Taken, survey
from release_safety.init.text import PYPROJECT_TABLE, settings_text
from release_safety.release.generate import Generated, analyse_release, resolve_release
from release_safety.settings.atref import ReleaseSettings, SettingsAt
from release_safety.settings.file import PYPROJECT
from release_safety.settings.model import SETTINGS_FILE, Settings, parse_settings

_TABLE_HEADER = re.compile(r"^\s*\[\[?\s*tool\.release-safety\s*[.\]]")
_ANY_HEADER = re.compile(r"^\s*\[")


@click.command(
    epilog=help_epilog(
        [
            "release-safety init",
            "release-safety init --dry-run",
            "release-safety init --pyproject --force",
        ],
        ["0 written (whatever the verdict)", "2 bad input (the file exists: --force)"],
    )
)
@repo_option
@click.option(
    "--pyproject", is_flag=True, help="Write [tool.release-safety] in pyproject.toml instead."
)
@click.option("--force", is_flag=True, help="Replace the settings that are there.")
@click.option("--dry-run", is_flag=True, help="Print the settings, write nothing.")
@click.option(
    "--releases",
    type=click.IntRange(min=1),
    default=RECENT,
    show_default=True,
    help="How many of the last releases (on whatever branch) the file is fitted to and judged.",
)
def init(repo_path: Path, pyproject: bool, force: bool, dry_run: bool, releases: int) -> int:
    """Write .release-safety.toml fitted to the last releases, each judged with it first."""
    repo = GitRepo(repo_path)
    origin = PYPROJECT if pyproject else SETTINGS_FILE
    target = repo.path / origin
    try:
        head = repo.resolve("HEAD")
        if not dry_run:
            _contents(target, "", pyproject, force)  # refused before the work, not after
        found = survey(repo, head, releases)
        settings = _parsed(settings_text(found, head, table=pyproject), origin, pyproject)
        judged = ReleaseSettings(SettingsAt(settings, f"{origin} (written by init)"))
        runs = [_judge(repo, settings, judged, t.tag) for t in found.tags.releases[-releases:]]
    finally:
        repo.close()
    for tag, run in runs:
        click.echo(f"  {tag}: {run if isinstance(run, str) else verdict_summary(run)}", err=True)
    latest = runs[-1][1] if runs else None
    if isinstance(latest, str):
        raise InputError(
            f"{origin}: not written: the latest release {runs[-1][0]} would end with {latest}"
        )
    found.floor = floor(runs)
    text = settings_text(found, head, table=pyproject)
    if dry_run:
        click.echo(text, nl=False)
    else:
        jsonio.write_atomic(target, _contents(target, text, pyproject, force))
        click.echo(f"wrote {origin}")
    if latest is None:
        click.echo("no release tag yet: tag a release, then run `release-safety generate`")
        return 0
    _show(latest, origin, err=dry_run)
    return 0


def _parsed(text: str, origin: str, pyproject: bool) -> Settings:
    settings = parse_settings(text, origin, table=pyproject)
    assert settings is not None  # the table is always written
    return settings.read_from(origin)


def _judge(
    repo: GitRepo, settings: Settings, judged: ReleaseSettings, tag: str
) -> tuple[str, Generated | str]:
    """One release judged with the settings about to be written, as `generate` would (bad
    settings there: the one-line error `generate` would end with)."""
    try:
        release = resolve_release(repo, settings, tag)
        return tag, analyse_release(repo, judged, release, say_settings=False)
    except InputError as exc:
        return tag, f"exit 2: {exc.message}"


def floor(runs: Sequence[tuple[str, Generated | str]]) -> Taken | None:
    """The oldest judged release from which on the file holds at every release (none ends with
    exit 2), and why."""
    held = 0
    while held < len(runs) and any(isinstance(r, str) for _, r in runs[held:]):
        held += 1
    if held == len(runs):
        return None
    first = runs[held][1]
    assert not isinstance(first, str)
    version = first.release.version
    if held == 0:
        why = (
            f"the oldest of the {len(runs)} releases judged with this file ({runs[0][0]}), "
            "each of which it holds at: backfill judges from here"
        )
    else:
        why = (
            f"{runs[held][0]}: the file ends {runs[held - 1][0]} with exit 2 (see init's "
            "output), so older releases need their own settings; backfill judges from here"
        )
    return Taken(version, why)


def _contents(target: Path, text: str, pyproject: bool, force: bool) -> str:
    """What the target file becomes: the settings, or pyproject.toml with its table replaced
    or added; refused when settings are there already, unless `force`."""
    if not target.exists():
        return text
    old = read_regular(target).decode("utf-8", errors="replace")
    if not pyproject:
        if not force:
            raise InputError(f"{target.name}: already exists; --force replaces it")
        return text
    lines = old.splitlines()
    held = [i for i, line in enumerate(lines) if _TABLE_HEADER.match(line)]
    if held and not force:
        raise InputError(f"{PYPROJECT}: already has [{PYPROJECT_TABLE}]; --force replaces it")
    kept, inside = [], False
    for line in lines:
        if _ANY_HEADER.match(line):
            inside = _TABLE_HEADER.match(line) is not None
        if not inside:
            kept.append(line)
    body = "\n".join(kept).rstrip("\n")
    return f"{body}\n\n{text}" if body else text


def _show(generated: Generated, origin: str, err: bool) -> None:
    """The latest release's verdict and each finding that holds it back, with its way out."""
    release, decision = generated.release, generated.decision
    safe = decision.rolling_update_safe
    verdict = "true (safe to roll)" if safe is True else "false" if safe is False else "unknown"
    since = f" (from {release.from_ref})" if release.from_ref else " (first release)"
    lines = [f"{release.to_ref}{since}, judged with {origin}: rollingUpdateSafe = {verdict}"]
    found = [f for report in generated.reports for f in report.findings]
    held = [f for f in dict.fromkeys([*decision.reasons, *found]) if f.severity != "advisory"]
    if held:
        lines.append(f"held back by {len(held)} finding(s):")
    lines += [line for finding in sorted(held, key=Finding.sort_key) for line in _lines(finding)]
    for line in lines:
        click.echo(line, err=err)


def _lines(finding: Finding) -> list[str]:
    place = finding.place() or finding.surface
    shown = [f"  {finding.severity} {finding.rule} {place}: {finding.message}"]
    if finding.hint:
        shown.append(f"    way out: {' '.join(finding.hint.split())}")
    return shown
