"""Every MCP rule fires on its pair and stays quiet on its safe pair, through the one engine."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_pairs import build_pair, load_cases

from release_safety.contract.reports import RULES
from release_safety.surfaces.mcp.load import parse
from release_safety.surfaces.mcp.rules import WAYS_OUT, diff_tools

CASES = load_cases()
PATH = "mcp-tools.json"


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_rule_pair(case: dict[str, Any]) -> None:
    old, new = build_pair(case)
    found = diff_tools(parse(PATH, old.encode()), parse(PATH, new.encode()))
    rules = {f.rule for f in found}
    assert rules == set(case["exactly"]), [f.message for f in found]
    if case["fires"]:
        finding = next(f for f in found if f.rule == case["rule"])
        assert finding.severity == RULES[case["rule"]].severity
        assert finding.hint and finding.file == PATH and finding.line and finding.line > 1
        if finding.rule in WAYS_OUT:  # the way out names the tool, not the catalogue's example
            tool = finding.message.split("`")[1]
            assert f"MCP tool `{tool}`" in finding.hint, finding.hint
        if "message" in case:
            assert finding.message == case["message"]
    else:
        assert case["rule"] not in rules
