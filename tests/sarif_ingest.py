"""SARIF as GitHub code scanning ingests it: the 2.1.0 schema (tests/data) and GitHub's own rules
("SARIF support for code scanning" and "SARIF results exceed limits": a location and a
fingerprint per result; at most 20 runs per file, 25,000 results and 25,000 rules per run,
1,000 locations per result, 20 tags per rule), and this tool's own: the driver lists only the
rules the results use, each once, and a result's `ruleIndex` points at its rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA = json.loads(
    (Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8")
)


def github_accepts(log: dict[str, Any]) -> None:
    """Fail unless the log is SARIF 2.1.0 that GitHub code scanning takes in, listing only the
    rules its results use."""
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert log["version"] == "2.1.0"
    assert 1 <= len(log["runs"]) <= 20
    for run_ in log["runs"]:
        rules = run_["tool"]["driver"]["rules"]
        assert len(rules) <= 25_000 and len(run_["results"]) <= 25_000
        assert run_["automationDetails"]["id"].startswith("release-safety/")
        for rule in rules:
            assert rule["name"] and rule["help"]["markdown"] and rule["helpUri"]
            assert len(rule.get("properties", {}).get("tags", [])) <= 20
        for result in run_["results"]:
            assert 1 <= len(result["locations"]) <= 1_000, result
            for location in result["locations"]:
                physical = location["physicalLocation"]
                assert physical["artifactLocation"]["uri"]
                assert physical["region"]["startLine"] >= 1
            assert result["partialFingerprints"]
            assert result["message"]["text"]
        _rules_used(rules, run_["results"])


def _rules_used(rules: list[dict[str, Any]], results: list[dict[str, Any]]) -> None:
    """Each listed rule is used by a result and listed once; each result of a listed rule has
    its `ruleIndex`, pointing at that rule."""
    ids = [rule["id"] for rule in rules]
    assert len(ids) == len(set(ids)), ids
    assert set(ids) <= {result["ruleId"] for result in results}, ids
    for result in results:
        if result["ruleId"] in ids:
            assert ids[result["ruleIndex"]] == result["ruleId"], result
        else:
            assert "ruleIndex" not in result, result
