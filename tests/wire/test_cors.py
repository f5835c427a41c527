"""CORS on the Gemini API paths, and App Check enforcement, over real sockets (the browser's own view of both is
tests/browser/test_web_sdks.py).

A page on another origin first sends a preflight (OPTIONS with Access-Control-Request-*); the answer must name the
page's origin, the method and the headers the SDK adds, and every real answer (streams included) must name the
origin again. Requests without an Origin (SDKs outside a browser, curl) keep production's bytes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from gemini_emulator.admin.api import PREFIX
from gemini_emulator.config import Settings
from gemini_emulator.testing.server import RunningEmulator, start
from gemini_emulator.wire import cors

PAGE = "http://localhost:5173"
MODEL = "gemini-2.5-flash"
BODY = {"contents": [{"role": "user", "parts": [{"text": "hello from a page"}]}]}
SDK_HEADERS = "content-type,x-goog-api-key,x-goog-api-client,x-firebase-appid,x-firebase-appcheck"
# Every Gemini path a web SDK calls: Developer, Vertex express, Firebase (both backends), uploads, OpenAI.
PATHS = [
    f"/v1beta/models/{MODEL}:generateContent",
    f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse",
    f"/v1/models/{MODEL}:countTokens",
    f"/v1beta1/publishers/google/models/{MODEL}:generateContent",
    f"/v1beta/projects/demo/models/{MODEL}:generateContent",
    f"/v1beta/projects/demo/locations/us-central1/publishers/google/models/{MODEL}:streamGenerateContent?alt=sse",
    "/upload/v1beta/files",
    "/v1beta/files",
    "/v1beta/openai/chat/completions",
]


def preflight(url: str, origin: str = PAGE, method: str = "POST", headers: str = SDK_HEADERS) -> httpx.Response:
    return httpx.options(
        url,
        headers={"origin": origin, "access-control-request-method": method, "access-control-request-headers": headers},
    )


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, RunningEmulator]]:
    """One emulator per CORS setting these tests compare."""
    running = {
        "default": start(Settings(port=0)),
        "off": start(Settings(port=0, cors_origins="off")),
        "any": start(Settings(port=0, cors_origins="*")),
        "listed": start(Settings(port=0, cors_origins="https://app.example:8443")),
        "app_check": start(Settings(port=0, app_check=True)),
    }
    try:
        yield running
    finally:
        for server in running.values():
            server.stop()


@pytest.mark.parametrize("path", PATHS)
def test_a_preflight_from_a_loopback_page_is_let_in(servers: dict[str, RunningEmulator], path: str) -> None:
    answer = preflight(servers["default"].url + path)
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == PAGE
    assert answer.headers["access-control-allow-headers"] == SDK_HEADERS  # what was asked, echoed
    assert set(answer.headers["access-control-allow-methods"].split(", ")) >= {"GET", "POST", "PUT", "DELETE"}
    assert answer.headers["access-control-max-age"] == "3600"
    assert "Origin" in answer.headers["vary"]


@pytest.mark.parametrize("origin", ["http://127.0.0.1:3000", "https://localhost", "http://[::1]:8000"])
def test_every_loopback_origin_is_let_in_by_default(servers: dict[str, RunningEmulator], origin: str) -> None:
    answer = preflight(servers["default"].url + PATHS[0], origin=origin)
    assert answer.status_code == 200 and answer.headers["access-control-allow-origin"] == origin


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "http://localhost.evil.example", "http://127.0.0.1.nip.io:8080", "null"]
)
def test_a_page_from_another_site_is_kept_out_by_default(servers: dict[str, RunningEmulator], origin: str) -> None:
    url = servers["default"].url
    answer = preflight(url + PATHS[0], origin=origin)
    assert answer.status_code == 400 and "access-control-allow-origin" not in answer.headers
    real = httpx.post(url + PATHS[0], json=BODY, headers={"origin": origin, "x-goog-api-key": "k"})
    assert real.status_code == 200 and "access-control-allow-origin" not in real.headers  # the browser hides it


def test_answers_name_the_page_streams_included(servers: dict[str, RunningEmulator]) -> None:
    url = servers["default"].url
    headers = {"origin": PAGE, "x-goog-api-key": "page-key"}
    unary = httpx.post(url + PATHS[0], json=BODY, headers=headers)
    assert unary.status_code == 200 and unary.headers["access-control-allow-origin"] == PAGE
    assert unary.headers["vary"] == "Origin, X-Origin, Referer"  # production's, Origin not named twice
    assert "x-goog-upload-url" in unary.headers["access-control-expose-headers"]
    with httpx.stream("POST", url + PATHS[1], json=BODY, headers=headers) as stream:
        assert stream.headers["access-control-allow-origin"] == PAGE
        assert stream.headers["content-type"] == "text/event-stream"
        assert b"\r\n\r\n" in stream.read()
    refused = httpx.post(url + PATHS[0], json={"contents": "nope"}, headers=headers)
    assert refused.status_code == 400 and refused.headers["access-control-allow-origin"] == PAGE  # errors readable


def test_an_upload_start_exposes_the_upload_url(servers: dict[str, RunningEmulator]) -> None:
    """@google/genai's browser build reads x-goog-upload-url from the start answer: it must be exposed."""
    start_upload = httpx.post(
        servers["default"].url + "/upload/v1beta/files",
        json={"file": {"mimeType": "text/plain"}},
        headers={
            "origin": PAGE,
            "x-goog-api-key": "page-key",
            "x-goog-upload-protocol": "resumable",
            "x-goog-upload-command": "start",
            "x-goog-upload-header-content-length": "5",
            "x-goog-upload-header-content-type": "text/plain",
        },
    )
    assert start_upload.status_code == 200, start_upload.text
    exposed = {name.strip() for name in start_upload.headers["access-control-expose-headers"].split(",")}
    assert {"x-goog-upload-url", "x-goog-upload-status"} <= exposed
    assert start_upload.headers["x-goog-upload-url"]


