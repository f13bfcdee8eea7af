"""Core commands: generate, index update, schema, validate, rules."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from release_safety import jsonio
from release_safety.artifact import unknown_artifact
from release_safety.commands.options import repo_option
from release_safety.errors import InputError, ReleaseSafetyError
from release_safety.evidence import evidence_document
from release_safety.findings import RULES, all_findings
from release_safety.generate import analyse_release, prepare
from release_safety.gitrepo import GitRepo
from release_safety.index import (
    apply_floor,
    checked_index,
    entry_from_artifact,
    index_lock,
    read_index,
    upsert,
    write_index,
)
from release_safety.model import Artifact
from release_safety.render.markdown import upgrade_safety_section
from release_safety.schemas import kind_of, schema_text, validate_document
from release_safety.versions import is_release


def write_or_print(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
    else:
        jsonio.write_atomic(Path(path), text)
        click.echo(path)


@click.command()
@click.option("--to", "to_ref", required=True, help="Release tag or commit being released.")
@click.option("--from", "from_ref", help="Ref of the previous release (default: previous tag).")
@click.option("--version", "version", help="Release version when --to is not a release tag.")
@repo_option
@click.option("--config", type=click.Path(path_type=Path), help="Settings file to use.")
@click.option("--out", default="release-safety.json", show_default=True, help="`-` for stdout.")
@click.option("--evidence", help="Also write every finding as JSON to this file.")
@click.option("--notes", help="Also write the Markdown 'Upgrade safety' section to this file.")
@click.option("--backfilled", is_flag=True, help="Generated retroactively: never true.")
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
) -> int:
    """Write release-safety.json for one release, judged with the settings committed at --to
    (and, when they differ, with the previous release's as well)."""
    repo = GitRepo(repo_path)
    try:
        release, settings, warning = prepare(repo, to_ref, from_ref, version, config)
    except BaseException:
        repo.close()
        raise
    if warning:
        click.echo(f"release-safety: warning: {warning}", err=True)
    try:
        generated = analyse_release(repo, settings, release, backfilled=backfilled)
    except InputError:
        raise
    except Exception as exc:  # fail closed: never leave a file that claims safety
        fallback = unknown_artifact(release.version, release.previous_version, release.release_date)
        text = jsonio.dumps(fallback.to_json_data())
        if out != "-":
            jsonio.write_atomic(Path(out), text)
        sys.stdout.write(text)
        detail = exc.message if isinstance(exc, ReleaseSafetyError) else repr(exc)
        click.echo(
            f"release-safety: generation failed, wrote an all-unknown artifact: {detail}", err=True
        )
        return 3
    finally:
        repo.close()
    if evidence:
        jsonio.write_atomic(Path(evidence), jsonio.dumps(evidence_document(generated)))
    if notes:
        section = upgrade_safety_section(generated.artifact, all_findings(generated.reports))
        jsonio.write_atomic(Path(notes), section)
    write_or_print(out, jsonio.dumps(generated.artifact.to_json_data()))
    return 0


def read_artifact(path: Path) -> Artifact:
    """An artifact file, validated (schema, then its verdict against its blocks)."""
    data = jsonio.read_json(path, strict=True)
    validate_document(data, str(path), "release-safety")
    return Artifact.model_validate(data)


@click.group()
def index() -> None:
    """Maintain release-safety-index.json."""


@index.command("update")
@click.option(
    "--index",
    "index_path",
    required=True,
    type=click.Path(path_type=Path),
    help="The index file to update (created when missing).",
)
@click.option(
    "--artifact",
    "artifact_path",
    required=True,
    type=click.Path(path_type=Path),
    help="The release's release-safety.json to add.",
)
@click.option("--backfilled", is_flag=True, help="The artifact was generated retroactively.")
@click.option("--floor", help="Backfill floor version (gets a synthetic required stop).")
@click.option("--force", is_flag=True, help="Let a backfilled entry replace a release's own.")
def index_update(
    index_path: Path, artifact_path: Path, backfilled: bool, floor: str | None, force: bool
) -> int:
    """Upsert one release's entry into the index (under its lock: concurrent runs queue)."""
    artifact = read_artifact(artifact_path)
    if floor is not None and not is_release(floor):
        raise InputError(f"--floor {floor!r} is not a release version (MAJOR.MINOR.PATCH)")
    if not is_release(artifact.version):
        click.echo(f"{index_path}: {artifact.version} is not a release version; index unchanged")
        return 0
    with index_lock(index_path):
        current = read_index(index_path)
        updated, taken = upsert(current, entry_from_artifact(artifact, backfilled), force=force)
        if floor is not None and all(entry.version != floor for entry in updated.entries):
            raise InputError(
                f"--floor {floor}: not in the index {index_path} (the floor must be an indexed "
                "release); index unchanged"
            )
        updated = apply_floor(updated, floor or current.backfillFloorVersion)
        if not taken:
            click.echo(
                f"{index_path}: kept the release's own entry for {artifact.version} (--force)"
            )
        write_index(index_path, updated)
    click.echo(str(index_path))
    return 0


@click.command()
@click.argument(
    "name", type=click.Choice(["release-safety", "release-safety-index", "upgrade-check"])
)
def schema(name: str) -> int:
    """Print the JSON Schema of an artifact, an index or an upgrade-check result."""
    sys.stdout.write(schema_text(name))
    return 0


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
def validate(file: Path) -> int:
    """Validate an artifact or an index against its schema."""
    document = jsonio.read_json(file, strict=True)
    kind = kind_of(document)
    if kind == "release-safety-index":
        checked_index(document, str(file))
    else:
        validate_document(document, str(file), kind)
    click.echo(f"{file}: valid {kind}")
    return 0


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the catalogue as a JSON array.")
def rules(as_json: bool) -> int:
    """List every rule of every surface."""
    # `generate` imports every surface and the verdict, and with them their rules.
    catalogue = sorted(RULES.values(), key=lambda r: (r.surface, r.id))
    if as_json:
        rows = [rule.__dict__ for rule in catalogue]
        sys.stdout.write(jsonio.dumps(rows))
        return 0
    for rule in catalogue:
        click.echo(f"{rule.id:40} {rule.surface:13} {rule.severity:9} {rule.title}")
    return 0
