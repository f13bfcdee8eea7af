"""Swagger 2.0 converted on a copy (`rest/swagger.convert_swagger`): the document read is left
as it was, the copy's `$ref`s and `type: file` rewritten, and a part the document shares (a
YAML alias) shared in the copy as `copy.deepcopy` keeps it."""

from __future__ import annotations

import copy
from typing import Any

from release_safety.surfaces.rest.swagger import convert_swagger


def _document() -> dict[str, Any]:
    user = {"type": "object", "properties": {"avatar": {"type": "file"}}}
    ref = {"$ref": "#/definitions/User"}
    ok = {"description": "ok", "schema": ref}
    return {
        "swagger": "2.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/users": {"get": {"responses": {"200": ok}}, "put": {"responses": {"200": ok}}},
        },
        "definitions": {"User": user, "Other": {"items": [ref, {"type": "string"}]}},
    }


def test_the_read_document_is_left_as_it_was() -> None:
    doc = _document()
    before = copy.deepcopy(doc)
    converted = convert_swagger(doc)
    assert doc == before
    schemas = converted["components"]["schemas"]
    assert schemas["User"]["properties"]["avatar"] == {"type": "string", "format": "binary"}
    assert schemas["Other"]["items"][0] == {"$ref": "#/components/schemas/User"}
    get = converted["paths"]["/users"]["get"]["responses"]["200"]
    assert get["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/User"}


def test_shared_parts_stay_shared_as_deepcopy_keeps_them() -> None:
    doc = _document()
    converted = convert_swagger(doc)
    other = converted["components"]["schemas"]["Other"]["items"][0]
    get = converted["paths"]["/users"]["get"]["responses"]["200"]
    put = converted["paths"]["/users"]["put"]["responses"]["200"]
    assert (
        get["content"]["application/json"]["schema"] is put["content"]["application/json"]["schema"]
    )  # one object, as in the document (`ok` and `ref` are shared there)
    assert other is get["content"]["application/json"]["schema"]
    assert other is not doc["definitions"]["Other"]["items"][0]  # a copy, not the original
