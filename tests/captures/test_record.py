"""Record mode: a proxy to the real service that writes golden captures.

The upstream is mocked with respx (the recorder's own socket and every client of it are real); the opt-in
live test at the end talks to generativelanguage.googleapis.com only when asked: GEMINI_EMULATOR_LIVE_TESTS=1 and
GEMINI_API_KEY (a key alone, which `gemini-emulator env` exports, is not enough).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import respx
from google import genai
from google.genai import types

from gemini_emulator import cli
from gemini_emulator.captures.format import Capture, load_dir
from gemini_emulator.captures.record import Recorder, ScrubRule, create_app
from gemini_emulator.config import Settings
from gemini_emulator.protocol import printers
from gemini_emulator.testing.server import free_port, serve_in_thread, start

UPSTREAM = "https://generativelanguage.googleapis.com"
VERTEX = "https://us-central1-aiplatform.googleapis.com"
KEY = "AIza" + "RecordTestKey0123456789abcdefghijklm"  # shaped like a real key: 39 characters
MODEL_PATH = "/v1beta/models/gemini-2.5-flash"
ANSWER = {
    "candidates": [{"content": {"parts": [{"text": "Paris"}], "role": "model"}, "finishReason": "STOP", "index": 0}],
    "modelVersion": "gemini-2.5-flash",
    "responseId": "recorded-response-id",
}
EVENTS = [
    b'data: {"candidates": [{"content": {"parts": [{"text": "Par"}],"role": "model"},"index": 0}]}\r\n\r\n',
    b'data: {"candidates": [{"content": {"parts": [{"text": "is"}],"role": "model"},"finishReason": "STOP",'
    b'"index": 0}]}'
    b"\r\n\r\n",
]


@dataclass
class Running:
    url: str
    root: Path

    def captures(self) -> list[Capture]:
        return load_dir(self.root) if self.root.is_dir() else []


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    """The upstream, mocked; the recorder's own address is passed through to the real socket."""
    with respx.mock(assert_all_called=False) as mock:
        mock.route(host="127.0.0.1").pass_through()
        yield mock


def _recorder(tmp_path: Path, upstream: str = UPSTREAM, rules: list[ScrubRule] | None = None) -> Iterator[Running]:
    root = tmp_path / "recorded"
    port = free_port("127.0.0.1")
    server, thread = serve_in_thread(create_app(Recorder(upstream, root, rules or [])), "127.0.0.1", port)
    yield Running(f"http://127.0.0.1:{port}", root)
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def recorder(tmp_path: Path, router: respx.MockRouter) -> Iterator[Running]:
    yield from _recorder(tmp_path)


def test_sdk_call_is_relayed_and_recorded_without_the_key(recorder: Running, router: respx.MockRouter) -> None:
    body = printers.pretty(ANSWER)
    route = router.post(url__startswith=UPSTREAM + MODEL_PATH).mock(
        return_value=httpx.Response(200, headers={"content-type": "application/json; charset=UTF-8"}, content=body)
    )
    client = genai.Client(api_key=KEY, http_options=types.HttpOptions(base_url=recorder.url, api_version="v1beta"))
    answer = client.models.generate_content(model="gemini-2.5-flash", contents="Capital of France?")
    assert answer.text == "Paris"
    sent = route.calls.last.request  # the caller's credential went upstream, and identity encoding was asked
    assert sent.headers["x-goog-api-key"] == KEY and sent.headers["accept-encoding"] == "identity"
    (capture,) = recorder.captures()
    assert capture.fidelity == "byte-exact" and capture.provenance["source"] == "gemini-emulator record"
    (exchange,) = capture.exchanges
    assert exchange.request.auth == "api-key" and exchange.request.path == MODEL_PATH + ":generateContent"
    assert set(exchange.request.headers) <= {"content-type", "x-goog-api-client"}
    assert exchange.response.body == body and exchange.facts["framing"] == "unary"
    for path in recorder.root.rglob("*"):
        assert path.is_dir() or KEY not in path.read_text()
    # what was recorded replays byte for byte
    replay = start(Settings(port=0, engine="replay", captures=str(recorder.root)))
    try:
        again = httpx.post(
            replay.url + exchange.request.url, content=exchange.request.body, headers={"x-goog-api-key": "k"}
        )
    finally:
        replay.stop()
    assert again.content == body


def test_the_emulators_own_headers_are_not_forwarded(recorder: Running, router: respx.MockRouter) -> None:
    """An admin token is a secret and a namespace means nothing upstream: neither leaves the emulator."""
    route = router.post(url__startswith=UPSTREAM + MODEL_PATH).mock(
        return_value=httpx.Response(200, headers={"content-type": "application/json; charset=UTF-8"}, content=b"{}")
    )
    own = {"x-emulator-admin-token": "admin-secret", "x-emulator-namespace": "ns"}
    body = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
    answer = httpx.post(
        recorder.url + MODEL_PATH + ":generateContent", headers={"x-goog-api-key": KEY, **own}, json=body
    )
    assert answer.status_code == 200
    sent = route.calls.last.request
    assert sent.headers["x-goog-api-key"] == KEY and not set(own) & set(sent.headers)
    for path in recorder.root.rglob("*"):
        assert path.is_dir() or "admin-secret" not in path.read_text()


