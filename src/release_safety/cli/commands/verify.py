"""`verify-migrations --to REF`: the release's migrations run on a real PostgreSQL, observed
and compared with the static flags (`release_safety.verify`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from release_safety.cli.commands.options import (
    database_url_option,
    help_epilog,
    postgres_option,
    repo_option,
    rows_option,
)
from release_safety.cli.render.annotations import Shown
from release_safety.cli.render.formats import sarif
from release_safety.cli.render.verification import markdown, summary, text
from release_safety.common import jsonio
from release_safety.contract.verification import Verification
from release_safety.git.repository import GitRepo
from release_safety.release.generate import prepare
from release_safety.verify.plan import plan_release
from release_safety.verify.run import Where, verify_plan


def verify_release(
    repo_path: Path,
    to_ref: str,
    from_ref: str | None,
    version: str | None,
    config: Path | None,
    where: Where,
    rows: int,
) -> Verification:
    """Resolve the release as `generate` does, then verify its migrations."""
    repo = GitRepo(repo_path)
    try:
        release, settings, warning = prepare(repo, to_ref, from_ref, version, config)
        if warning:
            click.echo(f"release-safety: warning: {warning}", err=True)
        plan = plan_release(repo, settings, release)
    finally:
        repo.close()
    return verify_plan(plan, where, rows)


@click.command(
    "verify-migrations",
    epilog=help_epilog(
        [
            "release-safety verify-migrations --to v1.6.0",
            "release-safety verify-migrations --to v1.6.0 --format markdown",
            "release-safety verify-migrations --to HEAD --version 1.7.0 "
            "--database-url postgresql://postgres:postgres@localhost:5432/postgres",
        ],
        [
            "0 written (whatever PostgreSQL showed: the report says it)",
            "2 bad input",
            "3 could not check (no PostgreSQL, a server that refused)",
        ],
    ),
)
@click.option("--to", "to_ref", required=True, help="Release tag or commit being released.")
@click.option("--from", "from_ref", help="Ref of the previous release (default: previous tag).")
@click.option("--version", "version", help="Release version when --to is not a release tag.")
@repo_option
@click.option("--config", type=click.Path(path_type=Path), help="Settings file to use.")
@rows_option
@database_url_option
@postgres_option
@click.option(
    "--format",
    "format_",
    type=click.Choice(["text", "json", "markdown", "sarif"]),
    default="text",
    show_default=True,
    help="How to print the report.",
)
def verify_migrations(
    to_ref: str,
    from_ref: str | None,
    version: str | None,
    repo_path: Path,
    config: Path | None,
    rows: int,
    database_url: str | None,
    postgres: int | None,
    format_: str,
) -> int:
    """Run the release's migrations on a real PostgreSQL and show what it did."""
    where = Where(database_url=database_url, postgres=postgres)
    verification = verify_release(repo_path, to_ref, from_ref, version, config, where, rows)
    if format_ == "json":
        sys.stdout.write(jsonio.dumps(verification.to_json_data()))
    elif format_ == "markdown":
        sys.stdout.write(markdown(verification))
    elif format_ == "sarif":
        sys.stdout.write(sarif(Shown.of(verification.findings), command="verify-migrations"))
    else:
        sys.stdout.write(text(verification))
    if format_ != "text":
        click.echo(f"release-safety: {summary(verification)}", err=True)
    return 0
