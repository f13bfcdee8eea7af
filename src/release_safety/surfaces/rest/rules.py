"""The REST rule catalogue: which structural deltas break clients, in which direction.

Requests may widen, responses may not. Each rule names the delta kinds it judges, its level
(breaking or advisory), its direction, why it matters, an unsafe example and the safe way.
`docs/rest-rules.md` is generated from this catalogue (`render_docs`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from release_safety.findings import Rule, register
from release_safety.surfaces.rest.diff import Delta

Level = Literal["breaking", "advisory"]


_SHOWN = 5


def _values(values: Any) -> str:
    if isinstance(values, (list, tuple, frozenset, set)):
        items = sorted(values, key=str) if isinstance(values, (set, frozenset)) else list(values)
        shown = ", ".join(f"`{v}`" for v in items[:_SHOWN]) or "none"
        return shown + (f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")
    return f"`{values}`"


def _types(value: Any) -> str:
    return "any" if value is None else "|".join(sorted(value)) or "null"


def _subject(delta: Delta) -> str:
    return f"`{delta.at}` " if delta.at else ""


@dataclass(frozen=True)
class RestRule:
    """One check: the (direction, kind) deltas it judges and how it words them."""

    id: str
    level: Level
    direction: str
    kinds: tuple[str, ...]
    title: str
    why: str
    unsafe: str
    safe: str
    say: Callable[[Delta], str]
    when: Callable[[Delta], bool] = lambda delta: True


CATALOGUE: list[RestRule] = []


def _rule(
    id: str,
    level: Level,
    direction: str,
    kinds: tuple[str, ...],
    title: str,
    why: str,
    unsafe: str,
    safe: str,
    say: Callable[[Delta], str],
    when: Callable[[Delta], bool] = lambda delta: True,
) -> None:
    rule = RestRule(id, level, direction, kinds, title, why, unsafe, safe, say, when)
    CATALOGUE.append(rule)
    register(
        Rule(id=id, surface="rest", severity=level, title=title, why=why, unsafe=unsafe, safe=safe)
    )


# -- operations ---------------------------------------------------------------------------------
_rule(
    "endpoint-removed",
    "breaking",
    "operation",
    ("endpoint-removed",),
    "Operation removed",
    "Clients of the previous release still call it and get 404 or 405.",
    "delete `GET /pets/{id}` from the document",
    "Deprecate the operation with a sunset date first; remove it only after the sunset.",
    lambda d: "operation removed",
)
_rule(
    "endpoint-added",
    "advisory",
    "operation",
    ("endpoint-added",),
    "Operation added",
    "New surface: old servers in a rolling update answer 404 until they are replaced.",
    "add `POST /pets/{id}/vaccinations`",
    "Make clients tolerate 404 on the new operation during the rollout.",
    lambda d: "operation added",
)
_rule(
    "endpoint-deprecated",
    "advisory",
    "operation",
    ("endpoint-deprecated",),
    "Operation deprecated",
    "Deprecation starts the sunset clock: the operation may be removed after its `x-sunset` date"
    " (at least one release later); clients should move off it.",
    "`deprecated: true` without `x-sunset`",
    "Set `deprecated: true` with an `x-sunset` date and name the replacement in the description.",
    lambda d: "operation deprecated" + (f" (sunset {d.new})" if d.new else " (no sunset date)"),
)
_rule(
    "stability-level-changed",
    "advisory",
    "operation",
    ("stability-changed",),
    "Stability level changed",
    "`x-stability-level` tells clients what they may rely on; a change moves that promise.",
    "`x-stability-level: stable` becomes `beta`",
    "Announce the change; only move towards stable without notice.",
    lambda d: f"stability level changed from {_values(d.old)} to {_values(d.new)}",
)
# -- parameters ---------------------------------------------------------------------------------
_rule(
    "request-parameter-removed",
    "advisory",
    "request",
    ("parameter-removed",),
    "Parameter removed",
    "The server now ignores (or rejects) a parameter clients still send.",
    "drop the `limit` query parameter",
    "Keep accepting the parameter until clients stop sending it.",
    lambda d: "removed",
)
_rule(
    "request-required-parameter-added",
    "breaking",
    "request",
    ("parameter-added",),
    "Required parameter added",
    "Existing clients do not send it, so their calls now fail validation.",
    "add `in: query, name: tenant, required: true`",
    "Add the parameter as optional with a server-side default.",
    lambda d: "added as required",
    lambda d: d.flag,
)
_rule(
    "request-optional-parameter-added",
    "advisory",
    "request",
    ("parameter-added",),
    "Optional parameter added",
    "A new input: old servers in a rolling update ignore it.",
    "add optional `in: query, name: sort`",
    "Make the default behaviour the old behaviour.",
    lambda d: "added (optional)",
    lambda d: not d.flag,
)
_rule(
    "request-parameter-became-required",
    "breaking",
    "request",
    ("parameter-became-required",),
    "Parameter became required",
    "Clients that leave it out now fail.",
    "`required: false` becomes `required: true`",
    "Keep it optional and default it on the server.",
    lambda d: "became required",
)
_rule(
    "request-parameter-moved",
    "breaking",
    "request",
    ("parameter-moved",),
    "Parameter moved to another location",
    "Clients send it where it was (query, header, cookie, path); the server looks elsewhere.",
    "`api_version` moves from `query` to `header`",
    "Accept both locations for at least one release.",
    lambda d: f"moved from {d.old} to {d.new}",
)
_rule(
    "request-parameter-style-changed",
    "breaking",
    "request",
    ("parameter-style-changed",),
    "Parameter serialisation changed",
    "A new style or explode reads the same client bytes differently (`a,b` vs `a=1&a=2`).",
    "`style: form, explode: true` becomes `explode: false`",
    "Keep the serialisation; add a new parameter for the new form.",
    lambda d: f"style changed from {_style(d.old)} to {_style(d.new)}",
)
_rule(
    "field-deprecated",
    "advisory",
    "any",
    ("parameter-deprecated", "property-deprecated"),
    "Parameter or property deprecated",
    "Clients should stop using it before its removal (after at least one release).",
    "`deprecated: true` on the `legacyId` property",
    "Name the replacement in the description.",
    lambda d: f"{_subject(d)}deprecated",
)
# -- request bodies -------------------------------------------------------------------------------
_rule(
    "request-body-became-required",
    "breaking",
    "request",
    ("body-became-required",),
    "Request body became required",
    "Clients that send no body now fail.",
    "`requestBody.required: true` on an operation that accepted an empty body",
    "Keep the body optional and default its content on the server.",
    lambda d: "became required",
)
_rule(
    "request-media-type-removed",
    "breaking",
    "request",
    ("media-type-removed",),
    "Request media type removed",
    "Clients sending that content type now get 415.",
    "drop `application/x-www-form-urlencoded` from the request body",
    "Keep accepting the media type.",
    lambda d: f"media type {_values(d.old)} no longer accepted",
)
_rule(
    "request-property-became-required",
    "breaking",
    "request",
    ("property-became-required",),
    "Request property became required",
    "Clients that leave the property out now fail validation.",
    "add `name` to `required` of the request schema",
    "Keep it optional and default it on the server.",
    lambda d: f"property {_subject(d)}became required",
)
_rule(
    "request-required-property-added",
    "breaking",
    "request",
    ("property-added",),
    "Required request property added",
    "Existing clients do not send it.",
    "add required property `tenant` to the request body",
    "Add it as optional with a server-side default.",
    lambda d: f"required property {_subject(d)}added",
    lambda d: d.flag,
)
_rule(
    "request-optional-property-added",
    "advisory",
    "request",
    ("property-added",),
    "Optional request property added",
    "A new input: old servers in a rolling update ignore it (or reject it if closed).",
    "add optional property `nickname` to the request body",
    "Make its absence mean the old behaviour.",
    lambda d: f"optional property {_subject(d)}added",
    lambda d: not d.flag,
)
_rule(
    "request-property-removed",
    "advisory",
    "request",
    ("property-removed",),
    "Request property removed",
    "Clients still send it; the server ignores it, or rejects it when the schema is closed.",
    "drop `nickname` from the request schema",
    "Keep accepting it until clients stop sending it.",
    lambda d: f"property {_subject(d)}removed",
)
_rule(
    "request-enum-value-removed",
    "breaking",
    "request",
    ("enum-value-removed", "enum-set"),
    "Request enum narrowed",
    "Clients sending a value that was accepted now fail validation.",
    "`enum: [cat, dog]` becomes `enum: [cat]` on an input",
    "Keep accepting the value; map it to the new meaning on the server.",
    lambda d: (
        f"{_subject(d)}enum value(s) {_values(d.old)} removed"
        if d.kind == "enum-value-removed"
        else f"{_subject(d)}restricted to enum {_values(d.new)}"
    ),
)
_rule(
    "request-type-narrowed",
    "breaking",
    "request",
    ("type-narrowed", "type-changed"),
    "Request type narrowed or changed",
    "Values clients send in the old type are now rejected.",
    "`type: number` becomes `type: integer`, or `string` becomes `integer`",
    "Accept both types (`type: [string, integer]`, `anyOf`).",
    lambda d: f"{_subject(d)}type changed from {_types(d.old)} to {_types(d.new)}",
)
_rule(
    "request-bound-tightened",
    "breaking",
    "request",
    ("bound-tightened",),
    "Request bound tightened or newly set",
    "Values inside the old bounds are now rejected.",
    "`maximum: 100` becomes `maximum: 50`; `maxLength` newly set",
    "Keep the old bound; enforce the new one only on new fields.",
    lambda d: f"{_subject(d)}{d.old[0]} tightened from {d.old[1]} to {d.new[1]}",
)
_rule(
    "request-pattern-changed",
    "breaking",
    "request",
    ("pattern-changed",),
    "Request pattern added or changed",
    "Values that matched before may not match now.",
    "`pattern: ^[a-z]+$` added to an input",
    "Keep the old pattern or relax it.",
    lambda d: f"{_subject(d)}pattern changed from {_values(d.old)} to {_values(d.new)}",
    lambda d: d.new is not None,
)
_rule(
    "request-additional-properties-disallowed",
    "breaking",
    "request",
    ("additional-properties-disallowed",),
    "Request schema closed",
    "`additionalProperties: false` (or `unevaluatedProperties: false`) rejects the extra keys"
    " clients send today.",
    "add `additionalProperties: false` to the request schema",
    "Leave the schema open; ignore unknown keys on the server.",
    lambda d: f"{_subject(d)}no longer accepts additional properties",
)
_rule(
    "request-nullable-removed",
    "breaking",
    "request",
    ("nullable-removed",),
    "Request value no longer nullable",
    "Clients sending null now fail validation.",
    "`nullable: true` (or `type: [string, 'null']`) removed from an input",
    "Keep accepting null and treat it as absent.",
    lambda d: f"{_subject(d)}no longer accepts null",
)
_rule(
    "request-format-changed",
    "breaking",
    "request",
    ("format-changed",),
    "Request format added or changed",
    "Values valid in the old format (or without one) may be rejected.",
    "`format: date-time` becomes `format: date`",
    "Keep the format; accept both on the server.",
    lambda d: f"{_subject(d)}format changed from {_values(d.old)} to {_values(d.new)}",
    lambda d: d.new is not None,
)
_rule(
    "request-branch-removed",
    "breaking",
    "request",
    ("branch-removed",),
    "Request oneOf / anyOf branch removed",
    "Clients sending the removed shape now fail.",
    "`oneOf: [Cat, Dog]` becomes `oneOf: [Cat]` in a request",
    "Keep accepting the branch.",
    lambda d: f"{_subject(d)}no longer accepts the {_values(d.old)} variant",
)
_rule(
    "request-discriminator-changed",
    "breaking",
    "request",
    ("discriminator-changed",),
    "Request discriminator changed",
    "The discriminator property or a mapping value clients send is no longer recognised.",
    "mapping key `dog` removed from the discriminator",
    "Keep the property name and every mapping value.",
    lambda d: (
        f"{_subject(d)}discriminator `{d.old}` changed (mapping values removed: {_values(d.new)})"
    ),
)
_rule(
    "request-default-changed",
    "advisory",
    "request",
    ("default-changed",),
    "Default value changed",
    "Clients that omit the value get a different behaviour.",
    "`default: 25` becomes `default: 50`",
    "Announce the change; keep the old default on old API generations.",
    lambda d: f"{_subject(d)}default changed from {d.old} to {d.new}",
)
# -- responses ----------------------------------------------------------------------------------
_rule(
    "response-property-removed",
    "breaking",
    "response",
    ("property-removed",),
    "Required response property removed",
    "Clients rely on a required property being present; it is no longer sent.",
    "drop required `id` from the `Pet` response schema",
    "Deprecate the property and keep sending it until the sunset.",
    lambda d: f"required property {_subject(d)}removed",
    lambda d: d.flag,
)
_rule(
    "response-optional-property-removed",
    "advisory",
    "response",
    ("property-removed",),
    "Optional response property removed",
    "An optional property could always be absent, so correct clients cope; clients that read it"
    " lose the data (oasdiff agrees since v1.30: not breaking).",
    "drop optional `tag` from the `Pet` response schema",
    "Deprecate the property first and say what replaces it.",
    lambda d: f"optional property {_subject(d)}removed",
    lambda d: not d.flag,
)
_rule(
    "response-property-became-optional",
    "breaking",
    "response",
    ("property-became-optional",),
    "Response property became optional",
    "Clients that rely on it being present may fail when it is missing.",
    "remove `id` from `required` of a response schema",
    "Keep it required; send a neutral value.",
    lambda d: f"property {_subject(d)}became optional",
)
_rule(
    "response-nullable-added",
    "breaking",
    "response",
    ("nullable-added",),
    "Response value became nullable",
    "Clients that never saw null do not handle it.",
    "`nullable: true` added to a response property",
    "Add a new nullable property; keep the old one non-null.",
    lambda d: f"{_subject(d)}became nullable",
)
_rule(
    "response-enum-value-added",
    "breaking",
    "response",
    ("enum-value-added", "enum-unset"),
    "Response enum value added",
    "Clients with an exhaustive switch fail on the unknown value (unless the enum is declared"
    " open with `x-extensible-enum` or a free-string `anyOf` branch).",
    "`status: [ready, error]` gains `cancelled`",
    "Declare the enum open from the start, or send the new value only to clients that ask.",
    lambda d: (
        f"{_subject(d)}enum value(s) {_values(d.new)} added"
        if d.kind == "enum-value-added"
        else f"{_subject(d)}no longer limited to enum {_values(d.old)}"
    ),
    lambda d: not d.flag,
)
_rule(
    "response-type-widened",
    "breaking",
    "response",
    ("type-widened", "type-changed"),
    "Response type widened or changed",
    "Clients parse the old type; the server may now send another.",
    "`type: integer` becomes `type: [integer, string]`",
    "Add a new property of the new type.",
    lambda d: f"{_subject(d)}type changed from {_types(d.old)} to {_types(d.new)}",
)
_rule(
    "response-format-changed",
    "breaking",
    "response",
    ("format-changed",),
    "Response format changed or removed",
    "Clients parse the old format (a date, a uuid).",
    "`format: date-time` becomes `format: date`",
    "Keep the format; add a new property for the new one.",
    lambda d: f"{_subject(d)}format changed from {_values(d.old)} to {_values(d.new)}",
    lambda d: d.old is not None,
)
_rule(
    "response-bound-loosened",
    "breaking",
    "response",
    ("bound-loosened",),
    "Response bound loosened or removed",
    "Clients sized for the old bounds receive values outside them.",
    "`maxLength: 64` becomes `maxLength: 256` on a response property",
    "Keep the bound.",
    lambda d: f"{_subject(d)}{d.old[0]} loosened from {d.old[1]} to {d.new[1]}",
)
_rule(
    "response-branch-added",
    "breaking",
    "response",
    ("branch-added",),
    "Response oneOf / anyOf branch added",
    "Clients do not know the new shape.",
    "`oneOf: [Cat, Dog]` gains `Bird` in a response",
    "Send the new shape only to clients that ask for it.",
    lambda d: f"{_subject(d)}may now be the {_values(d.new)} variant",
)
_rule(
    "response-property-added",
    "advisory",
    "response",
    ("property-added",),
    "Response property added",
    "New output; tolerant clients ignore it.",
    "add `nickname` to the `Pet` response",
    "Nothing to do for clients that ignore unknown properties.",
    lambda d: f"property {_subject(d)}added",
)
_rule(
    "response-success-status-removed",
    "breaking",
    "response",
    ("success-status-removed",),
    "Success status removed",
    "Clients handle the old success status; it is no longer sent.",
    "`201` replaced by `200`",
    "Keep the status.",
    lambda d: "status no longer returned",
)
_rule(
    "response-media-type-removed",
    "breaking",
    "response",
    ("media-type-removed",),
    "Response media type removed",
    "Clients asking for that content type get 406.",
    "drop `text/csv` from a response",
    "Keep producing the media type.",
    lambda d: f"media type {_values(d.old)} no longer returned",
)
_rule(
    "response-header-removed",
    "breaking",
    "response",
    ("header-removed",),
    "Required response header removed",
    "Clients read a header declared as always sent (pagination, rate limits); it is gone.",
    "drop `X-Total-Count` declared with `required: true`",
    "Keep sending the header.",
    lambda d: f"required header `{d.old}` removed",
    lambda d: d.flag,
)
_rule(
    "response-optional-header-removed",
    "advisory",
    "response",
    ("header-removed",),
    "Optional response header removed",
    "An optional header could always be absent; clients that read it lose the data.",
    "drop an optional `X-Rate-Limit` header",
    "Deprecate the header first.",
    lambda d: f"optional header `{d.old}` removed",
    lambda d: not d.flag,
)
_rule(
    "response-error-status-added",
    "advisory",
    "response",
    ("error-status-added",),
    "Error status added",
    "Clients may meet a new failure they do not handle specifically.",
    "add `409`",
    "Document when it happens.",
    lambda d: "new error status",
)
# -- security and servers -----------------------------------------------------------------------
_rule(
    "security-requirement-added",
    "breaking",
    "request",
    ("security-requirement-added",),
    "Security requirement or scope added",
    "Clients holding the old credentials or scopes are refused.",
    "an unauthenticated operation now requires `bearerAuth`, or a token needs a new scope",
    "Accept the old credentials as an alternative for one release.",
    lambda d: f"now requires {_values(d.new)}",
)
_rule(
    "security-api-key-changed",
    "breaking",
    "api",
    ("api-key-changed",),
    "API key name or location changed",
    "Clients send the key where it was; the server no longer finds it.",
    "`in: header, name: X-API-Key` becomes `name: X-Key`",
    "Accept both names or locations for one release.",
    lambda d: f"API key moved from {d.old[0]} `{d.old[1]}` to {d.new[0]} `{d.new[1]}`",
)
_rule(
    "servers-changed",
    "advisory",
    "api",
    ("servers-changed",),
    "Servers changed",
    "Clients configured with the old base URL may stop reaching the API.",
    "`servers: [{url: https://api.example.com/v1}]` becomes `/v2`",
    "Keep the old URL routed for a deprecation period.",
    lambda d: f"changed from {_values(d.old)} to {_values(d.new)}",
)


def _style(value: Any) -> str:
    style, explode = value
    return f"`{style}` (explode {'true' if explode else 'false'})"


_BY_KIND: dict[tuple[str, str], list[RestRule]] = {}
for _item in CATALOGUE:
    for _kind in _item.kinds:
        _BY_KIND.setdefault((_item.direction, _kind), []).append(_item)


def classify(delta: Delta) -> RestRule | None:
    """The rule that judges a delta, or None when the change is neutral (e.g. request widened)."""
    for key in ((delta.direction, delta.kind), ("any", delta.kind)):
        for rule in _BY_KIND.get(key, ()):
            if rule.when(delta):
                return rule
    return None


def render_docs() -> str:
    """The Markdown page of the catalogue (`docs/rest-rules.md`)."""
    lines = [
        "# REST rules",
        "",
        "Generated from `src/release_safety/surfaces/rest/rules.py` (a test keeps it in sync).",
        "Requests may widen, responses may not. Breaking rules make `api.rest.breaking` true;",
        "advisories never change the verdict.",
        "",
        "Deprecation and sunset policy: an operation, parameter or property is deprecated with",
        "`deprecated: true` and an `x-sunset` date (the advisory names it), and removed in a",
        "release after that date. The removal itself is still reported as breaking: clients of",
        "the previous release may call it during a rolling update; the deprecation is what",
        "gave them time to move.",
        "",
        "Before comparing, both documents are normalised so that refactors report nothing:",
        "Swagger 2.0 is converted to OpenAPI 3; local `$ref`s are resolved (cycles kept) and",
        "their names never compared; `allOf` is merged; `nullable: true`, `type: [X, 'null']`",
        "and `oneOf: [X, {type: 'null'}]` are one thing; 3.0 boolean and 3.1 numeric exclusive",
        "bounds are one thing; path-level parameters are folded into operations; header names",
        "compare case-insensitively; path-template variable names are ignored; `readOnly`",
        "properties are left out of requests and `writeOnly` ones out of responses; an enum",
        "with `x-extensible-enum`, or beside a free-string `anyOf` branch, is open.",
        "",
        "Output: `<METHOD> <path> — <text>`; an edit inside a named schema that several",
        "operations reach is one line, `#/components/schemas/<Name> — <text> (N operations)`.",
        "`release-safety diff-openapi BASE REVISION [--json] [--fail-on breaking]` runs the",
        "analyser on two files.",
        "",
        "| id | level | direction | title |",
        "| --- | --- | --- | --- |",
    ]
    lines += [f"| `{r.id}` | {r.level} | {r.direction} | {r.title} |" for r in CATALOGUE]
    for r in CATALOGUE:
        lines += [
            "",
            f"## `{r.id}`",
            "",
            f"Level: {r.level}. Direction: {r.direction}.",
            "",
            r.why,
            "",
            f"- Unsafe: {r.unsafe}",
            f"- Safe: {r.safe}",
        ]
    return "\n".join(lines) + "\n"
