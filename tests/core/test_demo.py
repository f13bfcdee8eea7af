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
    index = json.loads((tmp_path / "demo" / "release-safety-index.json").read_text())
    validate_document(index, "index", "release-safety-index")
    assert [e["version"] for e in index["entries"]] == versions
    assert index["entries"][0]["syntheticRequiredStop"] is True


def test_demo_refuses_a_non_empty_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "x").write_text("keep me")
    assert run(["demo", "--dir", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "x").read_text() == "keep me"