def test_callers_without_an_origin_get_production_bytes(servers: dict[str, RunningEmulator]) -> None:
    answer = httpx.post(servers["default"].url + PATHS[0], json=BODY, headers={"x-goog-api-key": "sdk"})
    assert not [name for name in answer.headers if name.startswith("access-control-")]
    assert answer.headers.get_list("vary") == ["Origin, X-Origin, Referer"]


@pytest.mark.parametrize("setting", ["default", "any", "listed"])
def test_the_admin_api_stays_closed_to_other_origins(servers: dict[str, RunningEmulator], setting: str) -> None:
    url = servers[setting].url
    for origin in (PAGE, "https://app.example:8443", "https://evil.example"):
        answer = preflight(url + PREFIX + "/journal", origin=origin, method="GET")
        assert "access-control-allow-origin" not in answer.headers
        read = httpx.get(url + PREFIX + "/journal", headers={"origin": origin})
        assert read.status_code == 403 and "access-control-allow-origin" not in read.headers


def test_cors_off_answers_no_preflight(servers: dict[str, RunningEmulator]) -> None:
    """What a page sees without CORS (the browser test shows the failure itself)."""
    url = servers["off"].url
    answer = preflight(url + PATHS[0])
    assert answer.status_code >= 400 and "access-control-allow-origin" not in answer.headers
    real = httpx.post(url + PATHS[0], json=BODY, headers={"origin": PAGE, "x-goog-api-key": "k"})
    assert real.status_code == 200 and "access-control-allow-origin" not in real.headers


def test_star_lets_any_page_in_and_echoes_it(servers: dict[str, RunningEmulator]) -> None:
    url = servers["any"].url
    answer = preflight(url + PATHS[0], origin="https://anything.example")
    assert answer.headers["access-control-allow-origin"] == "https://anything.example"
    private = httpx.options(
        url + PATHS[0],
        headers={
            "origin": "https://anything.example",
            "access-control-request-method": "POST",
            "access-control-request-private-network": "true",  # Chrome's, a public page calling loopback
        },
    )
    assert private.status_code == 200 and private.headers["access-control-allow-private-network"] == "true"


def test_a_listed_origin_and_no_other(servers: dict[str, RunningEmulator]) -> None:
    url = servers["listed"].url
    assert preflight(url + PATHS[0], origin="https://app.example:8443").status_code == 200
    assert preflight(url + PATHS[0], origin="https://app.example").status_code == 400  # another port
    assert preflight(url + PATHS[0], origin=PAGE).status_code == 400  # loopback not named: not let in


@pytest.mark.parametrize("value", ["localhost:5173", "ftp://x.example", "http://x.example/path", "http://x:port"])
def test_a_setting_that_is_no_origin_says_so(value: str) -> None:
    with pytest.raises(ValueError, match="--cors-origins"):
        cors.origins(value)


def test_the_cli_refuses_a_bad_origin_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gemini_emulator", "serve", "--port", "1", "--cors-origins", "localhost:5173"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "--cors-origins" in done.stderr and "Traceback" not in done.stderr


# --- App Check and Firebase Auth ---------------------------------------------------------------------------------

