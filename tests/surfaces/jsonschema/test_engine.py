"""The shared engine: every delta kind is judged or neutral on purpose in both surfaces, a kind
no rule knows is unknown (never neutral), and the keyword vocabulary is the metaschemas'."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema_specifications import REGISTRY

from release_safety.contract.reports import Rule
from release_safety.surfaces.jsonschema.build import SchemaBuilder
from release_safety.surfaces.jsonschema.delta import SCHEMA_DIRECTIONS, Delta, Kind
from release_safety.surfaces.jsonschema.diff import _branch_keys
from release_safety.surfaces.jsonschema.judge import NOT_JUDGED, Catalogue, always
from release_safety.surfaces.jsonschema.keywords import JSON_SCHEMA_KEYWORDS, meant
from release_safety.surfaces.jsonschema.model import Schema
from release_safety.surfaces.mcp import rules as mcp_rules
from release_safety.surfaces.mcp.diff import ToolKind
from release_safety.surfaces.rest import rules as rest_rules
from release_safety.surfaces.rest.diff import ApiKind, OperationDelta
from release_safety.surfaces.rest.documents import load_api
from release_safety.surfaces.rest.group import changes

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
SURFACES: dict[str, tuple[Catalogue, type[Enum], tuple[Rule, ...]]] = {
    "rest": (rest_rules.CATALOGUE, ApiKind, rest_rules.EXTRA),
    "mcp": (mcp_rules.CATALOGUE, ToolKind, mcp_rules.EXTRA),
}


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_every_rule_has_a_firing_and_a_quiet_pair(surface: str) -> None:
    """The rule pairs (`fixtures/<surface>/cases.yaml`, run by each surface's tests) cover
    every rule both ways, the spec-error rule included."""
    catalogue, _, extra = SURFACES[surface]
    cases = yaml.safe_load((FIXTURES / surface / "cases.yaml").read_text(encoding="utf-8"))
    ids = {r.id for r in catalogue.rules} | {r.id for r in extra}
    assert {c["rule"] for c in cases if c["fires"]} == ids
    assert {c["rule"] for c in cases if not c["fires"]} == ids


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_no_kind_is_both_judged_and_neutral(surface: str) -> None:
    catalogue = SURFACES[surface][0]
    judged = {(r.direction, k) for r in catalogue.rules for k in r.kinds}
    for entry in catalogue.neutral:
        if entry.when is always:
            assert not judged & {(entry.direction, k) for k in entry.kinds}


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_every_schema_kind_is_judged_in_both_directions(surface: str) -> None:
    catalogue = SURFACES[surface][0]
    missing = [
        (direction, kind.value)
        for kind in Kind
        for direction in SCHEMA_DIRECTIONS
        if not catalogue.judged(direction, kind)
    ]
    assert missing == []


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_every_surface_kind_is_judged(surface: str) -> None:
    catalogue, kinds, _ = SURFACES[surface]
    declared = {kind for entry in (*catalogue.rules, *catalogue.neutral) for kind in entry.kinds}
    assert [kind.value for kind in kinds if kind not in declared] == []


class _Stranger(Enum):
    NEW_KIND = "new-kind"


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_a_kind_no_rule_knows_is_unknown(surface: str) -> None:
    catalogue = SURFACES[surface][0]
    stranger = Delta(_Stranger.NEW_KIND, "request", "request body")
    assert catalogue.judge(stranger) is NOT_JUDGED
    assert NOT_JUDGED.level == "unknown"
    # a known kind in a direction nobody declared it for fails closed as well
    assert catalogue.judge(Delta(ApiKind.SERVERS_CHANGED, "response", "x")) is NOT_JUDGED


def test_an_unjudged_rest_delta_becomes_an_unknown_finding() -> None:
    api = load_api(b'{"openapi": "3.0.3", "paths": {}}')
    stranger = OperationDelta(Delta(_Stranger.NEW_KIND, "request", "request body"), None)
    [change] = changes([stranger], api, api, "old.json", "new.json")
    assert (change.finding.rule, change.finding.severity) == ("delta-not-judged", "unknown")
    assert change.finding.message == "request body — new-kind in the request is judged by no rule"
    assert (change.finding.hint or "").startswith("If the change to request body breaks clients")


def test_keywords_are_the_metaschemas_properties() -> None:
    found: set[str] = set()
    for uri in REGISTRY:
        contents = REGISTRY.contents(uri)
        if isinstance(contents, dict):
            found |= set(contents.get("properties", {}))
    assert found == JSON_SCHEMA_KEYWORDS


@pytest.mark.parametrize(
    ("key", "guesses"),
    [
        ("min_items", ("minItems",)),
        ("maxlength", ("maxLength",)),
        ("min", ("minItems", "minLength", "minProperties", "minimum")),
        ("requried", ("required",)),
        ("optional", ()),
    ],
)
def test_what_a_typo_meant(key: str, guesses: tuple[str, ...]) -> None:
    assert meant(key) == guesses


def test_a_spec_error_leaves_its_keyword_unknown() -> None:
    builder = SchemaBuilder({})
    schema = builder.schema(
        {"type": "jsonb", "min_items": 1, "maxLength": "ten", "properties": {"a": 3}}
    )
    assert schema.unknown == {"type", "minItems", "maxLength"}
    assert schema.properties["a"].unknown == {"*"}
    assert sorted((i.token, i.message) for i in builder.all_issues()) == [
        ("3", "`3` is not a schema"),
        ("jsonb", "`jsonb` is not a JSON Schema type"),
        ("maxLength", "`maxLength` is not a number"),
        ("min_items", "`min_items` is not a JSON Schema keyword (did you mean `minItems`?)"),
    ]


class _CountedKey(str):
    """A branch's key that counts the times it is split to compare it with another."""

    splits = 0

    def split(self, *args: Any, **kwargs: Any) -> list[str]:  # type: ignore[override]
        _CountedKey.splits += 1
        return super().split(*args, **kwargs)


def test_union_branches_are_keyed_in_one_pass() -> None:
    """2,000 untagged branches of one type are ranked by a count kept per key, never by a scan
    of the keys before them (issue 35: nested and wide `oneOf`s took more than 500 s; 4,000
    branches 10.5 s, 1.5 s now)."""
    count = 2000
    branches = [Schema(types=frozenset({"object"})) for _ in range(count)]
    branches += [Schema(origin=_CountedKey(f"#/components/schemas/S{i}")) for i in range(count)]
    keys = list(_branch_keys(branches))
    assert keys[:3] == ["object#False", "object#False~1", "object#False~2"]
    assert len(set(keys)) == 2 * count and keys[-1] == f"#/components/schemas/S{count - 1}"
    assert _CountedKey.splits == 0
