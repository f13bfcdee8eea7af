"""`release-safety demo`: the whole release job on a bundled sample service."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import click

from release_safety.cli.commands.options import help_epilog
from release_safety.common.errors import InputError
from release_safety.demo.run import DemoResult, explain, next_steps, run_demo, table

LAYOUT = (
    ("service/", "the sample repository, a tag per release"),
    ("artifacts/<version>/release-safety.json", "each release's artifact"),
    ("release-safety-index.json", "the index"),
)


@click.command(
    epilog=help_epilog(
        [
            "release-safety demo",
            "release-safety demo --keep",
            "release-safety demo --dir /tmp/demo",
        ],
        ["0 built", "2 the --dir folder is not empty", "3 could not build"],
    )
)
@click.option(
    "--dir",
    "folder",
    type=click.Path(path_type=Path, file_okay=False),
    help="Where to build the sample service (a new or empty folder; kept).",
)
@click.option(
    "--keep",
    is_flag=True,
    help="Keep the temporary folder (without --dir it is removed at the end, also on an error).",
)
def demo(folder: Path | None, keep: bool) -> int:
    """Build a sample service with tagged releases, then generate and index every release."""
    if folder is not None and folder.exists() and any(folder.iterdir()):
        raise InputError(f"{folder}: folder is not empty; choose a new or empty one")
    kept = folder is not None or keep
    where = folder or Path(tempfile.mkdtemp(prefix="release-safety-demo-"))
    try:
        result = run_demo(where)
        for line in [*table(result), "", *explain(result), ""]:
            click.echo(line)
        for line in _kept(result) if kept else _removed(result):
            click.echo(line)
    finally:
        if not kept:
            _remove(where)
    return 0


def _remove(folder: Path) -> None:
    """Remove the demo's folder, again for a moment while it is still there: a git the sample
    repository's builder started may still write into it after a Ctrl-C (once the folder is
    gone, git cannot make it again)."""
    for _ in range(40):
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            return
        time.sleep(0.05)


def _kept(result: DemoResult) -> list[str]:
    width = max(len(name) for name, _ in LAYOUT)
    folder = result.index.parent
    return [
        *next_steps(result),
        "",
        f"kept: {folder}",
        *(f"  {name.ljust(width)}  {what}" for name, what in LAYOUT),
    ]


def _removed(result: DemoResult) -> list[str]:
    return [
        f"removed: {result.index.parent}",
        "next: `release-safety demo --keep` keeps it, to ask upgrade-check and upgrade-plan",
        f"  whether an install on {result.generated[0].release.version} may roll straight to "
        f"{result.generated[-1].release.version}",
    ]
