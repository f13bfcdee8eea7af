"""The REST rule catalogue: which deltas break clients, in which direction.

Requests may widen, responses may not. Each rule names the delta kinds it judges, its level,
its direction, why it matters, an unsafe example and the safe way; the neutral entries say what
is not reported, on purpose. `docs/rest-rules.md` is generated from this catalogue.
"""

from __future__ import annotations

from typing import Any

from release_safety.surfaces.jsonschema.delta import Delta, Kind
from release_safety.surfaces.jsonschema.issues import SPEC_INVALID
from release_safety.surfaces.jsonschema.judge import DIRECTIONAL, Catalogue, DeltaRule, Neutral
from release_safety.surfaces.rest.diff import ApiKind
from release_safety.surfaces.rest.routes.judge import RULES as ROUTE_RULES

_SHOWN = 5
D = Delta[Any]


def _values(values: Any) -> str:
    if isinstance(values, (list, tuple, frozenset, set)):
        items = sorted(values, key=str) if isinstance(values, (set, frozenset)) else list(values)
        shown = ", ".join(f"`{v}`" for v in items[:_SHOWN]) or "none"
        return shown + (f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")
    return f"`{values}`"


def _types(value: Any) -> str:
    return "any" if value is None else "|".join(sorted(value)) or "null"


def _subject(delta: D) -> str:
    return f"`{delta.at}` " if delta.at else ""


def _style(value: Any) -> str:
    style, explode = value
    return f"`{style}` (explode {'true' if explode else 'false'})"


def _enum_set(d: D) -> str:
    if not d.after:
        return f"{_subject(d)}restricted to null"
    if len(d.after) == 1:
        return f"{_subject(d)}restricted to {_values(d.after[0])}"
    return f"{_subject(d)}restricted to enum {_values(d.after)}"


def _required(d: D) -> bool:
    return bool(d.after.required)


def _optional(d: D) -> bool:
    return not d.after.required


def _api_keys(d: D) -> bool:
    return bool(d.before[0] == d.after[0] == "apiKey")


def _scheme(shape: tuple[str, ...]) -> str:
    return " ".join(shape)


RULES = [
    # -- operations -------------------------------------------------------------------------
    DeltaRule(
        "endpoint-removed",
        "breaking",
        "operation",
        (ApiKind.ENDPOINT_REMOVED,),
        "Operation removed",
        "Clients of the previous release still call it and get 404 or 405.",
        "delete `GET /pets/{id}` from the document",
        "Deprecate the operation with a sunset date first; remove it only after the sunset.",
        lambda d: "operation removed",
    ),
    DeltaRule(
        "endpoint-added",
        "advisory",
        "operation",
        (ApiKind.ENDPOINT_ADDED,),
        "Operation added",
        "New surface: old servers in a rolling update answer 404 until they are replaced.",
        "add `POST /pets/{id}/vaccinations`",
        "Make clients tolerate 404 on the new operation during the rollout.",
        lambda d: "operation added",
    ),
    DeltaRule(
        "endpoint-deprecated",
        "advisory",
        "operation",
        (ApiKind.ENDPOINT_DEPRECATED,),
        "Operation deprecated",
        "Deprecation starts the sunset clock: the operation may be removed after its `x-sunset`"
        " date (at least one release later); clients should move off it.",
        "`deprecated: true` without `x-sunset`",
        "Set `deprecated: true` with an `x-sunset` date and name the replacement.",
        lambda d: (
            "operation deprecated" + (f" (sunset {d.after})" if d.after else " (no sunset date)")
        ),
    ),
    DeltaRule(
        "stability-level-changed",
        "advisory",
        "operation",
        (ApiKind.STABILITY_CHANGED,),
        "Stability level changed",
        "`x-stability-level` tells clients what they may rely on; a change moves that promise.",
        "`x-stability-level: stable` becomes `beta`",
        "Announce the change; only move towards stable without notice.",
        lambda d: f"stability level changed from {_values(d.before)} to {_values(d.after)}",
    ),
    # -- parameters -------------------------------------------------------------------------
    DeltaRule(
        "request-parameter-removed",
        "advisory",
        "request",
        (ApiKind.PARAMETER_REMOVED,),
        "Parameter removed",
        "The server now ignores (or rejects) a parameter clients still send.",
        "drop the `limit` query parameter",
        "Keep accepting the parameter until clients stop sending it.",
        lambda d: "removed",
    ),
    DeltaRule(
        "request-required-parameter-added",
        "breaking",
        "request",
        (ApiKind.PARAMETER_ADDED,),
        "Required parameter added",
        "Existing clients do not send it, so their calls now fail validation.",
        "add `in: query, name: tenant, required: true`",
        "Add the parameter as optional with a server-side default.",
        lambda d: "added as required",
        _required,
    ),
    DeltaRule(
        "request-optional-parameter-added",
        "advisory",
        "request",
        (ApiKind.PARAMETER_ADDED,),
        "Optional parameter added",
        "A new input: old servers in a rolling update ignore it.",
        "add optional `in: query, name: sort`",
        "Make the default behaviour the old behaviour.",
        lambda d: "added (optional)",
        _optional,
    ),
    DeltaRule(
        "request-parameter-became-required",
        "breaking",
        "request",
        (ApiKind.PARAMETER_BECAME_REQUIRED,),
        "Parameter became required",
        "Clients that leave it out now fail.",
        "`required: false` becomes `required: true`",
        "Keep it optional and default it on the server.",
        lambda d: "became required",
    ),
    DeltaRule(
        "request-parameter-moved",
        "breaking",
        "request",
        (ApiKind.PARAMETER_MOVED,),
        "Parameter moved to another location",
        "Clients send it where it was (query, header, cookie, path); the server looks elsewhere.",
        "`api_version` moves from `query` to `header`",
        "Accept both locations for at least one release.",
        lambda d: f"moved from {d.before} to {d.after}",
    ),
    DeltaRule(
        "request-parameter-style-changed",
        "breaking",
        "request",
        (ApiKind.PARAMETER_STYLE_CHANGED,),
        "Parameter serialisation changed",
        "A new style or explode reads the same client bytes differently (`a,b` vs `a=1&a=2`).",
        "`style: form, explode: true` becomes `explode: false`",
        "Keep the serialisation; add a new parameter for the new form.",
        lambda d: f"style changed from {_style(d.before)} to {_style(d.after)}",
    ),
    DeltaRule(
        "field-deprecated",
        "advisory",
        "any",
        (ApiKind.PARAMETER_DEPRECATED, Kind.PROPERTY_DEPRECATED),
        "Parameter or property deprecated",
        "Clients should stop using it before its removal (after at least one release).",
        "`deprecated: true` on the `legacyId` property",
        "Name the replacement in the description.",
        lambda d: f"{_subject(d)}deprecated",
    ),
    # -- request bodies and schemas -----------------------------------------------------------
    DeltaRule(
        "request-body-became-required",
        "breaking",
        "request",
        (ApiKind.BODY_BECAME_REQUIRED,),
        "Request body became required",
        "Clients that send no body now fail.",
        "`requestBody.required: true` on an operation that accepted an empty body",
        "Keep the body optional and default its content on the server.",
        lambda d: "became required",
    ),
    DeltaRule(
        "request-media-type-removed",
        "breaking",
        "request",
        (ApiKind.MEDIA_TYPE_REMOVED,),
        "Request media type removed",
        "Clients sending that content type now get 415.",
        "drop `application/x-www-form-urlencoded` from the request body",
        "Keep accepting the media type.",
        lambda d: f"media type {_values(d.before)} no longer accepted",
    ),
    DeltaRule(
        "request-property-became-required",
        "breaking",
        "request",
        (Kind.PROPERTY_BECAME_REQUIRED,),
        "Request property became required",
        "Clients that leave the property out now fail validation.",
        "add `name` to `required` of the request schema",
        "Keep it optional and default it on the server.",
        lambda d: f"property {_subject(d)}became required",
    ),
    DeltaRule(
        "request-required-property-added",
        "breaking",
        "request",
        (Kind.PROPERTY_ADDED,),
        "Required request property added",
        "Existing clients do not send it.",
        "add required property `tenant` to the request body",
        "Add it as optional with a server-side default.",
        lambda d: f"required property {_subject(d)}added",
        _required,
    ),
    DeltaRule(
        "request-optional-property-added",
        "advisory",
        "request",
        (Kind.PROPERTY_ADDED,),
        "Optional request property added",
        "A new input: old servers in a rolling update ignore it (or reject it if closed).",
        "add optional property `nickname` to the request body",
        "Make its absence mean the old behaviour.",
        lambda d: f"optional property {_subject(d)}added",
        _optional,
    ),
    DeltaRule(
        "request-dependent-required-added",
        "breaking",
        "request",
        (Kind.DEPENDENT_REQUIRED_ADDED,),
        "Request property now requires others",
        "`dependentRequired` (OpenAPI 3.1): clients that send the property without the ones it"
        " now requires fail validation.",
        "`dependentRequired: {card: [cvc]}` added to the request schema",
        "Default the dependent properties on the server instead.",
        lambda d: f"{_subject(d)}now requires {_values(d.after)}",
    ),
    DeltaRule(
        "request-property-removed",
        "advisory",
        "request",
        (Kind.PROPERTY_REMOVED,),
        "Request property removed",
        "Clients still send it; the server ignores it, or rejects it when the schema is closed.",
        "drop `nickname` from the request schema",
        "Keep accepting it until clients stop sending it.",
        lambda d: f"property {_subject(d)}removed",
    ),
    DeltaRule(
        "request-enum-value-removed",
        "breaking",
        "request",
        (Kind.ENUM_VALUE_REMOVED, Kind.ENUM_SET),
        "Request enum narrowed, or enum or const set",
        "Clients sending a value that was accepted now fail validation.",
        "`enum: [cat, dog]` becomes `enum: [cat]`, or `const: cat` is added, on an input",
        "Keep accepting the value; map it to the new meaning on the server.",
        lambda d: (
            f"{_subject(d)}enum value(s) {_values(d.before)} removed"
            if d.kind is Kind.ENUM_VALUE_REMOVED
            else _enum_set(d)
        ),
    ),
    DeltaRule(
        "request-type-narrowed",
        "breaking",
        "request",
        (Kind.TYPE_NARROWED, Kind.TYPE_CHANGED),
        "Request type narrowed or changed",
        "Values clients send in the old type are now rejected.",
        "`type: number` becomes `type: integer`, or `string` becomes `integer`",
        "Accept both types (`type: [string, integer]`, `anyOf`).",
        lambda d: f"{_subject(d)}type changed from {_types(d.before)} to {_types(d.after)}",
    ),
    DeltaRule(
        "request-bound-tightened",
        "breaking",
        "request",
        (Kind.BOUND_TIGHTENED,),
        "Request bound tightened or newly set",
        "Values inside the old bounds are now rejected.",
        "`maximum: 100` becomes `maximum: 50`; `maxLength` newly set",
        "Keep the old bound; enforce the new one only on new fields.",
        lambda d: f"{_subject(d)}{d.before[0]} tightened from {d.before[1]} to {d.after[1]}",
    ),
    DeltaRule(
        "request-pattern-changed",
        "breaking",
        "request",
        (Kind.PATTERN_ADDED, Kind.PATTERN_CHANGED),
        "Request pattern added or changed",
        "Values that matched before may not match now.",
        "`pattern: ^[a-z]+$` added to an input",
        "Keep the old pattern or relax it.",
        lambda d: f"{_subject(d)}pattern changed from {_values(d.before)} to {_values(d.after)}",
    ),
    DeltaRule(
        "request-additional-properties-disallowed",
        "breaking",
        "request",
        (Kind.ADDITIONAL_PROPERTIES_DISALLOWED,),
        "Request schema closed",
        "`additionalProperties: false` (or `unevaluatedProperties: false`) rejects the extra keys"
        " clients send today.",
        "add `additionalProperties: false` to the request schema",
        "Leave the schema open; ignore unknown keys on the server.",
        lambda d: f"{_subject(d)}no longer accepts additional properties",
    ),
    DeltaRule(
        "request-nullable-removed",
        "breaking",
        "request",
        (Kind.NULLABLE_REMOVED,),
        "Request value no longer nullable",
        "Clients sending null now fail validation.",
        "`nullable: true` (or `type: [string, 'null']`) removed from an input",
        "Keep accepting null and treat it as absent.",
        lambda d: f"{_subject(d)}no longer accepts null",
    ),
    DeltaRule(
        "request-format-changed",
        "breaking",
        "request",
        (Kind.FORMAT_ADDED, Kind.FORMAT_CHANGED),
        "Request format added or changed",
        "Values valid in the old format (or without one) may be rejected.",
        "`format: date-time` becomes `format: date`",
        "Keep the format; accept both on the server.",
        lambda d: f"{_subject(d)}format changed from {_values(d.before)} to {_values(d.after)}",
    ),
    DeltaRule(
        "request-branch-removed",
        "breaking",
        "request",
        (Kind.BRANCH_REMOVED,),
        "Request oneOf / anyOf branch removed",
        "Clients sending the removed shape now fail.",
        "`oneOf: [Cat, Dog]` becomes `oneOf: [Cat]` in a request",
        "Keep accepting the branch.",
        lambda d: f"{_subject(d)}no longer accepts the {_values(d.before)} variant",
    ),
    DeltaRule(
        "request-discriminator-changed",
        "breaking",
        "request",
        (
            Kind.DISCRIMINATOR_CHANGED,
            Kind.DISCRIMINATOR_MAPPING_REMOVED,
            Kind.DISCRIMINATOR_MAPPING_CHANGED,
        ),
        "Request discriminator changed",
        "The discriminator property, or a value clients send, is no longer recognised or now"
        " selects another shape.",
        "mapping key `dog` removed from the discriminator, or mapped to another schema",
        "Keep the property name and every mapping value with its schema.",
        lambda d: _discriminator(d),
    ),
    DeltaRule(
        "request-default-changed",
        "advisory",
        "request",
        (Kind.DEFAULT_CHANGED,),
        "Default value changed",
        "Clients that omit the value get a different behaviour.",
        "`default: 25` becomes `default: 50`",
        "Announce the change; keep the old default on old API generations.",
        lambda d: f"{_subject(d)}default changed from {d.before} to {d.after}",
    ),
    # -- responses ----------------------------------------------------------------------------
    DeltaRule(
        "response-property-removed",
        "breaking",
        "response",
        (Kind.PROPERTY_REMOVED,),
        "Response property removed",
        "Clients read the properties a response documents, required or not (many specs never"
        " mark response properties required); a removed one is no longer sent. Stricter than"
        " oasdiff, which reports an optional property's removal as a warning.",
        "drop `tag` from the `Pet` response schema",
        "Mark the property `deprecated: true` for a release, then remove it.",
        lambda d: (
            f"{'required' if d.before.required else 'optional'} property {_subject(d)}removed"
        ),
        lambda d: not d.before.deprecated,
    ),
    DeltaRule(
        "response-deprecated-property-removed",
        "advisory",
        "response",
        (Kind.PROPERTY_REMOVED,),
        "Deprecated response property removed",
        "The base marked it `deprecated: true`, which told clients to stop reading it: deprecate,"
        " then remove.",
        "drop `legacyId`, deprecated in the previous release",
        "Nothing more to do; say what replaced it in the release notes.",
        lambda d: f"deprecated property {_subject(d)}removed",
        lambda d: bool(d.before.deprecated),
    ),
    DeltaRule(
        "response-property-became-optional",
        "breaking",
        "response",
        (Kind.PROPERTY_BECAME_OPTIONAL,),
        "Response property became optional",
        "Clients that rely on it being present may fail when it is missing.",
        "remove `id` from `required` of a response schema",
        "Keep it required; send a neutral value.",
        lambda d: f"property {_subject(d)}became optional",
    ),
    DeltaRule(
        "response-dependent-required-removed",
        "breaking",
        "response",
        (Kind.DEPENDENT_REQUIRED_REMOVED,),
        "Response property no longer brings others",
        "Clients that read the dependent properties whenever the property is present may find"
        " them missing.",
        "`dependentRequired: {card: [cvc]}` removed from a response schema",
        "Keep the dependency; send neutral values.",
        lambda d: f"{_subject(d)}no longer requires {_values(d.before)}",
    ),
    DeltaRule(
        "response-nullable-added",
        "breaking",
        "response",
        (Kind.NULLABLE_ADDED,),
        "Response value became nullable",
        "Clients that never saw null do not handle it.",
        "`nullable: true` added to a response property",
        "Add a new nullable property; keep the old one non-null.",
        lambda d: f"{_subject(d)}became nullable",
    ),
    DeltaRule(
        "response-enum-value-added",
        "breaking",
        "response",
        (Kind.ENUM_VALUE_ADDED, Kind.ENUM_UNSET),
        "Response enum value added",
        "Clients with an exhaustive switch fail on the unknown value (unless the enum is declared"
        " open with `x-extensible-enum` or a free-string `anyOf` branch).",
        "`status: [ready, error]` gains `cancelled`",
        "Declare the enum open from the start, or send the new value only to clients that ask.",
        lambda d: (
            f"{_subject(d)}enum value(s) {_values(d.after)} added"
            if d.kind is Kind.ENUM_VALUE_ADDED
            else f"{_subject(d)}no longer limited to enum {_values(d.before)}"
        ),
    ),
    DeltaRule(
        "response-type-widened",
        "breaking",
        "response",
        (Kind.TYPE_WIDENED, Kind.TYPE_CHANGED),
        "Response type widened or changed",
        "Clients parse the old type; the server may now send another.",
        "`type: integer` becomes `type: [integer, string]`",
        "Add a new property of the new type.",
        lambda d: f"{_subject(d)}type changed from {_types(d.before)} to {_types(d.after)}",
    ),
    DeltaRule(
        "response-format-changed",
        "breaking",
        "response",
        (Kind.FORMAT_CHANGED, Kind.FORMAT_REMOVED),
        "Response format changed or removed",
        "Clients parse the old format (a date, a uuid).",
        "`format: date-time` becomes `format: date`",
        "Keep the format; add a new property for the new one.",
        lambda d: f"{_subject(d)}format changed from {_values(d.before)} to {_values(d.after)}",
    ),
    DeltaRule(
        "response-bound-loosened",
        "breaking",
        "response",
        (Kind.BOUND_LOOSENED,),
        "Response bound loosened or removed",
        "Clients sized for the old bounds receive values outside them.",
        "`maxLength: 64` becomes `maxLength: 256` on a response property",
        "Keep the bound.",
        lambda d: f"{_subject(d)}{d.before[0]} loosened from {d.before[1]} to {d.after[1]}",
    ),
    DeltaRule(
        "response-branch-added",
        "breaking",
        "response",
        (Kind.BRANCH_ADDED,),
        "Response oneOf / anyOf branch added",
        "Clients do not know the new shape.",
        "`oneOf: [Cat, Dog]` gains `Bird` in a response",
        "Send the new shape only to clients that ask for it.",
        lambda d: f"{_subject(d)}may now be the {_values(d.after)} variant",
    ),
    DeltaRule(
        "response-discriminator-changed",
        "breaking",
        "response",
        (
            Kind.DISCRIMINATOR_CHANGED,
            Kind.DISCRIMINATOR_MAPPING_ADDED,
            Kind.DISCRIMINATOR_MAPPING_CHANGED,
        ),
        "Response discriminator changed",
        "Clients pick the shape to parse by the discriminator: a new property, a new value or a"
        " value mapped to another schema sends them down the wrong path.",
        "mapping key `bird` added, or `dog` mapped to another schema",
        "Keep the mapping; send new shapes only to clients that ask for them.",
        lambda d: _discriminator(d),
    ),
    DeltaRule(
        "response-property-added",
        "advisory",
        "response",
        (Kind.PROPERTY_ADDED, Kind.ADDITIONAL_PROPERTIES_ALLOWED),
        "Response property added or schema opened",
        "New output; tolerant clients ignore it.",
        "add `nickname` to the `Pet` response",
        "Nothing to do for clients that ignore unknown properties.",
        lambda d: (
            f"property {_subject(d)}added"
            if d.kind is Kind.PROPERTY_ADDED
            else f"{_subject(d)}may now carry additional properties"
        ),
    ),
    DeltaRule(
        "response-success-status-removed",
        "breaking",
        "response",
        (ApiKind.SUCCESS_STATUS_REMOVED,),
        "Success status removed",
        "Clients handle the old success status; it is no longer sent.",
        "`201` replaced by `200`",
        "Keep the status.",
        lambda d: "status no longer returned",
    ),
    DeltaRule(
        "response-media-type-removed",
        "breaking",
        "response",
        (ApiKind.MEDIA_TYPE_REMOVED,),
        "Response media type removed",
        "Clients asking for that content type get 406.",
        "drop `text/csv` from a response",
        "Keep producing the media type.",
        lambda d: f"media type {_values(d.before)} no longer returned",
    ),
    DeltaRule(
        "response-header-removed",
        "breaking",
        "response",
        (ApiKind.HEADER_REMOVED,),
        "Required response header removed",
        "Clients read a header declared as always sent (pagination, rate limits); it is gone.",
        "drop `X-Total-Count` declared with `required: true`",
        "Keep sending the header.",
        lambda d: "required header removed",
        lambda d: bool(d.before.required),
    ),
    DeltaRule(
        "response-optional-header-removed",
        "advisory",
        "response",
        (ApiKind.HEADER_REMOVED,),
        "Optional response header removed",
        "An optional header could always be absent; clients that read it lose the data.",
        "drop an optional `X-Rate-Limit` header",
        "Deprecate the header first.",
        lambda d: "optional header removed",
        lambda d: not d.before.required,
    ),
    DeltaRule(
        "response-header-became-optional",
        "breaking",
        "response",
        (ApiKind.HEADER_BECAME_OPTIONAL,),
        "Response header became optional",
        "Clients read a header declared as always sent; it may now be missing.",
        "`X-Total-Count` loses `required: true`",
        "Keep the header required and always send it.",
        lambda d: "no longer always sent",
    ),
    DeltaRule(
        "response-error-status-added",
        "advisory",
        "response",
        (ApiKind.ERROR_STATUS_ADDED,),
        "Error status added",
        "Clients may meet a new failure they do not handle specifically.",
        "add `409`",
        "Document when it happens.",
        lambda d: "new error status",
    ),
    # -- both directions ------------------------------------------------------------------------
    DeltaRule(
        "tuple-item-removed",
        "breaking",
        "any",
        (Kind.TUPLE_ITEM_REMOVED,),
        "Tuple position removed",
        "`prefixItems` (or a draft-07 `items` list) no longer describes a position clients send"
        " or read.",
        "`prefixItems: [{type: number}, {type: number}]` loses its second entry",
        "Keep the position; add new positions at the end.",
        lambda d: f"{_subject(d)}removed",
    ),
    DeltaRule(
        "schema-keyword-not-compared",
        "unknown",
        "any",
        (Kind.KEYWORD_NOT_COMPARED,),
        "A schema keyword changed that is not reasoned about",
        "`not`, `if`/`then`/`else`, `patternProperties`, `contains`, `dependencies`,"
        " `dependentSchemas`, `unevaluatedItems` ... changed: the change cannot be proven safe.",
        "`not: {type: string}` becomes `not: {type: integer}`",
        "Express the constraint with keywords the analyser compares, or declare the break.",
        lambda d: f"{_subject(d)}`{d.before[0]}` changed; not compared",
    ),
    # -- security and servers -------------------------------------------------------------------
    DeltaRule(
        "security-requirement-added",
        "breaking",
        "request",
        (ApiKind.SECURITY_REQUIREMENT_ADDED,),
        "Security requirement or scope added",
        "Clients holding the old credentials or scopes are refused.",
        "an unauthenticated operation now requires `bearerAuth`, or a token needs a new scope",
        "Accept the old credentials as an alternative for one release.",
        lambda d: f"now requires {_values(d.after)}",
    ),
    DeltaRule(
        "security-api-key-changed",
        "breaking",
        "api",
        (ApiKind.SECURITY_SCHEME_CHANGED,),
        "API key name or location changed",
        "Clients send the key where it was; the server no longer finds it.",
        "`in: header, name: X-API-Key` becomes `name: X-Key`",
        "Accept both names or locations for one release.",
        lambda d: (
            f"API key moved from {d.before[1]} `{d.before[2]}` to {d.after[1]} `{d.after[2]}`"
        ),
        _api_keys,
    ),
    DeltaRule(
        "security-scheme-type-changed",
        "breaking",
        "api",
        (ApiKind.SECURITY_SCHEME_CHANGED,),
        "Security scheme type changed",
        "Clients authenticate the way the scheme said (an API key, HTTP basic, a bearer token,"
        " OAuth 2); under the same name it now wants something else.",
        "`type: apiKey` becomes `type: http, scheme: bearer`",
        "Add the new scheme under a new name as an alternative; keep the old one for a release.",
        lambda d: f"changed from `{_scheme(d.before)}` to `{_scheme(d.after)}`",
        lambda d: not _api_keys(d),
    ),
    DeltaRule(
        "servers-changed",
        "advisory",
        "api",
        (ApiKind.SERVERS_CHANGED,),
        "Servers changed",
        "Clients configured with the old base URL may stop reaching the API.",
        "`servers: [{url: https://api.example.com/v1}]` becomes `/v2`",
        "Keep the old URL routed for a deprecation period.",
        lambda d: f"changed from {_values(d.before)} to {_values(d.after)}",
    ),
]


def _discriminator(d: D) -> str:
    if d.kind is Kind.DISCRIMINATOR_CHANGED:
        return f"{_subject(d)}discriminator `{d.before}` changed to {_values(d.after)}"
    if d.kind is Kind.DISCRIMINATOR_MAPPING_CHANGED:
        return f"{_subject(d)}discriminator value(s) {_values(d.after)} now select another schema"
    if d.kind is Kind.DISCRIMINATOR_MAPPING_ADDED:
        return f"{_subject(d)}discriminator value(s) {_values(d.after)} added"
    return f"{_subject(d)}discriminator value(s) {_values(d.before)} removed"


NEUTRAL = [
    *DIRECTIONAL,
    Neutral(
        "response",
        (Kind.PATTERN_REMOVED, Kind.PATTERN_CHANGED),
        "Clients do not validate the strings they read against a pattern.",
    ),
    Neutral(
        "response",
        (Kind.DEFAULT_CHANGED,),
        "A default describes what the server assumes for a value a client leaves out.",
    ),
]

WAYS_OUT = {
    "endpoint-removed": "Restore {subject} marked `deprecated: true` with an `x-sunset` date; "
    "remove it only after the sunset.",
    "endpoint-deprecated": "Name the replacement of {subject} in its description and keep it "
    "working until the sunset.",
    "request-parameter-removed": "Keep accepting {subject} (ignored if need be) until clients "
    "stop sending it.",
    "request-required-parameter-added": "Make {subject} optional (`required: false`) with a "
    "server-side default.",
    "request-parameter-became-required": "Keep {subject} optional and default it on the server.",
    "request-parameter-moved": "Accept {subject} in both locations for at least one release.",
    "request-parameter-style-changed": "Keep the serialisation of {subject}; add a new "
    "parameter for the new form.",
    "request-body-became-required": "Keep {subject} optional and default its content on the "
    "server.",
    "request-media-type-removed": "Keep accepting the media type in {subject}.",
    "request-property-became-required": "Keep {subject} optional and default it on the server.",
    "request-required-property-added": "Add {subject} as optional, with a server-side default.",
    "request-dependent-required-added": "Default on the server the properties that {subject} "
    "now requires.",
    "request-property-removed": "Keep accepting {subject} until clients stop sending it.",
    "request-enum-value-removed": "Keep accepting the value(s) in {subject}; map them to the new "
    "meaning on the server.",
    "request-type-narrowed": "Accept both types in {subject} (`type: [...]`, `anyOf`).",
    "request-bound-tightened": "Keep the old bound of {subject}; enforce the new one only on a "
    "new field.",
    "request-pattern-changed": "Keep the old pattern of {subject}, or relax it.",
    "request-additional-properties-disallowed": "Leave {subject} open; ignore unknown keys on "
    "the server.",
    "request-nullable-removed": "Keep accepting null in {subject} and treat it as absent.",
    "request-format-changed": "Keep the format of {subject}; accept both on the server.",
    "request-branch-removed": "Keep accepting the variant in {subject}.",
    "request-discriminator-changed": "Keep every discriminator value of {subject} with its schema.",
    "response-property-removed": "Keep sending {subject}, marked `deprecated: true` for a "
    "release, then remove it.",
    "response-property-became-optional": "Keep {subject} required; send a neutral value.",
    "response-dependent-required-removed": "Keep the dependency of {subject}; send neutral values.",
    "response-nullable-added": "Keep {subject} non-null; add a new nullable property beside it.",
    "response-enum-value-added": "Send the new value(s) of {subject} only to clients that ask, "
    "or declare the enum open (`x-extensible-enum`) first.",
    "response-type-widened": "Keep the type of {subject}; add a new property of the new type.",
    "response-format-changed": "Keep the format of {subject}; add a new property for the new one.",
    "response-bound-loosened": "Keep the bound of {subject}.",
    "response-branch-added": "Send the new variant of {subject} only to clients that ask for it.",
    "response-discriminator-changed": "Keep the mapping of {subject}; send new shapes only to "
    "clients that ask for them.",
    "response-success-status-removed": "Keep returning {subject}.",
    "response-media-type-removed": "Keep producing the media type in {subject}.",
    "response-header-removed": "Keep sending {subject}.",
    "response-header-became-optional": "Keep {subject} required and always send it.",
    "tuple-item-removed": "Keep the position in {subject}; add new positions at the end.",
    "schema-keyword-not-compared": "Express the constraint of {subject} with keywords the "
    "analyser compares, or declare the break (`release-safety: breaking <reason>` beside it).",
    "security-requirement-added": "Accept the old credentials for {subject} as an alternative "
    "for one release.",
    "security-api-key-changed": "Accept both names or locations for {subject} for one release.",
    "security-scheme-type-changed": "Add the new scheme beside {subject} under a new name; keep "
    "the old one for a release.",
    "servers-changed": "Keep the old URL of {subject} routed for a deprecation period.",
    "delta-not-judged": "If the change to {subject} breaks clients, declare it "
    "(`release-safety: breaking <reason>` beside it); if not, the rule catalogue needs an entry "
    "for this kind of change (report it), until then the release stays unknown.",
}
"""The way out of each breaking or unknown rule, for the case's `{subject}`."""

CATALOGUE = Catalogue("rest", RULES, NEUTRAL, WAYS_OUT)
EXTRA = (SPEC_INVALID,)
"""Rules about documents, not deltas (each with its firing and quiet case in cases.yaml)."""

_INTRO = """
Generated from `src/release_safety/surfaces/rest/rules.py` (a test keeps it in sync).
Requests may widen, responses may not. Breaking rules make `api.rest.breaking` true;
advisories never change the verdict; an unknown finding makes it unknown.

Deprecation and sunset policy: an operation, parameter or property is deprecated with
`deprecated: true` and an `x-sunset` date (the advisory names it), and removed in a
release after that date. Removing an operation or parameter is still reported as breaking:
clients of the previous release may call it during a rolling update. A response property
marked `deprecated: true` in the base may be removed (an advisory); any other documented
response property removed is breaking, required or not.

Schemas are normalised and compared by the engine the MCP surface uses too
(`surfaces/jsonschema/`), so that refactors report nothing: Swagger 2.0 is converted to
OpenAPI 3; local `$ref`s are resolved (cycles kept) and their names never compared; `allOf`
is merged; `nullable: true`, `type: [X, 'null']` and `oneOf: [X, {type: 'null'}]` are one
thing; 3.0 boolean and 3.1 numeric exclusive bounds are one thing; path-level parameters are
folded into operations; header names compare case-insensitively; path-template variable
names are ignored; `readOnly` properties are left out of requests and `writeOnly` ones out
of responses; an enum with `x-extensible-enum`, or beside a free-string `anyOf` branch, is
open. Every kind of change the diff reports is judged by a rule below or listed as neutral on
purpose (last table); one that is neither is `delta-not-judged`, unknown.

Spec errors are not contract changes: a `type` that is not a JSON Schema type, a key that is
not a keyword (`min_items`), a non-numeric bound, or a security requirement naming an
undefined scheme leaves that element unconstrained in that version and uncompared, so a typo
introduced or fixed reports only `spec-invalid` (for errors the revision brings).

Without an OpenAPI document, the routes the code registers are the surface (`[rest] routes`,
docs/routes.md): a route or a method the previous release served and this one does not is
`route-removed`; a route moved to another file or framework style with the same method and
path is nothing (parameters compare by position, `{id}` == `[id]` == `:id`); an added route
is quiet; a registration the reader cannot read is `route-registration-dynamic` when the
release touches its file. Beside a document, the routes cross-check it (`route-spec-drift`).

Output: `<METHOD> <path> — <text>`; an edit inside a named schema that several
operations reach is one line, `#/components/schemas/<Name> — <text> (N operations)`.
`release-safety diff-openapi BASE REVISION [--json] [--fail-on breaking|unknown|advisory]`
runs the analyser on two files and prints, for each finding, the rule, `file:line`, the
operations it reaches and the safe alternative; it exits 1 when a finding at or above the
`--fail-on` level (default `unknown`: breaking and unknown findings) is found.
"""


def render_docs() -> str:
    """The Markdown page of the catalogue (`docs/rest-rules.md`)."""
    return CATALOGUE.render("REST rules", _INTRO, (*EXTRA, *ROUTE_RULES))