FIREBASE = f"/v1beta/projects/demo/models/{MODEL}:generateContent"
FIREBASE_VERTEX = f"/v1beta/projects/demo/locations/us-central1/publishers/google/models/{MODEL}:countTokens"
# What the Firebase SDKs send when they could not get a token: base64 of {"error":"UNKNOWN_ERROR"}.
PLACEHOLDER = "eyJlcnJvciI6IlVOS05PV05fRVJST1IifQ=="


@pytest.mark.parametrize("path", [FIREBASE, FIREBASE_VERTEX])
def test_app_check_enforcement_refuses_a_firebase_call_without_a_token(
    servers: dict[str, RunningEmulator], path: str
) -> None:
    url = servers["app_check"].url
    for token in (None, "", PLACEHOLDER):
        headers = {"x-goog-api-key": "firebase-web-key"} | ({} if token is None else {"x-firebase-appcheck": token})
        refused = httpx.post(url + path, json=BODY, headers=headers)
        assert refused.status_code == 401
        assert refused.json() == {
            "error": {"code": 401, "message": "Firebase App Check token is invalid.", "status": "UNAUTHENTICATED"}
        }
    fine = httpx.post(url + path, json=BODY, headers={"x-goog-api-key": "k", "x-firebase-appcheck": "hdr.body.sig"})
    assert fine.status_code == 200


def test_app_check_enforcement_leaves_other_paths_alone(servers: dict[str, RunningEmulator]) -> None:
    answer = httpx.post(servers["app_check"].url + PATHS[0], json=BODY, headers={"x-goog-api-key": "k"})
    assert answer.status_code == 200


def test_app_check_is_off_by_default(servers: dict[str, RunningEmulator]) -> None:
    assert httpx.post(servers["default"].url + FIREBASE, json=BODY, headers={"x-goog-api-key": "k"}).status_code == 200


def test_the_journal_shows_which_firebase_credentials_came_never_their_values(
    servers: dict[str, RunningEmulator],
) -> None:
    url = servers["app_check"].url
    secrets = ("fb-key-123", "appcheck-token-456", "firebase-id-token-789")
    sent = {
        "x-goog-api-key": secrets[0],
        "x-firebase-appcheck": secrets[1],
        "authorization": f"Firebase {secrets[2]}",
        "x-firebase-appid": "1:123:web:abc",
    }
    assert httpx.post(url + FIREBASE, json=BODY, headers=sent).status_code == 200
    httpx.post(url + FIREBASE, json=BODY, headers={"x-goog-api-key": secrets[0]})  # refused: journaled too
    journal = httpx.get(url + PREFIX + "/journal", headers={"x-goog-api-key": secrets[0]})
    records = journal.json()["records"]
    assert [r["status"] for r in records] == [200, 401]
    headers = records[0]["headers"]
    assert headers["x-firebase-appcheck"] == "REDACTED" and headers["authorization"] == "Firebase REDACTED"
    assert headers["x-firebase-appid"] == "1:123:web:abc"
    assert not any(secret in journal.text for secret in secrets)


# --- the Live API's WebSocket: browsers apply no CORS to it, so the server applies the same rule -------------------

LIVE = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=page-key"
SETUP = {"setup": {"model": "models/gemini-2.5-flash-native-audio-latest"}}


def live_setup(server: RunningEmulator, origin: str | None) -> int | dict[str, Any]:
    """The first message of a Live session opened with `origin` (websockets sends none unless told), or the HTTP
    status its handshake was refused with."""
    url = server.url.replace("http", "ws", 1) + LIVE
    try:
        with connect(url, origin=origin, open_timeout=10) as socket:  # type: ignore[arg-type]
            socket.send(json.dumps(SETUP))
            first: dict[str, Any] = json.loads(socket.recv(timeout=10))
            return first
    except InvalidStatus as refused:
        return refused.response.status_code


def test_a_live_session_from_a_loopback_page_opens(servers: dict[str, RunningEmulator]) -> None:
    assert live_setup(servers["default"], PAGE) == {"setupComplete": {}}
    assert live_setup(servers["default"], None) == {"setupComplete": {}}  # SDKs outside a browser send no Origin


def test_a_live_session_from_another_site_is_refused(servers: dict[str, RunningEmulator]) -> None:
    assert live_setup(servers["default"], "https://evil.example") == 403
    assert live_setup(servers["listed"], PAGE) == 403
    assert live_setup(servers["listed"], "https://app.example:8443") == {"setupComplete": {}}
    assert live_setup(servers["off"], PAGE) == 403  # CORS off: no page at all
    assert live_setup(servers["off"], None) == {"setupComplete": {}}
