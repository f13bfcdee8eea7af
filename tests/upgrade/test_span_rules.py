"""Verdict rules 1 to 7 of docs/contract.md, one table row per behaviour."""

from __future__ import annotations

from typing import Any

import pytest
from upgrade_indexes import as_index, chained, entry, index_doc

from release_safety.common.errors import InputError
from release_safety.upgrade.span import evaluate_span

ALL_TRUE = chained(("1.0.0", True), ("1.1.0", True), ("1.2.0", True), ("1.3.0", True))


def check(entries: list[dict[str, Any]], start: str, target: str, floor: str | None = None):
    return evaluate_span(as_index(index_doc(entries, floor)), start, target)


# (case name, entries, floor, from, to, expected fields)
CASES: list[tuple[str, list[dict[str, Any]], str | None, str, str, dict[str, Any]]] = [
    (
        "rule2_all_true_span_is_safe",
        ALL_TRUE,
        None,
        "1.0.0",
        "1.3.0",
        {"safe": True, "verdict": True, "coveredVersions": ["1.1.0", "1.2.0", "1.3.0"]},
    ),
    (
        "rule2_span_excludes_the_start_release",
        chained(("1.0.0", False), ("1.1.0", True)),
        None,
        "1.0.0",
        "1.1.0",
        {"safe": True, "verdict": True, "coveredVersions": ["1.1.0"]},
    ),
    (
        "rule1_one_false_release_makes_the_span_false",
        chained(("1.0.0", True), ("1.1.0", True), ("1.2.0", False), ("1.3.0", True)),
        None,
        "1.0.0",
        "1.3.0",
        {"safe": False, "verdict": False},
    ),
    (
        "rule1_unknown_counts_as_false",
        chained(("1.0.0", True), ("1.1.0", "unknown"), ("1.2.0", True)),
        None,
        "1.0.0",
        "1.2.0",
        {"safe": False, "verdict": "unknown"},
    ),
    (
        "rule1_false_wins_over_unknown",
        chained(("1.0.0", True), ("1.1.0", "unknown"), ("1.2.0", False)),
        None,
        "1.0.0",
        "1.2.0",
        {"safe": False, "verdict": False},
    ),
    (
        "rule6_backfilled_unknown_span_is_not_safe",
        chained(("1.0.0", "unknown"), ("1.1.0", "unknown"), ("1.2.0", True)),
        "1.0.0",
        "1.0.0",
        "1.2.0",
        {"safe": False, "verdict": "unknown", "requiredStops": []},
    ),
    (
        "rule3_stop_inside_the_span_blocks_the_hop",
        [*ALL_TRUE[:3], entry("1.3.0", "1.2.0", True, stops=("1.2.0",))],
        None,
        "1.0.0",
        "1.3.0",
        {"safe": False, "verdict": True, "requiredStops": ["1.2.0"]},
    ),
    (
        "rule3_stop_equal_to_the_target_does_not_block",
        [*ALL_TRUE[:2], entry("1.2.0", "1.1.0", True, stops=("1.2.0",)), ALL_TRUE[3]],
        None,
        "1.0.0",
        "1.2.0",
        {"safe": True, "verdict": True, "requiredStops": []},
    ),
    (
        "rule3_stop_already_passed_is_not_reported",
        [*ALL_TRUE[:3], entry("1.3.0", "1.2.0", True, stops=("1.1.0",))],
        None,
        "1.1.0",
        "1.3.0",
        {"safe": True, "requiredStops": []},
    ),
    (
        "rule3_synthetic_stop_entry_is_a_stop_in_the_span",
        [
            entry("1.0.0", None),
            entry("1.1.0", "1.0.0", True, synthetic=True),
            entry("1.2.0", "1.1.0"),
        ],
        None,
        "1.0.0",
        "1.2.0",
        {"safe": False, "requiredStops": ["1.1.0"]},
    ),
    (
        "rule4_min_previous_above_the_start_is_unsafe",
        [*ALL_TRUE[:3], entry("1.3.0", "1.2.0", True, min_previous="1.1.0")],
        None,
        "1.0.0",
        "1.3.0",
        {"safe": False, "verdict": True, "minPreviousVersion": "1.1.0"},
    ),
    (
        "rule4_min_previous_equal_to_the_start_is_allowed",
        [*ALL_TRUE[:3], entry("1.3.0", "1.2.0", True, min_previous="1.1.0")],
        None,
        "1.1.0",
        "1.3.0",
        {"safe": True, "minPreviousVersion": "1.1.0"},
    ),
    (
        "rule4_the_highest_min_previous_in_the_span_is_reported",
        [
            ALL_TRUE[0],
            entry("1.1.0", "1.0.0", True, min_previous="1.0.0"),
            entry("1.2.0", "1.1.0", True, min_previous="0.9.0"),
            ALL_TRUE[3],
        ],
        None,
        "1.0.0",
        "1.3.0",
        {"safe": True, "minPreviousVersion": "1.0.0"},
    ),
    (
        "rule5_below_the_floor_goes_to_the_floor_first",
        [entry("1.0.0", "0.9.0", "unknown", stops=("1.0.0",), synthetic=True), *ALL_TRUE[1:]],
        "1.0.0",
        "0.9.0",
        "1.3.0",
        {
            "safe": False,
            "verdict": "unknown",
            "requiredStops": ["1.0.0"],
            "missingRanges": [],
            "coveredVersions": ["1.0.0", "1.1.0", "1.2.0", "1.3.0"],
        },
    ),
    (
        "rule5_floor_is_a_stop_even_when_the_floor_entry_does_not_list_itself",
        ALL_TRUE,
        "1.1.0",
        "0.5.0",
        "1.3.0",
        {"safe": False, "requiredStops": ["1.1.0"]},
    ),
    (
        "rule5_far_below_the_floor_reports_the_uncovered_step_to_the_floor",
        [entry("1.0.0", "0.9.0", True, synthetic=True), *ALL_TRUE[1:]],
        "1.0.0",
        "0.5.0",
        "1.0.0",
        {
            "safe": False,
            "verdict": "unknown",
            "requiredStops": [],
            "missingRanges": [{"afterVersion": "0.5.0", "beforeVersion": "1.0.0"}],
        },
    ),
    (
        "rule5_hop_landing_on_the_floor_from_its_previous_release_is_covered",
        [entry("1.0.0", "0.9.0", True, stops=("1.0.0",), synthetic=True), *ALL_TRUE[1:]],
        "1.0.0",
        "0.9.0",
        "1.0.0",
        {"safe": True, "verdict": True, "requiredStops": [], "missingRanges": []},
    ),
    (
        "rule7_unindexed_target_is_a_missing_range",
        ALL_TRUE,
        None,
        "1.0.0",
        "1.5.0",
        {
            "safe": False,
            "verdict": "unknown",
            "missingRanges": [{"afterVersion": "1.3.0", "beforeVersion": None}],
        },
    ),
    (
        "rule7_unindexed_start_is_a_missing_range",
        ALL_TRUE,
        None,
        "1.0.5",
        "1.3.0",
        {
            "safe": False,
            "verdict": "unknown",
            "missingRanges": [{"afterVersion": "1.0.0", "beforeVersion": "1.1.0"}],
        },
    ),
    (
        "rule7_start_below_everything_without_a_floor_is_missing",
        ALL_TRUE,
        None,
        "0.1.0",
        "1.1.0",
        {"safe": False, "missingRanges": [{"afterVersion": None, "beforeVersion": "1.0.0"}]},
    ),
    (
        "rule7_broken_previous_version_chain_is_a_missing_range",
        [*ALL_TRUE[:2], entry("1.2.0", "1.1.5", True), entry("1.3.0", "1.2.0", True)],
        None,
        "1.0.0",
        "1.3.0",
        {
            "safe": False,
            "verdict": "unknown",
            "missingRanges": [{"afterVersion": "1.1.0", "beforeVersion": "1.2.0"}],
        },
    ),
    (
        "rule7_false_release_beside_a_gap_keeps_the_verdict_false",
        [*ALL_TRUE[:2], entry("1.2.0", "1.1.5", False)],
        None,
        "1.0.0",
        "1.2.0",
        {"safe": False, "verdict": False},
    ),
    (
        "rule7_empty_index_is_missing_everything",
        [],
        None,
        "1.0.0",
        "1.1.0",
        {"safe": False, "verdict": "unknown", "coveredVersions": []},
    ),
    (
        "direction_same_version_held_is_safe_and_empty",
        ALL_TRUE,
        None,
        "1.2.0",
        "1.2.0",
        {"direction": "same-version", "safe": True, "verdict": True, "coveredVersions": []},
    ),
    (
        "direction_same_version_not_indexed_is_unsafe",
        ALL_TRUE,
        None,
        "1.2.7",
        "1.2.7",
        {"direction": "same-version", "safe": False, "verdict": "unknown"},
    ),
    (
        "direction_downgrade_over_true_releases_is_reported_never_safe",
        ALL_TRUE,
        None,
        "1.3.0",
        "1.1.0",
        {
            "direction": "downgrade",
            "safe": False,
            "verdict": "unknown",
            "coveredVersions": ["1.2.0", "1.3.0"],
        },
    ),
    (
        "direction_downgrade_over_a_false_release_is_false",
        chained(("1.0.0", True), ("1.1.0", False), ("1.2.0", True)),
        None,
        "1.2.0",
        "1.0.0",
        {"direction": "downgrade", "safe": False, "verdict": False},
    ),
    (
        "versions_compare_numerically_per_part",
        chained(("0.2155.9", True), ("0.2155.10", True), ("0.2156.0", True)),
        None,
        "0.2155.9",
        "0.2155.10",
        {"safe": True, "coveredVersions": ["0.2155.10"]},
    ),
]


