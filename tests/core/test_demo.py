import json
from pathlib import Path

import pytest

from release_safety.cli import run
from release_safety.demo.service import RELEASES
from release_safety.schemas import validate_document


def test_demo_writes_valid_artifacts_and_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["demo", "--dir", str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    versions = [r.version for r in RELEASES]
    assert len(versions) >= 6
    for version in versions:
        artifact = json.loads(
            (tmp_path / "demo" / "artifacts" / version / "release-safety.json").read_text()
        )
        validate_document(artifact, version, "release-safety")
        assert artifact["version"] == version
        assert f"\n{version} " in out
    assert "legend:\n  safe: rollingUpdateSafe" in out
    why = out.split("why 1.2.0 is not safe to roll (rollingUpdateSafe: false):\n", 1)[1]
    first = why.splitlines()[0]
    assert first.startswith("  [response-property-removed] openapi.yaml:")
    assert why.splitlines()[1].startswith("      safer: ")
    index = tmp_path / "demo" / "release-safety-index.json"
    command = f"release-safety upgrade-check --from 1.0.0 --to 1.6.0 --index {index}"
    assert f"\n  {command}\n" in out
    assert run(command.split()[1:]) == 1  # the next command works: the span is not safe
    index = json.loads((tmp_path / "demo" / "release-safety-index.json").read_text())
    validate_document(index, "index", "release-safety-index")
    assert [e["version"] for e in index["entries"]] == versions
    assert index["entries"][0]["syntheticRequiredStop"] is True


def test_demo_exercises_every_surface_safe_and_unsafe(tmp_path: Path) -> None:
    assert run(["demo", "--dir", str(tmp_path)]) == 0
    artifacts = {
        r.version: json.loads(
            (tmp_path / "artifacts" / r.version / "release-safety.json").read_text()
        )
        for r in RELEASES
    }
    verdicts = {v: a["compatibility"]["rollingUpdateSafe"] for v, a in artifacts.items()}
    assert verdicts == {
        "1.0.0": True,
        "1.1.0": True,
        "1.2.0": False,
        "1.3.0": True,
        "1.4.0": False,
        "1.5.0": True,
        "1.6.0": False,
    }
    assert artifacts["1.1.0"]["api"]["rest"]["advisoryCount"] >= 1
    assert artifacts["1.2.0"]["api"]["rest"]["breaking"] is True
    assert artifacts["1.6.0"]["api"]["mcp"]["changes"] == [
        "MCP tool `run_sql`: input `limit` became required"
    ]
    assert artifacts["1.4.0"]["config"]["changes"] == [
        {
            "type": "defaultChanged",
            "name": "LOG_LEVEL",
            "previousDefault": "info",
            "defaultValue": "warn",
        }
    ]
    assert artifacts["1.4.0"]["declaredBreaks"][0]["requiredStop"] is True
    assert artifacts["1.4.0"]["upgrade"]["requiredStops"] == ["1.4.0"]
    assert artifacts["1.5.0"]["upgrade"]["minPreviousVersion"] == "1.4.0"
    dropped = artifacts["1.4.0"]["migrations"]["files"][0]
    assert dropped["tables"] == ["projects"]
    added = artifacts["1.6.0"]["migrations"]["files"][0]
    assert added["tables"] == ["users"]
    index = json.loads((tmp_path / "release-safety-index.json").read_text())
    assert [e["rollingUpdateSafe"] for e in index["entries"]] == list(verdicts.values())


def test_demo_refuses_a_non_empty_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "x").write_text("keep me")
    assert run(["demo", "--dir", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "x").read_text() == "keep me"
