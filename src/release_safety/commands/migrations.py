"""`lint-migrations FILE...`: lint migration files directly, outside any release.

Exit codes: 0 nothing breaking or unknown; 1 a breaking finding or a statement that could not
be classified; 2 a missing file or bad settings; 3 a file that could not be read.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from release_safety.errors import InputError
from release_safety.findings import Finding
from release_safety.inputs import STDIN, read_document
from release_safety.jsonio import dumps
from release_safety.render.annotations import Shown
from release_safety.render.formats import (
    chosen_format,
    format_options,
    shared,
)
from release_safety.rulesoff import rules_off
from release_safety.settings import Settings, find_settings, load_settings, repository_root

if TYPE_CHECKING:
    from release_safety.surfaces.migrations.analyse import Format

_KNEX_SUFFIXES = (".ts", ".js", ".mjs", ".cjs")
_KNEX_UP = re.compile(
    r"\bexports\.up\b|\bexport\s+(?:async\s+)?(?:function|const|let)\s+up\b|\bup\s*[:(]"
)


def _settings(postgres_version: int | None) -> tuple[Settings, str]:
    """The nearest settings (walking up to the repository root) and where they are."""
    where = find_settings(Path("."))
    settings = load_settings(Path("."), where)
    if postgres_version is not None:
        settings = settings.model_copy(update={"postgres_version": postgres_version})
    return settings, str(where or "the default settings")


def _format(name: str, path: str, text: str) -> Format:
    """How to read a migration; anything else is refused (`-` is read as SQL)."""
    if name == STDIN or path.endswith(".sql"):
        return "sql"
    if path.endswith(_KNEX_SUFFIXES) and _KNEX_UP.search(text):
        return "knex"
    kind = "a .ts/.js file without an `up` export" if path.endswith(_KNEX_SUFFIXES) else "not .sql"
    raise InputError(f"{name}: not a migration ({kind}; lint SQL .sql files or knex migrations)")


@click.command("lint-migrations")
@click.argument("files", nargs=-1, required=True)
@click.option(
    "--postgres-version",
    type=click.IntRange(9, 30),
    default=None,
    help="PostgreSQL major version the migrations run on (default: settings, else 15).",
)
@click.option(
    "--exclude",
    "excluded",
    multiple=True,
    metavar="RULE",
    help="Do not report this rule (repeatable; besides the settings' `[rules] off`).",
)
@format_options
def lint_migrations(
    files: tuple[str, ...],
    postgres_version: int | None,
    excluded: tuple[str, ...],
    format_: str | None,
    as_json: bool,
) -> int:
    """Lint SQL (.sql) and knex (.ts/.js) migration files: heaviness and compatibility. The
    files are taken in the order given, each on the schema the earlier ones built.

    Each FILE is a path, `-` for standard input (read as SQL), or REF:path for the file at a
    git ref (`main:db/migrations/001.sql`; an existing file of that name wins)."""
    from release_safety.surfaces.migrations.analyse import findings_of, lint_texts

    chosen = chosen_format(format_, as_json)
    settings, where = _settings(postgres_version)
    off = rules_off(settings.rules.off, where) | rules_off(excluded, "--exclude")
    root = repository_root(Path("."))
    uris: dict[str, str | None] = {}  # each file's path from the repository root, for SARIF
    texts: list[tuple[str, str, Format]] = []
    for index, name in enumerate(files):
        document = read_document(name, stdin_used=STDIN in files[:index])
        text = document.data.decode("utf-8", errors="replace")
        uris[document.shown] = document.uri(root)
        texts.append((document.shown, text, _format(name, document.shown, text)))
    reports: list[dict[str, Any]] = []
    every: list[Finding] = []
    for (name, _, _), analysis in zip(texts, lint_texts(texts, settings), strict=True):
        findings = [f for f in findings_of(analysis, name) if f.rule not in off]
        every += findings
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
    worst = 1 if any(f.severity in ("breaking", "unknown") for f in every) else 0
    if chosen == "json":
        click.echo(
            dumps({"postgresVersion": settings.postgres_version, "files": reports}), nl=False
        )
    elif chosen == "text":
        _print_text(reports)
    else:
        shown = Shown.of(every)
        click.echo(shared(chosen, "Migration lint", shown, uris.get), nl=False)
    return worst


def _print_text(reports: list[dict[str, Any]]) -> None:
    for report in reports:
        flags = ", ".join(f"{k}={_show(v)}" for k, v in report["heaviness"].items())
        click.echo(f"{report['file']}: tables [{', '.join(report['tables'])}]; {flags}")
        for finding in report["findings"]:
            where = f"{finding['file']}:{finding.get('line', 1)}"
            click.echo(f"  {where}: {finding['severity']} {finding['rule']}: {finding['message']}")
            if "hint" in finding:
                click.echo(f"    safer: {finding['hint']}")


def _show(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
