"""`release-safety backfill`: a year of history for maintainers."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from pathlib import Path

import click

from release_safety.cli.commands.options import help_epilog, repo_option
from release_safety.common.spelling import word
from release_safety.contract.index import read_index
from release_safety.release.backfill import Outcome, backfill
from release_safety.settings.model import load_settings


class Progress:
    """A bar with rate and ETA on a terminal; plain lines (at most one a second) otherwise."""

    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.start = time.monotonic()
        self.last_line = 0.0

    def __call__(self, done: int, total: int, outcome: Outcome) -> None:
        now = time.monotonic()
        rate = done / max(now - self.start, 1e-9)
        eta = (total - done) / rate if rate else 0.0
        verdict = word(outcome.artifact.compatibility.rollingUpdateSafe)
        text = f"{done}/{total} {outcome.artifact.version} {verdict} ({rate:.1f}/s, ETA {eta:.0f}s)"
        if outcome.error:
            click.echo(f"warning: {outcome.artifact.version}: {outcome.error}", err=True)
        if self.tty:
            width = 30
            filled = int(width * done / total) if total else width
            bar = "#" * filled + "-" * (width - filled)
            click.echo(f"\r[{bar}] {text}\x1b[K", nl=done == total, err=True)
        elif done == total or now - self.last_line >= 1.0:
            click.echo(f"backfill: {text}", err=True)
            self.last_line = now


@click.command(
    "backfill",
    epilog=help_epilog(
        ["release-safety backfill --index release-safety-index.json --floor v1.0.0"],
        [
            "0 done (each release's verdict is in the index)",
            "2 bad input (an unknown floor, bad settings)",
            "3 could not check",
        ],
    ),
)
@repo_option
@click.option("--config", type=click.Path(path_type=Path), help="Settings file to use.")
@click.option("--floor", help="Oldest release to backfill (default: settings, then the index).")
@click.option("--through", help="Newest release to backfill (default: the newest tag).")
@click.option(
    "--index",
    "index_path",
    default="release-safety-index.json",
    show_default=True,
    type=click.Path(path_type=Path),
    help="The index file to fill (created when missing, checkpointed while running).",
)
@click.option(
    "--artifacts-dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Also write each release's artifact to DIR/<version>/release-safety.json.",
)
@click.option("--regenerate", is_flag=True, help="Regenerate backfilled entries already indexed.")
@click.option("--force", is_flag=True, help="Also replace releases' own (non-backfilled) entries.")
@click.option(
    "--jobs",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Releases analysed in parallel.",
)
@click.option("--no-cache", is_flag=True, help="Analyse again even where reports are cached.")
@click.option(
    "--checkpoint-seconds",
    default=2.0,
    hidden=True,
    type=click.FloatRange(0),
    help="Rewrite the index at most this often while running.",
)
def backfill_command(
    repo_path: Path,
    config: Path | None,
    floor: str | None,
    through: str | None,
    index_path: Path,
    artifacts_dir: Path | None,
    regenerate: bool,
    force: bool,
    jobs: int,
    no_cache: bool,
    checkpoint_seconds: float,
) -> int:
    """Backfill the index with every release tag from the floor up."""
    settings = load_settings(repo_path, config)
    result = backfill(
        repo_path=repo_path,
        settings=settings,
        index=read_index(index_path),
        index_path=index_path,
        floor=floor,
        through=through,
        artifacts_dir=artifacts_dir,
        regenerate=regenerate,
        force=force,
        jobs=jobs,
        progress=Progress(sys.stderr.isatty()),
        checkpoint_seconds=checkpoint_seconds,
        use_cache=not no_cache,
    )
    click.echo(
        f"{index_path}: {result.generated} generated, {result.skipped} kept"
        f" ({result.kept_release_entries} releases' own entries), {len(result.failures)} failed"
    )
    if result.generated:
        click.echo(verdicts_line(result.verdicts))
    return 0


def verdicts_line(verdicts: Mapping[str, int]) -> str:
    """The generated entries by verdict, saying why backfilled ones are at best UNKNOWN."""
    counts = ", ".join(f"{verdicts.get(v, 0)} {v}" for v in ("true", "false", "unknown"))
    why = (
        " (UNKNOWN: a backfilled release is never proven safe, rule 6; its other reasons are in"
        " its artifact, --artifacts-dir)"
        if verdicts.get("unknown")
        else ""
    )
    return f"verdicts: {counts}{why}"