@pytest.mark.parametrize(
    ("entries", "floor", "start", "target", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_span_rule(
    entries: list[dict[str, Any]],
    floor: str | None,
    start: str,
    target: str,
    expected: dict[str, Any],
) -> None:
    result = check(entries, start, target, floor).to_json_data()
    assert {key: result[key] for key in expected} == expected


def test_result_echoes_both_versions_and_has_exactly_the_contract_keys() -> None:
    result = check(ALL_TRUE, "1.0.0", "1.2.0").to_json_data()
    assert list(result) == [
        "fromVersion",
        "toVersion",
        "direction",
        "safe",
        "verdict",
        "requiredStops",
        "minPreviousVersion",
        "coveredVersions",
        "missingRanges",
    ]
    assert (result["fromVersion"], result["toVersion"]) == ("1.0.0", "1.2.0")


def test_entries_out_of_order_in_the_file_are_evaluated_by_version() -> None:
    shuffled = [ALL_TRUE[2], ALL_TRUE[0], ALL_TRUE[3], ALL_TRUE[1]]
    result = check(shuffled, "1.0.0", "1.3.0")
    assert result.coveredVersions == ["1.1.0", "1.2.0", "1.3.0"]
    assert result.safe


@pytest.mark.parametrize(("start", "target"), [("1.2", "1.3.0"), ("1.0.0", "v1.3"), ("x", "y")])
def test_malformed_version_is_bad_input(start: str, target: str) -> None:
    with pytest.raises(InputError, match="not a release version"):
        check(ALL_TRUE, start, target)
