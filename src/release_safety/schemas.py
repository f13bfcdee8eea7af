"""JSON Schemas generated from the models, and validation of documents against them."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from release_safety.errors import InputError
from release_safety.model import SCHEMAS

SCHEMA_BASE = "https://release-safety.dev/schemas/"


def schema_for(name: str) -> dict[str, Any]:
    """The JSON Schema of one document kind (`release-safety`, `release-safety-index`, ...)."""
    if name not in SCHEMAS:
        raise InputError(f"no schema named {name!r}: choose from {', '.join(sorted(SCHEMAS))}")
    schema = SCHEMAS[name].model_json_schema(mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{SCHEMA_BASE}{name}.schema.json",
        **schema,
    }


def schema_text(name: str) -> str:
    return json.dumps(schema_for(name), indent=2, sort_keys=True) + "\n"


def kind_of(document: Any) -> str:
    """Which document this is: an index has entries, an artifact a compatibility block."""
    if isinstance(document, dict) and "entries" in document:
        return "release-safety-index"
    if isinstance(document, dict) and "fromVersion" in document:
        return "upgrade-check"
    return "release-safety"


def validate_document(document: Any, where: str, name: str | None = None) -> str:
    """Validate against the generated schema; the error names the failing path. Returns the kind."""
    kind = name or kind_of(document)
    validator = jsonschema.Draft202012Validator(schema_for(kind))
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        path = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        raise InputError(f"{where}: not a valid {kind} document: at {path}: {first.message}")
    return kind
