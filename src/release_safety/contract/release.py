"""What is being released: a version, its refs, the release before it, and its date."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Release:
    """What is being released: its version, refs, the release before it, and its date."""

    version: str
    to_ref: str
    from_ref: str | None
    previous_version: str | None
    release_date: str
    previous_tag: str | None = None
    """The tag judged against when no release tag of `tag_pattern` is below the release (the
    nearest earlier version tag outside the pattern, `release/previous.py`)."""
