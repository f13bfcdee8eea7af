import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.contract.schemas import validate_document
from release_safety.demo.service import RELEASES

# Each kind of release not safe to roll: its version, the rule and place its "why" names, and
# what the sample service has on that line at that release.
KINDS = {
    "rest": ("1.2.0", "response-property-removed", "openapi.yaml", 60, "User:"),
    "declared": (
        "1.4.0",
        "declared-break",
        "migrations/0006_drop_legacy_code.up.sql",
        1,
        "breaking(required-stop)",
    ),
    "deployment": (
        "1.6.0",
        "deployment-stateful-major-changed",
        "docker-compose.yml",
        8,
        "postgres:16.4-alpine",
    ),
    "mcp": ("1.7.0", "mcp-input-required", "mcp-tools.json", 23, '"limit"'),
    "config": ("1.8.0", "config-default-changed", "src/config.ts", 4, "LOG_LEVEL ?? 'warn'"),
    "migration lock": (
        "1.9.0",
        "blocking-table-lock",
        "migrations/0008_users_role_idx.up.sql",
        1,
        "CREATE INDEX users_role_idx ON users",
    ),
    "unknown": (
        "1.10.0",
        "config-read-not-understood",
        "src/config.ts",
        7,
        "process.env[`FEATURE_${f}`]",
    ),
}


def _blocks(out: str) -> dict[str, list[str]]:
    """The "release by release" section: each release's lines, by version."""
    section = out.split("release by release", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    blocks: dict[str, list[str]] = {}
    for line in section:
        if not line.startswith(" "):
            blocks[line.split()[0]] = []
        blocks[list(blocks)[-1]].append(line)
    return blocks


def test_demo_writes_valid_artifacts_and_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(["demo", "--dir", str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    versions = [r.version for r in RELEASES]
    assert len(versions) == 11
    for version in versions:
        artifact = json.loads(
            (tmp_path / "demo" / "artifacts" / version / "release-safety.json").read_text()
        )
        validate_document(artifact, version, "release-safety")
        assert artifact["version"] == version
        assert f"\n{version} " in out
    assert out.split("\n", 1)[0].split() == [
        "version",
        "safe",
        "strategy",
        "breaks",
        "stops",
        "min-previous",
    ]
    rows = {line.split()[0]: line.split() for line in out.split("\n\n", 1)[0].splitlines()}
    assert rows["1.4.0"] == ["1.4.0", "no", "Recreate", "migrations,declared", "1.4.0", "-"]
    assert rows["1.10.0"] == ["1.10.0", "unknown", "Recreate", "config?", "-", "1.4.0"]
    assert "legend:\n  safe: rollingUpdateSafe" in out
    assert f"\nkept: {tmp_path / 'demo'}\n" in out
    command = (
        "release-safety upgrade-check --from 1.0.0 --to 1.10.0 --index release-safety-index.json"
    )
    assert f"\n  cd {tmp_path / 'demo'}\n  {command}\n" in out
    monkeypatch.chdir(tmp_path / "demo")
    assert run(command.split()[1:]) == 1  # the next command works: the span is not safe
    index = json.loads((tmp_path / "demo" / "release-safety-index.json").read_text())
    validate_document(index, "index", "release-safety-index")
    assert [e["version"] for e in index["entries"]] == versions
    assert index["entries"][0]["syntheticRequiredStop"] is True


def test_demo_fits_100_columns_and_shows_why_each_kind_is_unsafe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["demo", "--dir", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    assert max(len(line.replace(str(tmp_path), "/tmp")) for line in out.splitlines()) <= 100
    blocks = _blocks(out)
    assert list(blocks) == [r.version for r in RELEASES]
    unsafe = {version for version, *_ in KINDS.values()}
    for version, lines in blocks.items():
        story = next(r.story for r in RELEASES if r.version == version)
        assert " ".join(" ".join(lines).split()).startswith(f"{version} {story}")
        assert (len(lines) > 1) == (version in unsafe), version
    service = tmp_path / "d" / "service"
    for kind, (version, rule, file, line, text) in KINDS.items():
        why = " ".join(" ".join(blocks[version]).split())
        verdict, way_out = ("unknown", "way out") if kind == "unknown" else ("false", "safer")
        assert f"rollingUpdateSafe {verdict}, because of:" in why, kind
        assert f"- [{rule}] {file}:{line}: " in why, kind
        assert f"{way_out}: " in why, kind
        shown = subprocess.run(
            ["git", "-C", str(service), "show", f"v{version}:{file}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        assert text in shown.splitlines()[line - 1], kind


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
        "1.7.0": False,
        "1.8.0": False,
        "1.9.0": False,
        "1.10.0": "unknown",
    }
    assert artifacts["1.1.0"]["api"]["rest"]["advisoryCount"] >= 1
    assert artifacts["1.2.0"]["api"]["rest"]["breaking"] is True
    assert artifacts["1.7.0"]["api"]["mcp"]["changes"] == [
        "MCP tool `run_sql`: input `limit` became required"
    ]
    assert artifacts["1.8.0"]["config"]["changes"] == [
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
    locked = artifacts["1.9.0"]["migrations"]["files"][0]
    assert locked["tables"] == ["users"]
    assert locked["heaviness"] == {"locksTable": True, "rewritesTable": False, "scansTable": True}
    index = json.loads((tmp_path / "release-safety-index.json").read_text())
    assert [e["rollingUpdateSafe"] for e in index["entries"]] == list(verdicts.values())


def test_demo_without_dir_removes_its_folder_and_keep_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert run(["demo"]) == 0
    out = capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []
    assert f"\nremoved: {tmp_path}/release-safety-demo-" in out
    assert "\nnext: `release-safety demo --keep` keeps it" in out
    assert "--index" not in out  # no command on an index that is gone
    # The folder's own path (pytest's, under xdist, is long) is the one thing that may not fit.
    assert max(len(line.replace(str(tmp_path), "/tmp")) for line in out.splitlines()) <= 100

    assert run(["demo", "--keep"]) == 0
    out = capsys.readouterr().out
    [kept] = tmp_path.iterdir()
    assert kept.name.startswith("release-safety-demo-")
    assert f"\nkept: {kept}\n" in out
    assert (kept / "release-safety-index.json").is_file()


def test_demo_removes_its_folder_when_it_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))  # the sample repository is not built
    assert run(["demo"]) == 3
    assert "git" in capsys.readouterr().err
    assert list((tmp_path / "tmp").iterdir()) == []


def test_demo_interrupted_removes_its_folder(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "release_safety", "demo"],
        env={**os.environ, "TMPDIR": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(tmp_path.glob("*/service/.git/refs/tags/v*")):
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)  # Ctrl-C, once the first release is tagged
    _, err = process.communicate(timeout=60)
    assert process.returncode == 3, err
    assert "aborted" in err
    assert list(tmp_path.iterdir()) == []


def test_demo_refuses_a_non_empty_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "x").write_text("keep me")
    assert run(["demo", "--dir", str(tmp_path)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "x").read_text() == "keep me"
