"""The OpenAPI 3.0 document the evaluator serves by, and request-body validation against it:
jsonschema explains every error of a body; jsonschema-rs checks the data file's shapes in bulk
(see `evaluator.fixture` for the figure).
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

import jsonschema_rs
from jsonschema import Draft4Validator
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from release_safety.evaluator.errors import invalid

SPEC_URI = "urn:release-safety:evaluator-openapi"
_REQUIRED = re.compile(r"^'(.+)' is a required property$")


def openapi_text() -> str:
    """The bundled document, as shipped."""
    return (
        resources.files("release_safety.data.evaluator")
        .joinpath("openapi.json")
        .read_text(encoding="utf-8")
    )


@cache
def openapi_document() -> dict[str, Any]:
    """The bundled document, parsed."""
    document: dict[str, Any] = json.loads(openapi_text())
    return document


def json_schema(node: Any) -> Any:
    """OpenAPI 3.0 schema -> JSON Schema: `nullable: true` becomes `anyOf [..., null]`."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {
        key: json_schema(value)
        for key, value in node.items()
        if key != "nullable" or not isinstance(value, bool)
    }
    if node.get("nullable") is True:
        return {"anyOf": [out, {"type": "null"}]}
    return out


@cache
def json_document() -> dict[str, Any]:
    """The served document with its schemas turned into JSON Schema."""
    document: dict[str, Any] = json_schema(openapi_document())
    return document


@cache
def fast_validator(schema_name: str) -> jsonschema_rs.Validator:
    """A compiled (Rust) validator of one component schema, for bulk checks."""
    components = json_document()["components"]["schemas"]
    root = {"$ref": f"#/components/schemas/{schema_name}", "components": {"schemas": components}}
    return jsonschema_rs.Draft202012Validator(root)


def schema_validator(document: dict[str, Any], pointer: str) -> Draft4Validator:
    """A validator of the schema at `pointer` (`#/...`) of an OpenAPI 3.0 document already
    turned into JSON Schema (`json_schema`): draft 4 reads `$ref` and `exclusiveMinimum` as
    OpenAPI 3.0 does."""
    resource = Resource.from_contents(document, default_specification=DRAFT4)
    registry: Registry[Any] = Registry().with_resource(SPEC_URI, resource)
    return Draft4Validator({"$ref": f"{SPEC_URI}{pointer}"}, registry=registry)


@cache
def body_validator(schema_name: str) -> Draft4Validator:
    """A validator of one component schema of the served document, explaining each error."""
    return schema_validator(json_document(), f"#/components/schemas/{schema_name}")


def _field(error: ValidationError) -> str:
    """Where an error is: `body.<path>`, naming the missing key of a `required` error."""
    path = ["body", *(str(part) for part in error.absolute_path)]
    if error.validator == "required":
        missing = _REQUIRED.match(error.message)
        if missing:
            path.append(missing.group(1))
    return ".".join(path)


def check_body(schema_name: str, body: Any) -> None:
    """Raise a 422 ValidateError naming every field of the body that fails its schema."""
    errors = sorted(body_validator(schema_name).iter_errors(body), key=_field)
    if errors:
        fields = {
            _field(error): {
                "message": error.message[:500],
                "value": None if isinstance(error.instance, dict | list) else error.instance,
            }
            for error in errors
        }
        raise invalid(fields)
