"""The package's layers hold (docs/architecture.md): import-linter's contracts of
pyproject.toml, and no module reaches itself again through its imports (a package's
`__init__` imported back by its own modules included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def test_the_contracts_of_pyproject_hold() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run(
        [str(lint), str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import circles of `graph`: its strongly connected parts of two or more modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            part = []
            while not part or part[-1] != module:
                part.append(stack.pop())
            if len(part) > 1:
                found.append(sorted(part))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_itself_back() -> None:
    assert circles(grimp.build_graph("release_safety", cache_dir=None)) == []


def test_a_circle_is_found() -> None:
    graph = grimp.ImportGraph()
    for importer, imported in (("p", "p.a"), ("p.a", "p.b"), ("p.b", "p"), ("p.b", "p.c")):
        graph.add_import(importer=importer, imported=imported)
    assert circles(graph) == [["p", "p.a", "p.b"]]
