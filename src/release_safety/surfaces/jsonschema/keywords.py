"""The vocabulary: which keys are keywords, which values are types, what a typo meant.

`KEYWORDS` is every property of the JSON Schema metaschemas (drafts 3 to 2020-12, as the
`jsonschema-specifications` package ships them; a test keeps the two equal) plus the OpenAPI
schema keywords. Written out here because loading the metaschemas costs 0.1 s per process.
"""

from __future__ import annotations

import difflib
from functools import lru_cache

JSON_SCHEMA_KEYWORDS = frozenset(
    {
        *("$anchor", "$comment", "$defs", "$dynamicAnchor", "$dynamicRef", "$id"),
        *("$recursiveAnchor", "$recursiveRef", "$ref", "$schema", "$vocabulary"),
        *("additionalItems", "additionalProperties", "allOf", "anyOf", "const", "contains"),
        *("contentEncoding", "contentMediaType", "contentSchema", "default", "definitions"),
        *("dependencies", "dependentRequired", "dependentSchemas", "deprecated", "description"),
        *("disallow", "divisibleBy", "else", "enum", "examples", "exclusiveMaximum"),
        *("exclusiveMinimum", "extends", "format", "id", "if", "items", "maxContains"),
        *("maxItems", "maxLength", "maxProperties", "maximum", "minContains", "minItems"),
        *("minLength", "minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern"),
        *("patternProperties", "prefixItems", "properties", "propertyNames", "readOnly"),
        *("required", "then", "title", "type", "unevaluatedItems", "unevaluatedProperties"),
        *("uniqueItems", "writeOnly"),
    }
)
OPENAPI_KEYWORDS = frozenset({"nullable", "discriminator", "xml", "externalDocs", "example"})
KEYWORDS = JSON_SCHEMA_KEYWORDS | OPENAPI_KEYWORDS
TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
# Keywords the diff does not reason about: a change to one is reported as not compared.
OPAQUE = frozenset(
    {
        *("not", "if", "then", "else", "dependencies", "dependentSchemas", "patternProperties"),
        *("contains", "minContains", "maxContains", "unevaluatedItems"),
        *("$dynamicRef", "$recursiveRef", "contentSchema"),
    }
)
# A keyword whose value a typo leaves unknown, as the diff names what it compares.
_COMPARED_AS = {
    "const": "enum",
    "x-extensible-enum": "enum",
    "exclusiveMinimum": "minimum",
    "exclusiveMaximum": "maximum",
    "unevaluatedProperties": "additionalProperties",
}
_COMPARED = sorted(
    {
        *("type", "format", "enum", "const", "minimum", "maximum", "exclusiveMinimum"),
        *("exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties"),
        *("maxProperties", "multipleOf", "uniqueItems", "pattern", "properties", "required"),
        *("dependentRequired", "additionalProperties", "unevaluatedProperties", "items"),
        "propertyNames",
        *("prefixItems", "nullable", "default", "readOnly", "writeOnly", "deprecated"),
    }
)


def compared_as(keyword: str) -> str:
    """The name under which the diff compares a keyword (`const` is compared as `enum`)."""
    return _COMPARED_AS.get(keyword, keyword)


@lru_cache(maxsize=256)
def meant(key: str) -> tuple[str, ...]:
    """The compared keywords an unknown key probably stands for (`min_items` → `minItems`;
    `min` → every `min...`), none when it looks like no keyword."""
    squashed = key.replace("_", "").replace("-", "").lower()
    exact = [k for k in _COMPARED if k.lower() == squashed]
    if exact:
        return tuple(exact)
    if len(squashed) >= 3:
        prefixed = [k for k in _COMPARED if k.lower().startswith(squashed)]
        if prefixed:
            return tuple(prefixed)
    return tuple(difflib.get_close_matches(key, _COMPARED, n=2, cutoff=0.8))
