"""Isolation and the admin API (issue 14, third section): web pages, namespaces, credentials, paths."""

from __future__ import annotations

import hashlib

import httpx
from redteam import ADMIN, GENERATE, JSON_TYPE, body, server

from gemini_emulator.testing.server import RunningEmulator


def test_a_cross_site_text_plain_post_plants_nothing(http: httpx.Client) -> None:
    """A form or no-cors fetch needs no preflight: it planted a functionCall answer for every namespace."""
    planted = '{"functionCall": {"name": "rm_rf"}}'
    assert http.post(f"{ADMIN}/script", content=planted, headers={"content-type": "text/plain"}).status_code == 415
    evil = {"origin": "http://evil.example", "content-type": "application/json"}
    assert http.post(f"{ADMIN}/script", content=planted, headers=evil).status_code == 403
    form = {"origin": "http://evil.example", "content-type": "application/x-www-form-urlencoded"}
    assert http.post(f"{ADMIN}/reset?all=true", content=b"a=1", headers=form).status_code in (403, 415)
    assert http.post(f"{ADMIN}/reset?all=true", headers={"sec-fetch-site": "cross-site"}).status_code == 403
    other_port = {"origin": "http://127.0.0.1:1", "content-type": "application/json"}
    assert http.post(f"{ADMIN}/script", content=planted, headers=other_port).status_code == 403
    assert http.get(f"{ADMIN}/script").json()["entries"] == []


def test_dns_rebinding_reads_no_journal(http: httpx.Client, running: RunningEmulator) -> None:
    http.post(GENERATE, headers={"x-goog-api-key": "private"}, json=body("secret plans"))
    rebound = http.get(f"{ADMIN}/journal", headers={"host": f"attacker.example:{running.port}"})
    assert rebound.status_code == 403 and "secret plans" not in rebound.text
    assert http.get(f"{ADMIN}/journal", headers={"host": f"localhost:{running.port}"}).status_code == 200
    same = {"origin": running.url, "content-type": "application/json"}  # the inspector's own calls
    assert http.post(f"{ADMIN}/script", json={"text": "ok"}, headers=same).status_code == 200


