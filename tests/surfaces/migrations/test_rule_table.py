"""The generated rule table (`rules/table.py`) is the catalogue without its examples: the lint
reports rules built from it, so it must say what the catalogue says, rule for rule."""

from __future__ import annotations

from release_safety.surfaces.migrations.rules import registered, tablegen
from release_safety.surfaces.migrations.rules.catalogue import CATALOGUE


def test_the_table_is_what_the_catalogue_generates() -> None:
    # regenerate with `python -m release_safety.surfaces.migrations.rules.tablegen`
    assert tablegen.TABLE.read_text(encoding="utf-8") == tablegen.render()


def test_the_lint_reports_the_catalogues_rules() -> None:
    catalogue = {entry.rule.id: entry.rule for entry in CATALOGUE}
    assert {rule.id: rule for rule in registered.BY_ID.values()} == catalogue
