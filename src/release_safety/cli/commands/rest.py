"""`diff-openapi BASE REVISION`: the REST analyser on two files, without a repository.

Exit codes: 0 no finding at or above the `--fail-on` level; 1 one is (default level `unknown`:
a breaking or an unknown finding); 2 a missing or unreadable document; 3 a file that could not
be read.
"""

from __future__ import annotations

from pathlib import Path

import click

from release_safety.cli.commands.options import stdin_filepath_option
from release_safety.cli.openapi import LEVELS, compare, exit_code, json_document
from release_safety.cli.render.annotations import Shown
from release_safety.cli.render.formats import (
    chosen_format,
    format_options,
    shared,
    styled,
    summary_line,
    use_color,
)
from release_safety.common import jsonio
from release_safety.settings.file import repository_root
from release_safety.surfaces.rest.group import Change, capped

_TITLES = {"breaking": "Breaking", "unknown": "Unknown", "advisory": "Advisories"}
_SHOWN_OPERATIONS = 20


def _operations(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:_SHOWN_OPERATIONS])
    more = len(names) - _SHOWN_OPERATIONS
    return shown + (f" and {more} more" if more > 0 else "")


def _entry(change: Change) -> str:
    """A finding as people read it: rule and place, message, operations reached, safer way."""
    finding = change.finding
    lines = [f"{finding.rule} at {finding.file}:{finding.line}", finding.message]
    if change.operations:
        count = len(change.operations)
        noun = "operation" if count == 1 else "operations"
        lines.append(f"{count} {noun}: {_operations(change.operations)}")
    if finding.hint:
        lines.append(f"safer: {finding.hint}")
    return "\n    ".join(lines)


@click.command("diff-openapi")
@click.argument("base")
@click.argument("revision")
@format_options
@click.option(
    "--fail-on",
    type=click.Choice(LEVELS[::-1]),
    default="unknown",
    show_default=True,
    help="Exit 1 when a finding at this level or above is found (breaking > unknown > advisory).",
)
@stdin_filepath_option
def diff_openapi(
    base: str,
    revision: str,
    format_: str | None,
    as_json: bool,
    fail_on: str,
    stdin_filepath: str | None,
    color: str,
) -> int:
    """Breaking changes and advisories from BASE to REVISION (OpenAPI 3.0 / 3.1, Swagger 2.0).

    Each is a file, `-` for standard input, or REF:path for the file at a git ref
    (`main:openapi.yaml`; an existing file of that name wins).

    \b
    Examples:
      release-safety diff-openapi main:openapi.yaml openapi.yaml
      release-safety diff-openapi --format sarif v1.4.0:api/openapi.yaml api/openapi.yaml

    \b
    Exit codes: 0 nothing at or above --fail-on; 1 a finding at or above it; 2 bad input (a
    missing document, not OpenAPI); 3 a file that could not be read."""
    chosen = chosen_format(format_, as_json)
    old_doc, new_doc, found = compare(base, revision, stdin_filepath)
    code = exit_code(found, fail_on)
    if chosen == "json":
        click.echo(jsonio.dumps(json_document(base, revision, found)), nl=False)
    elif chosen == "text":
        _print_text(found, use_color(color))
    else:
        root = repository_root(Path.cwd())
        uris = {doc.shown: doc.uri(root) for doc in (old_doc, new_doc)}
        shown = Shown.of([c.finding for c in found])
        title = f"OpenAPI changes from {base} to {revision}"
        click.echo(shared(chosen, title, shown, uris.get, "diff-openapi"), nl=False)
    return code


def _print_text(found: list[Change], color: bool | None) -> None:
    counts = {level: sum(c.finding.severity == level for c in found) for level in LEVELS}
    click.echo(
        f"{counts['breaking']} breaking change(s), {counts['unknown']} unknown,"
        f" {counts['advisory']} advisory note(s)"
    )
    ordered = sorted(found, key=lambda c: (c.finding.file or "", c.finding.line or 0))
    for level in LEVELS[::-1]:
        entries = [_entry(c) for c in ordered if c.finding.severity == level]
        if entries:
            title = styled(level, f"{_TITLES[level]}:")
            click.echo(f"\n{title}", color=color)
            for entry in capped(entries, f"{_TITLES[level].lower()} finding(s)"):
                click.echo(f"  {entry}")
    click.echo("\n" + summary_line([c.finding.severity for c in found], int(bool(found)), 1))
