"""Options several commands share, defined once."""

from __future__ import annotations

from pathlib import Path

import click

from release_safety.verify import DEFAULT_ROWS

repo_option = click.option(
    "--repo",
    "repo_path",
    default=".",
    type=click.Path(path_type=Path),
    help="The git repository to read (default: the current folder).",
)

config_option = click.option(
    "--config",
    type=click.Path(path_type=Path),
    default=None,
    help="Settings file to use (default: .release-safety.toml or pyproject.toml's"
    " [tool.release-safety], found walking up to the repository root).",
)

stdin_filepath_option = click.option(
    "--stdin-filepath",
    metavar="PATH",
    default=None,
    help="The path findings on standard input (`-`) are reported at (default: `<stdin>`;"
    " `stdin` in SARIF).",
)


def _database_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A malformed URL is bad input before any work is done (one line, exit 2)."""
    if value is not None:
        from release_safety.verify.database import parse_url

        parse_url(value)
    return value


database_url_option = click.option(
    "--database-url",
    envvar="RELEASE_SAFETY_DATABASE_URL",
    default=None,
    callback=_database_url,
    help="Run on this server (postgresql://user:password@host:port/db; also from "
    "$RELEASE_SAFETY_DATABASE_URL) in a scratch database created and dropped there, or, "
    "without the privilege to create one, in the given database, which must hold no table "
    "(default: a throwaway server started from PostgreSQL's binaries).",
)
postgres_option = click.option(
    "--postgres",
    "postgres",
    type=click.IntRange(9, 40),
    default=None,
    help="Major version of the throwaway server, where several are installed.",
)
rows_option = click.option(
    "--rows",
    type=click.IntRange(0, 100_000_000),
    default=DEFAULT_ROWS,
    show_default=True,
    help="Rows seeded into each table the migrations touch and its foreign-key parents.",
)


def help_epilog(examples: list[str], exit_codes: list[str]) -> str:
    """The end of a command's help: examples, then its exit codes (kept as written)."""
    lines = ["\b", "Examples:", *(f"  {e}" for e in examples), "", "\b", "Exit codes:"]
    return "\n".join([*lines, *(f"  {code}" for code in exit_codes)])
