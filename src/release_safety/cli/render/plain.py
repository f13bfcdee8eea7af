"""What the text output needs without click: the format a command prints when none is asked
for, and the summary line that ends a linting command's text (the plain `lint-migrations`
call prints its text without importing click: `cli/lint.py`)."""

from __future__ import annotations

import os
from collections.abc import Sequence

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Literal


def default_format() -> Literal["github", "text"]:
    """The format when none is asked for: `github` in a GitHub Actions job, else `text`."""
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def summary_line(severities: Sequence[str], files_with: int, files: int) -> str:
    """The last line of a linting command's text, as squawk prints it: how many findings in
    how many of the files read, by severity (`Found 3 issues in 2 files (1 breaking, ...)`;
    check-pr counts its declared breaks apart), or that there were none."""
    if not severities:
        return f"No issues found in {_count(files, 'file')}." if files else "No issues found."
    order = ("breaking", "unknown", "declared", "advisory")
    counts = ", ".join(
        f"{n} {severity}" for severity in order if (n := list(severities).count(severity))
    )
    among = f" of {files}" if files > files_with else ""
    issues = _count(len(severities), "issue")
    return f"Found {issues} in {files_with}{among} file{'' if files == 1 else 's'} ({counts})."
