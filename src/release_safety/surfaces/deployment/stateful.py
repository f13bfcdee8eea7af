"""Stateful components seen at one place (a compose service, a Helm value, a chart template,
a folder of Dockerfiles) at both refs, and what changed between them.

Each sighting has an aspect (an image, an OS package, a server command, version arguments of
the entrypoint, a version variable): versions are compared aspect by aspect, so each finding
points at the line that shows it, and kinds are compared over the whole place, so a component
replaced by another product is seen whichever aspect names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import release_safety.surfaces.deployment.rules as rules
from release_safety.contract.reports import Finding
from release_safety.surfaces.deployment.catalogue import Kind, series
from release_safety.surfaces.deployment.imageref import Image


@dataclass(frozen=True)
class Seen:
    """A stateful component seen at a place: its kind, the aspect that shows it, the text
    (`postgres:15.6`, `postgresql18-server`), the version numbers read from it, where, and the
    part of the text that carries the version (an image's tag and digest; the whole text when
    not given): a change elsewhere (the registry, a namespace) is no version change."""

    kind: Kind
    aspect: str
    text: str
    numbers: tuple[int, ...] | None
    file: str
    line: int
    versioned: str | None = None

    @property
    def version_text(self) -> str:
        return self.text if self.versioned is None else self.versioned


def image_seen(image: Image | None, aspect: str, file: str, line: int) -> list[Seen]:
    """The stateful component an image reference shows, if any."""
    if image is None or image.kind is None:
        return []
    return [Seen(image.kind, aspect, image.text, image.version, file, line, image.versioned)]


def _shown(seen: Sequence[Seen]) -> str:
    return ", ".join(dict.fromkeys(s.text for s in seen))


def _best(seen: Sequence[Seen]) -> Seen | None:
    """The sighting with the highest version; None when any version is unreadable."""
    if any(s.numbers is None for s in seen):
        return None
    return max(seen, key=lambda s: s.numbers or ())


def _versions(
    place: str, kind: Kind, aspect: str, old: list[Seen], new: list[Seen]
) -> list[Finding]:
    if {s.version_text for s in old} == {s.version_text for s in new}:
        return []
    where = new[0]
    before, after = _best(old), _best(new)
    change = f"{place}: {kind.name} {aspect} {_shown(old)} -> {_shown(new)}"
    if before is None or after is None:
        message = f"{change}: the version cannot be read, so a major upgrade cannot be ruled out"
        hint = (
            f"Write {kind.name}'s {aspect} at {where.file}:{where.line} with a version that can be "
            f"read (`{where.text.partition(':')[0]}:<major.minor>`, or a default "
            "`${TAG:-<major.minor>}`); if the change is a major upgrade, declare the break."
        )
        return [
            rules.VERSION_UNREADABLE.finding("deployment", message, where.file, where.line, hint)
        ]
    assert before.numbers is not None and after.numbers is not None
    was, now = series(kind, before.numbers), series(kind, after.numbers)
    if was != now:
        top = max((s for s in new if s.numbers == after.numbers), key=lambda s: s.line)
        major = f"{'.'.join(map(str, was))} -> {'.'.join(map(str, now))}"
        message = f"{change}: major version {major}"
        hint = (
            f"Ship {kind.name} {major} in a release of its own, with the Recreate strategy and a "
            "required stop that says how the data is upgraded; or keep "
            f"{'.'.join(map(str, was))} at {top.file}:{top.line} and bump only minor versions."
        )
        return [rules.MAJOR_CHANGED.finding("deployment", message, top.file, top.line, hint)]
    return [rules.UPDATED.finding("deployment", change, where.file, where.line)]


@dataclass(frozen=True)
class Place:
    """A place that exists at both refs: its name in messages, where it is at the new ref and
    what it runs there, in words (`image registry.example.com/db:2`; None: nothing)."""

    name: str
    file: str
    line: int
    runs: str | None


def compare(place: Place, old: Sequence[Seen], new: Sequence[Seen]) -> list[Finding]:
    """The findings between the components seen at one place at the previous ref and now."""
    findings: list[Finding] = []
    old_kinds = {s.kind.name: s.kind for s in old}
    new_kinds = {s.kind.name: s.kind for s in new}
    for name in sorted(old_kinds.keys() & new_kinds.keys()):
        for aspect in sorted({s.aspect for s in [*old, *new] if s.kind.name == name}):
            before = [s for s in old if s.kind.name == name and s.aspect == aspect]
            after = [s for s in new if s.kind.name == name and s.aspect == aspect]
            if before and after:
                findings += _versions(place.name, old_kinds[name], aspect, before, after)
    gone = [s for s in old if s.kind.name not in new_kinds]
    came = [s for s in new if s.kind.name not in old_kinds]
    if gone and came:
        kinds = " and ".join(sorted({s.kind.name for s in gone})) + " -> "
        kinds += " and ".join(sorted({s.kind.name for s in came}))
        message = f"{place.name}: {kinds} ({_shown(gone)} -> {_shown(came)})"
        at = came[0]
        hint = (
            f"Switch {place.name} to {kinds.rsplit(' -> ', 1)[-1]} in a release of its own, with "
            "the Recreate strategy and a required stop that says how the data moves."
        )
        findings.append(rules.ENGINE_CHANGED.finding("deployment", message, at.file, at.line, hint))
    elif gone and place.runs is None:
        message = f"{place.name}: {_shown(gone)} is no longer there"
        hint = (
            f"Keep {_shown(gone)} at {place.name} for a release, or move its data in a "
            "documented required stop."
        )
        findings.append(
            rules.COMPONENT_REMOVED.finding("deployment", message, place.file, place.line, hint)
        )
    elif gone:
        message = f"{place.name}: {_shown(gone)} is replaced by {place.runs}, of no known kind"
        hint = (
            f"If {place.runs} keeps no data, name its repository in [deployment] stateless; if it "
            f"is {_shown(gone)} under another name, declare the change (`release-safety: "
            "breaking <reason>`) with how its data is kept."
        )
        findings.append(rules.REPLACED.finding("deployment", message, place.file, place.line, hint))
    elif came:
        message = f"{place.name}: {_shown(came)} is new"
        at = came[0]
        findings.append(rules.ADDED.finding("deployment", message, at.file, at.line))
    return findings
