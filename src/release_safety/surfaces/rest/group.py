"""Judged deltas into findings: one line per change, shared-schema edits grouped.

An edit inside a named schema that many operations reach is one line in the schema path form
(`#/components/schemas/Pet — response property `tag` removed (12 operations)`); everything
else reads `<METHOD> <path> — <text>`. Spec errors the revision brings are `spec-invalid`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from release_safety.contract.finding import Finding
from release_safety.surfaces.jsonschema.build import pointer_parts
from release_safety.surfaces.jsonschema.issues import SPEC_INVALID, token_line
from release_safety.surfaces.jsonschema.judge import DeltaRule
from release_safety.surfaces.rest.diff import ApiKind, OperationDelta
from release_safety.surfaces.rest.normalise import Api
from release_safety.surfaces.rest.rules import CATALOGUE

CAP = 50


@dataclass(frozen=True)
class Change:
    """A finding and every operation it reaches (labels such as `GET /pets/{id}`)."""

    finding: Finding
    operations: tuple[str, ...]


@dataclass
class _Group:
    rule: DeltaRule
    text: str
    place: str
    origin: str | None
    file: str
    line: int
    at: str = ""
    operations: list[str] = field(default_factory=list)


def changes(
    deltas: list[OperationDelta], old: Api, new: Api, old_file: str, new_file: str
) -> list[Change]:
    """One change per distinct finding; shared-schema changes list the operations they reach."""
    groups: dict[tuple[str, ...], _Group] = {}
    for item in deltas:
        delta, op = item.delta, item.operation
        rule = CATALOGUE.judge(delta)
        if rule is None:
            continue
        text = rule.say(delta)
        label = op.label if op is not None else ""
        removed = delta.kind is ApiKind.ENDPOINT_REMOVED
        api, file = (old, old_file) if removed else (new, new_file)
        document = api.document
        if delta.origin is not None:
            key: tuple[str, ...] = (rule.id, delta.origin, text)
            target = delta.origin.partition("#")[0].lstrip("/")
            if target in api.files:  # a schema of a file an external `$ref` read: its line there
                file, document = target, api.files[target]
            line_keys = pointer_parts(delta.origin) if not target or target in api.files else ("",)
        else:
            key = (rule.id, label, delta.place, text)
            if op is not None:
                line_keys = ("paths", op.path, op.method)
            elif delta.place.startswith("#/"):
                line_keys = pointer_parts(delta.place)
            else:
                line_keys = (delta.place,)
        group = groups.get(key)
        if group is None:
            line = document.line_of(*line_keys)
            group = _Group(rule, text, delta.place, delta.origin, file, line, delta.at)
            groups[key] = group
        if label and label not in group.operations:
            group.operations.append(label)
    out = [_change(g) for g in groups.values()] + _spec_errors(old, new, new_file)
    return sorted(out, key=lambda c: (c.finding.severity != "breaking", c.finding.message))


def _change(group: _Group) -> Change:
    ops = group.operations
    if group.origin is not None and len(ops) > 1:
        message = f"{group.origin} — {group.text} ({len(ops)} operations)"
    elif not ops:
        message = f"{group.place} — {group.text}"
    elif group.place == "operation":
        message = f"{ops[0]} — {group.text}"
    else:
        message = f"{ops[0]} — {group.place}: {group.text}"
    finding = CATALOGUE.finding(group.rule, message, group.file, group.line, _subject(group))
    return Change(finding, tuple(sorted(ops)))


def _subject(group: _Group) -> str:
    """What the change happened to, in words: `tag` of response 200 in GET /pets."""
    ops = sorted(group.operations)
    reach = (ops[0] if len(ops) == 1 else f"{ops[0]} and {len(ops) - 1} more") if ops else ""
    if group.place == "operation":
        return reach or "the operation"
    if group.origin is not None:  # a shared schema: the operations it reaches in brackets
        where = f"{group.origin} ({reach})" if reach else group.origin
    else:
        where = f"{group.place} of {reach}" if reach else group.place
    return f"`{group.at}` of {where}" if group.at else where


def _spec_errors(old: Api, new: Api, new_file: str) -> list[Change]:
    """A `spec-invalid` finding for each spec error of the revision the base did not have."""
    out: list[Change] = []
    for issue in sorted(new.issues - old.issues):
        keys = pointer_parts(issue.owner)
        place = keys[1] if keys[:1] == ("paths",) and len(keys) > 1 else issue.owner
        line = token_line(new.document.text, new.document.line_of(*keys), issue.token)
        finding = SPEC_INVALID.finding("rest", f"{place} — {issue.message}", new_file, line)
        out.append(Change(finding, ()))
    return out


def capped(lines: list[str], noun: str) -> list[str]:
    """At most CAP lines, then `… and N more <noun>`."""
    if len(lines) <= CAP:
        return lines
    return [*lines[:CAP], f"… and {len(lines) - CAP} more {noun}"]
