"""Options several commands share, defined once."""

from __future__ import annotations

from pathlib import Path

import click

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


def help_epilog(examples: list[str], exit_codes: list[str]) -> str:
    """The end of a command's help: examples, then its exit codes (kept as written)."""
    lines = ["\b", "Examples:", *(f"  {e}" for e in examples), "", "\b", "Exit codes:"]
    return "\n".join([*lines, *(f"  {code}" for code in exit_codes)])
