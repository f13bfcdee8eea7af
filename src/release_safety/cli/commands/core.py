"""The analysing commands: generate and rules (the document commands are in `documents.py`)."""

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
from release_safety.cli.render import VERDICT_WORDS, reasons_text
from release_safety.common import jsonio
from release_safety.common.errors import output_refused
from release_safety.common.spelling import word
from release_safety.contract.reports import RULES, all_findings
from release_safety.git.repository import GitRepo
from release_safety.release.generate import Generated, analyse_release, evidence_document, prepare


def write_or_print(path: str, text: str) -> None:
    if path == "-":
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise output_refused(exc) from exc
    else:
        jsonio.write_atomic(Path(path), text)
        click.echo(path)


@click.command(
    epilog=help_epilog(
        [
            "release-safety generate --to v1.6.0",
            "release-safety generate --to HEAD --version 1.7.0 --notes notes.md",
        ],
        [
            "0 written (whatever the verdict: the artifact says it)",
            "2 bad input",
            "3 could not check",
        ],
    )
)
@click.option("--to", "to_ref", required=True, help="Release tag or commit being released.")
@click.option("--from", "from_ref", help="Ref of the previous release (default: previous tag).")
@click.option("--version", "version", help="Release version when --to is not a release tag.")
@repo_option
@click.option(
    "--config",
    type=click.Path(path_type=Path),
    help="Settings file to judge every ref with, wherever it is (default: each ref's own, else "
    "the working tree's or HEAD's).",
)
@click.option("--out", default="release-safety.json", show_default=True, help="`-` for stdout.")
@click.option("--evidence", help="Also write every finding as JSON to this file.")
@click.option("--notes", help="Also write the Markdown 'Upgrade safety' section to this file.")
@click.option("--backfilled", is_flag=True, help="Generated retroactively: never true.")
@click.option(
    "--verify",
    "verify",
    is_flag=True,
    help="Also run the release's migrations on PostgreSQL (as `verify-migrations`): its "
    "findings join the verdict, the evidence records what it observed, the notes its lock "
    "hold times.",
)
@rows_option
@database_url_option
@postgres_option
def generate(
    to_ref: str,
    from_ref: str | None,
    version: str | None,
    repo_path: Path,
    config: Path | None,
    out: str,
    evidence: str | None,
    notes: str | None,
    backfilled: bool,
    verify: bool,
    rows: int,
    database_url: str | None,
    postgres: int | None,
) -> int:
    """Write release-safety.json for one release, judged with the settings committed at --to
    (and, when they differ, with the previous release's as well).

    A release older than the settings file is judged with the adopting settings (the working
    tree's, else HEAD's), and its notes, evidence and stderr say so."""
    repo = GitRepo(repo_path)
    try:
        release, settings, warning = prepare(repo, to_ref, from_ref, version, config)
    except BaseException:
        repo.close()
        raise
    if warning:
        click.echo(f"release-safety: warning: {warning}", err=True)
    verification = None
    try:  # a failure here writes nothing: the caller's one line, exit 3 (cli.run)
        generated = analyse_release(
            repo, settings, release, backfilled=backfilled, side_by_side=True
        )
        if verify:
            from release_safety.verify.fold import with_verification
            from release_safety.verify.plan import plan_release
            from release_safety.verify.run import Where, verify_plan

            where = Where(database_url=database_url, postgres=postgres)
            verification = verify_plan(plan_release(repo, settings, release), where, rows)
            generated = with_verification(generated, verification, backfilled)
    finally:
        repo.close()
    if evidence:
        document = evidence_document(generated)
        document.verification = verification
        jsonio.write_atomic(Path(evidence), jsonio.dumps(document.to_json_data()))
    if notes:
        from release_safety.cli.render.markdown import upgrade_safety_section
        from release_safety.cli.render.verification import verification_notes

        section = upgrade_safety_section(
            generated.artifact, all_findings(generated.reports), generated.decision.reasons
        )
        if verification is not None:
            section += verification_notes(verification)
        jsonio.write_atomic(Path(notes), section)
    write_or_print(out, jsonio.dumps(generated.artifact.to_json_data()))
    click.echo(f"release-safety: {verdict_summary(generated)}", err=True)
    return 0


def verdict_summary(generated: Generated) -> str:
    """`1.1.0: UNKNOWN (rest surface not checked: ...; and 2 more, ...)`: the verdict in words,
    with its first reasons."""
    verdict = generated.decision.rolling_update_safe
    text = f"{generated.release.version}: {VERDICT_WORDS[word(verdict)]}"
    reasons = generated.decision.reasons
    if verdict is True or not reasons:
        return text
    return f"{text} ({reasons_text(reasons, ', every finding in --evidence FILE')})"


@click.command(epilog=help_epilog(["release-safety rules", "release-safety rules --json"], ["0"]))
@click.option("--json", "as_json", is_flag=True, help="Print the catalogue as a JSON array.")
def rules(as_json: bool) -> int:
    """List every rule of every surface."""
    # `generate` imports every surface and the verdict, and with them their rules; the
    # verification's are `verify-migrations`'.
    import release_safety.verify.rules  # noqa: F401

    catalogue = sorted(RULES.values(), key=lambda r: (r.surface, r.id))
    if as_json:
        rows = [rule.__dict__ for rule in catalogue]
        sys.stdout.write(jsonio.dumps(rows))
        return 0
    for rule in catalogue:
        click.echo(f"{rule.id:40} {rule.surface:13} {rule.severity:9} {rule.title}")
    return 0
