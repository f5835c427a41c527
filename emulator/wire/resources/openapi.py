"""The resource rooms' part of the served OpenAPI document (emulator/wire/openapi.py): cached contents and batches.

Described loosely, as the document describes responses: bodies are JSON objects (validate.py's resource messages
check their fields, and the rooms their rules), answers a JSON object or Google's error envelope, so the fuzzer
probes every path, method and parameter for a 5xx or a malformed answer.
"""

from __future__ import annotations

from typing import Any

_REF = "#/components/schemas/"
_SEGMENT = r"^[^/:]+$"
_OBJECT = {"type": "object"}
_HTML_404 = {"text/html": {"schema": {"type": "string", "description": "Google's HTML 404 page (unrouted URL)"}}}


def _answers() -> dict[str, Any]:
    ok = {"description": "OK", "content": {"application/json": {"schema": _OBJECT}}}
    error = {"application/json": {"schema": {"$ref": _REF + "Error"}}} | _HTML_404
    return {"200": ok, "4XX": {"description": "Google's error envelope", "content": error}}


def _operation(
    operation_id: str,
    tag: str,
    security: list[dict[str, list[str]]],
    parameters: list[dict[str, Any]],
    body: bool = False,
) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": operation_id,
        "tags": [tag],
        "security": security,
        "parameters": parameters,
        "responses": _answers(),
    }
    if body:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": _OBJECT}}}
    return op


def _path(name: str, pattern: str = _SEGMENT) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string", "pattern": pattern}}


_PAGE = [
    {"name": "pageSize", "in": "query", "schema": {"type": "string", "pattern": r"^(-?[0-9]+)?$"}},
    {"name": "pageToken", "in": "query", "schema": {"type": "string"}},
]


def paths(
    developer_security: list[dict[str, list[str]]],
    vertex_security: list[dict[str, list[str]]],
    batch_models: list[str],
    embed_models: list[str],
) -> dict[str, Any]:
    """The operations, keyed by path: Developer and Vertex cachedContents, Developer batches."""
    out: dict[str, Any] = {}
    families = [
        ("developer", "/v1beta/cachedContents", developer_security, []),
        (
            "vertex",
            "/v1beta1/projects/{project}/locations/{location}/cachedContents",
            vertex_security,
            [_path("project"), _path("location")],
        ),
    ]
    for family, prefix, security, where in families:
        cid = [*where, _path("id")]
        out[prefix] = {
            "post": _operation(f"{family}.cachedContents.create", family, security, where, body=True),
            "get": _operation(f"{family}.cachedContents.list", family, security, [*where, *_PAGE]),
        }
        out[prefix + "/{id}"] = {
            "get": _operation(f"{family}.cachedContents.get", family, security, cid),
            "patch": _operation(f"{family}.cachedContents.patch", family, security, cid, body=True),
            "delete": _operation(f"{family}.cachedContents.delete", family, security, cid),
        }
    security = developer_security
    for method, models in (("batchGenerateContent", batch_models), ("asyncBatchEmbedContent", embed_models)):
        model = {"name": "model", "in": "path", "required": True, "schema": {"type": "string", "enum": models}}
        out[f"/v1beta/models/{{model}}:{method}"] = {
            "post": _operation(f"developer.{method}", "developer", security, [model], body=True)
        }
    bid = [_path("id")]
    out["/v1beta/batches"] = {"get": _operation("developer.batches.list", "developer", security, _PAGE)}
    out["/v1beta/batches/{id}"] = {
        "get": _operation("developer.batches.get", "developer", security, bid),
        "delete": _operation("developer.batches.delete", "developer", security, bid),
    }
    out["/v1beta/batches/{id}:cancel"] = {
        "post": _operation("developer.batches.cancel", "developer", security, bid, body=True)
    }
    return out
