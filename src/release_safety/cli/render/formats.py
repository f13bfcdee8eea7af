"""The output formats of the commands that lint (`lint-migrations`, `diff-openapi`, `check-pr`).

`text` and `json` are each command's own; this module renders the shared ones from findings:
`markdown` (a table), `github` (workflow commands, one per finding, so GitHub annotates the
lines) and `sarif` (SARIF 2.1.0 with the rules its results use, for code scanning). `github` is the
default inside GitHub Actions (`GITHUB_ACTIONS=true`) when no format is asked for.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar
from urllib.parse import quote

import click

from release_safety import __version__
from release_safety.cli.render.annotations import LEVELS, Annotation, Shown
from release_safety.cli.render.plain import default_format
from release_safety.cli.render.plain import summary_line as summary_line
from release_safety.cli.rulesoff import known
from release_safety.common.errors import InputError
from release_safety.contract.finding import Rule

FORMATS = ("text", "json", "markdown", "github", "sarif")
Format = Literal["text", "json", "markdown", "github", "sarif"]
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://pypi.org/project/release-safety/"

F = TypeVar("F", bound=Callable[..., Any])


COLORS = ("auto", "always", "never")
_STYLES: dict[str, dict[str, Any]] = {
    "breaking": {"fg": "red", "bold": True},
    "error": {"fg": "red", "bold": True},
    "unknown": {"fg": "yellow"},
    "warning": {"fg": "yellow"},
    "advisory": {"fg": "cyan"},
    "note": {"fg": "cyan"},
    "declared": {"fg": "green"},
}


def use_color(choice: str) -> bool | None:
    """Whether text output is coloured: `always` and `never` as said; `auto` on a terminal
    unless NO_COLOR is set to anything (None: click looks at the terminal)."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return None


def styled(key: str, text: str | None = None) -> str:
    """`text` (the severity or level `key` itself by default) in that key's colour, which
    `click.echo` strips where colour is not wanted."""
    shown = key if text is None else text
    return click.style(shown, **_STYLES[key]) if key in _STYLES else shown


def format_options(command: F) -> F:
    """`--format`, its alias `--json` (`--format json`) and `--color`."""
    command = click.option(
        "--color",
        type=click.Choice(COLORS),
        default="auto",
        show_default=True,
        help="Colour the text output: auto (on a terminal, unless NO_COLOR is set), always, never.",
    )(command)
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
        return default_format()
    assert format_ in FORMATS
    return format_  # type: ignore[return-value]


Uri = Callable[[str], str | None]
"""A finding's file as its path from the repository root (None: no location, as for standard
input)."""


