"""`diff-openapi BASE REVISION`: the REST analyser on two files, without a repository.

Exit codes: 0 no finding at or above the `--fail-on` level; 1 one is (default level `unknown`:
a breaking or an unknown finding); 2 a missing or unreadable document; 3 a file that could not
be read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from release_safety import jsonio
from release_safety.errors import CheckError, InputError
from release_safety.findings import Severity
from release_safety.surfaces.rest.analyse import describe, load_api
from release_safety.surfaces.rest.group import Change, capped
from release_safety.surfaces.rest.load import SpecError
from release_safety.surfaces.rest.normalise import Api

# oasdiff's ERR / WARN / INFO: failing on a level fails on every level above it as well.
LEVELS: tuple[Severity, ...] = ("advisory", "unknown", "breaking")
_TITLES = {"breaking": "Breaking", "unknown": "Unknown", "advisory": "Advisories"}
_SHOWN_OPERATIONS = 20


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file") from exc
    except OSError as exc:
        raise CheckError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def _load(path: Path, previous: Api | None = None) -> Api:
    """The document at `path` (the revision normalised against the base, as the surface does)."""
    data = _read(path)
    try:
        return load_api(data, previous=previous)
    except SpecError as exc:
        raise InputError(f"{path}: {exc}") from exc


def _operations(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:_SHOWN_OPERATIONS])
    more = len(names) - _SHOWN_OPERATIONS
    return shown + (f" and {more} more" if more > 0 else "")


def _entry(change: Change) -> str:
    """A finding as people read it: rule and place, message, operations reached, safer way."""
    finding = change.finding
    lines = [f"{finding.rule} at {finding.file}:{finding.line}", finding.message]
    if change.operations:
        count = len(change.operations)
        noun = "operation" if count == 1 else "operations"
        lines.append(f"{count} {noun}: {_operations(change.operations)}")
    if finding.hint:
        lines.append(f"safer: {finding.hint}")
    return "\n    ".join(lines)


def _document(base: Path, revision: Path, found: list[Change]) -> dict[str, Any]:
    messages = {
        level: [c.finding.message for c in found if c.finding.severity == level] for level in LEVELS
    }
    return {
        "base": str(base),
        "revision": str(revision),
        "breaking": bool(messages["breaking"]),
        "changes": capped(messages["breaking"], "breaking change(s)"),
        "breakingCount": len(messages["breaking"]),
        "unknown": capped(messages["unknown"], "unknown change(s)"),
        "unknownCount": len(messages["unknown"]),
        "advisories": capped(messages["advisory"], "advisory note(s)"),
        "advisoryCount": len(messages["advisory"]),
        "findings": [
            {**c.finding.model_dump(exclude_none=True), "operations": list(c.operations)}
            for c in found
        ],
    }


@click.command("diff-openapi")
@click.argument("base", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("revision", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--fail-on",
    type=click.Choice(LEVELS[::-1]),
    default="unknown",
    show_default=True,
    help="Exit 1 when a finding at this level or above is found (breaking > unknown > advisory).",
)
def diff_openapi(base: Path, revision: Path, as_json: bool, fail_on: str) -> int:
    """Breaking changes and advisories from BASE to REVISION (OpenAPI 3.0 / 3.1, Swagger 2.0)."""
    old = _load(base)
    new = _load(revision, previous=old)
    try:
        found = describe(old, new, str(base), str(revision))
    except SpecError as exc:
        raise InputError(f"{revision}: {exc}") from exc
    failing = LEVELS[LEVELS.index(fail_on) :]
    code = 1 if any(c.finding.severity in failing for c in found) else 0
    if as_json:
        click.echo(jsonio.dumps(_document(base, revision, found)), nl=False)
        return code
    counts = {level: sum(c.finding.severity == level for c in found) for level in LEVELS}
    click.echo(
        f"{counts['breaking']} breaking change(s), {counts['unknown']} unknown,"
        f" {counts['advisory']} advisory note(s)"
    )
    for level in LEVELS[::-1]:
        entries = [_entry(c) for c in found if c.finding.severity == level]
        if entries:
            click.echo(f"\n{_TITLES[level]}:")
            for entry in capped(entries, f"{_TITLES[level].lower()} finding(s)"):
                click.echo(f"  {entry}")
    return code
