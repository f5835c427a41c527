"""The admin API under /__emulator over raw HTTP, the Python AdminClient, and the pytest fixtures."""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from google import genai
from google.genai import types

from gemini_emulator import __version__
from gemini_emulator.admin.api import PREFIX, Admin
from gemini_emulator.admin.client import AdminClient, AdminError
from gemini_emulator.admin.journal import Journal
from gemini_emulator.config import Settings
from gemini_emulator.engines.scripted.store import ScriptStore
from gemini_emulator.seam import Chunk, GenerateRequest
from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.testing.server import RunningEmulator, start


@pytest.fixture
def gemini(gemini_fresh: Gemini) -> Gemini:
    """These tests read or write beyond their own namespace (other keys, the shared script, every namespace):
    each gets an emulator of its own."""
    return gemini_fresh


pytest_plugins = ["pytester"]

MODEL = "gemini-2.5-flash"
BODY = {"contents": [{"role": "user", "parts": [{"text": "Say hello"}]}]}
GENERATE = f"/v1beta/models/{MODEL}:generateContent"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


JSON_TYPE = {"content-type": "application/json"}  # admin API bodies must say they are JSON


@pytest.fixture(scope="module")
def server() -> Iterator[RunningEmulator]:
    """A server of this module's own: tests here address the shared namespace and ?all=true."""
    running = start(Settings(port=0))
    yield running
    running.stop()


