"""`diff-openapi BASE REVISION`: the REST analyser on two files, without a repository."""

from __future__ import annotations

from pathlib import Path

import click

from release_safety import jsonio
from release_safety.errors import CheckError, InputError
from release_safety.surfaces.rest.analyse import compare_documents, load_api
from release_safety.surfaces.rest.group import capped
from release_safety.surfaces.rest.load import SpecError
from release_safety.surfaces.rest.normalise import Api


def _load(path: Path) -> Api:
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file") from exc
    except OSError as exc:
        raise CheckError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        return load_api(data)
    except SpecError as exc:
        raise InputError(f"{path}: {exc}") from exc


@click.command("diff-openapi")
@click.argument("base", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("revision", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--fail-on",
    type=click.Choice(["breaking"]),
    help="Exit 1 when a breaking change is found.",
)
def diff_openapi(base: Path, revision: Path, as_json: bool, fail_on: str | None) -> int:
    """Breaking changes and advisories from BASE to REVISION (OpenAPI 3.0 / 3.1, Swagger 2.0)."""
    old, new = _load(base), _load(revision)
    try:
        found = compare_documents(old, new, str(base), str(revision))
    except SpecError as exc:
        raise InputError(f"{revision}: {exc}") from exc
    breaking = [f.message for f in found if f.severity == "breaking"]
    advisories = [f.message for f in found if f.severity == "advisory"]
    changes = capped(breaking, "breaking change(s)")
    notes = capped(advisories, "advisory note(s)")
    if as_json:
        document = {
            "base": str(base),
            "revision": str(revision),
            "breaking": bool(breaking),
            "changes": changes,
            "breakingCount": len(breaking),
            "advisories": notes,
            "advisoryCount": len(advisories),
            "findings": [f.model_dump(exclude_none=True) for f in found],
        }
        click.echo(jsonio.dumps(document), nl=False)
    else:
        click.echo(f"{len(breaking)} breaking change(s), {len(advisories)} advisory note(s)")
        for title, lines in (("Breaking", changes), ("Advisories", notes)):
            if lines:
                click.echo(f"\n{title}:")
                for line in lines:
                    click.echo(f"  {line}")
    return 1 if fail_on == "breaking" and breaking else 0
