"""`diff-openapi` without click: two documents read, loaded and compared, the JSON answer and
the exit code, and the plain `--json` call.

`commands/rest.py` prints the changes in every format. A call of the plain form `diff-openapi
BASE REVISION --json` (no other option, neither document named with a leading `-` but `-`
itself) is answered here without importing click; `quick_diff` returns None for anything else
and click parses it as always. The JSON and the exit code are the same either way.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from release_safety.cli.inputs import STDIN, Document, read_document
from release_safety.common import jsonio
from release_safety.common.errors import InputError
from release_safety.contract.kinds import Severity
from release_safety.surfaces.rest.documents import describe, load_api
from release_safety.surfaces.rest.group import Change, capped
from release_safety.surfaces.rest.load import SpecError
from release_safety.surfaces.rest.normalise import Api

# oasdiff's ERR / WARN / INFO: failing on a level fails on every level above it as well.
LEVELS: tuple[Severity, ...] = ("advisory", "unknown", "breaking")


def _load(document: Document, previous: Api | None = None) -> Api:
    """The API of a document (the revision normalised against the base, as the surface does)."""
    try:
        return load_api(document.data, previous=previous)
    except SpecError as exc:
        raise InputError(f"{document.name}: {exc}") from exc


def compare(
    base: str, revision: str, stdin_filepath: str | None = None
) -> tuple[Document, Document, list[Change]]:
    """The two documents `base` and `revision` name, and the changes from one to the other."""
    old_doc = read_document(base, stdin_name=stdin_filepath)
    new_doc = read_document(revision, stdin_used=base == STDIN, stdin_name=stdin_filepath)
    old = _load(old_doc)
    new = _load(new_doc, previous=old)
    try:
        return old_doc, new_doc, describe(old, new, old_doc.shown, new_doc.shown)
    except SpecError as exc:
        raise InputError(f"{revision}: {exc}") from exc


def exit_code(found: list[Change], fail_on: str) -> int:
    """1 when a change is at the `fail_on` level or above, else 0."""
    failing = LEVELS[LEVELS.index(fail_on) :]
    return 1 if any(c.finding.severity in failing for c in found) else 0


def json_document(base: str, revision: str, found: list[Change]) -> dict[str, Any]:
    """The `--json` answer."""
    messages = {
        level: [c.finding.message for c in found if c.finding.severity == level] for level in LEVELS
    }
    return {
        "base": base,
        "revision": revision,
        "breaking": bool(messages["breaking"]),
        "changes": capped(messages["breaking"], "breaking change(s)"),
        "breakingCount": len(messages["breaking"]),
        "unknown": capped(messages["unknown"], "unknown change(s)"),
        "unknownCount": len(messages["unknown"]),
        "advisories": capped(messages["advisory"], "advisory note(s)"),
        "advisoryCount": len(messages["advisory"]),
        "findings": [
            {**c.finding.to_dict(omit_none=True), "operations": list(c.operations)} for c in found
        ],
    }


def quick_diff(args: Sequence[str]) -> int | None:
    """Answer a plain `diff-openapi BASE REVISION --json` call (printing it), or None to leave
    it to click. Errors are raised as the click command raises them."""
    if not args or args[0] != "diff-openapi" or args.count("--json") != 1:
        return None
    documents = [a for a in args[1:] if a != "--json"]
    if len(documents) != 2 or any(a.startswith("-") and a != STDIN for a in documents):
        return None
    base, revision = documents
    found = compare(base, revision)[2]
    sys.stdout.write(jsonio.dumps(json_document(base, revision, found)))
    sys.stdout.flush()
    return exit_code(found, "unknown")