def test_a_stream_is_relayed_as_it_arrives(recorder: Running, router: respx.MockRouter) -> None:
    """The upstream holds its second event until the client has the first: a buffering proxy would stall."""
    client_has_first = threading.Event()
    released: list[bool] = []

    async def upstream_body() -> AsyncIterator[bytes]:
        yield EVENTS[0]
        released.append(await asyncio.get_running_loop().run_in_executor(None, client_has_first.wait, 10))
        yield EVENTS[1]

    router.post(url__startswith=UPSTREAM + MODEL_PATH).mock(
        side_effect=lambda request: httpx.Response(
            200,
            headers={"content-type": "text/event-stream", "content-disposition": "attachment"},
            content=upstream_body(),
        )
    )
    url = recorder.url + MODEL_PATH + ":streamGenerateContent?alt=sse&key=" + KEY
    with httpx.stream("POST", url, json={"contents": [{"parts": [{"text": "Capital?"}]}]}) as resp:
        pieces = resp.iter_raw()
        first = next(pieces)
        client_has_first.set()
        rest = b"".join(pieces)
    assert first == EVENTS[0] and released == [True] and rest == EVENTS[1]
    assert resp.headers["content-type"] == "text/event-stream" and resp.headers["content-disposition"] == "attachment"
    (capture,) = recorder.captures()
    (exchange,) = capture.exchanges
    assert exchange.request.query == "alt=sse" and exchange.request.auth == "api-key"
    assert exchange.response.pieces == EVENTS and exchange.facts["chunks"] == 2


def test_a_key_the_service_echoes_is_not_written(recorder: Running, router: respx.MockRouter) -> None:
    error = {
        "error": {
            "code": 400,
            "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT",
            "details": [{"@type": "type.googleapis.com/google.rpc.DebugInfo", "detail": f"Invalid API key: {KEY}"}],
        }
    }
    router.post(url__startswith=UPSTREAM).mock(return_value=httpx.Response(400, content=printers.pretty(error)))
    resp = httpx.post(recorder.url + MODEL_PATH + ":generateContent", json={}, headers={"x-goog-api-key": KEY})
    assert resp.status_code == 400 and KEY in resp.text  # the caller sees what the service said
    (capture,) = recorder.captures()
    assert capture.fidelity == "edited"
    assert capture.provenance["edits"] == ["response: a credential the caller sent replaced by REDACTED"]
    assert "Invalid API key: REDACTED" in capture.exchanges[0].response.body.decode()


def test_vertex_bearer_token_is_forwarded_not_written(tmp_path: Path, router: respx.MockRouter) -> None:
    token = "ya29.a0AfH6SMBrecordtesttoken0123456789"
    path = "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent"
    route = router.post(VERTEX + path).mock(return_value=httpx.Response(200, content=printers.pretty(ANSWER)))
    for running in _recorder(tmp_path, VERTEX):
        headers = {"authorization": f"Bearer {token}", "cookie": "session=secret-cookie"}
        resp = httpx.post(running.url + path, json={"contents": [{"parts": [{"text": "hi"}]}]}, headers=headers)
        assert resp.status_code == 200
        assert route.calls.last.request.headers["authorization"] == f"Bearer {token}"
        (capture,) = running.captures()
        assert capture.exchanges[0].request.auth == "bearer" and capture.provenance["upstream"] == VERTEX
        text = next(running.root.rglob("*.json")).read_text()
        assert token not in text and "secret-cookie" not in text


def test_scrub_rules_edit_the_capture_not_the_answer(tmp_path: Path, router: respx.MockRouter) -> None:
    router.post(url__startswith=UPSTREAM).mock(return_value=httpx.Response(200, content=printers.pretty(ANSWER)))
    for running in _recorder(tmp_path, rules=[ScrubRule.parse("Paris=CITY"), ScrubRule.parse("France")]):
        body = {"contents": [{"parts": [{"text": "Capital of France?"}]}]}
        resp = httpx.post(running.url + MODEL_PATH + ":generateContent", json=body, headers={"x-goog-api-key": "k"})
        assert "Paris" in resp.text
        (capture,) = running.captures()
        (exchange,) = capture.exchanges
        assert "CITY" in exchange.response.body.decode() and "Capital of REDACTED?" in exchange.request.body
        assert capture.fidelity == "edited"
        assert capture.provenance["edits"] == [
            "request: scrubbed by rule 'France'",
            "response: scrubbed by rule 'Paris=CITY'",
        ]


