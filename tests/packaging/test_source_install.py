"""A source install is quick: the build backend (`_backend/`) asks for mypy, and `setup.py`
compiles, only when RELEASE_SAFETY_COMPILE asks for it (the release workflow's wheels)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = (".so", ".pyd")


def _project(tmp_path: Path) -> Path:
    """A copy of the project: builds write `build/` and metadata beside the sources, never
    into the tree under test (a build there at the same time as `.ci/run`'s would clash)."""
    project = tmp_path / "project"
    shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(".*", "build", "tests", "bench"))
    return project


def _requires(env: dict[str, str], project: Path) -> str:
    """What the build backend asks to have installed to build a wheel of the
    project."""
    hook = "import release_safety_backend as b; print(b.get_requires_for_build_wheel())"
    done = subprocess.run(
        [sys.executable, "-c", hook],
        cwd=project,
        env={**env, "PYTHONPATH": str(project / "_backend")},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()[-1]  # after setuptools' own lines


@pytest.mark.parametrize(("value", "mypy"), [(None, False), ("0", False), ("1", True)])
def test_the_build_needs_mypy_only_when_it_compiles(
    value: str | None, mypy: bool, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "RELEASE_SAFETY_COMPILE"}
    if value is not None:
        env["RELEASE_SAFETY_COMPILE"] = value
    assert ("mypy" in _requires(env, _project(tmp_path))) is mypy


def test_a_source_build_without_the_variable_is_the_pure_package(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "RELEASE_SAFETY_COMPILE"}
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    project = _project(tmp_path)
    subprocess.run([*command, "-w", str(tmp_path / "dist"), str(project)], env=env, check=True)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "release_safety/surfaces/migrations/sql/lexer.py" in names
    assert not [n for n in names if n.endswith(SUFFIXES)]


def test_the_wheels_workflow_compiles_for_linux_and_macos_on_both_architectures() -> None:
    workflow = yaml.safe_load((ROOT / ".github/workflows/wheels.yml").read_text(encoding="utf-8"))
    job = workflow["jobs"]["wheels"]
    assert set(job["strategy"]["matrix"]["os"]) == {
        "ubuntu-24.04",
        "ubuntu-24.04-arm",
        "macos-15-intel",
        "macos-15",
    }
    (build,) = [s for s in job["steps"] if s.get("uses", "").startswith("pypa/cibuildwheel@")]
    assert build["env"]["CIBW_ENVIRONMENT"] == "RELEASE_SAFETY_COMPILE=1"
    assert "(migration lint: compiled)" in build["env"]["CIBW_TEST_COMMAND"]
