"""Schema-driven fuzzing with schemathesis: the emulator's two OpenAPI documents drive generated requests at a
real server (the command in a process of its own, over a socket; tests/fuzz/test_fuzz.py's `server` fixture, which
also fails on any traceback the server printed).

The documents: the Gemini subset served (GET /__emulator/gemini-openapi.json, built by emulator/wire/openapi.py
from the wire field table validation uses) and the admin API (GET /__emulator/openapi.json, emulator/admin/api.py).
Every answer must pass schemathesis's not_a_server_error and negative_data_rejection (a request the document calls
invalid is refused with a 4xx: the validator and the field table agree), and tests/fuzz/test_fuzz.py's check_answer
(a 4xx is Google's error envelope whose error.code is the HTTP status, or Google's HTML 404 page). Gemini answers
must also match the document (status code, content type, body or SSE events); the admin document lists only its
200s, so those three checks do not apply to it.

Two of schemathesis's phases run. Coverage, deterministic: each field of the body missing, of each wrong type, at
its bounds, unknown names, unexpected HTTP methods; on Developer API generateContent (8,414 requests) and on the
admin API. Fuzzing (hypothesis: valid and invalid requests) on every operation of both documents.

How many: FUZZ_EXAMPLES // 16 fuzzing examples per operation (default 15: a body drawn from the wire table costs
~40 ms to generate, a coverage case ~2 ms), 9,565 requests in ~45 s on 2 cores; with tests/fuzz/test_fuzz.py's 1,750
that is 11,315 per `make test`. `make fuzz` (FUZZ_EXAMPLES=1500) runs 93 per operation and the coverage phase on
more operations (COVERED); FUZZ_RANDOM=1 draws new inputs each run, as in tests/fuzz/test_fuzz.py.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import CheckContext, not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.specs.openapi.definitions import OPENAPI_31_VALIDATOR
from served import Served
from test_fuzz import EXAMPLES, RANDOM, check_answer, server  # noqa: F401 (server: the fixture)

from gemini_emulator.admin import api as admin
from gemini_emulator.config import Settings
from gemini_emulator.protocol import routes
from gemini_emulator.testing.server import start
from gemini_emulator.wire import openapi as gemini_openapi

FUZZ_PER_OPERATION = max(1, EXAMPLES // 16)
# The coverage phase: Developer API generateContent (~8,400 requests, ~15 s); under `make fuzz` also the rest of
# the Developer API and every family's generateContent (~63,000 requests: the families differ in their answers'
# and errors' shapes, not in the body schema, which each covered operation probes in full).
COVERED = {
    "developer.generateContent",
    "openai-compat.chat.completions",
    "openai-compat.embeddings",
    "openai-compat.images.generations",
}
if EXAMPLES >= 1000:
    COVERED |= {f"developer.{name}" for name in (*gemini_openapi.METHODS, "listModels", "getModel")}
    COVERED |= {f"{family}.generateContent" for family in gemini_openapi.FAMILIES}
# Credentials every Gemini call carries (any key or token is accepted): what the server checks after them is the
# point. Admin calls name a namespace of their own, so the entries they script answer nobody else.
GEMINI_HEADERS = {"x-goog-api-key": "schemathesis", "authorization": "Bearer schemathesis"}
ADMIN_HEADERS = {"x-emulator-namespace": "schemathesis-admin"}
FUZZ = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def _schema(document: dict[str, Any], headers: dict[str, str], phases: list[str]) -> schemathesis.BaseSchema:
    schema = schemathesis.openapi.from_dict(document, config=schemathesis.Config())
    schema.config.update(headers=headers)
    schema.config.generation.update(
        modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
        max_examples=FUZZ_PER_OPERATION,
        deterministic=not RANDOM,
    )
    schema.config.phases.update(phases=phases)
    return schema


GEMINI_DOCUMENT = gemini_openapi.document()
GEMINI = _schema(GEMINI_DOCUMENT, GEMINI_HEADERS, ["fuzzing"])
GEMINI_COVERAGE = _schema(GEMINI_DOCUMENT, GEMINI_HEADERS, ["coverage"]).include(operation_id=sorted(COVERED))
ADMIN = _schema(admin.OPENAPI, ADMIN_HEADERS, ["coverage", "fuzzing"])


def _as_httpx(response: schemathesis.Response) -> httpx.Response:
    """The answer as tests/fuzz/test_fuzz.py's check reads it."""
    sent = response.request
    body = sent.body.encode() if isinstance(sent.body, str) else sent.body or b""
    request = httpx.Request(str(sent.method), str(sent.url), headers=dict(sent.headers), content=body)
    headers = [(name, value) for name, values in response.headers.items() for value in values]
    return httpx.Response(response.status_code, headers=headers, content=response.content, request=request)


