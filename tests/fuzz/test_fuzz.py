"""Property-based fuzzing: whatever a client sends, the answer is a 200 with a well-formed body or a 4xx with a
Google error envelope (or, for an unroutable URL, Google's HTML 404 page), never a 5xx, a traceback or a hang.

The server is the real command in a process of its own (its own CPU; everything it prints is checked at the
end). Bodies come from the wire field table (emulator/wire/wire_fields.json: every message and field the SDKs send,
with right and wrong types, unknown names and nesting), random JSON, raw bytes (invalid UTF-8 included) and
damaged valid bodies; URLs from the route grammar and random text; methods, queries and content types at random.

How many: FUZZ_EXAMPLES examples per test (default 250: 7 requests per round of the 6 tests, so 1,750
requests, ~18 s on 2 cores); `make fuzz` runs 1,500 per test with random seeds (10,500 requests). The default
run is derandomized so that `make test` is repeatable; `make fuzz` explores new inputs each time.
"""

from __future__ import annotations

import base64
import json
import os
import re
import uuid
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from served import Served, spawn

from gemini_emulator.protocol import routes

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "250"))
RANDOM = os.environ.get("FUZZ_RANDOM", "") == "1"
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not RANDOM,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
TIMEOUT = httpx.Timeout(30.0)  # a hang fails the example; no answer here takes more than milliseconds
FIELDS = json.loads((Path(__file__).parents[2] / "emulator" / "wire" / "wire_fields.json").read_text(encoding="utf-8"))
MODELS = ["gemini-2.5-flash", "gemini-2.5-pro", "gemini-3-pro-preview", "gemini-2.0-flash", "no-such-model", "x"]
# Methods served, routed but not served (501 by design: docs/conformance.md), and unknown ones (HTML 404).
METHODS = sorted(routes.KNOWN_METHODS) + ["generateContnet", "", "generateContent:x"]
NOT_SERVED = routes.KNOWN_METHODS - routes.SERVED_METHODS
CONTENT_TYPES = [
    "application/json",
    "application/json; charset=UTF-8",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/octet-stream",
    "application/xml",
    "",
    "garbage/\u00e9".encode(),  # not ASCII: sent as its UTF-8 bytes
]


# --- strategies --------------------------------------------------------------------------------------------

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
UNKNOWN_NAMES = st.sampled_from(["foo", "Contents", "content", "generation_config_x", "", "__proto__", "$ref"])


def _scalar(kind: str, enum: str) -> st.SearchStrategy[Any]:
    if kind == "string":
        return st.text(max_size=30)
    if kind == "bytes":
        return st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode()) | st.text(max_size=6)
    if kind in ("int32", "int64"):
        huge = st.integers(min_value=2**31, max_value=2**70) | st.integers(max_value=-(2**31), min_value=-(2**70))
        usual = st.integers(-5, 100)
        return st.one_of(usual, usual, usual, usual, huge, st.integers().map(str), st.floats(allow_nan=False))
    if kind in ("float", "double"):
        return st.floats(allow_nan=False) | st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "x"])
    if kind == "bool":
        return st.booleans()
    if kind == "enum":
        return st.sampled_from(FIELDS["enums"].get(enum) or ["X"]) | st.integers(-1, 40) | st.text(max_size=8)
    if kind == "duration":
        return st.sampled_from(["3.5s", "0s", "-1s", "x", "1e9s"])
    if kind == "timestamp":
        return st.sampled_from(["2026-01-01T00:00:00Z", "yesterday", ""])
    return JSON  # struct, value


