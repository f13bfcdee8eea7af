"""What a route reader returns: the routes a service registers and the registrations it could
not read, and how two path templates compare (parameters by position, never by name)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
ANY = "ANY"
"""A handler that answers every method (`pages/api/x.ts`, `app.all`, `http.HandleFunc("/x")`)."""


@dataclass(frozen=True, order=True)
class Route:
    """One route: its method (or ANY), its path template as the framework writes it, and where
    it is registered."""

    method: str
    path: str
    file: str
    line: int
    framework: str = ""

    @property
    def template(self) -> str:
        """The path with every parameter as `{}` (a catch-all `{*}`, an optional catch-all
        `{*?}`), so `/w/{websiteId}`, `/w/[id]` and `/w/:id` are one route."""
        return template_key(self.path)

    @property
    def shown(self) -> str:
        return f"{self.method} {self.path}"


@dataclass(frozen=True)
class RouteGap:
    """A registration the reader found and could not read (a path computed at run time, routes
    from a list or a loop, a plugin that registers its own): `what` names the construct,
    `way_out` how to make the routes readable."""

    file: str
    line: int
    what: str
    way_out: str


@dataclass
class RouteReading:
    """Every route and gap of a snapshot, with the files read (path -> blob id)."""

    routes: list[Route] = field(default_factory=list)
    gaps: list[RouteGap] = field(default_factory=list)
    files: dict[str, str | None] = field(default_factory=dict)
    frameworks: set[str] = field(default_factory=set)


def segment_key(segment: str) -> str:
    """One path segment as compared: a parameter in any framework's spelling is `{}`."""
    if segment.startswith("[[...") and segment.endswith("]]"):
        return "{*?}"
    if segment.startswith("[...") and segment.endswith("]"):
        return "{*}"
    if segment.startswith("[") and segment.endswith("]"):
        return "{}"
    if segment.startswith("{") and segment.endswith("}"):
        inner = segment[1:-1]
        if inner.endswith("...") or inner.endswith(":path") or inner.startswith("*"):
            return "{*}"
        return "{}"
    if segment.startswith("<") and segment.endswith(">"):
        return "{*}" if segment.startswith("<path:") else "{}"
    if segment.startswith(":"):
        return "{?}" if segment.endswith("?") else "{}"
    if segment.startswith("*"):
        return "{*}"
    return segment


def template_key(path: str) -> str:
    """A path template as compared: leading and trailing slashes dropped, each parameter
    replaced by its position marker (`/api/users/:id/` -> `/api/users/{}`)."""
    parts = [segment_key(s) for s in path.split("/") if s]
    return "/" + "/".join(parts)


def join(prefix: str, path: str) -> str:
    """A mount prefix and a path under it, with exactly one slash between."""
    if not prefix.strip("/"):
        return "/" + path.lstrip("/") if path else "/"
    if not path.strip("/"):
        return "/" + prefix.strip("/")
    return "/" + prefix.strip("/") + "/" + path.lstrip("/")


class Files(Protocol):
    """What a route reader reads: a snapshot's paths, blob ids and bytes (and, to keep what
    follows from its paths, its tree's name and what it is known to differ from by:
    `Snapshot.tree_key`, `Snapshot.changed_from`)."""

    def paths(self) -> Sequence[str]: ...

    def blob_id(self, path: str) -> str | None: ...

    def read(self, path: str) -> bytes: ...

    def tree_key(self) -> str | None: ...

    def changed_from(self) -> tuple[str, Mapping[str, str | None]] | None: ...


def read_each(snapshot: Files, paths: Sequence[str]) -> Iterator[tuple[str, bytes]]:
    """Each path with its bytes: in one round trip where the snapshot reads so (git's)."""
    reader = getattr(snapshot, "read_each", None)
    return reader(paths) if reader is not None else ((p, snapshot.read(p)) for p in paths)


Found = tuple[list[Route], list[RouteGap], dict[str, str | None]]
"""What one reader found: routes, gaps, and the files it read (path -> blob id)."""
