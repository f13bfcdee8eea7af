"""Dockerfiles of bundled components, parsed with BuildKit's own parser (the `dockerfile`
package): the stateful components a folder of Dockerfiles builds, with their versions.

The Dockerfiles of one folder (`Dockerfile`, `Dockerfile.base`, ...) build one component. It is
stateful when one of them starts from a stateful image (`FROM postgres:15`), installs a stateful
server package (`tdnf install postgresql18-server`, `apt-get install postgresql-15=15.6-1`),
runs a stateful server (`CMD ["redis-server"]`) or sets a version variable
(`ENV PG_MAJOR=15`). Exec-form `ENTRYPOINT` / `CMD` arguments that are bare versions (`"15"`,
`"18"`, not after an option) carry the version of the folder's one stateful kind. `ARG` and
`ENV` defaults are filled into `FROM` and `RUN` lines.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import release_safety.surfaces.deployment.rules as rules
from release_safety.contract.reports import Finding
from release_safety.surfaces.deployment.catalogue import (
    kind_of_command,
    kind_of_name,
    package,
    version,
)
from release_safety.surfaces.deployment.imageref import parse_image
from release_safety.surfaces.deployment.interpolation import interpolate
from release_safety.surfaces.deployment.stateful import Place, Seen, compare, image_seen

if TYPE_CHECKING:
    import dockerfile

_MANAGERS = frozenset({"apt-get", "apt", "yum", "dnf", "tdnf", "microdnf", "apk", "zypper"})
_INSTALL = frozenset({"install", "add", "in"})
_SEPARATORS = re.compile(r"&&|\|\||[;|\n]")
_VERSION_ARGUMENT = re.compile(r"\d{1,2}(?:\.\d+){0,2}")
_VERSION_WORDS = frozenset({"version", "major"})


class DockerfileError(Exception):
    """The Dockerfile cannot be parsed; the message says why."""


class _TooLong(DockerfileError):
    """The Dockerfile is past the bound `MAX_CONTINUED_LINES`."""


@dataclass(frozen=True)
class Arguments:
    """Bare version arguments of an exec-form ENTRYPOINT or CMD."""

    text: str
    numbers: tuple[int, ...]
    file: str
    line: int


@dataclass
class Component:
    """The Dockerfiles of one folder: what they show of stateful components."""

    folder: str
    files: list[str] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    arguments: list[Arguments] = field(default_factory=list)
    volumes: set[str] = field(default_factory=set)

    def sightings(self) -> list[Seen]:
        """Every sighting, with version arguments given to the folder's one stateful kind."""
        kinds = {s.kind.name: s.kind for s in self.seen}
        if len(kinds) != 1:
            return list(self.seen)
        kind = next(iter(kinds.values()))
        aspect = "entrypoint arguments"
        return self.seen + [
            Seen(kind, aspect, a.text, a.numbers, a.file, a.line) for a in self.arguments
        ]


def _packages(script: str) -> Iterator[str]:
    """The package arguments of every install command of a shell script."""
    for segment in _SEPARATORS.split(script):
        if not any(manager in segment for manager in _MANAGERS):
            continue
        try:
            words = shlex.split(segment)
        except ValueError:
            words = segment.split()
        while words and (words[0] == "sudo" or "=" in words[0]):
            words = words[1:]
        if not words or words[0].rsplit("/", 1)[-1] not in _MANAGERS:
            continue
        rest = words[1:]
        verbs = [w for w in rest if not w.startswith("-")]
        if not verbs or verbs[0] not in _INSTALL:
            continue
        for word in rest[rest.index(verbs[0]) + 1 :]:
            if word[:1] in "<>" or re.match(r"\d*>", word):
                break
            if not word.startswith("-"):
                yield word


def _variable(name: str, value: str, file: str, line: int) -> Seen | None:
    words = name.lower().split("_")
    if not _VERSION_WORDS.intersection(words):
        return None
    kind = next((k for w in words if (k := kind_of_name(w))), None)
    if kind is None:
        return None
    return Seen(kind, f"variable {name}", f"{name}={value}", version(value), file, line)