@cache
def message(name: str, depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """A message from the field table: known fields with values of the right kind (sometimes the wrong one),
    sometimes an unknown name; nesting stops after a few levels."""
    table = FIELDS["messages"].get(name, {})
    optional = {field: _field(spec, depth) for field, spec in sorted(table.items())}
    known = st.fixed_dictionaries({}, optional=optional)
    unknown = st.dictionaries(UNKNOWN_NAMES, JSON, max_size=1)
    return st.builds(lambda a, b: a | b, known, unknown | st.just({}) | st.just({}))


def _field(spec: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    kind = spec["kind"]
    if kind in ("message", "map") and depth >= 3:
        one: st.SearchStrategy[Any] = st.just({})
    elif kind == "message":
        one = st.deferred(lambda: message(spec["type"], depth + 1))
    elif kind == "map":
        one = st.dictionaries(st.text(max_size=6), st.deferred(lambda: message(spec["type"], depth + 1)), max_size=3)
    else:
        one = _scalar(kind, spec.get("type", ""))
    value = st.lists(one, max_size=3) if spec["repeated"] else one
    return value | value | value | JSON  # mostly the right kind, sometimes anything


TEXT_PART = st.fixed_dictionaries({"text": st.text(max_size=200)})
PARTS = st.lists(TEXT_PART | message("Part"), min_size=1, max_size=3)
CONTENT = st.fixed_dictionaries({"parts": PARTS}, optional={"role": st.sampled_from(["user", "model", "x", ""])})
CONTENTS = st.lists(CONTENT, min_size=1, max_size=3)


def _request_body(base: dict[str, Any], contents: list[Any] | None) -> dict[str, Any]:
    return base if contents is None else base | {"contents": contents}


# Bodies from the field table, most of them with contents an engine answers (so engines and printers run).
WIRE_BODIES = st.builds(_request_body, message("GenerateContentRequest"), st.none() | CONTENTS | CONTENTS)
COUNT_BODIES = st.builds(_request_body, message("CountTokensRequest"), st.none() | CONTENTS)
VALID = {"contents": [{"role": "user", "parts": [{"text": "Say hello"}]}]}
VALID_BYTES = json.dumps(VALID).encode()


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    """A valid body cut, spliced or sprinkled with bytes that are not UTF-8."""
    data = bytearray(VALID_BYTES)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["cut", "insert", "replace"]))
        noise = draw(st.binary(min_size=1, max_size=4) | st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00"]))
        if action == "cut":
            del data[at:]
        elif action == "insert":
            data[at:at] = noise
        else:
            data[at : at + len(noise)] = noise
    return bytes(data)


def _nested(depth: int) -> bytes:
    inner = b'"x"'
    for i in range(depth):
        inner = (b"[%s]" if i % 2 else b'{"a": %s}') % inner
    return b'{"contents": [{"parts": [{"functionResponse": {"name": "f", "response": %s}}]}]}' % inner


RAW_BODIES = (
    JSON.map(lambda v: json.dumps(v).encode())
    | st.binary(max_size=200)
    | damaged()
    | st.integers(0, 3000).map(_nested)
    | st.sampled_from([b"", b" ", b"null", b"{}", b"[]", b'"x"', b"1e999", b"{" * 2000, b'{"contents": 1e999}'])
)


def _model_path(family: str, model: str, method: str) -> str:
    model, method = quote(model, safe=""), quote(method, safe=":")
    return {
        "developer": f"/v1beta/models/{model}:{method}",
        "developer-v1": f"/v1/models/{model}:{method}",
        "vertex": f"/v1/projects/p/locations/us-central1/publishers/google/models/{model}:{method}",
        "express": f"/v1beta1/publishers/google/models/{model}:{method}",
        "firebase": f"/v1beta/projects/p/models/{model}:{method}",
        "firebase-vertex": f"/v1beta/projects/p/locations/global/publishers/google/models/{model}:{method}",
    }[family]


FAMILIES = st.sampled_from(["developer", "developer-v1", "vertex", "express", "firebase", "firebase-vertex"])
QUERIES = st.sampled_from(["", "?alt=sse", "?alt=json", "?$alt=json;enum-encoding=int", "?alt=x&key=q", "?alt=sse&"])
CREDENTIALS = st.sampled_from(
    [{"x-goog-api-key": "fuzz"}, {"authorization": "Bearer fuzz"}, {}, {"authorization": "Basic x"}]
)


# --- the server and the properties --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    served = spawn("--max-body-bytes", str(1 << 20))
    yield served
    assert served.terminate() == 0
    printed = served.output()
    for sign in ("Traceback", "unexpected failure", "Exception in ASGI application", "ERROR"):
        assert sign not in printed, printed[-4000:]


@pytest.fixture(scope="module")
def http(server: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=TIMEOUT) as client:
        yield client


_HTML_404 = re.compile(rb"^<!DOCTYPE html>.*Error 404 \(Not Found\)", re.S)


def check_answer(response: httpx.Response, method: str = "") -> None:
    """200 with a well-formed body, or a 4xx with Google's envelope (or HTML 404 page); never a 5xx."""
    try:
        _check(response, method)
    except (AssertionError, ValueError, KeyError, TypeError) as exc:
        request = response.request
        raise AssertionError(
            f"{request.method} {request.url} {dict(request.headers)} body={request.content[:300]!r}\n"
            f"-> {response.status_code} {dict(response.headers)} {response.content[:1000]!r}"
        ) from exc


def _check(response: httpx.Response, method: str) -> None:
    status, body = response.status_code, response.content
    where = f"{response.request.method} {response.request.url}"
    assert "Traceback" not in response.text, where
    if status == 501:  # routed methods the emulator does not serve: documented in docs/conformance.md
        assert method in NOT_SERVED, (where, body[:500])
        return
    assert status < 500, (where, status, body[:1000])
    if response.request.method == "HEAD":  # the status and headers of a GET, no body
        assert status in (200, 404)
        return
    if status >= 400:
        if response.headers.get("content-type", "").startswith("text/html"):
            assert status == 404 and _HTML_404.match(body), (where, body[:300])
            return
        envelope = json.loads(body)
        if isinstance(envelope, list):  # JSON-array stream mode wraps an early error in an array
            (envelope,) = envelope
        error = envelope["error"]
        assert error["code"] == status and isinstance(error["message"], str) and error["status"], (where, body)
        return
    assert status == 200, (where, status)
    kind = response.headers.get("content-type", "")
    if kind == "text/event-stream" and response.request.url.path.startswith(routes.OPENAI_PREFIX):
        events = body.split(b"\n\n")  # the OpenAI-compatible surface: LF framing, then [DONE] or an error event
        assert events[-1] == b"", (where, body[-300:])
        for event in events[:-1]:
            assert event.startswith(b"data: "), (where, event[:200])
            if event != b"data: [DONE]":
                json.loads(event[6:])
    elif kind == "text/event-stream":
        events = body.split(b"\r\n\r\n")
        assert events[-1] == b"" or events[-1].startswith(b"{"), (where, body[-300:])  # a mid-stream error tail
        for event in events[:-1]:
            assert event.startswith(b"data: "), (where, event[:200])
            json.loads(event[6:])
    elif body:
        json.loads(body)  # unary JSON, a model listing, or a JSON-array stream


def _post(http: httpx.Client, path: str, content: bytes, headers: dict[str, str]) -> httpx.Response:
    return http.post(path, content=content, headers=headers)


@FUZZ
@given(
    body=WIRE_BODIES,
    family=FAMILIES,
    model=st.sampled_from(MODELS),
    method=st.sampled_from(["generateContent", "streamGenerateContent"]),
    query=QUERIES,
)
def test_wire_field_bodies(http: httpx.Client, body, family, model, method, query) -> None:
    headers = {"x-goog-api-key": "fuzz", "authorization": "Bearer fuzz", "content-type": "application/json"}
    check_answer(_post(http, _model_path(family, model, method) + query, json.dumps(body).encode(), headers), method)


@FUZZ
@given(body=COUNT_BODIES, family=FAMILIES, model=st.sampled_from(MODELS))
def test_wire_field_count_tokens(http: httpx.Client, body, family, model) -> None:
    headers = {"x-goog-api-key": "fuzz", "authorization": "Bearer fuzz"}
    response = _post(http, _model_path(family, model, "countTokens"), json.dumps(body).encode(), headers)
    check_answer(response, "countTokens")


@FUZZ
@given(
    body=RAW_BODIES,
    family=FAMILIES,
    method=st.sampled_from(sorted(routes.SERVED_METHODS)),
    query=QUERIES,
    content_type=st.sampled_from(CONTENT_TYPES),
    credentials=CREDENTIALS,
)
def test_raw_bodies_and_content_types(http: httpx.Client, body, family, method, query, content_type, credentials):
    headers: dict[str, Any] = credentials | ({"content-type": content_type} if content_type else {})
    check_answer(_post(http, _model_path(family, "gemini-2.5-flash", method) + query, body, headers), method)


SEGMENT = st.text(min_size=0, max_size=12).map(lambda s: quote(s, safe=""))
RANDOM_PATHS = (
    st.lists(SEGMENT | st.sampled_from(["v1beta", "models", "projects", "publishers", "google", ".."]), max_size=7)
    .map(lambda parts: "/" + "/".join(parts))
    .filter(lambda p: not p.startswith("/__emulator"))
)


@FUZZ
@given(
    http_method=st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "PROPFIND"]),
    path=RANDOM_PATHS | st.builds(_model_path, FAMILIES, st.sampled_from(MODELS), st.sampled_from(METHODS)),
    query=QUERIES | st.text(max_size=20).map(lambda q: "?" + quote(q, safe="=&")),
    body=st.sampled_from([b"", VALID_BYTES, b"\xff"]),
    credentials=CREDENTIALS,
)
def test_random_paths_methods_and_queries(http: httpx.Client, http_method, path, query, body, credentials) -> None:
    method = path.rsplit(":", 1)[-1] if ":" in path else ""
    url = str(http.base_url).rstrip("/") + path + query  # absolute: a relative "//x" would be a host name
    response = http.request(http_method, url, content=body, headers=credentials)
    check_answer(response, method)