@pytest.fixture
def http(server: RunningEmulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        client.post(f"{PREFIX}/reset", params={"all": "true"})
        yield client


def key(name: str) -> dict[str, str]:
    return {"x-goog-api-key": name}


def routes() -> set[tuple[str, str]]:
    """(method, path) of every endpoint the admin router serves."""
    admin = Admin(Settings(), ScriptStore(), Journal(), "scripted")
    return {(method, PREFIX + path) for method, path in admin._routes}


# --- service endpoints -----------------------------------------------------------------------------


def test_health(http: httpx.Client) -> None:
    response = http.get(f"{PREFIX}/health")
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    assert response.json() == {"status": "ok"}


def test_version(http: httpx.Client) -> None:
    assert http.get(f"{PREFIX}/version").json() == {"name": "gemini-emulator", "version": __version__}


def test_config_without_an_api_key(server: RunningEmulator, http: httpx.Client) -> None:
    config = http.get(f"{PREFIX}/config").json()
    assert config["api_key"] is None and config["port"] == server.port and config["engine"] == "scripted"
    assert set(config) == set(vars(Settings()))


def test_config_redacts_the_api_key() -> None:
    running = start(Settings(port=0, api_key="super-secret-key", strict=True))
    try:
        response = httpx.get(f"{running.url}{PREFIX}/config")
        assert response.json()["api_key"] == "REDACTED" and response.json()["strict"] is True
        assert "super-secret-key" not in response.text
    finally:
        running.stop()


def test_openapi_describes_every_admin_endpoint(http: httpx.Client) -> None:
    response = http.get(f"{PREFIX}/openapi.json")
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    spec = json.loads(response.content)
    assert spec["openapi"].startswith("3.1.") and spec["info"]["version"] == __version__
    described = {(method.upper(), path) for path, ops in spec["paths"].items() for method in ops}
    assert described == routes()
    for ops in spec["paths"].values():
        for op in ops.values():
            assert op["summary"] and "200" in op["responses"]
            ref = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            if ref:
                assert ref["$ref"].removeprefix("#/components/schemas/") in spec["components"]["schemas"]
    entry = spec["components"]["schemas"]["Entry"]
    from gemini_emulator.engines.scripted.entries import _MODIFIERS, ANSWER_KINDS

    assert set(entry["properties"]) == _MODIFIERS | set(ANSWER_KINDS)


def test_unknown_admin_path_lists_the_endpoints(http: httpx.Client) -> None:
    for method, path in (("GET", f"{PREFIX}/nope"), ("GET", f"{PREFIX}/reset"), ("PATCH", f"{PREFIX}/script")):
        response = http.request(method, path)
        assert response.status_code == 404
        error = response.json()["error"]
        assert error["status"] == "NOT_FOUND"
        assert error["message"].startswith(f"no admin endpoint {method} {path}; known: ")
        known = set(error["message"].split("; known: ", 1)[1].split(", "))
        assert known == {f"{m} {p}" for m, p in routes()}


# --- script ----------------------------------------------------------------------------------------


def test_script_append_list_replace_clear(http: httpx.Client) -> None:
    h = key("script-key")
    added = http.post(f"{PREFIX}/script", headers=h, json={"name": "one", "text": "1"})
    assert added.status_code == 200
    body = added.json()
    assert re.fullmatch(r"key:[0-9a-f]{32}", body["namespace"]) and "script-key" not in added.text
    assert body["added"] == 1
    assert body["entries"] == [{"name": "one", "served": 0, "remaining": 1, "entry": {"name": "one", "text": "1"}}]

    added = http.post(f"{PREFIX}/script", headers=h, json=[{"text": "2"}, {"text": "3", "times": "forever"}]).json()
    assert added["added"] == 2 and [e["name"] for e in added["entries"]] == ["one", "entry-1", "entry-2"]
    added = http.post(f"{PREFIX}/script", headers=h, json={"entries": [{"text": "4", "times": 3}]}).json()
    assert added["added"] == 1 and [e["remaining"] for e in added["entries"]] == [1, 1, "forever", 3]

    listing = http.get(f"{PREFIX}/script", headers=h).json()
    assert listing["namespace"] == body["namespace"] and listing["strict"] is False
    assert [e["entry"]["text"] for e in listing["entries"]] == ["1", "2", "3", "4"]

    served = http.post(GENERATE, headers=h, json=BODY).json()
    assert served["candidates"][0]["content"]["parts"][0]["text"] == "1"

    replaced = http.put(f"{PREFIX}/script", headers=h, json=[{"text": "new"}]).json()
    assert replaced["added"] == 1 and [e["entry"] for e in replaced["entries"]] == [{"text": "new"}]
    assert replaced["entries"][0]["name"] == "entry-4"  # names keep counting within the namespace

    cleared = http.delete(f"{PREFIX}/script", headers=h)
    assert cleared.json() == {"namespace": body["namespace"], "entries": []}
    assert http.get(f"{PREFIX}/script", headers=h).json()["entries"] == []


def test_script_without_a_credential_is_the_shared_namespace(http: httpx.Client) -> None:
    added = http.post(f"{PREFIX}/script", json={"text": "for everyone", "times": "forever"}).json()
    assert added["namespace"] == "*"
    for caller in ("caller-a", "caller-b"):
        answer = http.post(GENERATE, headers=key(caller), json=BODY).json()
        assert answer["candidates"][0]["content"]["parts"][0]["text"] == "for everyone"
    assert http.get(f"{PREFIX}/script").json()["entries"][0]["served"] == 2


def test_namespace_from_bearer_token_query_key_and_header(http: httpx.Client) -> None:
    by_header = http.get(f"{PREFIX}/script", headers=key("same")).json()["namespace"]
    by_query = http.get(f"{PREFIX}/script", params={"key": "same"}).json()["namespace"]
    by_bearer = http.get(f"{PREFIX}/script", headers={"authorization": "Bearer same"}).json()["namespace"]
    assert by_header == by_query == by_bearer != "*"
    named = http.get(f"{PREFIX}/script", headers=key("same") | {"x-emulator-namespace": "mine"}).json()
    assert named["namespace"] == "mine"


def test_strict_set_and_reset_to_null() -> None:
    running = start(Settings(port=0, strict=True))
    try:
        with httpx.Client(base_url=running.url, headers=key("strict-key")) as http:
            assert http.get(f"{PREFIX}/script").json()["strict"] is True  # the server's setting
            assert http.put(f"{PREFIX}/strict", json={"strict": False}).json()["strict"] is False
            assert http.get(f"{PREFIX}/script").json()["strict"] is False
            assert http.post(GENERATE, json=BODY).status_code == 200
            assert http.put(f"{PREFIX}/strict", json={"strict": None}).json()["strict"] is True
            assert http.post(GENERATE, json=BODY).status_code == 400
            assert http.put(f"{PREFIX}/strict", json={"strict": True}).json()["strict"] is True
            for bad in ({"strict": "yes"}, {"strict": 1}, {"strict": 0}, [True]):
                response = http.put(f"{PREFIX}/strict", json=bad)
                assert response.status_code == 400, bad
                assert response.json()["error"]["message"].startswith("strict: expected")
            assert http.put(f"{PREFIX}/strict", content=b"not json", headers=JSON_TYPE).status_code == 400
    finally:
        running.stop()


def test_strict_needs_its_body_and_the_document_says_which() -> None:
    """A missing, non-JSON or wrong body is a 400 in Google's envelope and changes nothing; it used to be a silent
    200 that set the namespace back to following the server."""
    running = start(Settings(port=0))
    try:
        with httpx.Client(base_url=running.url, headers=key("strict-body")) as http:
            schema = http.get(f"{PREFIX}/openapi.json").json()
            put = schema["paths"][f"{PREFIX}/strict"]["put"]
            assert put["requestBody"]["required"] is True and "400" in put["responses"]
            ref = put["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            strict = schema["components"]["schemas"][ref.removeprefix("#/components/schemas/")]
            assert strict["required"] == ["strict"] and strict["properties"]["strict"]["type"] == ["boolean", "null"]
            assert strict["additionalProperties"] is False

            assert http.put(f"{PREFIX}/strict", json={"strict": True}).status_code == 200
            for body, words in (
                (b"", "the body is empty"),
                (b"  \n", "the body is empty"),
                (b"{strict: true}", "the body is not JSON"),
                (b"{}", "expected"),
                (b'{"strict": true, "namespace": "other"}', "expected"),
                (b'"strict"', "expected"),
                (b"null", "expected"),
            ):
                response = http.put(f"{PREFIX}/strict", content=body, headers=JSON_TYPE)
                assert response.status_code == 400, body
                error = response.json()["error"]
                assert error["code"] == 400 and error["status"] == "INVALID_ARGUMENT", body
                assert (
                    error["message"].startswith(f"strict: {words}")
                    and '{"strict": true, false or null' in (error["message"])
                )
            assert http.get(f"{PREFIX}/script").json()["strict"] is True  # unchanged by any of them
    finally:
        running.stop()


def test_strict_without_a_credential_is_every_callers_default(http: httpx.Client) -> None:
    assert http.put(f"{PREFIX}/strict", json={"strict": True}).json() == {"namespace": "*", "strict": True}
    unmatched = http.post(GENERATE, headers=key("follows-shared"), json=BODY)
    assert unmatched.status_code == 400 and unmatched.json()["error"]["status"] == "FAILED_PRECONDITION"
    assert http.get(f"{PREFIX}/script", headers=key("follows-shared")).json()["strict"] is True
    http.put(f"{PREFIX}/strict", headers=key("opts-out"), json={"strict": False})
    assert http.post(GENERATE, headers=key("opts-out"), json=BODY).status_code == 200  # its own setting wins
    http.put(f"{PREFIX}/strict", json={"strict": None})
    assert http.post(GENERATE, headers=key("follows-shared"), json=BODY).status_code == 200


class EchoEngine:
    """An engine with no script store."""

    name = "echo"

    async def generate(self, request: GenerateRequest) -> AsyncIterator[Chunk]:
        yield Chunk(parts=[{"text": request.last_user_text()}], finish_reason="STOP")


def test_script_endpoints_need_a_scripted_engine() -> None:
    running = start(Settings(port=0), engine=EchoEngine())
    try:
        with httpx.Client(base_url=running.url, headers=key("echo-key")) as http:
            for method, path in (("GET", "/script"), ("POST", "/script"), ("PUT", "/strict"), ("DELETE", "/script")):
                response = http.request(method, PREFIX + path, json={"text": "x"})
                assert response.status_code == 400, path
                error = response.json()["error"]
                assert error["status"] == "FAILED_PRECONDITION" and error["message"].endswith("takes no script")
            answer = http.post(GENERATE, json=BODY).json()
            assert answer["candidates"][0]["content"]["parts"][0]["text"] == "Say hello"
            assert http.post(f"{PREFIX}/reset").status_code == 200  # the journal still resets
            assert http.get(f"{PREFIX}/journal").json()["records"] == []
    finally:
        running.stop()


def test_reset_one_namespace_and_all(http: httpx.Client) -> None:
    for caller in ("reset-a", "reset-b"):
        http.post(f"{PREFIX}/script", headers=key(caller), json=[{"text": "x"}, {"text": "y"}])
        http.put(f"{PREFIX}/strict", headers=key(caller), json={"strict": True})
        http.post(GENERATE, headers=key(caller), json=BODY)
    http.post(f"{PREFIX}/script", json={"text": "shared"})

    a = http.post(f"{PREFIX}/reset", headers=key("reset-a"))
    assert a.json() == {"reset": http.get(f"{PREFIX}/script", headers=key("reset-a")).json()["namespace"]}
    listing = http.get(f"{PREFIX}/script", headers=key("reset-a")).json()
    assert listing["entries"] == [] and listing["strict"] is False
    assert http.get(f"{PREFIX}/journal", headers=key("reset-a")).json()["records"] == []
    untouched = http.get(f"{PREFIX}/script", headers=key("reset-b")).json()
    assert len(untouched["entries"]) == 1 and untouched["strict"] is True
    assert len(http.get(f"{PREFIX}/journal", headers=key("reset-b")).json()["records"]) == 1

    assert http.post(f"{PREFIX}/reset", params={"all": "true"}).json() == {"reset": "all"}
    assert http.get(f"{PREFIX}/script", headers=key("reset-b")).json()["entries"] == []
    assert http.get(f"{PREFIX}/script").json()["entries"] == []
    assert http.get(f"{PREFIX}/journal").json()["records"] == []


def test_journal_read_and_clear(http: httpx.Client) -> None:
    http.post(f"{PREFIX}/script", headers=key("journal-a"), json={"name": "hi", "text": "Hi!"})
    http.post(GENERATE, headers=key("journal-a"), json=BODY)
    http.post(GENERATE, headers=key("journal-b"), json=BODY)

    mine = http.get(f"{PREFIX}/journal", headers=key("journal-a")).json()
    (record,) = mine["records"]
    assert mine["namespace"] == record["namespace"] and mine["evicted"] == 0
    assert (record["rpc"], record["model"], record["entry"], record["status"]) == (
        "generateContent",
        MODEL,
        "hi",
        200,
    )
    assert record["body"] == BODY and record["headers"]["x-goog-api-key"] == "REDACTED"
    everyone = http.get(f"{PREFIX}/journal").json()
    assert everyone["namespace"] is None and len(everyone["records"]) == 2
    since = http.get(f"{PREFIX}/journal", params={"since": record["id"]}).json()["records"]
    assert [r["entry"] for r in since] == ["zero-config"]
    assert http.get(f"{PREFIX}/journal", params={"since": "x"}).status_code == 400

    assert http.delete(f"{PREFIX}/journal", headers=key("journal-a")).json()["cleared"] == record["namespace"]
    assert http.get(f"{PREFIX}/journal", headers=key("journal-a")).json()["records"] == []
    assert len(http.get(f"{PREFIX}/journal").json()["records"]) == 1
    assert http.delete(f"{PREFIX}/journal").json() == {"cleared": "all"}
    assert http.get(f"{PREFIX}/journal").json()["records"] == []


# --- bad entries -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "field", "expected"),
    [
        ({"text": "a", "colour": "red"}, "colour", "not an entry field (allowed: "),
        ({"text": "a", "chunks": ["b"]}, "chunks", "one answer kind per entry, and this one already has 'text'"),
        ({"functionCall": {"name": "f"}, "raw": {}}, "raw", "one answer kind per entry"),
        ({"text": "a", "finishReason": "DONE"}, "finishReason", "one of BLOCKLIST, CONTINUATION, "),
        ({"text": "a", "blockReason": "RUDE"}, "blockReason", "one of BLOCKED_REASON_UNSPECIFIED, "),
        ({"text": "a", "match": {"textRegex": "("}}, "match.textRegex", "a regular expression RE2 can run"),
        ({"text": "a", "match": {"colour": "red"}}, "match.colour", "not a matcher (known: text, "),
        ({"text": "a", "match": {"hasTools": "yes"}}, "match.hasTools", "true or false"),
        ({"text": "a", "match": {"turn": -1}}, "match.turn", "a whole number of earlier model turns, 0 or more"),
        ({"text": "a", "times": 0}, "times", 'a positive integer or "forever"'),
        ({"text": "a", "times": "always"}, "times", 'a positive integer or "forever"'),
        ({"error": "teapot"}, "error", "a catalogue name (apiKey, cancelled, "),
        ({"error": {"code": 200}}, "error.code", "an HTTP status from 400 to 599"),
        ({"error": {"code": 399}}, "error.code", "an HTTP status from 400 to 599"),
        ({"error": {"code": 600}}, "error.code", "an HTTP status from 400 to 599"),
        ({"error": {"code": "429"}}, "error.code", "an HTTP status from 400 to 599"),
        ({"error": {"code": True}}, "error.code", "an HTTP status from 400 to 599"),
        ({"error": {"code": 400, "status": 3}}, "error.status", "a string"),
        ({"error": {"code": 400, "details": ["x"]}}, "error.details", "a list of detail objects"),
        ({"error": {"code": 400, "reason": "x"}}, "error.reason", "not an error field"),
        ({"text": "a", "errorAfterChunks": 1}, "errorAfterChunks", "goes with error"),
        ({"functionCall": {"args": {"x": 1}}}, "functionCall", "an object with a non-empty string name"),
        ({"functionCall": [{"name": "f"}, {"name": ""}]}, "functionCall[1]", "an object with a non-empty string name"),
        ({"functionCall": {"name": "f", "args": [1]}}, "functionCall.args", "a JSON object"),
        ({"text": 5}, "text", "a string"),
        ({"chunks": []}, "chunks", "a non-empty list"),
        ({"chunks": ["a", 2]}, "chunks[1]", "a string or a part object"),
        ({"raw": []}, "raw", "a GenerateContentResponse object or a non-empty list of them"),
        (
            {"finishReason": "STOP"},
            "entry",
            "one of text, chunks, functionCall, raw, error, replay (or blockReason, or image)",
        ),
        ({"text": "a", "usage": {"promptTokenCount": "ten"}}, "usage.promptTokenCount", "a whole number of tokens"),
        ({"text": "a", "safetyRatings": ["HIGH"]}, "safetyRatings", "a list of {category, probability} objects"),
        ({"text": "a", "name": 7}, "name", "a string"),
        ("just text", "entry", "a JSON object"),
    ],
)
def test_bad_entry_is_a_bad_request_naming_the_field(
    http: httpx.Client, entry: object, field: str, expected: str
) -> None:
    h = key("bad-entries")
    http.post(f"{PREFIX}/script", headers=h, json={"name": "already-there", "text": "ok"})
    for method in ("POST", "PUT"):
        response = http.request(method, f"{PREFIX}/script", headers=h, json=[entry] if entry == "just text" else entry)
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["status"] == "INVALID_ARGUMENT"
        assert error["message"].startswith("invalid script: ") and field in error["message"]
        (detail,) = error["details"]
        assert detail["@type"] == BAD_REQUEST
        (violation,) = detail["fieldViolations"]
        assert violation["field"] == field and violation["description"].startswith(expected), violation
    # nothing was added, and PUT did not replace
    assert [e["name"] for e in http.get(f"{PREFIX}/script", headers=h).json()["entries"]] == ["already-there"]


def test_bad_entry_in_a_list_is_named_by_index_and_nothing_is_added(http: httpx.Client) -> None:
    h = key("bad-index")
    entries = [{"text": "ok"}, {"text": "ok", "times": 2}, {"text": "x", "times": 0}, {"text": 1}]
    response = http.post(f"{PREFIX}/script", headers=h, json=entries)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"] == 'invalid script: entry 2: times: a positive integer or "forever"'
    assert error["details"][0]["fieldViolations"] == [
        {"field": "times", "description": 'a positive integer or "forever"'}
    ]
    response = http.post(f"{PREFIX}/script", headers=h, json={"entries": [{"text": "ok"}, {"tex": "typo"}]})
    assert response.json()["error"]["message"].startswith("invalid script: entry 1: tex: not an entry field")
    assert http.get(f"{PREFIX}/script", headers=h).json()["entries"] == []


@pytest.mark.parametrize("content", [b"{not json", b"", b"[1,", b"42"])
def test_body_that_is_not_a_script(http: httpx.Client, content: bytes) -> None:
    response = http.post(f"{PREFIX}/script", headers=key("not-json") | JSON_TYPE, content=content)
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert message.startswith("invalid script: ")
    if content in (b"{not json", b"[1,"):
        assert "the body is not JSON" in message
    else:
        assert 'script: an entry object, a list of entries, or {"entries": [...]}' in message


# --- AdminClient -----------------------------------------------------------------------------------


def test_admin_client_round_trip(server: RunningEmulator, http: httpx.Client) -> None:
    admin = AdminClient(server.url, api_key="client-key")
    client = genai.Client(api_key="client-key", http_options=types.HttpOptions(base_url=server.url))
    try:
        assert admin.health()
        pending = admin.script({"name": "a", "text": "A"}, {"name": "b", "text": "B", "times": 2})
        assert [(e["name"], e["remaining"]) for e in pending] == [("a", 1), ("b", 2)]
        assert [e["name"] for e in admin.pending()] == ["a", "b"]
        assert client.models.generate_content(model=MODEL, contents="first").text == "A"
        assert [e["name"] for e in admin.replace({"name": "c", "text": "C"})] == ["c"]
        assert client.models.generate_content(model=MODEL, contents="second").text == "C"
        calls = admin.journal()
        assert calls.entries == ["a", "c"] and calls.user_texts == ["first", "second"]
        assert calls.statuses == [200, 200] and calls.last.model == MODEL and calls.last.rpc == "generateContent"
        assert admin.journal(rpc="countTokens") == [] and len(admin.journal(model=MODEL)) == 2
        assert admin.journal(since=calls[0].record["id"]).entries == ["c"]

        admin.script({"text": "left over"})
        admin.clear()
        assert admin.pending() == []
        admin.strict()
        assert http.get(f"{PREFIX}/script", headers=key("client-key")).json()["strict"] is True
        admin.strict(None)
        assert http.get(f"{PREFIX}/script", headers=key("client-key")).json()["strict"] is False

        with pytest.raises(AdminError) as caught:
            admin.script({"text": "ok"}, {"text": "x", "finishReason": "DONE"})
        assert "POST /__emulator/script: 400 invalid script: entry 1: finishReason: one of" in str(caught.value)
        with pytest.raises(AdminError):
            admin.replace({"nope": 1})
        admin.script({"text": "kept"})
        admin.reset()
        assert admin.pending() == [] and admin.journal() == []
    finally:
        admin.close()


def test_admin_client_namespace_by_name(server: RunningEmulator) -> None:
    admin = AdminClient(server.url, namespace="by-name")
    try:
        admin.script({"text": "named"})
        header = {"x-emulator-namespace": "by-name"}
        client = genai.Client(api_key="any", http_options=types.HttpOptions(base_url=server.url, headers=header))
        assert client.models.generate_content(model=MODEL, contents="x").text == "named"
        assert admin.journal().last.record["namespace"] == "by-name"
    finally:
        admin.close()


# --- the pytest fixtures ---------------------------------------------------------------------------


def test_gemini_fixture_points_the_sdk_through_the_environment(gemini: Gemini) -> None:
    assert os.environ["GOOGLE_GEMINI_BASE_URL"] == gemini.url == os.environ["GOOGLE_VERTEX_BASE_URL"]
    assert os.environ["GEMINI_API_KEY"] == gemini.api_key and "GOOGLE_API_KEY" not in os.environ
    gemini.script({"text": "no code change"}, {"text": "ready client"})
    assert genai.Client().models.generate_content(model=MODEL, contents="x").text == "no code change"
    assert gemini.client.models.generate_content(model=MODEL, contents="x").text == "ready client"
    assert gemini.journal().entries == ["entry-0", "entry-1"]


def test_gemini_shared_fixture_points_the_sdk_through_the_environment(
    gemini_shared: Gemini, gemini_emulator: RunningEmulator
) -> None:
    assert gemini_shared.url == gemini_emulator.url == os.environ["GOOGLE_GEMINI_BASE_URL"]
    assert os.environ["GEMINI_API_KEY"] == gemini_shared.api_key
    gemini_shared.script({"text": "shared server, own key"})
    assert genai.Client().models.generate_content(model=MODEL, contents="x").text == "shared server, own key"


INNER_TESTS = """
import httpx
import pytest
from gemini_emulator.admin.client import AdminClient

seen = {}


def test_a_shared(gemini):
    gemini.script({"text": "used"}, {"text": "left behind"})
    gemini.strict()
    assert gemini.client.models.generate_content(model="gemini-2.5-flash", contents="x").text == "used"
    seen["shared"] = (gemini.url, gemini.api_key)


def test_b_shared_cleaned_up(gemini, gemini_emulator, gemini_shared):
    url, old_key = seen["shared"]
    assert gemini.url == url == gemini_emulator.url == gemini_shared.url  # gemini_shared: the old name
    assert gemini.api_key != old_key and gemini.api_key.startswith("test-")
    old = AdminClient(url, api_key=old_key)
    listing = httpx.get(url + "/__emulator/script", headers={"x-goog-api-key": old_key}).json()
    assert listing["entries"] == [] and listing["strict"] is False
    assert old.journal() == []


def test_c_fresh(gemini_fresh):
    gemini_fresh.script({"text": "fresh"})
    seen["fresh"] = (gemini_fresh.url, gemini_fresh.api_key)


@pytest.mark.gemini_settings(strict=True)
def test_d_fresh_is_another_server(gemini_fresh):
    url, old_key = seen["fresh"]
    assert gemini_fresh.url != url and gemini_fresh.api_key != old_key
    assert gemini_fresh.admin.pending() == [] and gemini_fresh.server.settings.strict  # the marker's settings
    try:
        httpx.get(url + "/__emulator/health", timeout=2)
    except httpx.TransportError:
        pass
    else:
        raise AssertionError("the previous test's server is still running")
"""


def test_fixture_lifecycle_in_a_pytest_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inner=INNER_TESTS)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
