"""Swagger 2.0 converted explicitly to the OpenAPI 3.0 shape the normaliser reads.

Body and form parameters become request bodies (one per `consumes` media type), response
schemas become content (one per `produces` media type), non-body parameters and headers get a
`schema`, `collectionFormat` becomes style / explode, definitions become components.
"""

from __future__ import annotations

from typing import Any

from release_safety.surfaces.jsonschema.build import missing, resolve

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_SCHEMA_KEYS = (
    "type",
    "format",
    "items",
    "enum",
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "multipleOf",
)
_COLLECTION = {
    "csv": ("form", False),
    "ssv": ("spaceDelimited", False),
    "pipes": ("pipeDelimited", False),
    "multi": ("form", True),
}


def convert_swagger(doc: dict[str, Any]) -> dict[str, Any]:
    """A Swagger 2.0 document as OpenAPI 3.0 (a new tree; `doc` is left as it was)."""
    doc = _rewritten_copy(doc)
    consumes = _media(doc.get("consumes"))
    produces = _media(doc.get("produces"))
    out: dict[str, Any] = {"openapi": "3.0.0", "info": doc.get("info", {})}
    host = doc.get("host")
    if isinstance(host, str):
        schemes: list[Any] = doc["schemes"] if isinstance(doc.get("schemes"), list) else ["https"]
        base = doc.get("basePath") if isinstance(doc.get("basePath"), str) else ""
        out["servers"] = [{"url": f"{s}://{host}{base}"} for s in schemes if isinstance(s, str)]
    shared_params = _dict(doc.get("parameters"))
    shared_responses = _dict(doc.get("responses"))
    paths: dict[str, Any] = {}
    for path, item in _dict(doc.get("paths")).items():
        if not isinstance(item, dict):
            continue
        common = _params(item.get("parameters"), shared_params)
        new_item: dict[str, Any] = {}
        for method in METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                new_item[method] = _operation(
                    op, common, shared_params, shared_responses, consumes, produces
                )
        paths[path] = new_item
    out["paths"] = paths
    out["components"] = {
        "schemas": _dict(doc.get("definitions")),
        "securitySchemes": {
            name: _security_scheme(scheme)
            for name, scheme in _dict(doc.get("securityDefinitions")).items()
            if isinstance(scheme, dict)
        },
    }
    if "security" in doc:
        out["security"] = doc["security"]
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _media(value: Any, default: list[str] | None = None) -> list[str]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value) and value:
        return value
    return default if default is not None else ["application/json"]


def _rewritten_copy(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of the document's dicts and lists (a part shared in it stays shared, as
    `copy.deepcopy` keeps it) in which `#/definitions/X` becomes `#/components/schemas/X` and
    `type: file` a binary string everywhere (iteratively)."""
    copies: dict[int, Any] = {}
    stack: list[tuple[Any, Any]] = []

    def copied(value: Any) -> Any:
        if not isinstance(value, (dict, list)):
            return value
        found = copies.get(id(value))
        if found is None:
            found = copies[id(value)] = {} if isinstance(value, dict) else []
            stack.append((value, found))
        return found

    root: dict[str, Any] = copied(doc)
    while stack:
        item, copy = stack.pop()
        if isinstance(item, list):
            copy.extend(copied(value) for value in item)
            continue
        for key, value in item.items():
            copy[key] = copied(value)
        ref = copy.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/definitions/"):
            copy["$ref"] = "#/components/schemas/" + ref[len("#/definitions/") :]
        if copy.get("type") == "file":
            copy["type"], copy["format"] = "string", "binary"
    return root


def _deref(node: Any, shared: dict[str, Any], prefix: str) -> Any:
    """`node`, or what its `$ref` (`<prefix>/<pointer>`) names under `shared` when it names one."""
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        ref: str = node["$ref"]
        if ref.startswith(prefix + "/"):
            found = resolve(shared, ref[len(prefix) :])
            return node if missing(found) else found
    return node


def _params(value: Any, shared: dict[str, Any]) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        return []
    params = [_deref(p, shared, "#/parameters") for p in value]
    return [
        p
        for p in params
        if isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("in"), str)
    ]


def _operation(
    op: dict[str, Any],
    common: list[dict[str, Any]],
    shared_params: dict[str, Any],
    shared_responses: dict[str, Any],
    consumes: list[str],
    produces: list[str],
) -> dict[str, Any]:
    own = _params(op.get("parameters"), shared_params)
    keys = {(p.get("name"), p.get("in")) for p in own}
    params = [p for p in common if (p.get("name"), p.get("in")) not in keys] + own
    consumes = _media(op.get("consumes"), consumes)
    produces = _media(op.get("produces"), produces)
    out = {k: v for k, v in op.items() if k not in ("parameters", "responses", "consumes")}
    out.pop("produces", None)
    out["parameters"] = [_parameter(p) for p in params if p.get("in") not in ("body", "formData")]
    body = next((p for p in params if p.get("in") == "body"), None)
    form = [p for p in params if p.get("in") == "formData"]
    if body is not None:
        out["requestBody"] = {
            "required": body.get("required") is True,
            "content": {m: {"schema": body.get("schema", {})} for m in consumes},
        }
    elif form:
        media = [m for m in consumes if m in ("multipart/form-data",)] or [
            "application/x-www-form-urlencoded"
        ]
        schema = {
            "type": "object",
            "properties": {str(p.get("name")): _param_schema(p) for p in form},
            "required": [str(p.get("name")) for p in form if p.get("required") is True],
        }
        out["requestBody"] = {
            "required": any(p.get("required") is True for p in form),
            "content": {m: {"schema": schema} for m in media},
        }
    responses: dict[str, Any] = {}
    for status, response in _dict(op.get("responses")).items():
        response = _deref(response, shared_responses, "#/responses")
        if not isinstance(response, dict):
            continue
        converted: dict[str, Any] = {"description": response.get("description", "")}
        if "schema" in response:
            converted["content"] = {m: {"schema": response["schema"]} for m in produces}
        headers = _dict(response.get("headers"))
        if headers:
            converted["headers"] = {
                name: {"schema": _param_schema(h)}
                for name, h in headers.items()
                if isinstance(h, dict)
            }
        responses[str(status)] = converted
    out["responses"] = responses
    return out


def _param_schema(param: dict[str, Any]) -> dict[str, Any]:
    return {k: param[k] for k in _SCHEMA_KEYS if k in param}


def _parameter(param: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        k: param[k] for k in ("name", "in", "required", "description", "deprecated") if k in param
    }
    out["schema"] = _param_schema(param)
    fmt = param.get("collectionFormat")
    if param.get("type") == "array" and isinstance(fmt, str) and fmt in _COLLECTION:
        style, explode = _COLLECTION[fmt]
        out["style"] = (
            "simple" if style == "form" and param.get("in") in ("path", "header") else style
        )
        out["explode"] = explode
    elif param.get("type") == "array":
        out["style"] = "form" if param.get("in") in ("query", "cookie") else "simple"
        out["explode"] = False
    return out


def _security_scheme(scheme: dict[str, Any]) -> dict[str, Any]:
    kind = scheme.get("type")
    if kind == "basic":
        return {"type": "http", "scheme": "basic"}
    if kind == "oauth2":
        return {"type": "oauth2", "flows": {"x": {"scopes": _dict(scheme.get("scopes"))}}}
    return dict(scheme)
