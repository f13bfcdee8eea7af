"""The build (`setup.py`): a wheel carries the migration lint and the evaluator's history answer
compiled with mypyc where it can, else the pure-Python package; never half of each. `.ci/run`
builds the compiled wheel and runs the migration and evaluator tests against it
(`RELEASE_SAFETY_COMPILE=1`)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import release_safety
from release_safety.cli.main import run
from release_safety.common.textcase import lower
from release_safety.surfaces.migrations.sql import lexer

ROOT = Path(__file__).resolve().parents[2]
PIP_WHEEL = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v"]
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")
"""A compiled module's file name ends so (`.cpython-311-x86_64-linux-gnu.so`)."""


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(".*", "build", "tests", "bench"))
    return project


def _wheel(
    tmp_path: Path, project: Path | None = None, **env: str
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Build a wheel of (a copy of) the project with this venv's setuptools and mypy; the
    build's output and the files of the wheel (none when the build failed)."""
    project = project or _project(tmp_path)
    done = subprocess.run(
        [*PIP_WHEEL, "-w", str(tmp_path / "dist"), str(project)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
    )
    wheels = list((tmp_path / "dist").glob("*.whl"))
    return done, zipfile.ZipFile(wheels[0]).namelist() if wheels else []


def _extensions(names: list[str]) -> list[str]:
    return [name for name in names if name.endswith(SUFFIX)]


def test_a_wheel_built_not_to_compile_is_the_pure_package(tmp_path: Path) -> None:
    project = _project(tmp_path)  # with an earlier build's extension left in its build folder
    built = project / "build" / f"lib.{sysconfig.get_platform()}-{sys.implementation.cache_tag}"
    stale = built / "release_safety" / "surfaces" / "migrations" / "sql" / f"lexer{SUFFIX}"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"an earlier build's")
    done, names = _wheel(tmp_path, project, RELEASE_SAFETY_COMPILE="0")
    assert done.returncode == 0, done.stderr
    assert "release_safety/surfaces/migrations/sql/lexer.py" in names
    assert _extensions(names) == []


def test_a_wheel_whose_compiler_fails_is_the_pure_package_and_says_so(tmp_path: Path) -> None:
    done, names = _wheel(tmp_path, CC="false", RELEASE_SAFETY_COMPILE="auto")
    assert done.returncode == 0, done.stderr
    assert "release-safety: not compiled (" in done.stdout + done.stderr
    assert "release_safety/surfaces/migrations/sql/lexer.py" in names
    assert _extensions(names) == []


def test_compiling_when_required_fails_the_build_when_it_cannot(tmp_path: Path) -> None:
    done, names = _wheel(tmp_path, CC="false", RELEASE_SAFETY_COMPILE="1")
    assert done.returncode != 0
    assert names == []


def test_an_editable_install_runs_the_sources(tmp_path: Path) -> None:
    project = _project(tmp_path)
    hook = "from setuptools import build_meta; print(build_meta.build_editable(%r))"
    done = subprocess.run(
        [sys.executable, "-c", hook % str(tmp_path)],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "RELEASE_SAFETY_COMPILE": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    wheel = tmp_path / done.stdout.split()[-1]
    assert _extensions(zipfile.ZipFile(wheel).namelist()) == []
    assert _extensions([str(p) for p in project.rglob("*")]) == []


def test_the_version_names_the_build_that_runs(capsys: pytest.CaptureFixture[str]) -> None:
    built = "pure Python" if str(lexer.__file__).endswith(".py") else "compiled"
    assert release_safety.compiled() is (built == "compiled")
    assert run(["--version"]) == 0
    assert f"(migration lint: {built})" in capsys.readouterr().out


def test_a_build_holds_the_hot_modules_compiled_or_none() -> None:
    # Run against the source (none) and, by `.ci/run`, against the compiled wheel (each, and
    # nothing an earlier build left).
    package = Path(release_safety.__file__).parent
    found = {
        ".".join(path.relative_to(package.parent).parts).removesuffix(SUFFIX)
        for path in package.rglob(f"*{SUFFIX}")
    }
    assert found in (set(), set(_hot_modules()))
    assert bool(found) is release_safety.compiled()


def _hot_modules() -> dict[str, Path]:
    """The modules setup.py compiles (its HOT), by name."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    hot = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "HOT"
    )
    names = eval(compile(ast.Expression(hot), "setup.py", "eval"), {})  # a tuple of names
    return {name: ROOT / "src" / f"{name.replace('.', '/')}.py" for name in names}


def test_compiled_modules_lower_text_as_cpython_does() -> None:
    # mypyc's own str.lower gives "ασ" for "ΑΣ" (no final sigma); `lower` gives CPython's,
    # compiled or not (`.ci/run` runs this against the compiled build too).
    for text in ("ΑΣ", "aΣ b", "ΣΑΣ.ΑΣ", "İ", "ǅ", "Users", ""):
        assert lower(text) == text.lower()
    modules = _hot_modules()
    assert modules and all(path.exists() for path in modules.values())
    calls = [
        f"{name}:{node.lineno}"
        for name, path in modules.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "lower"
    ]
    lowering = "release_safety.common.textcase"  # `lower` itself
    assert [call.split(":")[0] for call in calls] == [lowering], calls


def test_compiled_classes_are_written_out_not_dataclasses() -> None:
    # Compiled, a dataclass-generated __init__ still runs interpreted (about 300 ns, 530 ns
    # frozen, against 40 ns for a written one: 13 % of a 2,000-file lint was in it), and
    # `dataclasses` (with `inspect`, `ast`, `dis`) and each class it builds cost a one-file
    # lint half its start. So every class of a compiled module writes its __init__ and takes
    # its __eq__, __hash__ and __repr__ from common/value.py; an immutable one declares its
    # fields Final.
    # (The evaluator's compiled modules are not the lint's start.)
    decorated = [
        f"{path.name}: {node.name}"
        for name, path in _hot_modules().items()
        if ".migrations." in name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        and any("dataclass" in ast.unparse(d) for d in node.decorator_list)
    ]
    assert decorated == []
