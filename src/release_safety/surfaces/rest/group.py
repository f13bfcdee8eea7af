"""Judged deltas into findings: one line per change, shared-schema edits grouped.

An edit inside a named schema that many operations reach is one line in the schema path form
(`#/components/schemas/Pet — response property `tag` removed (12 operations)`); everything
else reads `<METHOD> <path> — <text>`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import unquote

from release_safety.findings import Finding
from release_safety.surfaces.rest.diff import OperationDelta
from release_safety.surfaces.rest.normalise import Api
from release_safety.surfaces.rest.rules import RestRule, classify

CAP = 50


@dataclass
class _Group:
    rule: RestRule
    text: str
    place: str
    origin: str | None
    file: str
    line: int
    operations: list[str] = field(default_factory=list)


def pointer_keys(pointer: str) -> tuple[str, ...]:
    return tuple(unquote(p).replace("~1", "/").replace("~0", "~") for p in pointer[2:].split("/"))


def findings(
    deltas: list[OperationDelta], old: Api, new: Api, old_file: str, new_file: str
) -> list[Finding]:
    """One finding per distinct change; shared-schema changes count the operations they reach."""
    groups: dict[tuple[str, ...], _Group] = {}
    for item in deltas:
        delta, op = item.delta, item.operation
        rule = classify(delta)
        if rule is None:
            continue
        text = rule.say(delta)
        label = op.label if op is not None else ""
        removed = delta.kind == "endpoint-removed"
        doc, file = (old, old_file) if removed else (new, new_file)
        if delta.origin is not None:
            key: tuple[str, ...] = (rule.id, delta.origin, text)
            # a schema of another file (an external `$ref`) has no line in this document
            line_keys = pointer_keys(delta.origin) if delta.origin[:2] == "#/" else ("",)
        else:
            key = (rule.id, label, delta.place, text)
            if op is not None:
                line_keys = ("paths", op.path, op.method)
            elif delta.place.startswith("#/"):
                line_keys = pointer_keys(delta.place)
            else:
                line_keys = (delta.place,)
        group = groups.get(key)
        if group is None:
            line = doc.document.line_of(*line_keys)
            group = _Group(rule, text, delta.place, delta.origin, file, line)
            groups[key] = group
        if label and label not in group.operations:
            group.operations.append(label)
    out = [_finding(g) for g in groups.values()]
    return sorted(out, key=lambda f: (f.severity != "breaking", f.message))


def _finding(group: _Group) -> Finding:
    ops = group.operations
    if group.origin is not None and len(ops) > 1:
        message = f"{group.origin} — {group.text} ({len(ops)} operations)"
    elif not ops:
        message = f"{group.place} — {group.text}"
    elif group.place == "operation":
        message = f"{ops[0]} — {group.text}"
    else:
        message = f"{ops[0]} — {group.place}: {group.text}"
    return Finding(
        rule=group.rule.id,
        severity=group.rule.level,
        surface="rest",
        file=group.file,
        line=group.line,
        message=message,
        hint=group.rule.safe,
    )


def capped(lines: list[str], noun: str) -> list[str]:
    """At most CAP lines, then `… and N more <noun>`."""
    if len(lines) <= CAP:
        return lines
    return [*lines[:CAP], f"… and {len(lines) - CAP} more {noun}"]