def test_an_unreachable_upstream_is_a_502(recorder: Running, router: respx.MockRouter) -> None:
    router.post(url__startswith=UPSTREAM).mock(side_effect=httpx.ConnectError("refused"))
    resp = httpx.post(recorder.url + MODEL_PATH + ":generateContent", json={}, headers={"x-goog-api-key": "k"})
    assert resp.status_code == 502 and "did not answer (ConnectError)" in resp.text
    assert recorder.captures() == []


def test_spelled_out_credentials_leave_the_query(recorder: Running, router: respx.MockRouter) -> None:
    """`%6Bey=` is `key=` to the server (and to this proxy's own auth): it must not stay in the capture."""
    route = router.post(url__startswith=UPSTREAM).mock(return_value=httpx.Response(200, content=b"{}"))
    query = f"%6Bey={KEY}&access%5Ftoken=ya29.tokentokentokentokentoken&alt=sse"
    assert httpx.post(recorder.url + MODEL_PATH + ":generateContent?" + query, json={}).status_code == 200
    assert route.calls.last.request.url.query.decode() == query  # upstream gets the caller's credential
    (capture,) = recorder.captures()
    assert capture.exchanges[0].request.query == "alt=sse"
    text = next(recorder.root.rglob("*.json")).read_text()
    assert KEY not in text and "tokentoken" not in text


def test_a_key_echoed_in_a_response_header_is_not_written(recorder: Running, router: respx.MockRouter) -> None:
    echo = {"www-authenticate": f'Bearer realm="x", error="invalid_token", key="{KEY}"'}
    router.post(url__startswith=UPSTREAM).mock(return_value=httpx.Response(401, headers=echo, content=b"{}"))
    resp = httpx.post(recorder.url + MODEL_PATH + ":generateContent", json={}, headers={"x-goog-api-key": KEY})
    assert resp.status_code == 401
    (capture,) = recorder.captures()
    assert KEY not in next(recorder.root.rglob("*.json")).read_text() and capture.fidelity == "edited"


def test_the_path_goes_upstream_as_the_caller_wrote_it(recorder: Running, router: respx.MockRouter) -> None:
    """Decoded, `%3F` would start a query upstream and `%00` would not make a URL; a long model name must not
    make an unwritable file name."""
    route = router.post(url__startswith=UPSTREAM).mock(return_value=httpx.Response(404, content=b"{}"))
    for model in ("gemini%3Fkey%3Dx", "gemini%00", "m" * 300):
        resp = httpx.post(
            f"{recorder.url}/v1beta/models/{model}:generateContent",
            json={},
            headers={"x-goog-api-key": "k"},
            timeout=10,
        )
        assert resp.status_code == 404
        assert route.calls.last.request.url.raw_path.decode() == f"/v1beta/models/{model}:generateContent"
        assert route.calls.last.request.url.query == b""
    names = [path.name for path in recorder.root.rglob("*.json")]
    assert len(names) == 3 and all(len(name) < 200 for name in names)


def test_an_upstream_with_credentials_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["record", "--upstream", "https://user:hunter22@generativelanguage.googleapis.com"]) == 2
    err = capsys.readouterr().err
    assert "must not carry credentials" in err and "hunter22" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["record", "--upstream", "ftp://example.com"], "--upstream must be an http(s) URL"),
        (["record", "--upstream", UPSTREAM, "--scrub", "("], "not a regular expression"),
        (["record", "--upstream", UPSTREAM + "/?key=x"], "no query or fragment"),
        (["record", "--upstream", "https://host:port"], "not a URL"),
    ],
)
def test_record_command_refuses_bad_options(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


# --- live: only with a real key -------------------------------------------------------------------------


@pytest.mark.skipif(
    not (os.environ.get("GEMINI_EMULATOR_LIVE_TESTS") == "1" and os.environ.get("GEMINI_API_KEY")),
    reason="live check: set GEMINI_EMULATOR_LIVE_TESTS=1 and GEMINI_API_KEY to run it",
)
def test_live_recording_replays_byte_for_byte(tmp_path: Path) -> None:
    key = os.environ["GEMINI_API_KEY"]
    for running in _recorder(tmp_path):
        client = genai.Client(api_key=key, http_options=types.HttpOptions(base_url=running.url))
        answer = client.models.generate_content(model="gemini-2.5-flash", contents="Say hello in one word.")
        assert answer.text
        (capture,) = running.captures()
        assert key not in next(running.root.rglob("*.json")).read_text()
        replay = start(Settings(port=0, engine="replay", captures=str(running.root)))
        try:
            (exchange,) = capture.exchanges
            again = httpx.post(
                replay.url + exchange.request.url, content=exchange.request.body, headers={"x-goog-api-key": "k"}
            )
        finally:
            replay.stop()
        assert again.content == exchange.response.body
