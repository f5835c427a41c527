"""The container image, run for real with podman and driven over its published port.

`make container-test` builds the image and names it in GEMINI_EMULATOR_IMAGE; without that variable these
tests are skipped, so plain `make test` needs no podman. With it, anything missing (podman, the image) fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from google import genai
from google.genai import types

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.admin.guard import ADMIN_TOKEN_HEADER
from gemini_emulator.testing.server import RunningEmulator

IMAGE = os.environ.get("GEMINI_EMULATOR_IMAGE", "")
if not IMAGE:
    pytest.skip("GEMINI_EMULATOR_IMAGE is not set (make container-test sets it)", allow_module_level=True)

MODEL = "gemini-2.5-flash"
PROMPT = "Write two paragraphs about rivers"
BODY = json.dumps({"contents": [{"role": "user", "parts": [{"text": PROMPT}]}]})
READY_WITHIN_S = 60  # a bound for a hung start, not a speed check
ADMIN_TOKEN = f"container-admin-{uuid.uuid4().hex}"  # the image binds 0.0.0.0: its admin API needs a token


def podman(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=120)
    if check and done.returncode:
        raise AssertionError(f"podman {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done


@dataclass
class Container:
    name: str
    url: str

    def logs(self) -> str:
        done = podman("logs", self.name, check=False)
        return done.stdout + done.stderr

    def state(self, field: str) -> str:
        return podman("inspect", self.name, "--format", "{{.State." + field + "}}").stdout.strip()


def _wait_healthy(container: Container) -> None:
    """Poll the health route until it answers, the container exits, or READY_WITHIN_S pass."""
    deadline = time.monotonic() + READY_WITHIN_S
    while time.monotonic() < deadline:
        try:
            if httpx.get(container.url + "/__emulator/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if container.state("Running") != "true":
            break
        time.sleep(0.1)
    raise AssertionError(f"{container.name} never became healthy:\n{container.logs()}")


@contextmanager
def run_container(*options: str) -> Iterator[Container]:
    """Run the image detached on a loopback port podman picks; always removed afterwards."""
    name = f"gemini-emulator-test-{uuid.uuid4().hex[:10]}"
    try:
        podman("run", "--detach", "--name", name, "--publish", "127.0.0.1::8080", *options, IMAGE)
        port = podman("port", name, "8080").stdout.strip().rsplit(":", 1)[1]
        container = Container(name, f"http://127.0.0.1:{port}")
        _wait_healthy(container)
        yield container
    finally:
        podman("rm", "--force", "--time", "0", name, check=False)


@pytest.fixture(scope="module")
def container() -> Iterator[Container]:
    with run_container("--env", f"GEMINI_EMULATOR_ADMIN_TOKEN={ADMIN_TOKEN}") as running:
        yield running


def _client(url: str, key: str = "container-key") -> genai.Client:
    return genai.Client(api_key=key, http_options=types.HttpOptions(base_url=url))


def _curl(url: str) -> bytes:
    cmd = ["curl", "-sS", "--fail-with-body", "-H", "x-goog-api-key: k", "-H", "content-type: application/json"]
    return subprocess.run([*cmd, "--data", BODY, url], capture_output=True, check=True, timeout=30).stdout


def test_google_genai_generate_stream_and_count_tokens(container, gemini_emulator: RunningEmulator):
    client = _client(container.url)
    unary = client.models.generate_content(model=MODEL, contents=PROMPT)
    chunks = list(client.models.generate_content_stream(model=MODEL, contents=PROMPT))
    counted = client.models.count_tokens(model=MODEL, contents=PROMPT)

    package = _client(gemini_emulator.url)
    assert unary.text == package.models.generate_content(model=MODEL, contents=PROMPT).text
    assert len(chunks) > 1 and "".join(chunk.text for chunk in chunks) == unary.text
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    assert counted.total_tokens == unary.usage_metadata.prompt_token_count > 0


def test_curl_gets_the_same_bytes_as_the_package(container, gemini_emulator: RunningEmulator):
    path = f"/v1beta/models/{MODEL}:"
    for method in ("generateContent", "streamGenerateContent?alt=sse"):
        assert _curl(container.url + path + method) == _curl(gemini_emulator.url + path + method), method
    sse = _curl(container.url + path + "streamGenerateContent?alt=sse")
    events = sse.split(b"\r\n\r\n")
    assert events[-1] == b"" and len(events) > 2
    assert all(event.startswith(b"data: {") and b"\n" not in event for event in events[:-1])


def test_script_loaded_over_the_admin_api_comes_back(container):
    key = f"container-{uuid.uuid4().hex}"
    admin = AdminClient(container.url, api_key=key, admin_token=ADMIN_TOKEN)
    try:
        admin.script({"name": "greeting", "text": "Scripted inside the container."})
        client = _client(container.url, key)  # kept in a variable: a collected Client closes its connection
        answer = client.models.generate_content(model=MODEL, contents="Hi")
        assert answer.text == "Scripted inside the container."
        calls = admin.journal()
    finally:
        admin.close()
    assert calls.last.entry == "greeting" and calls.last.user_text == "Hi"


def test_admin_calls_need_the_token(container):
    for headers in ({}, {ADMIN_TOKEN_HEADER: "wrong"}):
        refused = httpx.get(container.url + "/__emulator/script", headers=headers)
        assert refused.status_code == 403 and ADMIN_TOKEN_HEADER in refused.json()["error"]["message"]
    allowed = httpx.get(container.url + "/__emulator/script", headers={ADMIN_TOKEN_HEADER: ADMIN_TOKEN})
    assert allowed.status_code == 200
    assert ADMIN_TOKEN not in container.logs()


def test_without_a_token_the_admin_api_is_refused_and_says_how_to_set_one():
    with run_container() as running:
        refused = httpx.post(running.url + "/__emulator/script", json=[{"text": "x"}])
        assert refused.status_code == 403
        assert "GEMINI_EMULATOR_ADMIN_TOKEN" in refused.json()["error"]["message"]
        assert httpx.get(running.url + "/__emulator/health").status_code == 200
        assert "REFUSED" in running.logs()  # the banner says so too


def test_health_route(container):
    response = httpx.get(container.url + "/__emulator/health")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_healthcheck_reports_healthy_and_fails_without_a_server(container):
    podman("healthcheck", "run", container.name)
    assert container.state("Health.Status") == "healthy"
    test = json.loads(podman("image", "inspect", IMAGE, "--format", "{{json .Config.Healthcheck.Test}}").stdout)
    assert test[0] == "CMD"
    no_server = podman("exec", "--env", "GEMINI_EMULATOR_PORT=1", container.name, *test[1:], check=False)
    assert no_server.returncode != 0, "the HEALTHCHECK command passes with nothing listening"


def test_runs_as_a_non_root_user(container):
    assert podman("exec", container.name, "id", "-u").stdout.strip() != "0"


def test_a_mounted_script_file_answers(tmp_path: Path):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    entries = scripts / "entries.json"
    entries.write_text(json.dumps([{"text": "Hello from /scripts.", "times": "forever"}]))
    scripts.chmod(0o755)  # the image's user is not root
    entries.chmod(0o644)
    mount = ("--volume", f"{scripts}:/scripts:ro", "--env", "GEMINI_EMULATOR_SCRIPT=/scripts/entries.json")
    with run_container(*mount) as running:
        for key in ("one", "two"):  # shared by every namespace
            client = _client(running.url, key)
            assert client.models.generate_content(model=MODEL, contents="Hi").text == "Hello from /scripts."


def test_stop_sends_sigterm_and_the_server_shuts_down_cleanly():
    with run_container("--env", "GEMINI_EMULATOR_LOG_LEVEL=info") as running:
        podman("stop", "--time", "30", running.name)  # SIGTERM, then SIGKILL (exit 137) after 30 s
        assert running.state("ExitCode") == "0"
        assert "Finished server process" in running.logs()


def test_env_and_help_in_the_image():
    lines = podman("run", "--rm", IMAGE, "env").stdout.splitlines()
    assert "export GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8080" in lines  # the image binds 0.0.0.0:8080
    assert "GEMINI_EMULATOR_SCRIPT" in podman("run", "--rm", IMAGE, "serve", "--help").stdout
