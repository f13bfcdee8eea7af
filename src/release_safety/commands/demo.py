"""`release-safety demo`: the whole release job on a bundled sample service."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from release_safety.commands.options import help_epilog
from release_safety.demo.run import explain, run_demo, table
from release_safety.errors import InputError


@click.command(
    epilog=help_epilog(["release-safety demo --dir /tmp/demo"], ["0 built", "3 could not build"])
)
@click.option(
    "--dir",
    "folder",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where to build the sample service (default: a new temporary folder, kept).",
)
def demo(folder: Path | None) -> int:
    """Build a sample service with tagged releases, then generate and index every release."""
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="release-safety-demo-"))
    elif folder.exists() and any(folder.iterdir()):
        raise InputError(f"{folder}: folder is not empty; choose a new or empty one")
    result = run_demo(folder)
    for line in table(result):
        click.echo(line)
    click.echo("")
    for line in explain(result):
        click.echo(line)
    click.echo("")
    click.echo(f"sample repository: {result.repo}")
    click.echo(
        f"artifacts:         {result.artifacts[0].parent.parent}/<version>/release-safety.json"
    )
    click.echo(f"index:             {result.index}")
    return 0
