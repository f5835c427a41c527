"""The resource rooms' part of the served OpenAPI document (emulator/wire/openapi.py): cached contents, batches and
Vertex batch prediction jobs.

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
    body: bool | dict[str, Any] = False,
) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": operation_id,
        "tags": [tag],
        "security": security,
        "parameters": parameters,
        "responses": _answers(),
    }
    if body:
        schema = body if isinstance(body, dict) else _OBJECT
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    return op


def _path(name: str, pattern: str = _SEGMENT) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string", "pattern": pattern}}


_PAGE = [
    {"name": "pageSize", "in": "query", "schema": {"type": "string", "pattern": r"^(-?[0-9]+)?$"}},
    {"name": "pageToken", "in": "query", "schema": {"type": "string"}},
]


def _uris(prefix: str, most: int) -> dict[str, Any]:
    return {"type": "string", "pattern": f"^{prefix}://", "minLength": len(prefix) + 4, "maxLength": most}


# A batch prediction job's create body as wire/resources/prediction_jobs.py checks it: BatchPredictionJob's fields
# at the top (any other name is a 400), a model, a Cloud Storage or BigQuery input and output. What lies deeper is
# not checked there (the emulator reads no input), so the document does not constrain it either.
_GCS, _BQ = _uris("gs", 2048), _uris("bq", 1024)
PREDICTION_JOB_BODY: dict[str, Any] = {
    "type": "object",
    "properties": {
        "displayName": {"type": "string"},
        "model": {"type": "string", "minLength": 1},
        "inputConfig": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "gcsSource": {
                            "type": "object",
                            "properties": {"uris": {"type": "array", "items": _GCS, "minItems": 1, "maxItems": 100}},
                            "required": ["uris"],
                        }
                    },
                    "required": ["gcsSource"],
                },
                {
                    "type": "object",
                    "properties": {
                        "bigquerySource": {
                            "type": "object",
                            "properties": {"inputUri": _BQ},
                            "required": ["inputUri"],
                        }
                    },
                    "required": ["bigquerySource"],
                },
            ]
        },
        "outputConfig": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "gcsDestination": {
                            "type": "object",
                            "properties": {"outputUriPrefix": _GCS},
                            "required": ["outputUriPrefix"],
                        }
                    },
                    "required": ["gcsDestination"],
                },
                {
                    "type": "object",
                    "properties": {
                        "bigqueryDestination": {
                            "type": "object",
                            "properties": {"outputUri": _BQ},
                            "required": ["outputUri"],
                        }
                    },
                    "required": ["bigqueryDestination"],
                },
            ]
        },
        "modelParameters": {},
        "labels": {},
    },
    "required": ["model", "inputConfig", "outputConfig"],
    "additionalProperties": False,
}


# A cancel's body is its request message, whose only field is the name the URL gives (validate.py's CancelRequest).
CANCEL_BODY: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "additionalProperties": False,
}


def paths(
    developer_security: list[dict[str, list[str]]],
    vertex_security: list[dict[str, list[str]]],
    batch_models: list[str],
    embed_models: list[str],
) -> dict[str, Any]:
    """The operations, keyed by path: Developer and Vertex cachedContents, Developer batches, Vertex batch
    prediction jobs."""
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
        "post": _operation("developer.batches.cancel", "developer", security, bid, body=CANCEL_BODY)
    }
    # Vertex batch prediction jobs (wire/resources/prediction_jobs.py): google-genai's batches in Vertex mode.
    version = {"name": "version", "in": "path", "required": True, "schema": {"enum": ["v1", "v1beta1"]}}
    where = [version, _path("project"), _path("location")]
    jid = [*where, _path("id")]
    prefix = "/{version}/projects/{project}/locations/{location}/batchPredictionJobs"
    security = vertex_security
    out[prefix] = {
        "post": _operation("vertex.batchPredictionJobs.create", "vertex", security, where, body=PREDICTION_JOB_BODY),
        "get": _operation("vertex.batchPredictionJobs.list", "vertex", security, [*where, *_PAGE]),
    }
    out[prefix + "/{id}"] = {
        "get": _operation("vertex.batchPredictionJobs.get", "vertex", security, jid),
        "delete": _operation("vertex.batchPredictionJobs.delete", "vertex", security, jid),
    }
    out[prefix + "/{id}:cancel"] = {
        "post": _operation("vertex.batchPredictionJobs.cancel", "vertex", security, jid, body=CANCEL_BODY)
    }
    return out
