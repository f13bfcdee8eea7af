"""Files that hold several migrations, each run once: a Liquibase changelog (its changesets)
and a Go list of migrations (`go-embedded`, its elements). A release may add migrations to such
a file that shipped; the part it adds is judged, and a shipped migration changed is an edit."""

from __future__ import annotations

from release_safety.surfaces.migrations.find.edits import edited_line as first_edit
from release_safety.surfaces.migrations.frameworks import goembedded
from release_safety.surfaces.migrations.sql import changesets

GO_EMBEDDED = "go-embedded"


def edited_line(old: str, new: str, path: str, fmt: str) -> int | None:
    """The first line of a shipped migration of the file the release changed or removed, None
    when every shipped one is as it shipped."""
    if fmt == GO_EMBEDDED:
        return goembedded.edited_line(old, new, _first_change)
    return changesets.edited_line(old, new, path)


def added_part(old: str, new: str, path: str, fmt: str) -> str:
    """The migrations of `new` that `old` did not ship, at their lines (the others blanked)."""
    if fmt == GO_EMBEDDED:
        return goembedded.added_part(old, new)
    return changesets.added_part(old, new, path)


def appends(old: str, new: str, fmt: str) -> bool:
    """True when `new` holds a migration `old` did not ship (judged beside an edit: a Go list
    grows as it is edited)."""
    if fmt != GO_EMBEDDED:
        return False
    try:
        before, after = goembedded.migration_list(old), goembedded.migration_list(new)
    except goembedded.Unreadable:
        return False
    shipped = {e.key for e in before.elements} if before is not None else set()
    return after is not None and any(e.key not in shipped for e in after.elements)


def _first_change(old: str, new: str) -> int:
    return first_edit(old, new, sql=False)
