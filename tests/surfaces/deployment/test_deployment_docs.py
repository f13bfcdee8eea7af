"""docs/deployment-rules.md is what the rules and the catalogue render."""

from __future__ import annotations

from pathlib import Path

from release_safety.contract.reports import RULES
from release_safety.surfaces.deployment.docs import render

DOC = Path(__file__).parents[3] / "docs" / "deployment-rules.md"


def test_the_page_is_rendered_from_the_rules() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert text == render(), "stale: write release_safety.surfaces.deployment.docs.render() to it"
    rules = [rule for rule in RULES.values() if rule.surface == "deployment"]
    assert len(rules) == 25
    assert all(f"### `{rule.id}`" in text for rule in rules)
