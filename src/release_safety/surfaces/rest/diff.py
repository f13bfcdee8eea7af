"""Structural diff of two normalised APIs: what changed, where, in which direction.

The diff states facts (an operation was removed, a parameter moved) and never judges them: the
rules (`rules.py`) decide what breaks. Schemas are compared by the shared engine
(`surfaces/jsonschema/diff.py`), whose deltas carry a named schema's own location, so one edit
reached by many operations stays one fact.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from release_safety.surfaces.jsonschema.delta import Delta, Direction, Kind
from release_safety.surfaces.jsonschema.diff import SchemaDiffer
from release_safety.surfaces.jsonschema.model import Member
from release_safety.surfaces.rest.normalise import Api
from release_safety.surfaces.rest.operation import Operation, Param, Requirement


class ApiKind(Enum):
    """What changed in an operation or in the document, outside its schemas."""

    ENDPOINT_REMOVED = "endpoint-removed"
    ENDPOINT_ADDED = "endpoint-added"
    ENDPOINT_DEPRECATED = "endpoint-deprecated"
    STABILITY_CHANGED = "stability-changed"
    PARAMETER_REMOVED = "parameter-removed"
    PARAMETER_ADDED = "parameter-added"
    PARAMETER_BECAME_REQUIRED = "parameter-became-required"
    PARAMETER_MOVED = "parameter-moved"
    PARAMETER_STYLE_CHANGED = "parameter-style-changed"
    PARAMETER_DEPRECATED = "parameter-deprecated"
    BODY_BECAME_REQUIRED = "body-became-required"
    MEDIA_TYPE_REMOVED = "media-type-removed"
    SUCCESS_STATUS_REMOVED = "success-status-removed"
    ERROR_STATUS_ADDED = "error-status-added"
    HEADER_REMOVED = "header-removed"
    HEADER_BECAME_OPTIONAL = "header-became-optional"
    SECURITY_REQUIREMENT_ADDED = "security-requirement-added"
    SECURITY_SCHEME_CHANGED = "security-scheme-changed"
    SERVERS_CHANGED = "servers-changed"


RestDelta = Delta[Kind | ApiKind]


@dataclass
class OperationDelta:
    """A delta and the operation it was found in (None: the document as a whole)."""

    delta: RestDelta
    operation: Operation | None


def _delta(
    kind: ApiKind, direction: Direction, place: str, before: Any = None, after: Any = None
) -> RestDelta:
    return Delta(kind, direction, place, None, (), before, after)


def diff_apis(old: Api, new: Api) -> list[OperationDelta]:
    """Every delta between two APIs, each with the operation it was found in (None: API-wide)."""
    differ = SchemaDiffer()
    found: list[OperationDelta] = []
    for key in sorted(old.operations.keys() | new.operations.keys()):
        before, after = old.operations.get(key), new.operations.get(key)
        if before is after:  # reused unchanged from the previous version's normalisation
            continue
        if after is None:
            assert before is not None
            delta = _delta(ApiKind.ENDPOINT_REMOVED, "operation", "operation")
            found.append(OperationDelta(delta, before))
        elif before is None:
            delta = _delta(ApiKind.ENDPOINT_ADDED, "operation", "operation")
            found.append(OperationDelta(delta, after))
        else:
            found += [OperationDelta(d, after) for d in _operation(before, after, differ)]
    if old.servers != new.servers:
        delta = _delta(ApiKind.SERVERS_CHANGED, "api", "servers", old.servers, new.servers)
        found.append(OperationDelta(delta, None))
    for name in sorted(old.schemes.keys() & new.schemes.keys()):
        if old.schemes[name] != new.schemes[name]:
            place = f"security scheme `{name}`"
            delta = _delta(
                ApiKind.SECURITY_SCHEME_CHANGED, "api", place, old.schemes[name], new.schemes[name]
            )
            found.append(OperationDelta(delta, None))
    return found


def _operation(old: Operation, new: Operation, differ: SchemaDiffer) -> list[RestDelta]:
    out: list[RestDelta] = []
    if new.deprecated and not old.deprecated:
        out.append(_delta(ApiKind.ENDPOINT_DEPRECATED, "operation", "operation", None, new.sunset))
    if old.stability != new.stability:
        out.append(
            _delta(
                ApiKind.STABILITY_CHANGED, "operation", "operation", old.stability, new.stability
            )
        )
    out += _params(old.params, new.params, differ)
    out += _body(old, new, differ)
    out += _responses(old, new, differ)
    if old.security is not None and new.security is not None:
        out += _security(old.security, new.security)
    return out


def _security(old: list[Requirement], new: list[Requirement]) -> list[RestDelta]:
    for requirement in old:
        if not any(_satisfies(requirement, alt) for alt in new):
            wanted = sorted(
                f"{name}{'(' + ', '.join(sorted(scopes)) + ')' if scopes else ''}"
                for alt in new
                for name, scopes in alt
            )
            return [_delta(ApiKind.SECURITY_REQUIREMENT_ADDED, "request", "security", None, wanted)]
    return []


def _satisfies(held: Requirement, needed: Requirement) -> bool:
    """A client that satisfied `held` also satisfies `needed`."""
    scopes = dict(held)
    return all(name in scopes and wanted <= scopes[name] for name, wanted in needed)


def _param_place(param: Param) -> str:
    return f"{param.location} parameter `{param.name}`"


def _params(
    old: dict[tuple[str, str], Param], new: dict[tuple[str, str], Param], differ: SchemaDiffer
) -> list[RestDelta]:
    out: list[RestDelta] = []
    removed = {k: old[k] for k in old.keys() - new.keys()}
    added = {k: new[k] for k in new.keys() - old.keys()}
    moved: set[tuple[str, str]] = set()
    for key, param in sorted(removed.items()):
        target = next(
            (k for k in sorted(added) if k[1].lower() == key[1].lower() and k not in moved), None
        )
        place = _param_place(param)
        if target is not None:
            moved.add(target)
            out.append(_delta(ApiKind.PARAMETER_MOVED, "request", place, key[0], target[0]))
        else:
            member = Member(param.required, param.deprecated)
            out.append(_delta(ApiKind.PARAMETER_REMOVED, "request", place, member))

    for key, param in sorted(added.items()):
        if key not in moved:
            member = Member(param.required, param.deprecated)
            place = _param_place(param)
            out.append(_delta(ApiKind.PARAMETER_ADDED, "request", place, None, member))
    for key in sorted(old.keys() & new.keys()):
        before, after = old[key], new[key]
        place = _param_place(after)
        if after.required and not before.required:
            out.append(_delta(ApiKind.PARAMETER_BECAME_REQUIRED, "request", place))
        if (before.style, before.explode) != (after.style, after.explode):
            out.append(
                _delta(
                    ApiKind.PARAMETER_STYLE_CHANGED,
                    "request",
                    place,
                    (before.style, before.explode),
                    (after.style, after.explode),
                )
            )
        if after.deprecated and not before.deprecated:
            out.append(_delta(ApiKind.PARAMETER_DEPRECATED, "request", place))
        out += differ.compare(before.schema, after.schema, "request", place)
    return out


def _body(old: Operation, new: Operation, differ: SchemaDiffer) -> list[RestDelta]:
    out: list[RestDelta] = []
    before, after = old.body, new.body
    if after is None:
        return out
    if after.required and (before is None or not before.required):
        out.append(_delta(ApiKind.BODY_BECAME_REQUIRED, "request", "request body"))
    if before is None:
        return out
    for media in sorted(before.content.keys() - after.content.keys()):
        out.append(_delta(ApiKind.MEDIA_TYPE_REMOVED, "request", "request body", media))
    for media in sorted(before.content.keys() & after.content.keys()):
        place = "request body" if len(after.content) == 1 else f"request body {media}"
        out += differ.compare(before.content[media], after.content[media], "request", place)
    return out


def _is_success(status: str) -> bool:
    return status[:1] in ("1", "2", "3")


def _responses(old: Operation, new: Operation, differ: SchemaDiffer) -> list[RestDelta]:
    out: list[RestDelta] = []
    for status in sorted(old.responses.keys() - new.responses.keys()):
        if _is_success(status):
            place = f"response {status}"
            out.append(_delta(ApiKind.SUCCESS_STATUS_REMOVED, "response", place, status))
    for status in sorted(new.responses.keys() - old.responses.keys()):
        if status[:1] in ("4", "5"):
            place = f"response {status}"
            out.append(_delta(ApiKind.ERROR_STATUS_ADDED, "response", place, None, status))
    for status in sorted(old.responses.keys() & new.responses.keys()):
        before, after = old.responses[status], new.responses[status]
        for media in sorted(before.content.keys() - after.content.keys()):
            place = f"response {status}"
            out.append(_delta(ApiKind.MEDIA_TYPE_REMOVED, "response", place, media))
        for media in sorted(before.content.keys() & after.content.keys()):
            place = (
                f"response {status}" if len(after.content) == 1 else f"response {status} {media}"
            )
            out += differ.compare(before.content[media], after.content[media], "response", place)
        for name in sorted(before.headers.keys() - after.headers.keys()):
            header = before.headers[name]
            place = f"response {status} header `{header.name}`"
            member = Member(header.required, header.deprecated)
            out.append(_delta(ApiKind.HEADER_REMOVED, "response", place, member))
        for name in sorted(before.headers.keys() & after.headers.keys()):
            was, now = before.headers[name], after.headers[name]
            place = f"response {status} header `{now.name}`"
            if was.required and not now.required:
                out.append(_delta(ApiKind.HEADER_BECAME_OPTIONAL, "response", place))
            out += differ.compare(was.schema, now.schema, "response", place)
    return out
