"""Release versions: MAJOR.MINOR.PATCH compared numerically per part, and tag patterns.

Wherever a user gives a version (`--from`, `--floor`, `--version`, `floor_version`, the
overrides' versions) it may carry a `v` as tags do (`v1.4.1`); the contract's documents always
write it plain (`1.4.1`)."""

from __future__ import annotations

import re
from typing import NamedTuple

from release_safety.common.errors import InputError

MAX_PART_DIGITS = 18
"""Digits a version part may have: room for date-like parts, never a number too long to read."""
_PART = rf"(0|[1-9]\d{{0,{MAX_PART_DIGITS - 1}}})"
RELEASE_VERSION_PATTERN = rf"^{_PART}\.{_PART}\.{_PART}$"
"""A plain release version, `MAJOR.MINOR.PATCH` (the models' and the overrides' pattern too)."""
MAX_VERSION_LENGTH = 128
"""Characters any version string (a preview such as `pr-123` included) may have."""
_VERSION = re.compile(RELEASE_VERSION_PATTERN)
_GIVEN = re.compile(rf"^v?{_PART}\.{_PART}\.{_PART}$")
"""A release version as a user gives it: plain, or with a tag's `v`."""
DEFAULT_TAG_PATTERN = r"^v?(?P<version>\d+\.\d+\.\d+)$"


class Version(NamedTuple):
    """A plain release version; previews, release candidates and the like are not versions.
    Versions order as their (major, minor, patch) parts do."""

    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> Version:
        """Parse ``X.Y.Z`` (or ``vX.Y.Z``); anything else is bad input naming the text."""
        match = _GIVEN.match(text.strip()) if isinstance(text, str) else None
        if not match:
            shown = (
                repr(text) if len(repr(text)) <= 60 else f"{repr(text)[:40]}... ({len(text)} chars)"
            )
            raise InputError(
                f"{shown} is not a release version "
                f"(MAJOR.MINOR.PATCH or vMAJOR.MINOR.PATCH, at most {MAX_PART_DIGITS} digits "
                "a part)"
            )
        return cls(int(match[1]), int(match[2]), int(match[3]))

    @classmethod
    def maybe(cls, text: str | None) -> Version | None:
        """The version, or None for anything that is not a release version (``v`` allowed)."""
        if text is None or not _GIVEN.match(text):
            return None
        return cls.parse(text)

    def key(self) -> tuple[int, int, int]:
        return (self.major, self.minor, self.patch)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


def is_release(text: str) -> bool:
    """True for plain ``X.Y.Z`` versions, the only ones that enter the index."""
    return bool(_VERSION.match(text))


def plain_version(text: str) -> str:
    """A version as the contract writes it: ``v1.4.1`` is ``1.4.1``; a text that names no release
    version (a preview such as ``pr-123``) stays as it is, for the check that refuses it."""
    found = Version.maybe(text)
    return str(found) if found is not None else text


def version_key(text: str) -> tuple[int, int, int]:
    """Sort key for a release version string."""
    return Version.parse(text).key()


class TagPattern:
    """Which tags are releases: a regular expression (RE2, `common/patterns.py`) with a named group
    ``version``."""

    def __init__(self, pattern: str = DEFAULT_TAG_PATTERN) -> None:
        # deferred: reading versions (the index) needs none of the pattern machinery
        from release_safety.common.patterns import compile_pattern

        try:
            self.regex = compile_pattern(pattern)
        except ValueError as exc:
            raise InputError(f"tag pattern {pattern!r}: {exc}") from exc
        if "version" not in self.regex.groupindex:
            raise InputError(f"tag pattern {pattern!r} has no named group (?P<version>...)")
        self.pattern = pattern

    def version_text(self, tag: str) -> str | None:
        """The text of the `version` group when the tag matches the pattern, else None."""
        match = self.regex.match(tag)
        return match["version"] if match else None

    def version_of(self, tag: str) -> Version | None:
        """The release version a tag names, or None when the tag is not a release."""
        return Version.maybe(self.version_text(tag))
