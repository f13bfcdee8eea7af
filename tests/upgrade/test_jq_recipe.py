"""docs/upgrade-check.md: its jq program and its examples agree with the CLI."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from upgrade_indexes import EXAMPLE_INDEX, indexes

from release_safety.cli.main import run

DOC_PAGE = Path(__file__).parents[2] / "docs" / "upgrade-check.md"
JQ = shutil.which("jq")


def jq_program() -> str:
    blocks = re.findall(r"```jq\n(.*?)```", DOC_PAGE.read_text(), flags=re.S)
    assert len(blocks) == 1, "docs/upgrade-check.md holds exactly one jq program"
    return blocks[0]


PROGRAM = jq_program()


def gate_script() -> str:
    blocks = re.findall(r"```sh\n(.*?)```", DOC_PAGE.read_text(), flags=re.S)
    gates = [block for block in blocks if "$FROM" in block]
    assert len(gates) == 1, "docs/upgrade-check.md holds one shell gate using $FROM and $TO"
    return gates[0]


def jq_check(index_path: Path, start: str, target: str) -> dict[str, Any] | None:
    """The jq recipe's object, or None when it raised an error (an absent version)."""
    assert JQ, "jq is needed for this test (Debian: apt-get install jq)"
    done = subprocess.run(
        [JQ, "--arg", "from", start, "--arg", "to", target, PROGRAM, str(index_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        assert "is not in the index" in done.stderr
        return None
    return json.loads(done.stdout)


def cli_check(
    capsys: pytest.CaptureFixture[str], index_path: Path, start: str, target: str
) -> tuple[int, dict[str, Any]]:
    args = ["upgrade-check", "--from", start, "--to", target, "--index", str(index_path), "--json"]
    code = run(args)
    return code, json.loads(capsys.readouterr().out)


def assert_agree(capsys: pytest.CaptureFixture[str], path: Path, start: str, target: str) -> None:
    code, cli = cli_check(capsys, path, start, target)
    recipe = jq_check(path, start, target)
    if recipe is None:
        assert code == 1
        assert cli["safe"] is False
        return
    assert list(recipe) == list(cli)
    assert recipe == cli
    assert code == (0 if recipe["safe"] else 1)


@pytest.fixture
def example_path(tmp_path: Path) -> Path:
    path = tmp_path / "release-safety-index.json"
    path.write_text(json.dumps(EXAMPLE_INDEX))
    return path


EXAMPLE_VERSIONS = ["0.9.0", "1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0"]


@pytest.mark.parametrize("start", EXAMPLE_VERSIONS)
@pytest.mark.parametrize("target", EXAMPLE_VERSIONS)
def test_jq_recipe_agrees_on_the_example_index(
    capsys: pytest.CaptureFixture[str], example_path: Path, start: str, target: str
) -> None:
    assert_agree(capsys, example_path, start, target)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(doc=indexes(), data=st.data())
def test_jq_recipe_agrees_on_random_indexes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, doc: dict[str, Any], data: st.DataObject
) -> None:
    held = [e["version"] for e in doc["entries"]] or ["1.0.0"]
    start = data.draw(st.sampled_from([*held, "0.5.0"]))
    target = data.draw(st.sampled_from(held))
    path = tmp_path / "random-index.json"
    path.write_text(json.dumps(doc))
    assert_agree(capsys, path, start, target)


def test_jq_recipe_errors_on_an_absent_version(example_path: Path) -> None:
    assert jq_check(example_path, "1.4.0", "1.9.0") is None
    assert jq_check(example_path, "0.1.0", "1.4.0") is None


def test_the_documented_examples_hold(
    capsys: pytest.CaptureFixture[str], example_path: Path
) -> None:
    rows = re.findall(r"^\| (\S+) → (\S+) \| (yes|no) \|", DOC_PAGE.read_text(), flags=re.M)
    assert len(rows) >= 10
    for start, target, verdict in rows:
        code, result = cli_check(capsys, example_path, start, target)
        assert result["safe"] is (verdict == "yes"), f"{start} → {target}"
        assert code == (0 if verdict == "yes" else 1)


@pytest.mark.parametrize(
    ("start", "target"),
    [
        ("1.4.0", "1.5.0"),
        ("1.0.0", "1.1.0"),
        ("1.2.0", "1.4.0"),
        ("1.4.0", "9.0.0"),
        ("0.1.0", "1.1.0"),
    ],
)
def test_the_documented_shell_gate_fails_closed(
    capsys: pytest.CaptureFixture[str], example_path: Path, start: str, target: str
) -> None:
    (example_path.parent / "upgrade-check.jq").write_text(PROGRAM)
    done = subprocess.run(
        [shutil.which("bash") or "/bin/bash", "-c", gate_script()],
        cwd=example_path.parent,
        env={"PATH": str(Path(JQ or "jq").parent), "FROM": start, "TO": target},
        capture_output=True,
        text=True,
        check=False,
    )
    code, result = cli_check(capsys, example_path, start, target)
    assert done.returncode == code
    assert done.stdout.strip() == ("roll it" if result["safe"] else "not proven safe")