def test_dns_rebinding_reaches_no_data_plane(http: httpx.Client, running: RunningEmulator) -> None:
    """A page on a name rebound to 127.0.0.1 listed and downloaded the caller's files, and called the models."""
    key = {"x-goog-api-key": "private"}
    rebound = {"host": f"attacker.example:{running.port}"}
    for method, path in (("GET", "/v1beta/files"), ("GET", "/v1beta/models"), ("POST", GENERATE)):
        answer = http.request(method, path, headers=key | rebound, json=body("x") if method == "POST" else None)
        assert answer.status_code == 403, (path, answer.status_code)
        assert answer.json()["error"]["status"] == "PERMISSION_DENIED" and "DNS rebinding" in answer.text
    for name in ("localhost", "127.0.0.1", "[::1]"):
        assert http.get("/v1beta/files", headers=key | {"host": f"{name}:{running.port}"}).status_code == 200
    live = running.url.replace("http", "ws", 1) + "/ws/google.ai.generativelanguage.v1beta.GenerativeService"
    with httpx.Client(timeout=10) as plain:  # the WebSocket handshake, refused before the upgrade
        upgrade = {"connection": "Upgrade", "upgrade": "websocket", "sec-websocket-version": "13"}
        handshake = upgrade | {"sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "host": "attacker.example"}
        refused = plain.get(live.replace("ws", "http", 1) + ".BidiGenerateContent?key=k", headers=handshake)
        assert refused.status_code == 403


def test_preflights_are_answered_and_grant_nothing(http: httpx.Client, running: RunningEmulator) -> None:
    ask = {"origin": "http://evil.example", "access-control-request-method": "POST"}
    foreign = http.options(f"{ADMIN}/script", headers=ask)
    assert foreign.status_code == 403 and "access-control-allow-origin" not in foreign.headers
    own = http.options(f"{ADMIN}/script", headers=ask | {"origin": running.url})
    assert own.status_code == 200 and "access-control-allow-origin" not in own.headers
    assert "POST" in own.headers["allow"]


def test_the_namespace_header_needs_the_admin_token_in_token_mode() -> None:
    with server(admin_token="tok") as running, httpx.Client(base_url=running.url, timeout=10) as http:
        admin = {"x-emulator-admin-token": "tok", "x-emulator-namespace": "victim"}
        assert http.post(f"{ADMIN}/script", headers=admin, json={"text": "victim's answer"}).is_success
        thief = {"x-goog-api-key": "thief", "x-emulator-namespace": "victim"}
        answer = http.post(GENERATE, headers=thief, json=body("hi")).json()
        assert answer["candidates"][0]["content"]["parts"][0]["text"] != "victim's answer"
        assert http.get(f"{ADMIN}/journal", headers=admin).json()["records"] == []
        pending = http.get(f"{ADMIN}/script", headers=admin).json()["entries"]
        assert [e["entry"]["text"] for e in pending] == ["victim's answer"]


def test_vertex_calls_and_the_admin_api_agree_on_the_namespace(http: httpx.Client) -> None:
    both = {"x-goog-api-key": "the-key", "authorization": "Bearer the-token"}
    assert http.post(f"{ADMIN}/script", headers=both, json={"text": "vertex answer"}).is_success
    path = "/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent"
    answer = http.post(path, headers=both, json=body("hi")).json()
    assert answer["candidates"][0]["content"]["parts"][0]["text"] == "vertex answer"
    assert len(http.get(f"{ADMIN}/journal", headers=both).json()["records"]) == 1


def test_the_api_key_is_not_bypassed_by_a_bearer_token() -> None:
    with server(api_key="K") as running, httpx.Client(base_url=running.url, timeout=10) as http:
        bearer = http.post(GENERATE, headers={"authorization": "Bearer junk"}, json=body("hi"))
        assert bearer.status_code == 400
        assert bearer.json()["error"]["details"][0]["reason"] == "API_KEY_INVALID"
        assert http.post(GENERATE, headers={"x-goog-api-key": "K"}, json=body("hi")).status_code == 200


def test_namespace_digests_are_salted_and_long(http: httpx.Client) -> None:
    name = http.post(f"{ADMIN}/script", headers={"x-goog-api-key": "guessable"}, json={"text": "x"}).json()["namespace"]
    assert len(name) == len("key:") + 32
    assert name != "key:" + hashlib.sha256(b"guessable").hexdigest()[:32]
    assert name.removeprefix("key:") not in hashlib.sha256(b"guessable").hexdigest()


def test_an_encoded_admin_prefix_is_an_ordinary_unknown_path(http: httpx.Client) -> None:
    http.post(GENERATE, headers={"x-goog-api-key": "private"}, json=body("secret plans"))
    for path in ("/%5F%5Femulator/journal", "/_%5femulator/journal", "/%5f_emulator/script"):
        response = http.get(path)
        assert response.status_code == 404 and "secret plans" not in response.text
        assert response.headers["content-type"].startswith("text/html")  # the Gemini front end's page


def test_head_health_is_open_in_token_mode() -> None:
    with server(admin_token="tok") as running, httpx.Client(base_url=running.url, timeout=10) as http:
        head, get = http.head(f"{ADMIN}/health"), http.get(f"{ADMIN}/health")
        assert head.status_code == get.status_code == 200 and head.content == b""
        assert head.headers["content-length"] == get.headers["content-length"]
        assert http.head(f"{ADMIN}/journal").status_code == 403


def test_mutations_with_json_still_work(http: httpx.Client) -> None:
    assert http.put(f"{ADMIN}/strict", headers=JSON_TYPE, content=b'{"strict": true}').json()["strict"] is True
    assert http.post(f"{ADMIN}/reset").is_success  # no body, no content type needed
