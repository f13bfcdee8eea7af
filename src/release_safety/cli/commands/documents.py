"""Commands on the tool's own documents: index update, schema, validate.

Import-light: they read with the shipped JSON Schemas (`contract/schemas.py`) and build pydantic
models only to write (`index update`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from release_safety.cli.commands.options import help_epilog
from release_safety.common import jsonio
from release_safety.common.errors import InputError
from release_safety.contract.index import (
    apply_floor,
    checked_index,
    entry_from_artifact,
    index_lock,
    read_index,
    upsert,
    write_index,
)
from release_safety.contract.schemas import NAMES, kind_of, schema_text, validate_document
from release_safety.contract.versions import Version, is_release

if TYPE_CHECKING:
    from release_safety.contract.model import Artifact


def read_artifact(path: Path) -> Artifact:
    """An artifact file, validated (schema, then its verdict against its blocks)."""
    from release_safety.contract.model import Artifact

    data = jsonio.read_json(path, strict=True)
    validate_document(data, str(path), "release-safety")
    return Artifact.model_validate(data)


_INDEX_UPDATE_HELP = help_epilog(
    [
        "release-safety index update --index release-safety-index.json"
        " --artifact release-safety.json"
    ],
    [
        "0 updated (or unchanged)",
        "2 bad input (an invalid artifact or index)",
        "3 could not write",
    ],
)


@click.group(epilog=_INDEX_UPDATE_HELP)
def index() -> None:
    """Maintain release-safety-index.json."""


@index.command("update", epilog=_INDEX_UPDATE_HELP)
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
    if floor is not None:
        try:
            floor = str(Version.parse(floor))  # `v1.4.0` is the floor 1.4.0
        except InputError as exc:
            raise InputError(f"--floor: {exc.message}") from exc
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


@click.command(
    epilog=help_epilog(["release-safety schema release-safety"], ["0", "2 an unknown name"])
)
@click.argument("name", type=click.Choice(NAMES))
def schema(name: str) -> int:
    """Print the JSON Schema of an artifact, index, evidence file or upgrade-check result."""
    sys.stdout.write(schema_text(name))
    return 0


@click.command(
    epilog=help_epilog(
        ["release-safety validate release-safety.json"], ["0 valid", "2 not valid or missing"]
    )
)
@click.argument("file", type=click.Path(path_type=Path))
def validate(file: Path) -> int:
    """Validate an artifact, index, evidence file or upgrade-check result against its schema
    (the kind is recognised from the document)."""
    document = jsonio.read_json(file, strict=True)
    kind = kind_of(document)
    if kind == "release-safety-index":
        checked_index(document, str(file))
    else:
        validate_document(document, str(file), kind)
    click.echo(f"{file}: valid {kind}")
    return 0
