"""A normalised operation: its parameters, body, responses and security requirements (what
`normalise` builds, `reuse` carries to the next version and `diff` compares)."""

from __future__ import annotations

from dataclasses import dataclass

from release_safety.surfaces.jsonschema.model import Schema


@dataclass
class Param:
    location: str
    name: str
    required: bool
    schema: Schema
    style: str
    explode: bool
    deprecated: bool


@dataclass
class Header:
    name: str
    required: bool
    deprecated: bool
    schema: Schema


@dataclass
class Body:
    required: bool
    content: dict[str, Schema]


@dataclass
class Response:
    content: dict[str, Schema]
    headers: dict[str, Header]


Requirement = frozenset[tuple[str, frozenset[str]]]


@dataclass
class Operation:
    method: str
    path: str
    params: dict[tuple[str, str], Param]
    body: Body | None
    responses: dict[str, Response]
    security: list[Requirement] | None  # None: names an undefined scheme, so unconstrained
    deprecated: bool
    sunset: str | None
    stability: str | None

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"
