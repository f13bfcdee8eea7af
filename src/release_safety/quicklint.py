"""`lint-migrations` without click: the lint itself, and the plain `--json` call.

`lint_files` reads, lints and reports the files; `commands/migrations.py` prints its reports in
every format. A call of the plain form `lint-migrations FILE... --json` (no other option, no
file named with a leading `-` but `-` itself) is answered here without importing click (a
twentieth of a 2,000-file run); `quick_lint` returns None for anything else and click parses it
as always. The JSON and the exit code are the same either way: both print `json_report`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from release_safety.errors import InputError
from release_safety.finding import Finding
from release_safety.inputs import STDIN, Document, read_document
from release_safety.jsonio import dumps_plain
from release_safety.rulesoff import rules_off
from release_safety.settingsfile import find_settings

if TYPE_CHECKING:
    from release_safety.surfaces.migrations.lint import Format
    from release_safety.surfaces.migrations.reading import Reading

_KNEX_SUFFIXES = (".ts", ".js", ".mjs", ".cjs")
_KNEX_UP = re.compile(
    r"\bexports\.up\b|\bexport\s+(?:async\s+)?(?:function|const|let)\s+up\b|\bup\s*[:(]"
)


class Linted(NamedTuple):
    """The files linted: how they were read, one report per file, every finding reported and
    the exit code (1 for a breaking or unknown finding, else 0)."""

    reading: Reading
    documents: list[Document]
    reports: list[dict[str, Any]]
    findings: list[Finding]
    code: int


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


def lint_files(
    files: Sequence[str], postgres_version: int | None, excluded: Sequence[str]
) -> Linted:
    """Lint the files in the order given, each on the schema the earlier ones built, without
    the rules the settings or `excluded` turn off."""
    from release_safety.surfaces.migrations.lint import findings_of, lint_texts

    reading, off = _settings(postgres_version)
    off |= rules_off(excluded, "--exclude")
    documents: list[Document] = []
    texts: list[tuple[str, str, Format]] = []
    stdin_used = False  # `-` named earlier (not `STDIN in files[:index]`: quadratic in files)
    for name in files:
        document = read_document(name, stdin_used=stdin_used)
        stdin_used |= name == STDIN
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
    return Linted(reading, documents, reports, every, worst)


def json_report(linted: Linted) -> str:
    """What `lint-migrations --json` prints."""
    return dumps_plain(
        {"postgresVersion": linted.reading.postgres_version, "files": linted.reports}
    )


def quick_lint(args: Sequence[str]) -> int | None:
    """Answer a plain `lint-migrations FILE... --json` call (printing it), or None to leave it
    to click. Errors are raised as the click command raises them."""
    if not args or args[0] != "lint-migrations" or args.count("--json") != 1:
        return None
    files = [a for a in args[1:] if a != "--json"]
    if not files or any(a.startswith("-") and a != STDIN for a in files):
        return None
    linted = lint_files(files, None, ())
    sys.stdout.write(json_report(linted))
    sys.stdout.flush()
    return linted.code
