"""`lint-migrations FILE...`: lint migration files directly, outside any release.

Exit codes: 0 nothing breaking or unknown; 1 a breaking finding or a statement that could not
be classified; 2 a missing file or bad settings; 3 a file that could not be read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from release_safety.errors import CheckError, InputError
from release_safety.jsonio import dumps
from release_safety.settings import Settings, load_settings


def _settings(postgres_version: int | None) -> Settings:
    settings = load_settings(Path("."), None)
    if postgres_version is not None:
        settings = settings.model_copy(update={"postgres_version": postgres_version})
    return settings


@click.command("lint-migrations")
@click.argument("files", nargs=-1, required=True)
@click.option(
    "--postgres-version",
    type=click.IntRange(9, 30),
    default=None,
    help="PostgreSQL major version the migrations run on (default: settings, else 15).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def lint_migrations(files: tuple[str, ...], postgres_version: int | None, as_json: bool) -> int:
    """Lint SQL (.sql) and knex (.ts/.js) migration files: heaviness and compatibility. The
    files are taken in the order given, each on the schema the earlier ones built."""
    from release_safety.surfaces.migrations.analyse import findings_of, lint_texts

    settings = _settings(postgres_version)
    texts: list[tuple[str, str]] = []
    for name in files:
        path = Path(name)
        if not path.is_file():
            raise InputError(f"{name}: no such file")
        try:
            texts.append((name, path.read_bytes().decode("utf-8", errors="replace")))
        except OSError as exc:
            raise CheckError(f"{name}: cannot read: {exc.strerror or exc}") from exc
    reports: list[dict[str, Any]] = []
    worst = 0
    for (name, _), analysis in zip(texts, lint_texts(texts, settings), strict=True):
        findings = findings_of(analysis, name)
        if any(f.severity in ("breaking", "unknown") for f in findings):
            worst = 1
        reports.append(
            {
                "file": name,
                "tables": analysis.tables,
                "heaviness": {
                    "locksTable": analysis.locks,
                    "rewritesTable": analysis.rewrites,
                    "scansTable": analysis.scans,
                },
                "findings": [f.model_dump(exclude_none=True) for f in findings],
            }
        )
    if as_json:
        click.echo(
            dumps({"postgresVersion": settings.postgres_version, "files": reports}), nl=False
        )
        return worst
    for report in reports:
        flags = ", ".join(f"{k}={_show(v)}" for k, v in report["heaviness"].items())
        click.echo(f"{report['file']}: tables [{', '.join(report['tables'])}]; {flags}")
        for finding in report["findings"]:
            click.echo(f"  {finding['severity']} {finding['rule']}: {finding['message']}")
            if "hint" in finding:
                click.echo(f"    safer: {finding['hint']}")
    return worst


def _show(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
