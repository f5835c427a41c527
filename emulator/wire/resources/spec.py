"""The Files, operations and file search stores rooms in the OpenAPI document schemathesis fuzzes
(emulator/wire/openapi.py adds `paths()` and `SCHEMAS`). An upload's body is any bytes (a raw upload stores
whatever it is sent), so its request body has no schema to violate; the rest is parameters (ids, page sizes and
tokens, `force`) and the stores' small JSON bodies."""

from __future__ import annotations

from typing import Any

_REF = "#/components/schemas/"
_VERSION = {"name": "version", "in": "path", "required": True, "schema": {"enum": ["v1beta", "v1", "v1alpha"]}}
_ID_SCHEMA = {"type": "string", "pattern": "^[a-z0-9-]{1,40}$"}  # the id of a file, store, document, blob or operation
_FILE = {"name": "file", "in": "path", "required": True, "schema": _ID_SCHEMA}
_OPERATION = {"name": "operation", "in": "path", "required": True, "schema": _ID_SCHEMA}
_STORE = {"name": "store", "in": "path", "required": True, "schema": _ID_SCHEMA}
_DOCUMENT = {"name": "document", "in": "path", "required": True, "schema": _ID_SCHEMA}
_BLOB = {"name": "blob", "in": "path", "required": True, "schema": _ID_SCHEMA}
_FORCE = {"name": "force", "in": "query", "schema": {"enum": ["true", "false", "True", "False"]}}
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
        "required": ["name", "mimeType", "createTime", "uri", "state"],  # no size or hash: no bytes seen
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
    "FileSearchStore": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "pattern": "^fileSearchStores/"},
            "displayName": {"type": "string"},
            "createTime": {"type": "string"},
            "updateTime": {"type": "string"},
            "activeDocumentsCount": {"type": "string", "pattern": "^[0-9]+$"},
            "pendingDocumentsCount": {"type": "string", "pattern": "^[0-9]+$"},
            "failedDocumentsCount": {"type": "string", "pattern": "^[0-9]+$"},
            "sizeBytes": {"type": "string", "pattern": "^[0-9]+$"},
            "embeddingModel": {"type": "string"},
        },
        "required": ["name", "createTime", "updateTime"],
        "additionalProperties": False,
    },
    "ListFileSearchStoresResponse": {
        "type": "object",
        "properties": {
            "fileSearchStores": {"type": "array", "items": {"$ref": _REF + "FileSearchStore"}},
            "nextPageToken": {"type": "string"},
        },
        "additionalProperties": False,
    },
    "Document": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "pattern": "^fileSearchStores/[^/]+/documents/"},
            "displayName": {"type": "string"},
            "customMetadata": {"type": "array", "items": {"type": "object"}},
            "updateTime": {"type": "string"},
            "createTime": {"type": "string"},
            "state": {"enum": ["STATE_PENDING", "STATE_ACTIVE", "STATE_FAILED"]},
            "sizeBytes": {"type": "string", "pattern": "^[0-9]+$"},
            "mimeType": {"type": "string"},
        },
        "required": ["name", "createTime", "state", "sizeBytes", "mimeType"],
        "additionalProperties": False,
    },
    "ListDocumentsResponse": {
        "type": "object",
        "properties": {
            "documents": {"type": "array", "items": {"$ref": _REF + "Document"}},
            "nextPageToken": {"type": "string"},
        },
        "additionalProperties": False,
    },
    "CreateFileSearchStoreBody": {
        "type": "object",
        "properties": {"displayName": {"type": "string", "maxLength": 512}, "embeddingModel": {"type": "string"}},
        "additionalProperties": False,
    },
    "ImportFileBody": {
        "type": "object",
        "properties": {
            "fileName": {"type": "string"},
            "customMetadata": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"key": {"type": "string"}, "stringValue": {"type": "string"}},
                    "required": ["key", "stringValue"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["fileName"],
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
    "RegisterFilesResponse": {
        "type": "object",
        "properties": {"files": {"type": "array", "items": {"$ref": _REF + "File"}}},
        "required": ["files"],
        "additionalProperties": False,
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


_ok_file = {
    "description": "The File made (a metadata-only create)",
    "content": {
        "application/json": {
            "schema": {"type": "object", "properties": {"file": {"$ref": _REF + "File"}}, "required": ["file"]}
        }
    },
}


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
    create = _op("files.create", security, [_VERSION], _ok_file)
    create["requestBody"] = {"required": False, "content": {"application/json": {"schema": {"type": "object"}}}}
    register = _op("files.register", security, [_VERSION], _ok("RegisterFilesResponse"))
    register["requestBody"] = {"required": True, "content": {"application/json": {"schema": {"type": "object"}}}}
    return {
        "/upload/{version}/files": {"post": upload},
        "/{version}/files": {
            "get": _op("files.list", security, [_VERSION, *_PAGE], _ok("ListFilesResponse")),
            "post": create,
        },
        "/{version}/files:register": {"post": register},
        "/{version}/files/{file}": {
            "get": _op("files.get", security, [_VERSION, _FILE], _ok("File")),
            "delete": _op("files.delete", security, [_VERSION, _FILE], _EMPTY),
        },
        "/{version}/files/{file}:download": {"get": download},
        **_file_search_paths(security),
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


def _json_body(schema: str) -> dict[str, Any]:
    return {"required": False, "content": {"application/json": {"schema": {"$ref": _REF + schema}}}}


def _file_search_paths(security: list[dict[str, list[str]]]) -> dict[str, Any]:
    """The file search stores room (wire/resources/file_search.py); its operations are the operations room's."""
    create = _op("fileSearchStores.create", security, [_VERSION], _ok("FileSearchStore"))
    create["requestBody"] = _json_body("CreateFileSearchStoreBody")
    upload = _op(
        "fileSearchStores.upload",
        security,
        [_VERSION, _STORE],
        {
            "description": "A finished upload's Operation, or a resumable upload's start (an empty text/plain body)",
            "content": {
                "application/json": {"schema": {"$ref": _REF + "Operation"}},
                "text/plain": {"schema": {"type": "string", "maxLength": 0}},
            },
        },
    )
    upload["requestBody"] = {"required": False, "content": {"application/octet-stream": {"schema": {}}}}
    metadata_only = _op("fileSearchStores.uploadMetadata", security, [_VERSION, _STORE], _ok("Operation"))
    imported = _op("fileSearchStores.importFile", security, [_VERSION, _STORE], _ok("Operation"))
    imported["requestBody"] = _json_body("ImportFileBody")
    document = [_VERSION, _STORE, _DOCUMENT]
    return {
        "/{version}/fileSearchStores": {
            "post": create,
            "get": _op("fileSearchStores.list", security, [_VERSION, *_PAGE], _ok("ListFileSearchStoresResponse")),
        },
        "/{version}/fileSearchStores/{store}": {
            "get": _op("fileSearchStores.get", security, [_VERSION, _STORE], _ok("FileSearchStore")),
            "delete": _op("fileSearchStores.delete", security, [_VERSION, _STORE, _FORCE], _EMPTY),
        },
        "/upload/{version}/fileSearchStores/{store}:uploadToFileSearchStore": {"post": upload},
        "/{version}/fileSearchStores/{store}:uploadToFileSearchStore": {"post": metadata_only},
        "/{version}/fileSearchStores/{store}:importFile": {"post": imported},
        "/{version}/fileSearchStores/{store}/documents": {
            "get": _op(
                "fileSearchStores.listDocuments", security, [_VERSION, _STORE, *_PAGE], _ok("ListDocumentsResponse")
            )
        },
        "/{version}/fileSearchStores/{store}/documents/{document}": {
            "get": _op("fileSearchStores.getDocument", security, document, _ok("Document")),
            "delete": _op("fileSearchStores.deleteDocument", security, [*document, _FORCE], _EMPTY),
        },
        "/{version}/fileSearchStores/{store}/media/{blob}": {
            "get": _op(
                "fileSearchStores.downloadMedia",
                security,
                [_VERSION, _STORE, _BLOB, {"name": "alt", "in": "query", "schema": {"enum": ["media"]}}],
                {"description": "A media document's bytes (its own content type)", "content": {"*/*": {"schema": {}}}},
            )
        },
        # An import's and an upload's operations (fileSearchStores.operations.get and
        # fileSearchStores.upload.operations.get in the reference; the operations room serves both).
        "/{version}/fileSearchStores/{store}/operations/{operation}": {
            "get": _op("fileSearchStores.operations.get", security, [_VERSION, _STORE, _OPERATION], _ok("Operation"))
        },
        "/{version}/fileSearchStores/{store}/upload/operations/{operation}": {
            "get": _op(
                "fileSearchStores.upload.operations.get", security, [_VERSION, _STORE, _OPERATION], _ok("Operation")
            )
        },
    }
