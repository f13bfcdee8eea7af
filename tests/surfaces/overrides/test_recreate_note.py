"""The Recreate note: from the overrides file, through the artifact and the index, to the plan."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.contract.schemas import validate_document
from release_safety.git.builder import RepoBuilder

FILE = "release-safety.overrides.json"
CHART_NOTE = "chart 3.2 and later scales the workers to zero before the migration hook"
OLD_NOTE = "scale the workers to zero before `helm upgrade`"


def indexed(builder: RepoBuilder, tmp_path: Path, versions: list[str]) -> Path:
    """Generate each release's artifact and add it to an index; returns the index."""
    index = tmp_path / "index.json"
    for version in versions:
        artifact = tmp_path / f"{version}.json"
        args = ["generate", "--repo", str(builder.path), "--to", f"v{version}"]
        assert run([*args, "--out", str(artifact)]) == 0
        validate_document(json.loads(artifact.read_text()), version, "release-safety")
        update = ["index", "update", "--index", str(index), "--artifact", str(artifact)]
        assert run(update) == 0
    validate_document(json.loads(index.read_text()), "index", "release-safety-index")
    return index


def test_a_recreate_hop_prints_the_note_the_release_it_lands_on_carries(
    make_repo: Callable[[str], RepoBuilder],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    builder = make_repo("service")
    builder.release("1.0.0", {"README.md": "# service\n"}, prefix="v")
    overrides = {"default": {"recreateNote": OLD_NOTE}}
    builder.release("1.1.0", {FILE: json.dumps(overrides)}, prefix="v")
    overrides["versions"] = {"v1.2.0": {"recreateNote": CHART_NOTE}}
    builder.release("1.2.0", {FILE: json.dumps(overrides)}, prefix="v")
    builder.release("1.3.0", prefix="v")
    index = indexed(builder, tmp_path, ["1.0.0", "1.1.0", "1.2.0", "1.3.0"])
    artifact = json.loads((tmp_path / "1.2.0.json").read_text())
    assert artifact["upgrade"]["recreateNote"] == CHART_NOTE
    assert "recreateNote" not in json.loads((tmp_path / "1.0.0.json").read_text())["upgrade"]
    written = json.loads(index.read_text())["entries"]
    entries = {e["version"]: e.get("recreateNote") for e in written}
    assert entries == {"1.0.0": None, "1.1.0": OLD_NOTE, "1.2.0": CHART_NOTE, "1.3.0": CHART_NOTE}

    capsys.readouterr()
    plan = ["upgrade-plan", "--from", "1.0.0", "--to", "1.3.0", "--index", str(index)]
    assert run([*plan, "--json"]) == 0
    hops = json.loads(capsys.readouterr().out)["hops"]
    assert [(h["strategy"], h["deployment"]["note"]) for h in hops] == [("Recreate", CHART_NOTE)]
    assert run(plan) == 0
    assert f"   note: {CHART_NOTE}\n" in capsys.readouterr().out


def test_without_a_note_the_plan_prints_none(
    make_repo: Callable[[str], RepoBuilder],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    builder = make_repo("service")
    builder.release("1.0.0", {"README.md": "# service\n"}, prefix="v")
    builder.release("1.1.0", prefix="v")
    index = indexed(builder, tmp_path, ["1.0.0", "1.1.0"])
    capsys.readouterr()
    assert run(["upgrade-plan", "--from", "1.0.0", "--to", "1.1.0", "--index", str(index)]) == 0
    out = capsys.readouterr().out
    assert "Recreate" in out and "note" not in out and "chart" not in out


def test_an_empty_note_is_bad_input(
    make_repo: Callable[[str], RepoBuilder],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    builder = make_repo("service")
    builder.release("1.0.0", {FILE: json.dumps({"default": {"recreateNote": " "}})}, prefix="v")
    args = ["generate", "--repo", str(builder.path), "--to", "v1.0.0", "--out", "-"]
    assert run(args) == 2
    assert f"{FILE}: key 'default.recreateNote'" in capsys.readouterr().err