ADMIN_PATHS = st.sampled_from(
    ["/script", "/strict", "/reset", "/journal", "/config", "/version", "/openapi.json", "/namespaces", "/x", ""]
)
ENTRY_FIELDS = st.sampled_from(
    ["text", "chunks", "functionCall", "raw", "error", "times", "match", "name", "finishReason", "usage", "x"]
)
ENTRIES = st.dictionaries(ENTRY_FIELDS, JSON, max_size=4)
ADMIN_BODIES = (
    ENTRIES.map(lambda e: json.dumps(e).encode())
    | st.lists(ENTRIES, max_size=3).map(lambda e: json.dumps(e).encode())
    | RAW_BODIES
)


@FUZZ
@given(
    http_method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]),
    path=ADMIN_PATHS,
    query=st.sampled_from(["", "?all=true", "?since=x", "?since=5&model=m&rpc=r", "?namespace=%00"]),
    body=ADMIN_BODIES,
)
def test_admin_api(http: httpx.Client, http_method, path, query, body) -> None:
    # A namespace per example: scripted entries (some valid) reach no other test's requests.
    headers = {"x-emulator-namespace": "fuzz-" + uuid.uuid4().hex}
    query = "" if query == "?all=true" and http_method != "GET" else query  # never reset the other tests' state
    check_answer(http.request(http_method, "/__emulator" + path + query, content=body, headers=headers))


