"""Validation drift (issue 17 item 11): what the readers accepted that they must not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from release_safety.cli.main import run
from release_safety.common.errors import InputError
from release_safety.contract.schemas import verdict_contradiction
from release_safety.release.artifact import unknown_artifact
from release_safety.settings.model import parse_settings

ENTRY = (
    '{"version": "1.1.0", "previousVersion": "1.0.0", "releaseDate": "2026-01-01T00:00:00Z", '
    '"rollingUpdateSafe": false, "rollingUpdateSafe": true, "requiredStops": [], '
    '"minPreviousVersion": null, "backfilled": false, "syntheticRequiredStop": false}'
)


def _index(entries: str) -> str:
    return (
        '{"schemaVersion": "1", "generatedAt": null, "backfillFloorVersion": null, '
        f'"entries": [{entries}]}}'
    )


def safe_artifact() -> dict[str, Any]:
    """A consistent `true` artifact: every surface checked, nothing breaking."""
    data = unknown_artifact("1.1.0", "1.0.0", "2026-01-01T00:00:00Z").to_json_data()
    data["compatibility"] = {"rollingUpdateSafe": True, "recommendedStrategy": "RollingUpdate"}
    data["migrations"]["present"] = False
    for surface in (data["api"]["rest"], data["api"]["mcp"], data["config"]):
        surface["checked"], surface["breaking"] = True, False
    return data


def test_a_key_twice_in_an_index_entry_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`false, true` would read as SAFE when the last key wins."""
    index = tmp_path / "index.json"
    first = ENTRY.replace('"1.1.0", "previousVersion": "1.0.0"', '"1.0.0", "previousVersion": null')
    index.write_text(_index(first.replace("false, ", "true, ") + ", " + ENTRY))
    check = ["upgrade-check", "--from", "1.0.0", "--to", "1.1.0", "--index", str(index), "--json"]
    assert run(check) == 3
    assert "'rollingUpdateSafe' appears twice" in capsys.readouterr().out
    assert run(["validate", str(index)]) == 2
    artifact = tmp_path / "a.json"
    artifact.write_text(json.dumps(safe_artifact()))
    assert run(["index", "update", "--index", str(index), "--artifact", str(artifact)]) == 2
    assert "appears twice" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda a: a["api"]["rest"].update(breaking=True), "api.rest is breaking"),
        (lambda a: a["config"].update(checked=False, breaking="unknown"), "config is not checked"),
        (lambda a: a["migrations"].update(present="unknown"), "migrations.present is unknown"),
        (lambda a: a["compatibility"].update(recommendedStrategy="Recreate"), "does not go"),
        (
            lambda a: a["declaredBreaks"].append(
                {"file": "x.sql", "line": 1, "reason": "drops a column", "requiredStop": False}
            ),
            "a break is declared",
        ),
    ],
)
def test_an_artifact_whose_verdict_contradicts_its_blocks_is_refused(
    change: Any, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = safe_artifact()
    assert verdict_contradiction(data) is None
    change(data)
    artifact = tmp_path / "a.json"
    artifact.write_text(json.dumps(data))
    index = tmp_path / "index.json"
    assert run(["index", "update", "--index", str(index), "--artifact", str(artifact)]) == 2
    assert problem in capsys.readouterr().err
    assert not index.exists()
    assert run(["validate", str(artifact)]) == 2


@settings(max_examples=80, deadline=None)
@given(
    verdict=st.sampled_from([True, False, "unknown"]),
    strategy=st.sampled_from(["RollingUpdate", "Recreate"]),
    surfaces=st.lists(
        st.tuples(st.booleans(), st.sampled_from([True, False, "unknown"])), min_size=3, max_size=3
    ),
    present=st.sampled_from([True, False, "unknown"]),
)
def test_only_a_proven_true_passes_as_true(
    verdict: Any, strategy: str, surfaces: list[tuple[bool, Any]], present: Any
) -> None:
    data = safe_artifact()
    data["compatibility"] = {"rollingUpdateSafe": verdict, "recommendedStrategy": strategy}
    data["migrations"]["present"] = present
    blocks = (data["api"]["rest"], data["api"]["mcp"], data["config"])
    for block, (checked, breaking) in zip(blocks, surfaces, strict=True):
        block["checked"], block["breaking"] = checked, breaking
    accepted = verdict_contradiction(data) is None
    if accepted and verdict is True:
        assert strategy == "RollingUpdate" and present != "unknown"
        assert all(checked and breaking is False for checked, breaking in surfaces)
    if accepted and any(breaking is True for _, breaking in surfaces):
        assert verdict is False


def test_a_release_date_must_name_a_moment(tmp_path: Path) -> None:
    data = safe_artifact()
    data["releaseDate"] = "2025-99-99T99:99:99Z"
    artifact = tmp_path / "a.json"
    artifact.write_text(json.dumps(data))
    assert run(["validate", str(artifact)]) == 2
    index = tmp_path / "index.json"
    assert run(["index", "update", "--index", str(index), "--artifact", str(artifact)]) == 2


def test_a_floor_that_is_not_indexed_is_refused_and_the_index_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index.json"
    artifact = tmp_path / "a.json"
    artifact.write_text(json.dumps(safe_artifact()))
    update = ["index", "update", "--index", str(index), "--artifact", str(artifact)]
    assert run(update) == 0
    before = index.read_bytes()
    assert run([*update, "--floor", "0.9.0"]) == 2
    assert "--floor 0.9.0: not in the index" in capsys.readouterr().err
    assert index.read_bytes() == before
    assert run([*update, "--floor", "1.1.0"]) == 0
    assert json.loads(index.read_text())["backfillFloorVersion"] == "1.1.0"


def test_postgres_version_must_be_a_number() -> None:
    with pytest.raises(InputError, match="postgres_version"):
        parse_settings('postgres_version = "15"\n', ".release-safety.toml")
    assert parse_settings("postgres_version = 15\n", ".release-safety.toml").postgres_version == 15


def test_files_that_are_not_utf8_are_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    artifact = tmp_path / "a.json"
    artifact.write_bytes(json.dumps(safe_artifact()).encode() + b"\xff")
    index = tmp_path / "index.json"
    update = ["index", "update", "--index", str(index), "--artifact", str(artifact)]
    assert run(update) == 2
    assert run(["validate", str(artifact)]) == 2
    artifact.write_text(json.dumps(safe_artifact()))
    index.write_bytes(b'{"schemaVersion": "1"\xff}')
    assert run(update) == 2
    assert "not UTF-8" in capsys.readouterr().err
