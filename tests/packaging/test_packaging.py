"""Packaging: metadata, the `evaluator` extra, every dependency used, the Action's lock."""

from __future__ import annotations

import ast
import itertools
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from release_safety.cli.commands.evaluator import EVALUATOR_MODULES
from release_safety.git.builder import RepoBuilder

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CORE = [Requirement(r) for r in PROJECT["project"]["dependencies"]]
EVALUATOR = [Requirement(r) for r in PROJECT["project"]["optional-dependencies"]["evaluator"]]
INSTALL_HINT = "pip install 'release-safety[evaluator]'"


def modules_used(folder: Path) -> dict[str, set[Path]]:
    """Top-level modules the code imports, or runs with `python -m`, and where."""
    used: dict[str, set[Path]] = {}
    for path in folder.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.List):
                items = [e.value for e in node.elts if isinstance(e, ast.Constant)]
                names = [b for a, b in itertools.pairwise(items) if a == "-m"]
            for name in names:
                used.setdefault(str(name).split(".")[0], set()).add(path)
    return used


def distributions_used(folder: Path) -> dict[str, set[Path]]:
    by_module = packages_distributions()
    used: dict[str, set[Path]] = {}
    for module, paths in modules_used(folder).items():
        for dist in by_module.get(module, []):
            used.setdefault(canonicalize_name(dist), set()).update(paths)
    return used


def test_metadata_is_pep_639_with_the_mit_licence_file() -> None:
    assert PROJECT["build-system"]["requires"] == ["setuptools>=77"]
    meta = PROJECT["project"]
    assert meta["license"] == "MIT"
    assert meta["license-files"] == ["LICENSE"]
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License\n\nCopyright (c) 2026 release-safety authors\n")
    assert not any(c.startswith("License ::") for c in meta["classifiers"])
    assert {"Homepage", "Source", "Issues"} <= set(meta["urls"])


def test_every_declared_dependency_is_used_and_the_evaluator_stack_only_by_the_evaluator() -> None:
    src = ROOT / "src" / "release_safety"
    used = distributions_used(src)
    declared = [canonicalize_name(r.name) for r in [*CORE, *EVALUATOR]]
    assert [name for name in declared if name not in used] == []
    evaluator_only = {src / "evaluator", src / "commands" / "evaluator.py"}
    for requirement in EVALUATOR:
        where = used[canonicalize_name(requirement.name)]
        outside = [p for p in where if not any(p.is_relative_to(e) for e in evaluator_only)]
        assert outside == [], requirement.name
    extra = {canonicalize_name(r.name) for r in EVALUATOR}
    extra_modules = {
        module
        for module, dists in packages_distributions().items()
        if any(canonicalize_name(d) in extra for d in dists)
    } & set(modules_used(src))
    assert set(EVALUATOR_MODULES) == extra_modules


