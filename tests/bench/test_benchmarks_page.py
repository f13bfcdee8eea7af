"""docs/benchmarks.md is what bench/report.py renders from bench/results/ and bench/pages.toml,
and bench/record.py keeps a run's output as results only when the run succeeds."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


report = _load("report")

PAGES = """
intro = "How fast it is."

[[section]]
name = "toy"
title = "A toy benchmark"
about = "It counts to two."
"""
SCRIPT = """
import sys
print("load average before: 0.10")
print("| run | seconds |")
print("| --- | --- |")
print("| one | " + sys.argv[1] + " |")
print("all: 1 of 1 decisive")
"""


def _record(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, str(ROOT / "bench" / "record.py")]
    paths = ["--results", str(tmp_path / "results"), "--pages", str(tmp_path / "pages.toml")]
    page = ["--page", str(tmp_path / "benchmarks.md")]
    return subprocess.run([*argv, *paths, *page, *args], capture_output=True, text=True)


def test_the_page_is_what_the_results_render_and_every_section_has_its_figures() -> None:
    sections, results = report.read_sections(report.PAGES), report.read_results(report.RESULTS)
    assert report.problems(sections, results) == []
    assert not report.stale(report.PAGE, report.render(sections, results)), "run bench/report.py"


def test_every_figure_on_the_page_comes_with_the_command_that_reproduces_it() -> None:
    results = report.read_results(report.RESULTS)
    page = report.PAGE.read_text(encoding="utf-8")
    for record in results.values():
        name, script = record["command"].split()[2:4]
        assert name == record["name"] and (ROOT / script).is_file(), record["command"]
        assert f"```sh\n{record['command']}\n```" in page


def test_a_recorded_run_becomes_a_section_of_the_page(tmp_path: Path) -> None:
    (tmp_path / "pages.toml").write_text(PAGES, encoding="utf-8")
    (tmp_path / "toy.py").write_text(SCRIPT, encoding="utf-8")

    done = _record(tmp_path, "toy", str(tmp_path / "toy.py"), "0.25")

    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "results" / "toy.json").read_text(encoding="utf-8"))
    assert record["command"].endswith(f"bench/record.py toy {tmp_path / 'toy.py'} 0.25")
    assert record["output"].splitlines()[3] == "| one | 0.25 |"
    page = (tmp_path / "benchmarks.md").read_text(encoding="utf-8")
    assert "## A toy benchmark\n\nIt counts to two.\n\n```sh\n" in page
    assert "\n\n| run | seconds |\n| --- | --- |\n| one | 0.25 |\n\n" in page
    assert "```text\nload average before: 0.10\n```" in page
    assert "```text\nall: 1 of 1 decisive\n```\n" in page
    assert "| [A toy benchmark](#a-toy-benchmark) |" in page


def test_a_failed_run_keeps_the_results_it_had(tmp_path: Path) -> None:
    (tmp_path / "pages.toml").write_text(PAGES, encoding="utf-8")
    (tmp_path / "toy.py").write_text(SCRIPT, encoding="utf-8")
    assert _record(tmp_path, "toy", str(tmp_path / "toy.py"), "0.25").returncode == 0
    kept = (tmp_path / "results" / "toy.json").read_bytes()
    (tmp_path / "toy.py").write_text(SCRIPT + "sys.exit(3)\n", encoding="utf-8")

    done = _record(tmp_path, "toy", str(tmp_path / "toy.py"), "0.50")

    assert done.returncode == 1
    assert "exited 3; toy's results kept" in done.stderr
    assert (tmp_path / "results" / "toy.json").read_bytes() == kept
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["toy.json"]


def test_a_name_without_a_section_is_refused_before_anything_runs(tmp_path: Path) -> None:
    (tmp_path / "pages.toml").write_text(PAGES, encoding="utf-8")

    done = _record(tmp_path, "other", str(tmp_path / "missing.py"))

    assert done.returncode == 1
    assert done.stderr.strip().endswith(
        "record: other: no such section in " + str(tmp_path / "pages.toml")
    )
    assert not (tmp_path / "results").exists()


def test_a_section_without_results_is_named_and_results_without_a_section_too() -> None:
    sections = [{"name": "", "title": "", "about": "intro"}]
    sections.append({"name": "toy", "title": "Toy", "about": "x"})
    record = {"name": "old", "load": [0, 0], "ran": "", "commit": "", "machine": "", "seconds": 1}
    results = {"old": {**record, "output": "x", "command": "c"}}

    assert report.problems(sections, results) == [
        "toy: no results (run bench/record.py toy ...)",
        "bench/results/old.json: no section in bench/pages.toml",
    ]
    assert "## Toy\n\nx\n\nNot recorded yet: `bench/record.py toy ...`.\n" in report.render(
        sections, results
    )


def test_a_results_file_that_is_not_one_is_named_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "toy.json").write_text('{"output": "x"}', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"toy.json: not a results file: KeyError\('name'\)"):
        report.read_results(tmp_path)
