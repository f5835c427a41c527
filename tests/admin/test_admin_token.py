"""The admin API's guard: open on loopback, a token required everywhere else (or when one is configured),
`GET /__emulator/health` always open, and the token never shown, logged or journaled."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from gemini_emulator.admin.api import PREFIX, Admin
from gemini_emulator.admin.client import AdminClient, AdminError
from gemini_emulator.admin.guard import ADMIN_TOKEN_HEADER, OPEN, is_loopback
from gemini_emulator.admin.journal import Journal
from gemini_emulator.cli import banner, build_parser
from gemini_emulator.config import Settings
from gemini_emulator.engines.scripted.store import ScriptStore
from gemini_emulator.testing.pytest_plugin import Gemini
from gemini_emulator.testing.server import RunningEmulator, free_port, start

TOKEN = "admin-token-7c1f0e-do-not-leak"
API_KEY = "api-key-5d2a9b-do-not-leak"
BODY = {"contents": [{"role": "user", "parts": [{"text": "Say hello"}]}]}
GENERATE = "/v1beta/models/gemini-2.5-flash:generateContent"
BODIES = {
    "/script": [{"text": "x"}],
    "/strict": {"strict": True},
    "/files/state": {"state": "PROCESSING"},
    "/fileSearchStores/state": {"state": "STATE_PENDING"},
    "/batches": {"state": "SUCCEEDED"},
    "/models": [],
    "/tunings": {"state": "SUCCEEDED"},
    "/templates": [],
    "/clock": {"advanceSeconds": 0},
}


def _guarded() -> list[tuple[str, str, object]]:
    """Every admin endpoint but the open ones (health, the inspector's data-free page), read from the router so
    new ones are covered, with a body where it takes one, and an unknown one: refused before routing, so the
    endpoint list is not given away."""
    admin = Admin(Settings(), ScriptStore(), Journal(), "scripted")
    routes = [(m, p, BODIES.get(p) if m in ("POST", "PUT") else None) for m, p in admin._routes if (m, p) not in OPEN]
    return [*routes, ("GET", "/no-such-endpoint", None)]


GUARDED = _guarded()


@contextmanager
def _serve(**settings: object) -> Iterator[tuple[RunningEmulator, str]]:
    running = start(Settings(port=0, **settings))  # type: ignore[arg-type]
    try:
        yield running, f"http://127.0.0.1:{running.port}"  # a wildcard bind is reached through loopback too
    finally:
        running.stop()


@pytest.fixture(scope="module")
def wildcard_open() -> Iterator[tuple[RunningEmulator, str]]:
    """Bound to 0.0.0.0 with no token: the admin API refuses everything but health."""
    with _serve(host="0.0.0.0") as served:
        yield served


@pytest.fixture(scope="module")
def wildcard_token() -> Iterator[tuple[RunningEmulator, str]]:
    with _serve(host="0.0.0.0", admin_token=TOKEN) as served:
        yield served


@pytest.fixture(scope="module")
def loopback_token() -> Iterator[tuple[RunningEmulator, str]]:
    with _serve(admin_token=TOKEN, api_key=API_KEY) as served:
        yield served


def _call(url: str, method: str, path: str, body: object, token: str | None = None) -> httpx.Response:
    headers = {ADMIN_TOKEN_HEADER: token} if token is not None else {}
    return httpx.request(method, url + PREFIX + path, json=body, headers=headers, timeout=10)


def _assert_refused(response: httpx.Response, *phrases: str) -> None:
    assert response.status_code == 403, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert error["code"] == 403 and error["status"] == "PERMISSION_DENIED"
    for phrase in phrases:
        assert phrase in error["message"]
    assert TOKEN not in response.text


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LOCALHOST", True),
        ("0.0.0.0", False),
        ("::", False),
        ("", False),
        ("192.168.1.20", False),
        ("10.0.0.1", False),
        ("my-host.example", False),
    ],
)
def test_which_addresses_count_as_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_non_loopback_without_a_token_refuses_every_admin_call_but_health(wildcard_open) -> None:
    _, url = wildcard_open
    for method, path, body in GUARDED:
        refused = _call(url, method, path, body)
        _assert_refused(refused, "0.0.0.0", "--admin-token", "GEMINI_EMULATOR_ADMIN_TOKEN", ADMIN_TOKEN_HEADER)
        _assert_refused(_call(url, method, path, body, token="anything"), "--admin-token")
    health = _call(url, "GET", "/health", None)
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    assert ("GET", "/health") in OPEN
    for method, path in OPEN:
        assert _call(url, method, path, None).status_code == 200


def test_non_loopback_without_a_token_still_serves_the_gemini_api(wildcard_open) -> None:
    _, url = wildcard_open
    response = httpx.post(url + GENERATE, json=BODY, headers={"x-goog-api-key": "k"})
    assert response.status_code == 200 and response.json()["candidates"][0]["content"]["parts"][0]["text"]


def test_non_loopback_with_a_token_requires_it(wildcard_token) -> None:
    _, url = wildcard_token
    for method, path, body in GUARDED:
        _assert_refused(_call(url, method, path, body), ADMIN_TOKEN_HEADER, "--admin-token")
        _assert_refused(_call(url, method, path, body, token=TOKEN + "x"), ADMIN_TOKEN_HEADER)
        _assert_refused(_call(url, method, path, body, token=TOKEN[:-1]), ADMIN_TOKEN_HEADER)
        _assert_refused(_call(url, method, path, body, token=""), ADMIN_TOKEN_HEADER)
        allowed = _call(url, method, path, body, token=TOKEN)
        assert allowed.status_code == (404 if path == "/no-such-endpoint" else 200), (method, path, allowed.text)
    assert _call(url, "GET", "/health", None).status_code == 200


def test_loopback_with_a_token_requires_it_too(loopback_token) -> None:
    _, url = loopback_token
    for method, path, body in GUARDED:
        _assert_refused(_call(url, method, path, body), ADMIN_TOKEN_HEADER)
        assert _call(url, method, path, body, token=TOKEN).status_code in (200, 404)
    assert _call(url, "GET", "/health", None).status_code == 200


def test_a_token_that_is_not_ascii() -> None:
    with _serve(host="0.0.0.0", admin_token="jeton-été") as (_, url):
        header = {ADMIN_TOKEN_HEADER: "jeton-été".encode()}  # HTTP carries the UTF-8 bytes
        assert httpx.get(url + PREFIX + "/version", headers=header).status_code == 200
        assert httpx.get(url + PREFIX + "/version", headers={ADMIN_TOKEN_HEADER: "jeton-ete"}).status_code == 403


def test_admin_client_sends_the_token(wildcard_token, monkeypatch: pytest.MonkeyPatch) -> None:
    _, url = wildcard_token
    monkeypatch.delenv("GEMINI_EMULATOR_ADMIN_TOKEN", raising=False)
    with pytest.raises(AdminError, match=f"403 .*{ADMIN_TOKEN_HEADER}"):
        AdminClient(url, api_key="client-key").pending()
    admin = AdminClient(url, api_key="client-key", admin_token=TOKEN)
    try:
        admin.script({"text": "Guarded hello."})
        answer = httpx.post(url + GENERATE, json=BODY, headers={"x-goog-api-key": "client-key"})
        assert answer.json()["candidates"][0]["content"]["parts"][0]["text"] == "Guarded hello."
        assert admin.journal().last.user_text == "Say hello"
    finally:
        admin.close()


def test_admin_client_reads_the_token_from_the_environment(wildcard_token, monkeypatch: pytest.MonkeyPatch) -> None:
    _, url = wildcard_token
    monkeypatch.setenv("GEMINI_EMULATOR_ADMIN_TOKEN", TOKEN)
    admin = AdminClient(url, api_key="env-key")
    try:
        assert admin.pending() == []
    finally:
        admin.close()


def test_the_pytest_handle_uses_the_servers_token(wildcard_token, monkeypatch: pytest.MonkeyPatch) -> None:
    running, _ = wildcard_token
    monkeypatch.delenv("GEMINI_EMULATOR_ADMIN_TOKEN", raising=False)
    handle = Gemini(running, "handle-key")
    try:
        handle.script({"text": "From the handle."})
        assert [pending["entry"]["text"] for pending in handle.pending()] == ["From the handle."]
        handle.reset()
    finally:
        handle.close()


def test_the_token_is_never_shown_journaled_or_logged(
    loopback_token, caplog: pytest.LogCaptureFixture, request: pytest.FixtureRequest
) -> None:
    running, url = loopback_token
    caplog.set_level(logging.DEBUG)
    uvicorn_logs = logging.getLogger("uvicorn")  # uvicorn's loggers do not propagate to the root logger
    uvicorn_logs.addHandler(caplog.handler)
    request.addfinalizer(lambda: uvicorn_logs.removeHandler(caplog.handler))
    admin = {ADMIN_TOKEN_HEADER: TOKEN}
    config = httpx.get(url + PREFIX + "/config", headers=admin)
    assert config.json()["admin_token"] == "REDACTED" and config.json()["api_key"] == "REDACTED"
    # A Gemini call that carries the admin token (and the API key) in its headers and the query.
    headers = admin | {"x-goog-api-key": API_KEY}
    answer = httpx.post(url + GENERATE, params={"key": API_KEY}, json=BODY, headers=headers)
    assert answer.status_code == 200
    bad_key = httpx.post(url + GENERATE, json=BODY, headers=admin | {"x-goog-api-key": "wrong"})
    assert bad_key.status_code == 400
    journal = httpx.get(url + PREFIX + "/journal", headers=admin)
    assert journal.status_code == 200 and len(journal.json()["records"]) == 2
    assert journal.json()["records"][0]["headers"][ADMIN_TOKEN_HEADER] == "REDACTED"
    # The server's own logs (this test's client, httpx, logs its URLs: ?key= is the client's business).
    server_logs = "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith(("httpx", "httpcore")))
    for text in (config.text, answer.text, bad_key.text, journal.text, server_logs, repr(running.settings)):
        assert TOKEN not in text and API_KEY not in text
    assert TOKEN not in banner(running.settings)


def test_cli_option_and_environment_variable() -> None:
    args = build_parser().parse_args(["serve", "--admin-token", "from-flag"])
    assert Settings.from_env({}, admin_token=args.admin_token).admin_token == "from-flag"
    assert Settings.from_env({"GEMINI_EMULATOR_ADMIN_TOKEN": "from-env"}).admin_token == "from-env"
    assert Settings.from_env({}).admin_token is None
    serve_help = subprocess.run(
        [sys.executable, "-m", "gemini_emulator", "serve", "--help"], capture_output=True, text=True, timeout=30
    ).stdout
    assert "--admin-token" in serve_help and "GEMINI_EMULATOR_ADMIN_TOKEN" in serve_help


def test_the_command_guards_a_wildcard_bind_and_never_prints_the_token(tmp_path: Path) -> None:
    """The real command on 0.0.0.0 with the token in the environment: the banner says a token is needed,
    the token works, and nothing it prints (info-level logs included) contains it."""
    port = free_port("0.0.0.0")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEMINI_")}
    env |= {"GEMINI_EMULATOR_ADMIN_TOKEN": TOKEN, "GEMINI_EMULATOR_LOG_LEVEL": "debug"}
    cmd = [str(Path(sys.executable).with_name("gemini-emulator")), "serve", "--host", "0.0.0.0", "--port", str(port)]
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("w") as stdout, err.open("w") as stderr:
        server = subprocess.Popen(cmd, env=env, stdout=stdout, stderr=stderr)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, server)
        _assert_refused(httpx.get(url + PREFIX + "/script"), ADMIN_TOKEN_HEADER)
        assert httpx.get(url + PREFIX + "/script", headers={ADMIN_TOKEN_HEADER: TOKEN}).status_code == 200
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
    printed = out.read_text() + err.read_text()
    assert f"needs header {ADMIN_TOKEN_HEADER}" in printed and "Finished server process" in printed
    assert TOKEN not in printed


def _wait_healthy(url: str, server: subprocess.Popen[bytes]) -> None:
    """Poll health until the server answers; the timeout is a bound for a hung start, not a speed check."""
    for _ in range(600):
        try:
            if httpx.get(url + PREFIX + "/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert server.poll() is None, "the server exited"
        try:
            server.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            pass
    raise AssertionError("the server never became healthy")


def test_the_openapi_description_declares_the_token(loopback_token) -> None:
    _, url = loopback_token
    spec = httpx.get(url + PREFIX + "/openapi.json", headers={ADMIN_TOKEN_HEADER: TOKEN}).json()
    scheme = spec["components"]["securitySchemes"]["adminToken"]
    assert scheme == {"type": "apiKey", "in": "header", "name": ADMIN_TOKEN_HEADER}
    assert {"adminToken": []} in spec["security"] and {} in spec["security"]  # optional on loopback