NAMES = st.sampled_from(["a", "b", "name", "items", "age", ""])
BOUNDS = st.integers(0, 5) | st.sampled_from([10**9, 2**62, 2**70, "1000000000", -1, 2.5, "x"])
NUMBERS = st.integers(-100, 100) | st.floats(allow_nan=False) | st.sampled_from([2**53, -(2**53), 1e308, "5"])
SCHEMA_TYPES = st.sampled_from(
    ["OBJECT", "ARRAY", "STRING", "INTEGER", "NUMBER", "BOOLEAN", "NULL", "object", "array", "string", "integer"]
    + ["number", "boolean", "null", "TYPE_UNSPECIFIED", "x", 6]
)
SCHEMA_LEAF = st.fixed_dictionaries(
    {},
    optional={
        "type": SCHEMA_TYPES | st.lists(SCHEMA_TYPES, max_size=2),
        "minItems": BOUNDS,
        "maxItems": BOUNDS,
        "minLength": BOUNDS,
        "maxLength": BOUNDS,
        "minProperties": BOUNDS,
        "maxProperties": BOUNDS,
        "minimum": NUMBERS,
        "maximum": NUMBERS,
        "exclusiveMinimum": NUMBERS | st.booleans(),
        "multipleOf": NUMBERS,
        "enum": st.lists(SCALARS, max_size=3),
        "const": SCALARS,
        "format": st.sampled_from(["date", "date-time", "email", "uuid", "enum", "x"]),
        "pattern": st.sampled_from(["^a+$", "(", ""]),
        "nullable": st.booleans(),
        "uniqueItems": st.booleans(),
        "required": st.lists(NAMES, max_size=3),
        "propertyOrdering": st.lists(NAMES, max_size=3),
        "$ref": st.sampled_from(["#", "#/$defs/a", "#/definitions/a", "#/x", "#/properties/a", "other.json"]),
        "additionalProperties": st.booleans(),
    },
)
SCHEMAS = st.recursive(
    SCHEMA_LEAF,
    lambda inner: st.builds(
        lambda leaf, nested: leaf | nested,
        SCHEMA_LEAF,
        st.fixed_dictionaries(
            {},
            optional={
                "properties": st.dictionaries(NAMES, inner, max_size=3),
                "items": inner | st.booleans(),
                "prefixItems": st.lists(inner, max_size=2),
                "anyOf": st.lists(inner, max_size=3),
                "oneOf": st.lists(inner, max_size=2),
                "allOf": st.lists(inner, max_size=2),
                "$defs": st.dictionaries(NAMES, inner, max_size=2),
                "additionalProperties": inner,
            },
        ),
    ),
    max_leaves=12,
)


@FUZZ
@given(contents=CONTENTS, schema=SCHEMAS, mime=st.sampled_from(["application/json", "text/x.enum", "x"]))
def test_structured_output_schemas(http: httpx.Client, contents, schema, mime) -> None:
    """Response schemas of every shape, both dialects (the synthesizer follows them, minItems: 1e9 and
    self-references included): answered, never a hang or a 500."""
    for config in ({"responseSchema": schema}, {"responseJsonSchema": schema}):
        body = {"contents": contents, "generationConfig": {"responseMimeType": mime, **config}}
        response = _post(
            http,
            _model_path("developer", "gemini-2.5-flash", "generateContent"),
            json.dumps(body).encode(),
            {"x-goog-api-key": "fuzz"},
        )
        check_answer(response, "generateContent")
