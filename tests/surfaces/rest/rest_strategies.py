"""Hypothesis strategies for OpenAPI documents: adversarial trees in every slot of a document."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

WORDS = [
    *("type", "properties", "items", "allOf", "oneOf", "anyOf", "$ref", "enum", "required"),
    *("nullable", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
    *("maxLength", "minItems", "pattern", "additionalProperties", "unevaluatedProperties"),
    *("discriminator", "propertyName", "mapping", "readOnly", "writeOnly", "default", "const"),
    *("x-extensible-enum", "deprecated", "name", "in", "schema", "content", "style", "explode"),
    *("requestBody", "responses", "headers", "parameters", "security", "x-sunset", "url"),
    *("multipleOf", "uniqueItems", "maxProperties", "minProperties"),
]
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(
        [
            *("string", "object", "array", "null", "integer", "number", "query", "header"),
            *("path", "cookie", "apiKey", "#/components/schemas/A", "#/components/schemas/B"),
            *("#/components/parameters/P", "#/paths/~1a~1{id}", "#", "#/x/y", "other.yaml#/A"),
            "#/components/schemas/A/properties/a",
        ]
    ),
)
TREES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(WORDS) | st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=25,
)
SAFE = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


VERSIONS = st.sampled_from(["3.0.3", "3.1.0", "2.0"])
SLOTS = 14  # the parts of a document `assemble` takes


def assemble(version: str, status: str, parts: list[Any]) -> bytes:
    """A document of one version whose parts (operation pieces, schemas...) are `parts`."""
    operation: dict[str, Any] = {
        "parameters": parts[0],
        "requestBody": parts[1],
        "responses": {
            "200": {"content": {"application/json": {"schema": parts[2]}}},
            status: parts[3],
        },
    }
    if parts[4] is not None:  # absent: the document-wide requirement applies
        operation["security"] = parts[4]
    doc: dict[str, Any] = {
        "paths": {
            "/a/{id}": {"parameters": parts[5], "get": operation, "post": parts[6]},
            "/b": parts[7],
        },
        "servers": parts[8],
        "security": parts[9],
    }
    schemas = {"A": parts[10], "B": parts[11]}
    if version == "2.0":
        doc |= {"swagger": "2.0", "definitions": schemas, "parameters": parts[12]}
    else:
        parameters = {"P": parts[12]}
        components = {"schemas": schemas, "parameters": parameters}
        doc |= {"openapi": version, "components": components | {"securitySchemes": parts[13]}}
    return json.dumps(doc, allow_nan=True).encode()


STATUSES = st.sampled_from(["201", "404", "default", "2XX"])


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    parts = [draw(TREES) for _ in range(SLOTS)]
    return assemble(draw(VERSIONS), draw(STATUSES), parts)
