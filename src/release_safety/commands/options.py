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