def without_evaluator(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """The CLI in a fresh interpreter where every module of the `evaluator` extra fails to
    import, as in a core-only install."""
    code = (
        "import sys\n"
        f"for name in {EVALUATOR_MODULES!r}:\n"
        "    sys.modules[name] = None\n"
        "from release_safety.cli.main import main\n"
        "main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    "args",
    [
        ["serve-evaluator", "--port", "0"],
        ["serve-evaluator", "--print-openapi"],
        ["contract-check", "--spec", "openapi.json", "--base-url", "http://127.0.0.1:9"],
    ],
)
def test_the_evaluator_commands_without_the_extra_name_the_install_command(
    args: list[str],
) -> None:
    done = without_evaluator(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(f"release-safety: {args[0]}: needs the evaluator extra (")
    assert done.stderr.rstrip().endswith(INSTALL_HINT)


def test_the_core_commands_run_without_the_extra(tmp_path: Path) -> None:
    repo = RepoBuilder(tmp_path / "service")
    repo.release("1.0.0", {"db/migrations/001_init.sql": "CREATE TABLE t (id int);\n"})
    repo.release("1.1.0", {"db/migrations/002_more.sql": "ALTER TABLE t ADD COLUMN n int;\n"})
    assert without_evaluator("rules").returncode == 0
    assert without_evaluator("serve-evaluator", "--help").returncode == 0
    generated = without_evaluator("generate", "--to", "1.1.0", "--out", "-", cwd=repo.path)
    assert generated.returncode == 0, generated.stderr
    assert '"schemaVersion": "2"' in generated.stdout


def test_the_lock_pins_every_core_dependency_within_its_bound_with_hashes() -> None:
    text = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    pinned: dict[str, Version] = {}
    for block in text.replace("\\\n", " ").splitlines():
        if block.strip() and not block.startswith((" ", "#")):
            requirement = Requirement(block.split(" --hash=")[0].strip())
            assert "--hash=sha256:" in block, requirement.name
            (spec,) = requirement.specifier
            assert spec.operator == "=="
            pinned[canonicalize_name(requirement.name)] = Version(spec.version)
    for requirement in CORE:
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"requirements.lock misses {name}: run scripts/lock"
        assert requirement.specifier.contains(pinned[name]), (name, pinned[name])
    assert "sqlglotc" in pinned  # the [c] extra of sqlglot is locked too
    evaluator = {canonicalize_name(r.name) for r in EVALUATOR}
    assert evaluator.isdisjoint(pinned)  # the Action installs the core only


HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def test_the_pre_commit_hooks_run_real_commands_on_the_files_they_match(tmp_path: Path) -> None:
    hooks = {hook["id"]: hook for hook in HOOKS}
    assert set(hooks) == {"lint-migrations", "diff-openapi"}
    for hook in HOOKS:
        assert {"id", "name", "entry", "language", "files"} <= set(hook)
        assert hook["language"] == "python"
        assert hook["entry"].split()[0] == "release-safety"
        assert hook["id"] in (ROOT / "README.md").read_text(encoding="utf-8")
    lint = re.compile(hooks["lint-migrations"]["files"])
    assert lint.search("db/migrations/001_init.sql")
    assert lint.search("packages/backend/src/database/migrations/20240101000000_add.ts")
    assert lint.search("migrations/2024-01-01-000000_add/up.sql")  # diesel
    assert lint.search("prisma/migrations/20240101000000_add/migration.sql")
    assert lint.search("drizzle/0001_add.sql")
    assert not lint.search("docs/openapi.yaml")
    assert not lint.search("src/app.ts")
    spec = re.compile(hooks["diff-openapi"]["files"])
    assert spec.search("openapi.yaml") and spec.search("api/swagger.json")
    assert not spec.search("db/migrations/001_init.sql")

    migration = tmp_path / "db" / "migrations" / "001_drop.sql"
    migration.parent.mkdir(parents=True)
    migration.write_text("ALTER TABLE users DROP COLUMN legacy_id;\n", encoding="utf-8")
    entry = hooks["lint-migrations"]["entry"].split()
    done = subprocess.run(
        [sys.executable, "-m", "release_safety", *entry[1:], str(migration)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "drop-column" in done.stdout


def test_bootstrap_reinstalls_only_when_pyproject_or_the_lock_changed(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    for name in ("scripts/bootstrap", "pyproject.toml", "requirements.lock"):
        (tree / name).write_bytes((ROOT / name).read_bytes())
    (tree / "scripts" / "bootstrap").chmod(0o755)
    shims = tmp_path / "bin"
    shims.mkdir()
    calls = tmp_path / "calls"
    # python3 stands for the installer: it records the call and builds a venv that "works".
    (shims / "python3").write_text(
        f'#!/bin/sh\necho "$*" >> "{calls}"\nmkdir -p .venv/bin\n'
        'printf "#!/bin/sh\\nexit 0\\n" > .venv/bin/python\n'
        "cp .venv/bin/python .venv/bin/release-safety\nchmod +x .venv/bin/*\n",
        encoding="utf-8",
    )
    (shims / "python3").chmod(0o755)
    env = {"PATH": f"{shims}:/usr/bin:/bin", "HOME": str(tmp_path)}

    def bootstrap() -> list[str]:
        calls.write_text("", encoding="utf-8")
        done = subprocess.run(
            ["bash", "scripts/bootstrap"], cwd=tree, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return calls.read_text(encoding="utf-8").splitlines()

    assert bootstrap() == ["-m venv .venv"]
    assert bootstrap() == []
    with (tree / "pyproject.toml").open("a", encoding="utf-8") as handle:
        handle.write("\n# changed\n")
    assert bootstrap() == ["-m venv .venv"]
    assert bootstrap() == []
