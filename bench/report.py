"""Render docs/benchmarks.md from the bench results: the current figures, each with its command.

    .venv/bin/python bench/report.py           # rewrite the page
    .venv/bin/python bench/report.py --check   # exit 1 when the page is not what the results say

The page's sections, their order and the prose of what each measures are `bench/pages.toml`;
the figures are what each benchmark printed, kept in `bench/results/NAME.json` by
`bench/record.py`. Earlier runs stay in git (`git log -p docs/benchmarks.md`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from release_safety.common.jsonio import write_atomic

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "bench" / "pages.toml"
RESULTS = ROOT / "bench" / "results"
PAGE = ROOT / "docs" / "benchmarks.md"


def read_sections(path: Path) -> list[dict[str, Any]]:
    """The page's sections, in order: `name`, `title`, `about`; the page's `intro` first."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return [{"name": "", "title": "", "about": data["intro"]}, *data["section"]]
    except (OSError, ValueError, KeyError) as exc:
        raise SystemExit(f"report: {path}: cannot read the sections: {exc!r}") from None


def read_results(folder: Path) -> dict[str, dict[str, Any]]:
    """Every results file of the folder, by name."""
    found = {}
    for path in sorted(folder.glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            found[record["name"]] = record
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"report: {path}: not a results file: {exc!r}") from None
    return found


def _kind(line: str) -> str:
    return "table" if line.startswith("|") else "heading" if line.startswith("#") else "text"


def _blocks(output: str) -> Iterator[str]:
    """A benchmark's output as Markdown: its tables as they are, its headings under the
    section's (level 3 or deeper), other lines as text blocks."""
    run: list[str] = []
    for line in [*(line.rstrip() for line in output.strip().splitlines()), ""]:
        if run and (not line or _kind(line) != _kind(run[0]) or _kind(line) == "heading"):
            kind = _kind(run[0])
            if kind == "heading":
                marks, _, title = run[0].partition(" ")
                yield "#" * max(3, len(marks)) + " " + title
            else:
                yield "\n".join(run) if kind == "table" else "```text\n" + "\n".join(run) + "\n```"
            run = []
        if line:
            run.append(line)


def _section(section: dict[str, Any], record: dict[str, Any] | None) -> str:
    head = [f"## {section['title']}", section["about"].strip()]
    if record is None:
        return "\n\n".join([*head, f"Not recorded yet: `bench/record.py {section['name']} ...`."])
    before, after = record["load"]
    parts = [
        *head,
        f"```sh\n{record['command']}\n```",
        f"Ran {record['ran']} at `{record['commit']}` on {record['machine']}; load average"
        f" {before:.2f} before, {after:.2f} after; {record['seconds']:.0f} s in all.",
        *_blocks(record["output"]),
    ]
    return "\n\n".join(parts)


def _anchor(title: str) -> str:
    kept = "".join(c for c in title.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def problems(sections: list[dict[str, Any]], results: dict[str, dict[str, Any]]) -> list[str]:
    """What keeps the page from being whole: sections without results, results without one."""
    names = [section["name"] for section in sections[1:]]
    found = [f"{name}: no results (run bench/record.py {name} ...)" for name in names]
    return [line for line, name in zip(found, names, strict=True) if name not in results] + [
        f"bench/results/{name}.json: no section in bench/pages.toml"
        for name in sorted(set(results) - set(names))
    ]


def render(sections: list[dict[str, Any]], results: dict[str, dict[str, Any]]) -> str:
    """The page: the intro, an index of the sections, then each with its figures."""
    intro, *named = sections
    index = ["| figures | ran | commit |", "| --- | --- | --- |"]
    for section in named:
        record = results.get(section["name"], {"ran": "not yet", "commit": "–"})
        link = f"[{section['title']}](#{_anchor(section['title'])})"
        index.append(f"| {link} | {record['ran']} | `{record['commit']}` |")
    parts = [
        "# Benchmarks",
        "<!-- Written by bench/report.py from bench/results/ and bench/pages.toml: edit those. -->",
        intro["about"].strip(),
        "\n".join(index),
        *(_section(section, results.get(section["name"])) for section in named),
    ]
    return "\n\n".join(parts) + "\n"


def stale(page: Path, text: str) -> bool:
    """The page on disk is not `text` (or is missing)."""
    return not page.is_file() or page.read_text(encoding="utf-8") != text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    options = parser.parse_args()
    sections, results = read_sections(PAGES), read_results(RESULTS)
    text = render(sections, results)
    if not options.check:
        write_atomic(PAGE, text)
        return
    found = problems(sections, results)
    if stale(PAGE, text):
        found.append("docs/benchmarks.md is not what bench/results/ renders: run bench/report.py")
    if found:
        sys.exit("report: " + "; ".join(found))


if __name__ == "__main__":
    main()
