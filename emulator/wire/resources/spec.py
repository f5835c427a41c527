"""The Files and operations rooms in the OpenAPI document schemathesis fuzzes (emulator/wire/openapi.py adds
`paths()` and `SCHEMAS`). An upload's body is any bytes (a raw upload stores whatever it is sent), so its request
body has no schema to violate; the rest is parameters: ids, page sizes and tokens."""

from __future__ import annotations

from typing import Any

_REF = "#/components/schemas/"
_VERSION = {"name": "version", "in": "path", "required": True, "schema": {"enum": ["v1beta", "v1", "v1alpha"]}}
_FILE = {"name": "file", "in": "path", "required": True, "schema": {"type": "string", "pattern": "^[a-z0-9-]{1,40}$"}}
_OPERATION = {
    "name": "operation",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^[a-z0-9-]{1,40}$"},
}
_PAGE = [
    {"name": "pageSize", "in": "query", "schema": {"type": "string", "pattern": r"^(-?[0-9]{1,9})?$"}},
    {"name": "pageToken", "in": "query", "schema": {"type": "string"}},
]
_ERRORS = {
    "4XX": {
        "description": "Google's error envelope",
        "content": {
            "application/json": {"schema": {"$ref": _REF + "Error"}},
            "text/html": {"schema": {"type": "string", "description": "Google's HTML 404 page (unrouted URL)"}},
        },
    }
}
_EMPTY = {"description": "google.protobuf.Empty", "content": {"application/json": {"schema": {"type": "object"}}}}

SCHEMAS: dict[str, Any] = {
    "File": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "pattern": "^files/"},
            "displayName": {"type": "string"},
            "mimeType": {"type": "string"},
            "sizeBytes": {"type": "string", "pattern": "^[0-9]+$"},
            "createTime": {"type": "string"},
            "updateTime": {"type": "string"},
            "expirationTime": {"type": "string"},
            "sha256Hash": {"type": "string"},
            "uri": {"type": "string"},
            "downloadUri": {"type": "string"},
            "state": {"enum": ["PROCESSING", "ACTIVE", "FAILED"]},
            "source": {"enum": ["UPLOADED", "GENERATED", "REGISTERED"]},
            "error": {"type": "object"},
        },
        "required": ["name", "mimeType", "sizeBytes", "createTime", "sha256Hash", "uri", "state"],
        "additionalProperties": False,
    },
    "ListFilesResponse": {
        "type": "object",
        "properties": {
            "files": {"type": "array", "items": {"$ref": _REF + "File"}},
            "nextPageToken": {"type": "string"},
        },
        "additionalProperties": False,
    },
    "Operation": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "metadata": {"type": "object"},
            "done": {"type": "boolean"},
            "response": {"type": "object"},
            "error": {"type": "object"},
        },
        "required": ["name"],
    },
    "ListOperationsResponse": {
        "type": "object",
        "properties": {
            "operations": {"type": "array", "items": {"$ref": _REF + "Operation"}},
            "nextPageToken": {"type": "string"},
        },
        "additionalProperties": False,
    },
}


def _ok(schema: str) -> dict[str, Any]:
    return {"description": "OK", "content": {"application/json": {"schema": {"$ref": _REF + schema}}}}


def _op(op_id: str, security: list[dict[str, list[str]]], params: list[Any], ok: dict[str, Any]) -> dict[str, Any]:
    return {
        "operationId": op_id,
        "tags": ["resources"],
        "security": security,
        "parameters": params,
        "responses": {"200": ok} | _ERRORS,
    }


def paths(security: list[dict[str, list[str]]]) -> dict[str, Any]:
    """The rooms' paths, each taking the Developer API's key or token (`security`)."""
    upload = _op(
        "files.upload",
        security,
        [_VERSION],
        {
            "description": "A finished upload's File, or a resumable upload's start (an empty text/plain body)",
            "content": {
                "application/json": {
                    "schema": {"type": "object", "properties": {"file": {"$ref": _REF + "File"}}, "required": ["file"]}
                },
                "text/plain": {"schema": {"type": "string", "maxLength": 0}},
            },
        },
    )
    upload["requestBody"] = {"required": False, "content": {"application/octet-stream": {"schema": {}}}}
    download = _op(
        "files.download",
        security,
        [_VERSION, _FILE, {"name": "alt", "in": "query", "schema": {"enum": ["media"]}}],
        {"description": "The file's bytes (its own content type)", "content": {"*/*": {"schema": {}}}},
    )
    return {
        "/upload/{version}/files": {"post": upload},
        "/{version}/files": {"get": _op("files.list", security, [_VERSION, *_PAGE], _ok("ListFilesResponse"))},
        "/{version}/files/{file}": {
            "get": _op("files.get", security, [_VERSION, _FILE], _ok("File")),
            "delete": _op("files.delete", security, [_VERSION, _FILE], _EMPTY),
        },
        "/{version}/files/{file}:download": {"get": download},
        "/{version}/operations": {
            "get": _op("operations.list", security, [_VERSION, *_PAGE], _ok("ListOperationsResponse"))
        },
        "/{version}/operations/{operation}": {
            "get": _op("operations.get", security, [_VERSION, _OPERATION], _ok("Operation")),
            "delete": _op("operations.delete", security, [_VERSION, _OPERATION], _EMPTY),
        },
        "/{version}/operations/{operation}:cancel": {
            "post": _op("operations.cancel", security, [_VERSION, _OPERATION], _EMPTY)
        },
    }
