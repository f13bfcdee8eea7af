"""The declarations registry, `release-safety.declarations.json` (docs/declarations.md).

Compatible with the source service's file:

    {
      "$schema": "...",                      optional
      "declarations": {
        "<id>": {
          "reason": "what breaks and for whom",
          "requiredStop": false,
          "migration": "path/of/the/migration.ts",      optional
          "releasedIn": "1.4.0",                        optional, may be added later
          "impact": {...}                               optional, see `_impact_problem`
        }
      }
    }

Ids are append-only: an id present at the previous ref may not be removed or edited (adding a
missing `releasedIn` is the one allowed edit). An entry with a valid `impact` of kind
`no-external-callers` is an advisory, not a declared break.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from release_safety.common.jsonio import loads_bounded
from release_safety.surfaces.declarations.jsonpos import KeyPath, key_lines

ROOT_KEYS = frozenset({"$schema", "declarations"})
ENTRY_KEYS = frozenset({"reason", "requiredStop", "migration", "releasedIn", "impact"})


@dataclass(frozen=True)
class Problem:
    line: int
    message: str


@dataclass(frozen=True)
class Entry:
    """A well-formed registry entry."""

    id: str
    line: int
    reason: str
    reason_line: int
    required_stop: bool
    advisory: bool


@dataclass
class Registry:
    """One ref's registry: raw entries by id (for the append-only diff), lines, problems."""

    raw: dict[str, Any] = field(default_factory=dict)
    lines: dict[KeyPath, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    readable: bool = True

    def line_of(self, *path: str | int) -> int:
        return self.lines.get(tuple(path), 1)


def load(data: bytes | None) -> Registry | None:
    """Parse a registry's bytes; None when the file is absent. Problems are collected."""
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
        value = loads_bounded(text, strict=True)
    except UnicodeDecodeError:
        return Registry(problems=[Problem(1, "the registry is not UTF-8 text")], readable=False)
    except json.JSONDecodeError as exc:
        problem = Problem(exc.lineno, f"the registry is not valid JSON: {exc.msg}")
        return Registry(problems=[problem], readable=False)
    except ValueError as exc:
        return Registry(
            problems=[Problem(1, f"the registry is not valid JSON: {exc}")], readable=False
        )
    lines = key_lines(text)
    registry = Registry(lines=lines)
    if not isinstance(value, dict):
        registry.problems.append(Problem(1, "the registry must be a JSON object"))
        registry.readable = False
        return registry
    for key in sorted(set(value) - ROOT_KEYS):
        registry.problems.append(Problem(registry.line_of(key), f"unknown top-level key {key!r}"))
    declarations = value.get("declarations")
    if not isinstance(declarations, dict):
        where = registry.line_of("declarations")
        registry.problems.append(Problem(where, "'declarations' must be an object keyed by id"))
        registry.readable = False
        return registry
    registry.raw = declarations
    return registry


def entry(registry: Registry, id_: str) -> Entry | list[Problem]:
    """Validate one entry of the registry: the entry, or what is wrong with it."""
    raw = registry.raw[id_]
    line = registry.line_of("declarations", id_)
    if not id_.strip():
        return [Problem(line, "a declaration id must not be empty")]
    if not isinstance(raw, dict):
        return [Problem(line, f"declaration {id_!r} must be an object")]
    problems: list[Problem] = []

    def at(key: str) -> int:
        return registry.line_of("declarations", id_, key) if key in raw else line

    for key in sorted(set(raw) - ENTRY_KEYS):
        problems.append(Problem(at(key), f"declaration {id_!r} has unknown key {key!r}"))
    reason = raw.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        problems.append(Problem(at("reason"), f"declaration {id_!r}: reason must be a text"))
    required_stop = raw.get("requiredStop")
    if not isinstance(required_stop, bool):
        problems.append(
            Problem(at("requiredStop"), f"declaration {id_!r}: requiredStop must be true or false")
        )
    for key in ("migration", "releasedIn"):
        value = raw.get(key)
        if key in raw and (not isinstance(value, str) or not value.strip()):
            problems.append(Problem(at(key), f"declaration {id_!r}: {key} must be a text"))
    advisory = "impact" in raw
    if advisory:
        problem = _impact_problem(raw)
        if problem:
            problems.append(Problem(at("impact"), f"declaration {id_!r}: impact {problem}"))
    if problems or not isinstance(reason, str) or not isinstance(required_stop, bool):
        return problems
    return Entry(id_, line, reason, at("reason"), required_stop, advisory)


def _impact_problem(raw: Mapping[str, Any]) -> str | None:
    """What is wrong with an `impact` block, or None.

    `{"kind": "no-external-callers", "featureFlag" | "firstPartyOnly": "...", "covers":
    {"rest": ["GET /path", ...], "mcp": ["tool", ...]}}`, with `requiredStop: false` and no
    `migration`: the change reaches no external caller, so it is an advisory.
    """
    impact = raw["impact"]
    if not isinstance(impact, dict) or impact.get("kind") != "no-external-callers":
        return "must be an object of kind 'no-external-callers'"
    if set(impact) - {"kind", "featureFlag", "firstPartyOnly", "covers"}:
        return "has unknown keys"
    evidence = [k for k in ("featureFlag", "firstPartyOnly") if k in impact]
    if len(evidence) != 1:
        return "needs exactly one of featureFlag or firstPartyOnly"
    text = impact[evidence[0]]
    if not isinstance(text, str) or not text.strip():
        return f"{evidence[0]} must be a text"
    covers = impact.get("covers")
    if not isinstance(covers, dict) or set(covers) != {"rest", "mcp"}:
        return "covers must be an object with rest and mcp lists"
    listed = [*covers["rest"], *covers["mcp"]] if _lists(covers) else None
    if not listed or not all(isinstance(c, str) and c.strip() for c in listed):
        return "covers must list at least one operation, as texts"
    if raw.get("requiredStop") is not False or "migration" in raw:
        return "is only for requiredStop false and no migration"
    return None


def _lists(covers: Mapping[str, Any]) -> bool:
    return isinstance(covers["rest"], list) and isinstance(covers["mcp"], list)


def edited(old: Any, new: Any) -> bool:
    """True when an entry changed, beyond adding a `releasedIn` it did not have."""
    if isinstance(old, dict) and isinstance(new, dict) and "releasedIn" not in old:
        new = {k: v for k, v in new.items() if k != "releasedIn"}
    return json.dumps(old, sort_keys=True) != json.dumps(new, sort_keys=True)
