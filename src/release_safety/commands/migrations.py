"""`lint-migrations FILE...`: lint migration files directly, outside any release.

Exit codes: 0 nothing breaking or unknown; 1 a breaking finding or a statement that could not
be classified; 2 a missing file or bad settings; 3 a file that could not be read.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from release_safety.errors import InputError
from release_safety.finding import Finding
from release_safety.inputs import STDIN, Document, read_document
from release_safety.jsonio import dumps_plain
from release_safety.render.annotations import Shown
from release_safety.render.formats import (
    chosen_format,
    format_options,
    shared,
)
from release_safety.rulesoff import rules_off
from release_safety.settingsfile import find_settings, repository_root

if TYPE_CHECKING:
    from release_safety.surfaces.migrations.lint import Format
    from release_safety.surfaces.migrations.reading import Reading

_KNEX_SUFFIXES = (".ts", ".js", ".mjs", ".cjs")
_KNEX_UP = re.compile(
    r"\bexports\.up\b|\bexport\s+(?:async\s+)?(?:function|const|let)\s+up\b|\bup\s*[:(]"
)


def _settings(postgres_version: int | None) -> tuple[Reading, frozenset[str]]:
    """How to read the migrations and the rules turned off, from the nearest settings (walking
    up to the repository root; the defaults, without loading pydantic, when there are none)."""
    from release_safety.surfaces.migrations.reading import Reading

    where = find_settings(Path("."))
    if where is None:
        reading, off = Reading(), frozenset[str]()
    else:
        from release_safety.settings import load_settings

        settings = load_settings(Path("."), where)
        reading, off = Reading.of(settings), rules_off(settings.rules.off, str(where))
    if postgres_version is not None:
        reading = replace(reading, postgres_version=postgres_version)
    return reading, off


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
    from release_safety.surfaces.migrations.lint import findings_of, lint_texts

    chosen = chosen_format(format_, as_json)
    reading, off = _settings(postgres_version)
    off |= rules_off(excluded, "--exclude")
    documents: list[Document] = []
    texts: list[tuple[str, str, Format]] = []
    for index, name in enumerate(files):
        document = read_document(name, stdin_used=STDIN in files[:index])
        text = document.data.decode("utf-8", errors="replace")
        documents.append(document)
        texts.append((document.shown, text, _format(name, document.shown, text)))
    reports: list[dict[str, Any]] = []
    every: list[Finding] = []
    for (name, _, _), analysis in zip(texts, lint_texts(texts, reading), strict=True):
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
                "findings": [f.to_dict(omit_none=True) for f in findings],
            }
        )
    worst = 1 if any(f.severity in ("breaking", "unknown") for f in every) else 0
    if chosen == "json":
        output = {"postgresVersion": reading.postgres_version, "files": reports}
        click.echo(dumps_plain(output), nl=False)
    elif chosen == "text":
        _print_text(reports)
    else:
        root = repository_root(Path("."))
        uris = {d.shown: d.uri(root) for d in documents}  # paths from the repository root
        click.echo(shared(chosen, "Migration lint", Shown.of(every), uris.get), nl=False)
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
