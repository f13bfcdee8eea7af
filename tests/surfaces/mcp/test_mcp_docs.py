"""The MCP rules page is generated from the catalogue, and every rule is registered."""

from __future__ import annotations

from pathlib import Path

from release_safety.contract.reports import RULES
from release_safety.surfaces.mcp.rules import CATALOGUE, render_docs

DOC = Path(__file__).parents[3] / "docs" / "mcp-rules.md"


def test_rules_page_is_generated_from_the_catalogue() -> None:
    assert DOC.read_text(encoding="utf-8") == render_docs(), (
        "regenerate: python -c 'from pathlib import Path; from release_safety.surfaces.mcp."
        'rules import render_docs; Path("docs/mcp-rules.md").write_text(render_docs())\''
    )


def test_rules_are_registered_in_the_shared_catalogue() -> None:
    registered = {rule.id for rule in RULES.values() if rule.surface == "mcp"}
    assert registered == {rule.id for rule in CATALOGUE.rules}
    for rule in CATALOGUE.rules:
        assert RULES[rule.id].severity == rule.level
        assert rule.why and rule.unsafe and rule.safe
