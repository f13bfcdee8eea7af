"""Every rule fires on its breaking (or advisory) pair and stays quiet on its safe pair."""

from __future__ import annotations

from typing import Any

import pytest
from rest_pairs import build_pair, case_id, load_cases

from release_safety.surfaces.rest.analyse import compare_documents, load_api
from release_safety.surfaces.rest.rules import CATALOGUE

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_rule_pair(case: dict[str, Any]) -> None:
    old, new = build_pair(case)
    found = compare_documents(load_api(old), load_api(new), "old.json", "new.json")
    rules = {f.rule for f in found}
    if case["fires"]:
        assert case["rule"] in rules, [f.message for f in found]
        finding = next(f for f in found if f.rule == case["rule"])
        level = next(r.level for r in CATALOGUE if r.id == case["rule"])
        assert finding.severity == level
        assert " — " in finding.message
        assert finding.hint
    else:
        assert case["rule"] not in rules, [f.message for f in found]


def test_every_rule_has_a_firing_and_a_quiet_case() -> None:
    fires = {c["rule"] for c in CASES if c["fires"]}
    quiet = {c["rule"] for c in CASES if not c["fires"]}
    ids = {r.id for r in CATALOGUE}
    assert ids == fires
    assert ids == quiet
    assert len(ids) == len(CATALOGUE)