NOT_JSON = frozenset({f"{admin.PREFIX}/inspector", f"{admin.PREFIX}/firebase-live-shim.js"})  # admin pages


def google_answer(ctx: CheckContext, response: schemathesis.Response, case: schemathesis.Case) -> None:
    """tests/fuzz/test_fuzz.py's property: a 200 with a well-formed body, or a 4xx with Google's envelope (its
    error.code the HTTP status) or Google's HTML 404 page; never a 5xx. (The inspector page is HTML, the Live shim
    JavaScript.)"""
    if case.path in NOT_JSON and response.status_code == 200:
        return
    check_answer(_as_httpx(response), case.path.rsplit(":", 1)[-1] if ":" in case.path else "")


GEMINI_CHECKS = [
    not_a_server_error,
    google_answer,
    negative_data_rejection,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
ADMIN_CHECKS = [not_a_server_error, google_answer, negative_data_rejection]


@GEMINI_COVERAGE.parametrize()
@FUZZ
def test_gemini_coverage(case: schemathesis.Case, server: Served) -> None:  # noqa: F811
    case.call_and_validate(base_url=server.url, checks=GEMINI_CHECKS)


@GEMINI.parametrize()
@FUZZ
def test_gemini_fuzzing(case: schemathesis.Case, server: Served) -> None:  # noqa: F811
    case.call_and_validate(base_url=server.url, checks=GEMINI_CHECKS)


@ADMIN.parametrize()
@FUZZ
def test_admin_api(case: schemathesis.Case, server: Served) -> None:  # noqa: F811
    case.call_and_validate(base_url=server.url, checks=ADMIN_CHECKS)


# --- the documents themselves ------------------------------------------------------------------------------


def test_the_server_serves_the_documents_fuzzed_here(server: Served) -> None:  # noqa: F811
    for path, built in (
        ("gemini-openapi.json", gemini_openapi.document_bytes()),
        ("openapi.json", admin.OPENAPI_BYTES),
    ):
        response = httpx.get(f"{server.url}/__emulator/{path}", timeout=10)
        assert response.status_code == 200 and response.headers["content-type"] == "application/json"
        assert response.content == built
    assert json.loads(gemini_openapi.document_bytes()) == GEMINI_DOCUMENT
    for document in (GEMINI_DOCUMENT, admin.OPENAPI):  # valid OpenAPI 3.1 (schemathesis's copy of its meta-schema)
        assert [str(e) for e in OPENAPI_31_VALIDATOR.iter_errors(document)] == []


_SAMPLE = {
    "version": "",
    "project": "p",
    "location": "us-central1",
    "model": "gemini-2.5-flash",
    "id": "abc",
    "operation": "abc",
    "file": "abc",
    "store": "abc",
    "document": "abc",
    "blob": "abc",
}
# Operations ids (unique in the document) served by another room's verb: a store's operations are the operations room's.
_ROOM_ALIASES = {
    "fileSearchStores.operations.get": "operations.get",
    "fileSearchStores.upload.operations.get": "operations.get",
}
# Methods on a model the resource rooms serve (wire/resources/batches.py), beside the generate ones.
_ROOM_METHODS = {"batchGenerateContent", "asyncBatchEmbedContent"}


def test_every_gemini_path_routes_to_what_it_describes() -> None:
    """Each described path, filled in with each version it allows, reaches the method it names (routes.py)."""
    for path, operations in GEMINI_DOCUMENT["paths"].items():
        for http_method, operation in operations.items():
            params = {p["name"]: p for p in operation["parameters"] if p["in"] == "path"}
            versions = params["version"]["schema"]["enum"] if "version" in params else [""]
            assert set(params) <= set(_SAMPLE), path
            for version in versions:
                url = path.format(**(_SAMPLE | {"version": version}))
                target = routes.match(http_method.upper(), url)
                assert target is not None, url
                operation_id = operation["operationId"]
                if target.action == "room":  # files, operations: the operation is the room's "room.verb"
                    assert target.method == _ROOM_ALIASES.get(operation_id, operation_id), url
                    continue
                assert target.family == operation_id.split(".")[0], url
                if target.action == "openai":  # the OpenAI-compatible surface: the operation names the method
                    assert target.method == operation_id.split(".", 1)[1], url
                    continue
                if target.action in (
                    "cachedContents",
                    "batches",
                    "batchPredictionJobs",
                ):  # the operation ends with the verb
                    assert operation_id == f"{target.family}.{target.action}.{target.method}", url
                    continue
                method = url.rsplit(":", 1)[1] if ":" in url else ""
                served = routes.SERVED_METHODS | _ROOM_METHODS
                assert target.method == method and (not method or method in served), url


def test_request_bodies_come_from_the_wire_field_table() -> None:
    """Every wire message is described, field for field, as validation knows it."""
    table = json.loads(gemini_openapi.WIRE_FIELDS.read_text(encoding="utf-8"))
    schemas = GEMINI_DOCUMENT["components"]["schemas"]
    for name, fields in table["messages"].items():
        assert set(schemas[name]["properties"]) == set(fields), name
        assert schemas[name]["additionalProperties"] is False
    part = schemas["RequestContent"]["properties"]["parts"]
    assert part == {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/Part"}}
    assert schemas["GenerateContentRequestBody"]["required"] == ["contents"]


# --- bugs the fuzzing turned up ----------------------------------------------------------------------------
# Writing the documents' number patterns (ASCII digits) showed numbers in queries read with str.isdigit(), which
# also takes "²" (and, after lstrip("-"), "--5"), and then int() failed: a 500.


def test_a_journal_since_in_other_digits_is_a_400(server: Served) -> None:  # noqa: F811
    response = httpx.get(f"{server.url}{admin.PREFIX}/journal", params={"since": "²"}, headers=ADMIN_HEADERS)
    check_answer(response)
    assert response.status_code == 400 and "since" in response.json()["error"]["message"]


def test_a_finish_reason_that_is_a_list_is_a_400(server: Served) -> None:  # noqa: F811
    """Found by tests/fuzz/test_fuzz.py's admin test (with hypothesis 6.170): a list was looked up in the set of
    reasons, a TypeError and a 500."""
    for field in ("finishReason", "blockReason"):
        entry = {"text": "a", field: []}
        response = httpx.post(f"{server.url}{admin.PREFIX}/script", json=entry, headers=ADMIN_HEADERS)
        check_answer(response)
        assert response.status_code == 400 and field in response.json()["error"]["message"]


def test_a_page_size_that_is_no_number_is_a_400() -> None:
    """Found by schemathesis: "²".isdigit() held, then int() raised (a 500)."""
    running = start(Settings(port=0))  # a server of its own: a 500 logs a traceback the `server` fixture refuses
    try:
        for size in ("²", "--5"):
            response = httpx.get(f"{running.url}/v1beta/models", params={"pageSize": size}, headers=GEMINI_HEADERS)
            check_answer(response)
            assert response.status_code == 400, size
    finally:
        running.stop()