def _assignments(instruction: str, value: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """The (name, default) pairs of an ARG (`name=value`) or ENV (name, value, ...) line."""
    if instruction == "ENV":
        yield from zip(value[::2], value[1::2], strict=False)
        return
    for entry in value:
        name, _, default = entry.partition("=")
        if default:
            yield name, default


MAX_CONTINUED_LINES = 10_000
"""Most lines a Dockerfile may continue (end with `\\` or `` ` ``): BuildKit's parser joins
continued lines in time that grows with their square (100,000 take it 50 s)."""
_CONTINUED = re.compile(r"[\\`][ \t]*\r?$", re.MULTILINE)


def _parse(text: str) -> list[dockerfile.Command]:
    """BuildKit's commands of the text; DockerfileError when it does not parse or continues
    more lines than `MAX_CONTINUED_LINES` (counted before BuildKit sees it)."""
    continued = sum(1 for _ in _CONTINUED.finditer(text))
    if continued > MAX_CONTINUED_LINES:
        raise _TooLong(f"{continued:,} continued lines, more than the {MAX_CONTINUED_LINES:,} read")
    # deferred: loading BuildKit's parser starts Go's runtime threads, after which this
    # process may not fork (`release/beside.py`)
    import dockerfile

    try:
        return list(dockerfile.parse_string(text))
    except dockerfile.GoParseError as exc:
        raise DockerfileError(f"not a valid Dockerfile: {exc}") from exc


def is_dockerfile(text: str) -> bool:
    """True when the text parses as a Dockerfile whose first instruction past its `ARG`s is
    `FROM`: a Dockerfile by its content, whatever its name. A text past the bound of `_parse`
    is taken as one, so reading it says why it is not checked."""
    try:
        commands = _parse(text)
    except _TooLong:
        return True
    except DockerfileError:
        return False
    first = next((c.cmd for c in commands if c.cmd != "ARG"), None)
    return first == "FROM"


def read_dockerfile(component: Component, path: str, text: str) -> None:
    """Add what the Dockerfile at `path` shows to its folder's component."""
    commands = _parse(text)
    component.files.append(path)
    values: dict[str, str] = {}
    stages: set[str] = set()
    for command in commands:
        line = command.start_line
        if command.cmd in ("ARG", "ENV"):
            for name, value in _assignments(command.cmd, command.value):
                values[name] = interpolate(value, values)
                seen = _variable(name, values[name], path, line)
                if seen is not None:
                    component.seen.append(seen)
        elif command.cmd == "FROM":
            reference = interpolate(command.value[0], values)
            if len(command.value) >= 3 and command.value[1].lower() == "as":
                stages.add(command.value[2].lower())
            image = parse_image(reference) if reference.lower() not in stages else None
            component.seen += image_seen(image, "base image", path, line)
        elif command.cmd == "RUN":
            for word in _packages(interpolate(" ".join(command.value), values)):
                found = package(word)
                if found is not None:
                    kind, text_version = found
                    component.seen.append(
                        Seen(kind, "package", word, version(text_version), path, line)
                    )
        elif command.cmd in ("ENTRYPOINT", "CMD"):
            words = list(command.value) if command.json else command.value[0].split()
            server = kind_of_command(words[0]) if words else None
            if server is not None:
                component.seen.append(Seen(server, "command", words[0], None, path, line))
            bare = [
                w
                for i, w in enumerate(words[1:], 1)
                if _VERSION_ARGUMENT.fullmatch(w) and not words[i - 1].startswith("-")
            ]
            if command.json and bare:
                numbers = max(n for n in map(version, bare) if n is not None)
                component.arguments.append(Arguments(" ".join(bare), numbers, path, line))
        elif command.cmd == "VOLUME":
            for entry in command.value:
                component.volumes.update(entry.split())


def _place(component: Component, name: str) -> Place:
    files = ", ".join(component.files)
    return Place(name, component.files[0], 1, f"the image of {files}")


def diff_components(old: dict[str, Component], new: dict[str, Component]) -> list[Finding]:
    """What changed in the stateful components the Dockerfiles build, folder by folder; a
    folder gone is followed to a new one that keeps its data (a VOLUME in common)."""
    findings: list[Finding] = []
    arrived = [c for folder, c in new.items() if folder not in old and c.sightings()]
    for folder, before in old.items():
        after = new.get(folder)
        if after is not None:
            findings += compare(_place(after, f"{folder}/"), before.sightings(), after.sightings())
            continue
        if not before.sightings():
            continue
        heir = next((c for c in arrived if c.volumes & before.volumes), None)
        if heir is not None:
            shared = ", ".join(sorted(heir.volumes & before.volumes))
            name = f"{folder}/ -> {heir.folder}/ (volume {shared})"
            findings += compare(_place(heir, name), before.sightings(), heir.sightings())
        else:
            kinds = ", ".join(sorted({s.kind.name for s in before.sightings()}))
            message = f"{folder}/: the {kinds} component ({', '.join(before.files)}) is gone"
            findings.append(
                rules.COMPONENT_REMOVED.finding("deployment", message, before.files[0], 1)
            )
    return findings
