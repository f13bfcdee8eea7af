"""Upgrade overrides read at a tagged release: floors, stops, strict validation, upgrade block."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from release_safety.common.errors import InputError
from release_safety.contract.model import DeclaredBreak, Upgrade
from release_safety.contract.reports import DeclarationsReport, OverridesReport
from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo, GitSnapshot
from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import OverrideSettings, Settings
from release_safety.surfaces import overrides

FILE = "release-safety.overrides.json"
Tagged = Callable[[str | bytes | None], GitSnapshot]


@pytest.fixture
def tagged(make_repo: Callable[[str], RepoBuilder]) -> Iterator[Tagged]:
    """A repository with releases 1.0.0 and 1.1.0; the second carries the overrides file."""
    repos: list[GitRepo] = []

    def build(text: str | bytes | None, path: str = FILE) -> GitSnapshot:
        builder = make_repo(f"repo{len(repos)}")
        builder.release("1.0.0", {"README.md": "# service\n"}, prefix="v")
        if text is not None:
            builder.write(path, text)
        builder.release("1.1.0", prefix="v")
        repo = GitRepo(builder.path)
        repos.append(repo)
        return repo.snapshot("v1.1.0")

    yield build
    for repo in repos:
        repo.close()


def doc(data: Any) -> str:
    return json.dumps(data, indent=2) + "\n"


FILE_TEXT = doc(
    {
        "$schema": "./scripts/release-safety-overrides.schema.json",
        "default": {
            "minPreviousVersion": "0.9.0",
            "note": "installs before 0.9 need the 0.9 data fix",
        },
        "versions": {
            "1.0.5": {"minPreviousVersion": "1.0.0", "note": "drops the legacy sessions table"},
            "1.1.0": {"requiredStop": True, "note": "runs the long queue backfill"},
            "1.3.0": {"minPreviousVersion": "1.2.0", "requiredStop": True, "note": "later"},
            "0.9.5": {"requiredStop": True},
            "0.8.0": {"requiredStop": False},
        },
    }
)


def run(snapshot: Any, version: str, settings: Settings | None = None) -> OverridesReport:
    return overrides.analyse(None, snapshot, settings or Settings(), version)


def test_a_missing_file_is_checked_and_applies_nothing(tagged: Tagged) -> None:
    report = run(tagged(None), "1.1.0")
    assert report.checked
    assert (report.min_previous_version, report.required_stops, report.findings) == (None, [], [])


@pytest.mark.parametrize(
    ("version", "floor", "stops"),
    [
        ("0.8.0", None, []),
        ("0.9.0", None, []),
        ("0.9.1", "0.9.0", []),
        ("1.0.4", "0.9.0", ["0.9.5"]),
        ("1.0.5", "1.0.0", ["0.9.5"]),
        ("1.1.0", "1.0.0", ["0.9.5", "1.1.0"]),
        ("1.2.9", "1.0.0", ["0.9.5", "1.1.0"]),
        ("1.3.0", "1.2.0", ["0.9.5", "1.1.0", "1.3.0"]),
        ("2.0.0", "1.2.0", ["0.9.5", "1.1.0", "1.3.0"]),
        ("pr-123", "1.2.0", ["0.9.5", "1.1.0", "1.3.0"]),
    ],
)
def test_floors_and_stops_that_apply(
    tagged: Tagged, version: str, floor: str | None, stops: list[str]
) -> None:
    report = run(tagged(FILE_TEXT), version)
    assert (report.min_previous_version, report.required_stops) == (floor, stops)


def test_findings_carry_notes_and_lines(tagged: Tagged) -> None:
    report = run(tagged(FILE_TEXT), "1.1.0")
    seen = [(f.rule, f.severity, f.file, f.line, f.message) for f in report.findings]
    assert (
        "upgrade-floor",
        "advisory",
        FILE,
        8,
        "upgrade floor 1.0.0 (set at 1.0.5): drops the legacy sessions table",
    ) in seen
    assert (
        "upgrade-required-stop",
        "advisory",
        FILE,
        12,
        "required stop 1.1.0: runs the long queue backfill",
    ) in seen
    assert (
        "upgrade-floor",
        "advisory",
        FILE,
        3,
        "upgrade floor 0.9.0 (the default): installs before 0.9 need the 0.9 data fix",
    ) in seen


def test_versions_written_with_a_tags_v_are_the_versions_they_name(tagged: Tagged) -> None:
    text = doc(
        {
            "default": {"minPreviousVersion": "v0.9.0"},
            "versions": {"v1.1.0": {"requiredStop": True, "minPreviousVersion": "v1.0.0"}},
        }
    )
    report = run(tagged(text), "1.1.0")
    assert (report.min_previous_version, report.required_stops) == ("1.0.0", ["1.1.0"])
    lines = {f.message: f.line for f in report.findings}
    assert lines == {
        "upgrade floor 0.9.0 (the default)": 2,
        "upgrade floor 1.0.0 (set at 1.1.0)": 6,
        "required stop 1.1.0": 6,
    }


def test_default_required_stop_makes_this_release_a_stop_unless_its_block_says_no(
    tagged: Tagged,
) -> None:
    text = doc({"default": {"requiredStop": True}, "versions": {"1.2.0": {"requiredStop": False}}})
    snapshot = tagged(text)
    assert run(snapshot, "1.1.0").required_stops == ["1.1.0"]
    assert run(snapshot, "1.2.0").required_stops == []
    assert run(snapshot, "pr-7").required_stops == []


def test_the_file_path_comes_from_the_settings() -> None:
    text = doc({"versions": {"1.0.0": {"requiredStop": True}}})
    snapshot = MemorySnapshot({"ops/upgrade.json": text})
    settings = Settings(overrides=OverrideSettings(file="ops/upgrade.json"))
    assert run(snapshot, "1.1.0", settings).required_stops == ["1.0.0"]
    assert run(snapshot, "1.1.0").required_stops == []


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("{", "not valid JSON"),
        ("[]", "(top level)"),
        (doc({"defaults": {}}), "'defaults': unknown key"),
        (doc({"default": {"minPrevious": "1.0.0"}}), "'default.minPrevious': unknown key"),
        (doc({"default": {"requiredStop": "yes"}}), "'default.requiredStop'"),
        (doc({"default": {"requiredStop": 1}}), "'default.requiredStop'"),
        (doc({"default": {"requiredStop": None}}), "'default.requiredStop'"),
        (doc({"default": {"note": 5}}), "'default.note'"),
        (doc({"default": {"minPreviousVersion": "1.0"}}), "'default.minPreviousVersion'"),
        (doc({"default": []}), "'default'"),
        (doc({"versions": {"1.2.0": {}, "v1.2.0": {}}}), "'1.2.0' and 'v1.2.0' name the same"),
        (doc({"versions": {"v1.2": {}}}), 'versions["v1.2"]'),
        (doc({"versions": {"1.2.0": {"requiredStop": "true"}}}), 'versions["1.2.0"].requiredStop'),
        (doc({"versions": {"1.2.0": {"stop": True}}}), 'versions["1.2.0"].stop'),
        (doc({"versions": []}), "'versions'"),
        (
            doc({"versions": {"1.2.0": {"minPreviousVersion": "1.2.0"}}}),
            "floor 1.2.0 is not below",
        ),
        ('{"versions": {"1.2.0": {"requiredStop": true}, "1.2.0": {}}}', "appears twice"),
        (b"\xff\xfe{}", "not UTF-8"),
        ('{"default": {"minPreviousVersion": NaN}}', "not valid JSON"),
    ],
)
def test_a_malformed_file_is_bad_input_naming_the_file_and_key(
    tagged: Tagged, text: str | bytes, names: str
) -> None:
    snapshot = tagged(text)
    with pytest.raises(InputError) as raised:
        run(snapshot, "1.1.0")
    message = raised.value.message
    assert raised.value.exit_code == 2
    assert message.startswith(FILE + ": ") and "\n" not in message
    assert names in message


def declared(*stops: bool) -> DeclarationsReport:
    return DeclarationsReport(
        surface="declarations",
        checked=True,
        declared=[
            DeclaredBreak(file="a.sql", line=i + 1, reason="drops a column", requiredStop=s)
            for i, s in enumerate(stops)
        ],
    )


def report_with(floor: str | None, stops: list[str]) -> OverridesReport:
    return OverridesReport(
        surface="overrides", checked=True, min_previous_version=floor, required_stops=stops
    )


@pytest.mark.parametrize(
    ("floor", "stops", "breaks", "version", "expected"),
    [
        (None, [], (), "1.1.0", Upgrade(minPreviousVersion=None, requiredStops=[])),
        (None, [], (False,), "1.1.0", Upgrade(minPreviousVersion=None, requiredStops=[])),
        (
            None,
            [],
            (False, True),
            "1.1.0",
            Upgrade(minPreviousVersion=None, requiredStops=["1.1.0"]),
        ),
        (
            "0.2155.9",
            ["0.2155.10", "0.2155.9"],
            (True,),
            "0.2155.10",
            Upgrade(minPreviousVersion="0.2155.9", requiredStops=["0.2155.9", "0.2155.10"]),
        ),
        (
            None,
            ["1.0.0"],
            (True,),
            "pr-42",
            Upgrade(minPreviousVersion=None, requiredStops=["1.0.0"]),
        ),
    ],
)
def test_upgrade_block(
    floor: str | None, stops: list[str], breaks: tuple[bool, ...], version: str, expected: Upgrade
) -> None:
    assert (
        overrides.upgrade_block(report_with(floor, stops), declared(*breaks), version) == expected
    )


def test_upgrade_block_from_a_real_file_and_a_declared_stop(tagged: Tagged) -> None:
    report = run(tagged(FILE_TEXT), "1.2.0")
    block = overrides.upgrade_block(report, declared(True), "1.2.0")
    assert block == Upgrade(minPreviousVersion="1.0.0", requiredStops=["0.9.5", "1.1.0", "1.2.0"])
