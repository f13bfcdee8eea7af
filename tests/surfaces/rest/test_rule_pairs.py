"""Every REST rule fires on its pair and stays quiet on its safe pair, through the one engine."""

from __future__ import annotations

from typing import Any

import pytest
from rest_pairs import build_pair, case_id, load_cases

from release_safety.contract.reports import RULES
from release_safety.surfaces.rest.documents import compare_documents, load_api
from release_safety.surfaces.rest.rules import WAYS_OUT

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_rule_pair(case: dict[str, Any]) -> None:
    old, new = build_pair(case)
    found = compare_documents(load_api(old), load_api(new), "old.json", "new.json")
    rules = {f.rule for f in found}
    if "exactly" in case:
        assert rules == set(case["exactly"]), [f.message for f in found]
    if case["fires"]:
        assert case["rule"] in rules, [f.message for f in found]
        finding = next(f for f in found if f.rule == case["rule"])
        assert finding.severity == RULES[case["rule"]].severity
        assert " — " in finding.message
        assert finding.hint
        assert finding.file in ("old.json", "new.json") and finding.line
        if finding.rule in WAYS_OUT:  # the way out names what changed, not the catalogue's
            assert finding.hint != RULES[finding.rule].safe
            assert finding.message.split(" — ")[0] in finding.hint, finding.hint
    else:
        assert case["rule"] not in rules, [f.message for f in found]
