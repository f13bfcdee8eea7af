"""The output formats of the commands that lint (`lint-migrations`, `diff-openapi`, `check-pr`).

`text` and `json` are each command's own; this module renders the shared ones from findings:
`markdown` (a table), `github` (workflow commands, one per finding, so GitHub annotates the
lines) and `sarif` (SARIF 2.1.0 with the rule catalogue, for code scanning). `github` is the
default inside GitHub Actions (`GITHUB_ACTIONS=true`) when no format is asked for.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Literal, TypeVar

import click

from release_safety import __version__
from release_safety.errors import InputError
from release_safety.finding import Rule
from release_safety.render.annotations import LEVELS, Annotation, Shown
from release_safety.rulesoff import catalogue

FORMATS = ("text", "json", "markdown", "github", "sarif")
Format = Literal["text", "json", "markdown", "github", "sarif"]
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://pypi.org/project/release-safety/"

F = TypeVar("F", bound=Callable[..., Any])


def format_options(command: F) -> F:
    """`--format` and its alias `--json` (`--format json`)."""
    command = click.option(
        "--json", "as_json", is_flag=True, help="Print one JSON document (`--format json`)."
    )(command)
    return click.option(
        "--format",
        "format_",
        type=click.Choice(FORMATS),
        default=None,
        help="Output format (default: github inside GitHub Actions, else text).",
    )(command)


def chosen_format(format_: str | None, as_json: bool) -> Format:
    """The format asked for; `github` when none is and the run is a GitHub Actions job."""
    if as_json and format_ not in (None, "json"):
        raise InputError(f"--json and --format {format_} ask for two formats: give one")
    if as_json or format_ == "json":
        return "json"
    if format_ is None:
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    assert format_ in FORMATS
    return format_  # type: ignore[return-value]


Uri = Callable[[str], str | None]
"""A finding's file as its path from the repository root (None: no location, as for standard
input)."""


def _located(shown: Sequence[Shown], uri: Uri) -> list[Shown]:
    """The findings with their files as paths from the repository root."""
    return [
        Shown(replace(s.finding, file=uri(s.finding.file)), s.level) if s.finding.file else s
        for s in shown
    ]


def github(shown: Sequence[Shown], uri: Uri = str) -> str:
    """One workflow command per finding (`::error file=..,line=..,title=..::message`)."""
    return "".join(Annotation.of(s).command() + "\n" for s in _located(shown, uri))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def markdown(title: str, shown: Sequence[Shown]) -> str:
    """A heading, the counts, and one table row per finding."""
    lines = [f"## {title}", ""]
    if not shown:
        return "\n".join([*lines, "No findings.", ""])
    counts = {level: sum(s.level == level for s in shown) for level in ("error", "warning", "note")}
    lines += [
        f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['note']} note(s).",
        "",
        "| Level | Rule | Where | Finding | Safer |",
        "| --- | --- | --- | --- | --- |",
    ]
    for s in shown:
        f = s.finding
        where = f"`{f.file}:{f.line}`" if f.file and f.line else f"`{f.file}`" if f.file else "-"
        row = [s.level, f"`{f.rule}`", where, _cell(f.message), _cell(f.hint or "")]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def _descriptor(rule: Rule) -> dict[str, Any]:
    help_text = rule.why + (f"\n\nSafer: {rule.safe}" if rule.safe else "")
    return {
        "id": rule.id,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.why},
        "help": {"text": help_text},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"surface": rule.surface, "severity": rule.severity},
    }


def sarif(shown: Sequence[Shown], uri: Uri = str) -> str:
    """A SARIF 2.1.0 log of one run: the whole rule catalogue, one result per finding."""
    rules = sorted(catalogue().values(), key=lambda r: r.id)
    index = {rule.id: i for i, rule in enumerate(rules)}
    results = []
    for s in _located(shown, uri):
        f = s.finding
        text = f.message + (f"\nSafer: {f.hint}" if f.hint else "")
        result: dict[str, Any] = {"ruleId": f.rule, "level": s.level, "message": {"text": text}}
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        if f.file:
            location: dict[str, Any] = {"artifactLocation": {"uri": f.file}}
            if f.line:
                location["region"] = {"startLine": f.line}
            result["locations"] = [{"physicalLocation": location}]
        results.append(result)
    driver = {
        "name": "release-safety",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": INFORMATION_URI,
        "rules": [_descriptor(rule) for rule in rules],
    }
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def shared(chosen: Format, title: str, shown: Sequence[Shown], uri: Uri = str) -> str:
    """The findings in one of the shared formats (`markdown`, `github`, `sarif`)."""
    if chosen == "markdown":
        return markdown(title, shown)
    if chosen == "github":
        return github(shown, uri)
    if chosen == "sarif":
        return sarif(shown, uri)
    raise ValueError(f"{chosen} is each command's own format")
