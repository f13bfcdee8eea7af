"""`release-safety init`: write the settings from what the repository holds (`init.survey`,
`init.text`), then judge the latest release with them, as `generate` would, and say what still
holds it back."""

from __future__ import annotations

import re
from pathlib import Path

import click

from release_safety.cli.commands.options import help_epilog, repo_option
from release_safety.common import jsonio
from release_safety.common.errors import InputError
from release_safety.common.localfile import read_regular
from release_safety.contract.finding import Finding
from release_safety.git.repository import GitRepo
from release_safety.init.survey import survey
from release_safety.init.text import PYPROJECT_TABLE, settings_text
from release_safety.release.generate import Generated, analyse_release, resolve_release
from release_safety.settings.atref import ReleaseSettings, SettingsAt
from release_safety.settings.file import PYPROJECT
from release_safety.settings.model import SETTINGS_FILE, parse_settings

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
def init(repo_path: Path, pyproject: bool, force: bool, dry_run: bool) -> int:
    """Write .release-safety.toml from the repository, then judge its latest release with it."""
    repo = GitRepo(repo_path)
    try:
        head = repo.resolve("HEAD")
        found = survey(repo, head)
        target = repo.path / (PYPROJECT if pyproject else SETTINGS_FILE)
        text = settings_text(found, head, table=pyproject)
        origin = PYPROJECT if pyproject else SETTINGS_FILE
        settings = parse_settings(text, origin, table=pyproject)
        assert settings is not None  # the table is always written
        settings.read_from(origin)
        if dry_run:
            click.echo(text, nl=False)
        else:
            jsonio.write_atomic(target, _contents(target, text, pyproject, force))
            click.echo(f"wrote {origin}")
        if not found.tags.releases:
            click.echo("no release tag yet: tag a release, then run `release-safety generate`")
            return 0
        latest = found.tags.releases[-1]
        release = resolve_release(repo, settings, latest.tag)
        judged = ReleaseSettings(SettingsAt(settings, f"{origin} (written by init)"))
        generated = analyse_release(repo, judged, release, strict=False)
    finally:
        repo.close()
    _show(generated, origin, err=dry_run)
    return 0


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
