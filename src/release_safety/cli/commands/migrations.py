"""`lint-migrations FILE...`: lint migration files directly, outside any release.

Exit codes: 0 nothing breaking or unknown; 1 a breaking finding or a statement that could not
be classified; 2 a missing file or bad settings; 3 a file that could not be read.
"""

from __future__ import annotations

from pathlib import Path

import click

from release_safety.cli.commands.options import config_option, stdin_filepath_option
from release_safety.cli.lint import json_report, lint_files, text_report
from release_safety.cli.render.annotations import Shown
from release_safety.cli.render.formats import (
    chosen_format,
    format_options,
    shared,
    styled,
    use_color,
)
from release_safety.settings.file import repository_root


@click.command("lint-migrations")
@click.argument("files", nargs=-1, required=True)
@click.option(
    "--postgres-version",
    type=click.IntRange(9, 30),
    default=None,
    help="PostgreSQL major version the migrations run on (default: settings, else 15).",
)
@click.option(
    "--exclude",
    "excluded",
    multiple=True,
    metavar="RULE",
    help="Do not report this rule (repeatable; besides the settings' `[rules] off`).",
)
@config_option
@stdin_filepath_option
@click.option(
    "--earlier",
    is_flag=True,
    help="Lint each file after the earlier migrations of its folder (replayed from the working"
    " tree, not reported), as a commit hook sees a changed migration.",
)
@click.option(
    "--skip-non-migrations",
    "skip_other",
    is_flag=True,
    help="Leave out files that are not migrations (`index.ts`) instead of refusing them.",
)
@format_options
def lint_migrations(
    files: tuple[str, ...],
    postgres_version: int | None,
    excluded: tuple[str, ...],
    config: Path | None,
    stdin_filepath: str | None,
    earlier: bool,
    skip_other: bool,
    format_: str | None,
    as_json: bool,
    color: str,
) -> int:
    """Lint SQL (.sql) and knex (.ts/.js) migration files: heaviness and compatibility. The
    files are taken in the order given, each on the schema the earlier ones built.

    Each FILE is a path, a folder (its migrations in name order), `-` for standard input (read
    as SQL), or REF:path for the file at a git ref (`main:db/migrations/001.sql`; an existing
    file of that name wins).

    \b
    Examples:
      release-safety lint-migrations db/migrations
      release-safety lint-migrations --earlier db/migrations/0042_not_null.sql
      cat 0042.sql | release-safety lint-migrations - --stdin-filepath db/0042.sql

    \b
    Exit codes: 0 nothing breaking or unknown; 1 a breaking or unknown finding; 2 bad input
    (a missing file, bad settings); 3 a file that could not be read."""
    chosen = chosen_format(format_, as_json)
    linted = lint_files(
        files,
        postgres_version,
        excluded,
        config=config,
        stdin_filepath=stdin_filepath,
        earlier=earlier,
        skip_other=skip_other,
    )
    if chosen == "json":
        click.echo(json_report(linted), nl=False)
    elif chosen == "text":
        click.echo(text_report(linted.reports, styled), color=use_color(color), nl=False)
    else:
        root = repository_root(Path("."))
        uris = {d.shown: d.uri(root) for d in linted.documents}  # paths from the repository root
        shown = Shown.of(linted.findings)
        out = shared(chosen, "Migration lint", shown, uris.get, "lint-migrations")
        click.echo(out, nl=False)
    return linted.code
