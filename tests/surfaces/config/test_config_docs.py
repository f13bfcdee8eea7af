"""The rule catalogue page is generated from the rules."""

from __future__ import annotations

from pathlib import Path

from release_safety.contract.reports import RULES
from release_safety.surfaces.config.page import render

DOC = Path(__file__).parents[3] / "docs" / "config-rules.md"


def test_the_page_is_generated_from_the_rules() -> None:
    assert DOC.read_text(encoding="utf-8") == render()


def test_every_config_rule_is_on_the_page() -> None:
    page = render()
    rules = [rule for rule in RULES.values() if rule.surface == "config"]
    assert len(rules) == 13
    assert all(f"| `{rule.id}` | {rule.severity} |" in page for rule in rules)
