"""A required stop or floor that a release or a pull request removes is a breaking finding
(issue 35 class 5): deleting the overrides file no longer passes check-pr silently."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder

FILE = "release-safety.overrides.json"
OVERRIDES = json.dumps(
    {"versions": {"1.1.0": {"requiredStop": True, "minPreviousVersion": "1.0.0"}}}, indent=2
)


@pytest.fixture
def stopped(make_repo: Callable[[str], RepoBuilder]) -> RepoBuilder:
    """1.0.0, then 1.1.0 marked a required stop with a floor; a third commit follows."""
    builder = make_repo("service")
    builder.release("1.0.0", {"README.md": "# service\n"}, prefix="v")
    builder.release("1.1.0", {FILE: OVERRIDES + "\n"}, prefix="v")
    return builder


def overrides_findings(builder: RepoBuilder, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    path = builder.path / "evidence.json"
    repo, evidence_file = str(builder.path), str(path)
    code = run(
        ["generate", "--repo", repo, "--to", "v1.2.0", "--out", "-", "--evidence", evidence_file]
    )
    artifact = json.loads(capsys.readouterr().out)
    assert code == 0
    evidence = json.loads(path.read_text())
    found = [f for f in evidence["findings"] if f["surface"] == "overrides"]
    assert artifact["compatibility"]["rollingUpdateSafe"] is not True
    return found


def test_deleting_the_overrides_file_is_breaking(
    stopped: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    stopped.delete(FILE)
    stopped.release("1.2.0", prefix="v")
    found = overrides_findings(stopped, capsys)
    removed = [f for f in found if f["rule"] == "upgrade-override-removed"]
    assert [f["message"] for f in removed] == [
        f"required stop 1.1.0 no longer applies to 1.2.0: {FILE} was deleted",
        f"upgrade floor 1.0.0 no longer applies to 1.2.0: {FILE} was deleted",
    ]
    assert all(f["severity"] == "breaking" and f["line"] == 3 for f in removed)


def test_a_stop_edited_away_is_breaking_and_an_untouched_file_is_quiet(
    stopped: RepoBuilder, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stopped.release("1.1.1", {"README.md": "# service, again\n"}, prefix="v")
    assert (
        run(["check-pr", "--repo", str(stopped.path), "--base", "v1.1.0", "--head", "v1.1.1"]) == 0
    )
    capsys.readouterr()
    edited = json.dumps({"versions": {"1.1.0": {"minPreviousVersion": "1.0.0"}}}, indent=2)
    stopped.release("1.2.0", {FILE: edited + "\n"}, prefix="v")
    found = overrides_findings(stopped, capsys)
    assert [f["message"] for f in found if f["rule"] == "upgrade-override-removed"] == [
        f"required stop 1.1.0 no longer applies to 1.2.0: {FILE} was edited"
    ]
    code = run(["check-pr", "--repo", str(stopped.path), "--base", "v1.1.1", "--head", "v1.2.0"])
    assert code == 1
    assert "upgrade-override-removed" in capsys.readouterr().out
