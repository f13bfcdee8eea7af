"""The generated rule table (`rules/table.py`) is the catalogue without its examples: the lint
reports rules built from it, so it must say what the catalogue says, rule for rule."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from release_safety.surfaces.migrations.rules import registered, tablegen
from release_safety.surfaces.migrations.rules.catalogue import CATALOGUE


def test_the_table_is_what_the_catalogue_generates() -> None:
    # regenerate with `python -m release_safety.surfaces.migrations.rules.tablegen`
    assert tablegen.TABLE.read_text(encoding="utf-8") == tablegen.render()


def test_the_lint_reports_the_catalogues_rules() -> None:
    catalogue = {entry.rule.id: entry.rule for entry in CATALOGUE}
    assert {rule.id: rule for rule in registered.BY_ID.values()} == catalogue


def test_a_lint_loads_no_example(tmp_path: Path) -> None:
    migration = tmp_path / "1.sql"
    migration.write_text("CREATE INDEX users_email ON users (email);\n")
    probe = (
        "import sys\n"
        "from release_safety.cli.lint import lint_files, json_report\n"
        f"linted = lint_files([{str(migration)!r}], None, ())\n"
        "assert 'blocking-table-lock' in json_report(linted)\n"
        "print('release_safety.surfaces.migrations.rules.catalogue' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
