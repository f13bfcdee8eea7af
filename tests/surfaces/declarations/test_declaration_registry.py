"""The append-only registry between two tagged releases: new ids counted, edits flagged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from declaration_repos import PairBuilder

from release_safety.contract.model import DeclaredBreak
from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import DeclarationSettings, Settings
from release_safety.surfaces import declarations

REGISTRY = "release-safety.declarations.json"
OLD_REASON = "The retired export tool names are removed from the agent tool enum for old threads."
NEW_REASON = "The v1 push-installation route now rejects identifiers that are not UUIDs."


def registry(entries: dict[str, Any], **root: Any) -> str:
    """The registry as the source service writes it: 4-space JSON and a final newline."""
    return (
        json.dumps({"$schema": "./schema.json", "declarations": entries, **root}, indent=4) + "\n"
    )


OLD = {"old-break": {"reason": OLD_REASON, "requiredStop": False}}


def rules_of(report: declarations.DeclarationsReport) -> list[tuple[str, str, int | None]]:
    return [(f.rule, f.severity, f.line) for f in report.findings]


def test_a_new_id_is_declared_at_the_real_line_of_the_id(release_pair: PairBuilder) -> None:
    after = registry({**OLD, "new-break": {"reason": NEW_REASON, "requiredStop": True}})
    pair = release_pair({REGISTRY: registry(OLD)}, {REGISTRY: after})
    report = pair.analyse()
    line = after.splitlines().index('        "new-break": {') + 1
    assert line == 8
    assert report.declared == [
        DeclaredBreak(
            file=REGISTRY, line=line, reason=NEW_REASON, requiredStop=True, id="new-break"
        )
    ]
    assert report.declared[0].model_dump()["id"] == "new-break"
    assert rules_of(report) == [("declared-break", "breaking", line)]
    assert report.findings[0].message == NEW_REASON


def test_old_ids_are_not_counted_again(release_pair: PairBuilder) -> None:
    reformatted = json.dumps({"declarations": OLD}, indent=2)
    report = release_pair({REGISTRY: registry(OLD)}, {REGISTRY: reformatted}).analyse()
    assert report.declared == [] and report.findings == []


def test_a_removed_id_is_unknown(release_pair: PairBuilder) -> None:
    report = release_pair({REGISTRY: registry(OLD)}, {REGISTRY: registry({})}).analyse()
    assert report.declared == []
    [finding] = report.findings
    assert (finding.rule, finding.severity, finding.file, finding.line) == (
        "declaration-id-removed",
        "unknown",
        REGISTRY,
        3,
    )
    assert "'old-break'" in finding.message and "line 4" in finding.message


def test_a_deleted_registry_removes_every_id(release_pair: PairBuilder) -> None:
    report = release_pair({REGISTRY: registry(OLD)}, delete=[REGISTRY]).analyse()
    assert rules_of(report) == [("declaration-id-removed", "unknown", 1)]


@pytest.mark.parametrize(
    "edit",
    [
        {"reason": OLD_REASON + " Edited.", "requiredStop": False},
        {"reason": OLD_REASON, "requiredStop": True},
        {"reason": OLD_REASON, "requiredStop": False, "migration": "db/migrations/x.sql"},
    ],
)
def test_an_edited_id_is_unknown_at_its_line(release_pair: PairBuilder, edit: Any) -> None:
    report = release_pair(
        {REGISTRY: registry(OLD)}, {REGISTRY: registry({"old-break": edit})}
    ).analyse()
    assert report.declared == []
    assert rules_of(report) == [("declaration-id-edited", "unknown", 4)]


def test_adding_released_in_is_not_an_edit(release_pair: PairBuilder) -> None:
    edit = {"old-break": {**OLD["old-break"], "releasedIn": "1.0.0"}}
    report = release_pair({REGISTRY: registry(OLD)}, {REGISTRY: registry(edit)}).analyse()
    assert report.findings == []


def test_changing_released_in_is_an_edit(release_pair: PairBuilder) -> None:
    before = {"old-break": {**OLD["old-break"], "releasedIn": "1.0.0"}}
    after = {"old-break": {**OLD["old-break"], "releasedIn": "1.0.1"}}
    report = release_pair({REGISTRY: registry(before)}, {REGISTRY: registry(after)}).analyse()
    assert [f.rule for f in report.findings] == ["declaration-id-edited"]


def test_malformed_json_is_unknown_at_the_error_line(release_pair: PairBuilder) -> None:
    broken = registry(OLD).replace('"requiredStop": false', '"requiredStop": false,')
    report = release_pair({REGISTRY: registry(OLD)}, {REGISTRY: broken}).analyse()
    malformed = [f for f in report.findings if f.rule == "declaration-registry-malformed"]
    assert [(f.severity, f.file, f.line) for f in malformed] == [("unknown", REGISTRY, 7)]
    assert "not valid JSON" in malformed[0].message


@pytest.mark.parametrize(
    ("entry", "key", "line"),
    [
        ({"reason": NEW_REASON, "requiredStop": "yes"}, "requiredStop", 10),
        ({"reason": NEW_REASON}, "requiredStop", 8),
        ({"reason": 42, "requiredStop": False}, "reason", 9),
        ({"reason": NEW_REASON, "requiredStop": False, "owner": "x"}, "owner", 11),
        ({"reason": NEW_REASON, "requiredStop": False, "migration": ""}, "migration", 11),
        ("just a text", "must be an object", 8),
        ({"reason": NEW_REASON, "requiredStop": True, "impact": {"kind": "x"}}, "impact", 11),
    ],
)
def test_a_malformed_new_entry_is_unknown_at_its_line(
    release_pair: PairBuilder, entry: Any, key: str, line: int
) -> None:
    after = registry({**OLD, "new-break": entry})
    report = release_pair({REGISTRY: registry(OLD)}, {REGISTRY: after}).analyse()
    assert report.declared == []
    [finding] = report.findings
    assert (finding.rule, finding.severity, finding.line) == (
        "declaration-registry-malformed",
        "unknown",
        line,
    )
    assert key in finding.message


def test_unknown_top_level_key_and_non_object_declarations(release_pair: PairBuilder) -> None:
    pair = release_pair({}, {REGISTRY: registry(OLD, owners=["x"])})
    assert ("declaration-registry-malformed", "unknown", 9) in rules_of(pair.analyse())
    pair = release_pair({}, {REGISTRY: '{\n  "declarations": []\n}\n'})
    assert rules_of(pair.analyse()) == [("declaration-registry-malformed", "unknown", 2)]


def test_a_duplicated_id_key_is_malformed(release_pair: PairBuilder) -> None:
    doubled = '{"declarations": {"a": {"reason": "x", "requiredStop": true},\n"a": {}}}'
    report = release_pair({}, {REGISTRY: doubled}).analyse()
    assert [f.rule for f in report.findings] == ["declaration-registry-malformed"]
    assert "more than once" in report.findings[0].message


def test_a_hollow_registry_reason_is_declared_and_unknown(release_pair: PairBuilder) -> None:
    after = registry({**OLD, "lazy": {"reason": "breaking change", "requiredStop": True}})
    report = release_pair({REGISTRY: registry(OLD)}, {REGISTRY: after}).analyse()
    assert [(d.reason, d.requiredStop) for d in report.declared] == [("breaking change", True)]
    assert sorted(rules_of(report)) == [
        ("declaration-hollow-reason", "unknown", 9),
        ("declared-break", "breaking", 8),
    ]


def test_a_new_id_copying_a_released_one_is_unknown(release_pair: PairBuilder) -> None:
    after = registry({**OLD, "copy": dict(OLD["old-break"])})
    report = release_pair({REGISTRY: registry(OLD)}, {REGISTRY: after}).analyse()
    assert report.declared == []
    assert rules_of(report) == [("declaration-duplicate", "unknown", 8)]


def test_a_no_external_callers_entry_is_an_advisory(release_pair: PairBuilder) -> None:
    impact = {
        "kind": "no-external-callers",
        "featureFlag": "new-exports",
        "covers": {"rest": ["GET /api/v1/exports"], "mcp": []},
    }
    entry = {"reason": NEW_REASON, "requiredStop": False, "impact": impact}
    report = release_pair({}, {REGISTRY: registry({"flagged": entry})}).analyse()
    assert report.declared == []
    assert rules_of(report) == [("declared-no-external-callers", "advisory", 4)]


def test_an_unreadable_old_registry_counts_every_id_and_is_unknown(
    release_pair: PairBuilder,
) -> None:
    report = release_pair({REGISTRY: "{not json"}, {REGISTRY: registry(OLD)}).analyse()
    assert [d.reason for d in report.declared] == [OLD_REASON]
    assert ("declaration-registry-malformed", "unknown", 1) in rules_of(report)


def test_the_registry_path_comes_from_the_settings(release_pair: PairBuilder) -> None:
    path = "ops/breaks.json"
    settings = Settings(declarations=DeclarationSettings(registry=path))
    report = release_pair({}, {path: registry(OLD), REGISTRY: "{oops"}).analyse(settings)
    assert [(d.file, d.line) for d in report.declared] == [(path, 4)]


def test_a_first_release_counts_every_registry_id() -> None:
    new = MemorySnapshot({REGISTRY: registry(OLD)})
    report = declarations.analyse(None, new, Settings())
    assert [(d.file, d.line, d.reason) for d in report.declared] == [(REGISTRY, 4, OLD_REASON)]


def test_annotations_and_registry_together_are_sorted(release_pair: PairBuilder) -> None:
    sql = f"-- release-safety: breaking {NEW_REASON}\n"
    after = {REGISTRY: registry(OLD), "db/migrations/1.sql": sql}
    report = release_pair({}, after).analyse()
    assert [d.file for d in report.declared] == ["db/migrations/1.sql", REGISTRY]


def test_a_new_entry_naming_a_missing_migration_is_declared_and_unknown(
    release_pair: PairBuilder,
) -> None:
    migration = "db/migrations/20250110120000_drop_legacy.sql"
    entry = {"reason": NEW_REASON, "requiredStop": True, "migration": migration}
    missing = release_pair({}, {REGISTRY: registry({"drop": entry})}).analyse()
    assert len(missing.declared) == 1
    assert ("declaration-registry-malformed", "unknown", 7) in rules_of(missing)
    present = release_pair({}, {REGISTRY: registry({"drop": entry}), migration: "SELECT 1;\n"})
    assert rules_of(present.analyse()) == [("declared-break", "breaking", 4)]


def test_a_migration_path_with_control_characters_is_missing(release_pair: PairBuilder) -> None:
    entry = {"reason": NEW_REASON, "requiredStop": False, "migration": "db/a.sql\nHEAD:x"}
    pair = release_pair({}, {REGISTRY: registry({"odd": entry})})
    report = pair.analyse()
    assert ("declaration-registry-malformed", "unknown", 7) in rules_of(report)
    assert pair.new.read(REGISTRY).startswith(b"{")
