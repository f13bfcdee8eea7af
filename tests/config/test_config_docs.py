"""The rule catalogue page lists every config rule as registered."""

from __future__ import annotations

from pathlib import Path

from release_safety.findings import RULES
from release_safety.surfaces import config

DOC = Path(__file__).parents[2] / "docs" / "config-rules.md"


def test_every_rule_is_documented() -> None:
    assert config.analyse is not None
    text = DOC.read_text(encoding="utf-8")
    rules = [rule for rule in RULES.values() if rule.surface == "config"]
    assert len(rules) == 8
    for rule in rules:
        assert (
            f"| `{rule.id}` | {rule.severity} | {rule.title.replace('|', chr(92) + '|')} |" in text
        )