def _located(shown: Sequence[Shown], uri: Uri) -> list[Shown]:
    """The findings with their files as paths from the repository root."""
    return [
        Shown(s.finding.replace(file=uri(s.finding.file)), s.level) if s.finding.file else s
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


DOCS_URI = "https://github.com/your-org/release-safety/blob/main/docs/"
"""Where the rule pages are published (the project's `Homepage`, `docs/`)."""
_RULE_PAGES = {
    "migrations": "migration-rules.md",
    "rest": "rest-rules.md",
    "mcp": "mcp-rules.md",
    "config": "config-rules.md",
    "deployment": "deployment-rules.md",
    "declarations": "declarations.md",
    "overrides": "overrides.md",
}
MAX_RESULTS = 25_000
"""GitHub code scanning refuses a run with more results ("SARIF support for code scanning")."""
STDIN_URI = "stdin"
"""Where a finding on standard input is anchored when `--stdin-filepath` does not name it."""


_OWN_PAGES = dict.fromkeys(
    ("static-missed", "static-heavier", "unverified"), "verify-migrations.md"
)
"""Rules documented on their command's page rather than their surface's."""


def help_uri(rule: Rule) -> str:
    """The rule's documentation: its heading on its surface's page (the decision table for the
    rules every surface shares)."""
    page = _OWN_PAGES.get(rule.id) or _RULE_PAGES.get(rule.surface)
    return DOCS_URI + (f"{page}#{rule.id}" if page else "verdict.md")


def _name(rule_id: str) -> str:
    """The rule's SARIF `name`: its id in PascalCase (`drop-column` -> `DropColumn`)."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[-_]", rule_id))


def _help_markdown(rule: Rule) -> str:
    parts = [f"**{rule.title}**", rule.why]
    if rule.unsafe:
        parts.append(f"Unsafe:\n\n```\n{rule.unsafe.strip()}\n```")
    if rule.safe:
        parts.append(f"Safer: {rule.safe}")
    parts.append(f"[Rule documentation]({help_uri(rule)})")
    return "\n\n".join(parts)


def _descriptor(rule: Rule) -> dict[str, Any]:
    help_text = rule.why + (f"\n\nSafer: {rule.safe}" if rule.safe else "")
    return {
        "id": rule.id,
        "name": _name(rule.id),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.why},
        "helpUri": help_uri(rule),
        "help": {"text": help_text, "markdown": _help_markdown(rule)},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"surface": rule.surface, "severity": rule.severity},
    }


def _fingerprint(rule: str, uri: str, message: str, seen: dict[str, int]) -> str:
    """A result's identity across runs: rule, file and message (not the line, so an alert
    survives lines added above it), numbered when the same one occurs again."""
    import hashlib  # deferred: only a SARIF log needs it, not every command that renders

    digest = hashlib.sha256("\0".join((rule, uri, message)).encode()).hexdigest()[:32]
    seen[digest] = seen.get(digest, 0) + 1
    return f"{digest}:{seen[digest]}"


_PRIORITY = {"error": 0, "warning": 1, "note": 2}


def _driver(used: list[str]) -> dict[str, Any]:
    """The tool, with the catalogue entries of the rule ids `used` (sorted, each once)."""
    rules = known(used)
    return {
        "name": "release-safety",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": INFORMATION_URI,
        "rules": [_descriptor(rules[i]) for i in sorted(set(used)) if i in rules],
    }


def _log(command: str, results: list[dict[str, Any]], invocation: dict[str, Any]) -> str:
    """The log of one run: the driver lists only the rules its results use, and each result's
    `ruleIndex` points at its rule there."""
    driver = _driver([result["ruleId"] for result in results])
    index = {rule["id"]: i for i, rule in enumerate(driver["rules"])}
    for result in results:
        if result["ruleId"] in index:
            result["ruleIndex"] = index[result["ruleId"]]
    run = {
        "tool": {"driver": driver},
        "automationDetails": {"id": f"release-safety/{command}/"},
        "invocations": [invocation],
        "results": results,
    }
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _notification(level: str, text: str) -> dict[str, Any]:
    return {"level": level, "message": {"text": _public(text)}}


_ABSOLUTE = re.compile(r"(?<![\w:/.~-])(?:/[^\s'\"`,;:()<>/]+)+/?")


def _public(text: str) -> str:
    """`text` as a log uploaded to code scanning may carry it: a path of this machine is
    written from the working folder when it lies under it, else as `<local path>` (a path that
    is not on this machine, `/var/lib/postgresql/data`, is a container's and stays)."""
    here = {os.getcwd(), os.path.realpath(os.getcwd())}

    def local(match: re.Match[str]) -> str:
        path = match.group(0).rstrip("/") or "/"
        for root in here:
            if path == root:
                return "."
            if path.startswith(f"{root}/"):
                return path[len(root) + 1 :]
        exists = os.path.lexists(path) or os.path.isdir(os.path.dirname(path) or "/")
        return "<local path>" if exists and path.count("/") > 1 else match.group(0)

    return _ABSOLUTE.sub(local, text)


def _uri(path: str) -> str:
    """A file's path as a SARIF uri: a URI reference, percent-encoded (`a b%2C.sql` is
    `a%20b%252C.sql`); an absolute path as a `file:` URI."""
    encoded = quote(path, safe="/")
    return f"file://{encoded}" if path.startswith("/") else encoded


def sarif(
    shown: Sequence[Shown], uri: Uri = str, command: str = "lint", anchor: str = STDIN_URI
) -> str:
    """A SARIF 2.1.0 log of one run as GitHub code scanning accepts it: the rules its results
    use (with their help), one result per finding, each with a location (a finding without a
    file, or on standard input, at `anchor`: the settings file or the name given for standard
    input, line 1) and a fingerprint; `automationDetails.id` names the command, so each
    command's alerts are a category of their own. Past GitHub's limit of results, the most
    severe are kept and a notification says how many were left out."""
    located = sorted(_located(shown, uri), key=lambda s: _PRIORITY[s.level])
    kept, dropped = located[:MAX_RESULTS], len(located) - MAX_RESULTS
    results = []
    seen: dict[str, int] = {}
    for s in kept:
        f = s.finding
        where = f.file or anchor
        text = f.message + (f"\nSafer: {f.hint}" if f.hint else "")
        location = {
            "artifactLocation": {"uri": _uri(where)},
            "region": {"startLine": f.line or 1},
        }
        results.append(
            {
                "ruleId": f.rule,
                "level": s.level,
                "message": {"text": text},
                "locations": [{"physicalLocation": location}],
                "partialFingerprints": {
                    "releaseSafety/v1": _fingerprint(f.rule, where, f.message, seen)
                },
            }
        )
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if dropped > 0:
        invocation["toolExecutionNotifications"] = [
            _notification(
                "warning",
                f"{dropped} less severe result(s) left out: GitHub code scanning accepts"
                f" {MAX_RESULTS} per run (every finding is in --format json)",
            )
        ]
    return _log(command, results, invocation)


def sarif_error(command: str, message: str, code: int) -> str:
    """The SARIF log of a run that could not check: no result, the error as a tool execution
    notification (the exit code stays the error's)."""
    invocation = {
        "executionSuccessful": False,
        "exitCode": code,
        "toolExecutionNotifications": [_notification("error", message)],
    }
    return _log(command, [], invocation)


def shared(
    chosen: Format,
    title: str,
    shown: Sequence[Shown],
    uri: Uri = str,
    command: str = "lint",
    anchor: str = STDIN_URI,
) -> str:
    """The findings in one of the shared formats (`markdown`, `github`, `sarif`)."""
    if chosen == "markdown":
        return markdown(title, shown)
    if chosen == "github":
        return github(shown, uri)
    if chosen == "sarif":
        return sarif(shown, uri, command, anchor)
    raise ValueError(f"{chosen} is each command's own format")
