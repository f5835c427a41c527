"""deploy/compose.yaml, run for real: two emulator replicas on Redis behind nginx, started with podman-compose.

`make container-test` builds the emulator's image and names it in GEMINI_EMULATOR_IMAGE; the stack's redis and
nginx images are built by podman-compose from deploy/ (FROM the same local base). Without that variable these tests
are skipped. The stack gets a project name and a free loopback port of its own and is always taken down (its
volumes too). Everything goes through nginx with real google-genai clients.

To make one key's calls land on both replicas through the key-hashing proxy, a call also sends an
`x-emulator-namespace` header: nginx hashes it with the key, while the emulator ignores it (it names a namespace
only together with the admin token), so the call still addresses the key's namespace. GET /__emulator/config
(with the admin token) says which replica a header value reaches.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from google import genai
from google.genai import types

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.admin.guard import ADMIN_TOKEN_HEADER
from gemini_emulator.testing.server import free_port

IMAGE = os.environ.get("GEMINI_EMULATOR_IMAGE", "")
if not IMAGE:
    pytest.skip("GEMINI_EMULATOR_IMAGE is not set (make container-test sets it)", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "deploy" / "compose.yaml"
MODEL = "gemini-2.5-flash"
REPLICAS = ("r0", "r1")
ENTRIES = 20
UP_TIMEOUT_S = 900  # the first `up` builds the redis and nginx images (apt-get): a bound, not a speed check
READY_WITHIN_S = 120  # a bound for a hung start, not a speed check
CHUNK = 8 * 1024 * 1024  # google-genai's upload chunk
UPLOAD_BYTES = 2 * CHUNK + 1024 * 1024  # three chunks: upload, upload, upload+finalize
SPREAD = "x-emulator-namespace"  # hashed by nginx, ignored by the emulator without the admin token (above)


def podman_compose() -> str:
    """podman-compose from this venv (the test extras), else from PATH."""
    beside = Path(sys.executable).with_name("podman-compose")
    return str(beside) if beside.exists() else "podman-compose"


@dataclass
class Stack:
    project: str
    url: str
    admin_token: str
    env: dict[str, str]

    def compose(self, *args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [podman_compose(), "-f", str(COMPOSE_FILE), "-p", self.project, *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=self.env)
        if check and done.returncode:
            raise AssertionError(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return done

    def container(self, service: str) -> str:
        """The running container of `service` (podman-compose labels it as docker compose does)."""
        names = subprocess.run(
            [
                "podman",
                "ps",
                "--filter",
                f"label=com.docker.compose.project={self.project}",
                "--filter",
                f"label=com.docker.compose.service={service}",
                "--format",
                "{{.Names}}",
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.split()
        assert len(names) == 1, (service, names)
        return names[0]

    def logs(self, service: str) -> str:
        done = subprocess.run(["podman", "logs", self.container(service)], capture_output=True, text=True, timeout=30)
        return done.stdout + done.stderr

    def all_logs(self) -> str:
        return self.compose("logs", check=False, timeout=60).stdout

    def replica_of(self, key: str | None, spread: str | None = None) -> str:
        """The replica nginx sends `key`'s calls to (with `spread` as the extra hashed header)."""
        headers = {ADMIN_TOKEN_HEADER: self.admin_token}
        if key:
            headers["x-goog-api-key"] = key
        if spread:
            headers[SPREAD] = spread
        response = httpx.get(self.url + "/__emulator/config", headers=headers, timeout=10)
        assert response.status_code == 200, response.text
        return str(response.json()["replica"])

    def admin(self, key: str) -> AdminClient:
        return AdminClient(self.url, api_key=key, admin_token=self.admin_token)


def _healthy(container: str) -> bool:
    """The image's own HEALTHCHECK, run now (podman runs it on demand where it has no systemd timers)."""
    done = subprocess.run(["podman", "healthcheck", "run", container], capture_output=True, text=True, timeout=30)
    return done.returncode == 0


def _wait_ready(stack: Stack) -> None:
    """Bounded polling: both replicas healthy inside their containers first, then nginx answering for both (the
    recipe's max_fails=0 keeps a replica that was still starting in the hash, so nothing waits out a
    fail_timeout)."""
    deadline = time.monotonic() + READY_WITHIN_S
    waiting = [stack.container(f"emulator-{i}") for i in range(len(REPLICAS))]
    while waiting and time.monotonic() < deadline:
        waiting = [name for name in waiting if not _healthy(name)]
        if waiting:
            time.sleep(0.2)
    seen: set[str] = set()
    while not waiting and time.monotonic() < deadline:
        try:
            if httpx.get(stack.url + "/__emulator/health", timeout=2).status_code == 200:
                seen |= {stack.replica_of("ready", f"probe-{i}") for i in range(8)}
                if seen == set(REPLICAS):
                    return
        except (httpx.TransportError, AssertionError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"the stack never became ready ({waiting or seen}):\n{stack.all_logs()}")


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    port = free_port("127.0.0.1")
    token = f"compose-admin-{uuid.uuid4().hex}"
    env = os.environ | {
        "GEMINI_EMULATOR_IMAGE": IMAGE,
        "GEMINI_EMULATOR_COMPOSE_PORT": str(port),
        "GEMINI_EMULATOR_ADMIN_TOKEN": token,
    }
    running = Stack(f"gemini-compose-test-{uuid.uuid4().hex[:8]}", f"http://127.0.0.1:{port}", token, env)
    try:
        # built every run (from podman's layer cache when deploy/ is unchanged): `up` alone would reuse a stale image
        running.compose("build", "redis", "nginx", timeout=UP_TIMEOUT_S)
        running.compose("up", "--detach", timeout=UP_TIMEOUT_S)
        _wait_ready(running)
        yield running
    finally:
        running.compose("down", "--volumes", "--timeout", "10", check=False, timeout=120)


def sdk(stack: Stack, key: str) -> genai.Client:
    return genai.Client(api_key=key, http_options=types.HttpOptions(base_url=stack.url, api_version="v1beta"))


def spreads_over_both(stack: Stack, key: str, count: int) -> list[tuple[str, str]]:
    """`count` (header value, replica) pairs for `key`, alternating r0, r1, r0, ..."""
    found: dict[str, list[str]] = {name: [] for name in REPLICAS}
    for i in range(20 * count):  # a bound: each value lands on either replica
        value = f"spread-{i}"
        found[stack.replica_of(key, value)].append(value)
        if all(len(values) >= count for values in found.values()):
            break
    assert all(found.values()), f"nginx sent every spread value of {key} to one replica: {found}"
    return [(found[REPLICAS[i % 2]][i // 2], REPLICAS[i % 2]) for i in range(count)]


def test_the_nginx_config_is_the_documented_recipe():
    """deploy/nginx/gemini-emulator.conf is docs/scaling.md's nginx block with only its addresses changed."""
    doc = (ROOT / "docs" / "scaling.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```nginx\n(.*?)^```$", doc, re.S | re.M)
    assert len(blocks) == 1
    documented = blocks[0].split("\n", 1)[1]  # less its first line, the comment naming the example ports
    for example, service in (
        ("127.0.0.1:8081", "emulator-0:8080"),
        ("127.0.0.1:8082", "emulator-1:8080"),
        ("listen 127.0.0.1:8080", "listen 8080"),
    ):
        documented = documented.replace(example, service)
    deployed = (ROOT / "deploy" / "nginx" / "gemini-emulator.conf").read_text(encoding="utf-8")
    assert "\n".join(line for line in deployed.splitlines(keepends=False) if not line.startswith("#")) + "\n" == (
        documented
    )


def test_scripts_of_two_keys_are_consumed_once_each_across_both_replicas(stack: Stack):
    """20 entries per key, posted through the proxy; 20 calls per key alternating between the replicas (and
    interleaved between the keys) get every entry once, in order; the journal, read through the proxy, has them
    all."""
    keys = [f"compose-{name}-{uuid.uuid4().hex[:8]}" for name in ("a", "b")]
    routes = {key: spreads_over_both(stack, key, ENTRIES) for key in keys}
    for key in keys:
        with closing(stack.admin(key)) as admin:
            admin.script(*({"name": f"e{i}", "text": f"{key} answer {i}"} for i in range(ENTRIES)))
    clients = {key: sdk(stack, key) for key in keys}
    seen: dict[str, list[str]] = {key: [] for key in keys}
    served_by: dict[str, set[str]] = {key: set() for key in keys}
    for i in range(ENTRIES):
        for key in keys:
            value, replica = routes[key][i]
            config = types.GenerateContentConfig(
                http_options=types.HttpOptions(api_version="v1beta", headers={SPREAD: value})
            )
            answer = clients[key].models.generate_content(model=MODEL, contents=f"call {i}", config=config)
            seen[key].append(answer.text or "")
            served_by[key].add(replica)
    for key in keys:
        assert seen[key] == [f"{key} answer {i}" for i in range(ENTRIES)], seen[key]
        assert served_by[key] == set(REPLICAS)
        with closing(stack.admin(key)) as admin:
            assert admin.pending() == []
            calls = admin.journal(rpc="generateContent")
        assert calls.entries == [f"e{i}" for i in range(ENTRIES)]
        assert calls.user_texts == [f"call {i}" for i in range(ENTRIES)]
    # both replicas served some of those calls (nginx's access log names the upstream)
    log = stack.logs("nginx")
    upstreams = set(re.findall(r"POST /v1beta/models/\S+:generateContent 200 \S+ upstream=(\S+)", log))
    assert len(upstreams) == 2, log[-2000:]


def test_a_resumable_upload_through_the_proxy_completes_and_files_get_finds_it(stack: Stack):
    """google-genai's three-chunk upload: the chunks carry no key, and nginx hashes an empty key round robin (so
    without the upload_id route they would alternate between the replicas, and one would get the 404); nginx
    routes them by the replica name the upload id begins with, and the file is then there for files.get."""
    key = f"compose-upload-{uuid.uuid4().hex[:8]}"
    home = stack.replica_of(key)
    data = bytes(range(256)) * (UPLOAD_BYTES // 256)
    client = sdk(stack, key)
    uploaded = client.files.upload(file=io.BytesIO(data), config={"mime_type": "application/octet-stream"})
    assert uploaded.name and uploaded.size_bytes == len(data)
    got = client.files.get(name=uploaded.name)
    assert got.size_bytes == len(data) and got.sha256_hash == uploaded.sha256_hash
    assert got.uri and got.uri.startswith(stack.url + "/"), got.uri  # the client's Host passed through nginx
    follow_ups = re.findall(r"POST /upload/v1beta/files 200 route=gemini_emulator_(r\d)", stack.logs("nginx"))
    assert follow_ups == [home] * 3, follow_ups  # three chunks, routed by the id, not by the (absent) key


def test_a_stream_arrives_in_several_chunks_as_they_are_sent(stack: Stack):
    """Zero-config: several chunks, together the unary answer; scripted with 1.5 s between chunks: the first
    reaches the client long before the second is sent (proxy_buffering off)."""
    key = f"compose-stream-{uuid.uuid4().hex[:8]}"
    client = sdk(stack, key)
    chunks = list(client.models.generate_content_stream(model=MODEL, contents="Write two paragraphs about rivers"))
    unary = client.models.generate_content(model=MODEL, contents="Write two paragraphs about rivers")
    assert len(chunks) > 1 and "".join(c.text or "" for c in chunks) == unary.text
    assert chunks[-1].candidates and chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    with closing(stack.admin(key)) as admin:
        admin.script({"chunks": ["first", "second"], "chunkDelayMs": 1500})
    began = time.monotonic()
    arrivals: list[tuple[float, str]] = []
    for chunk in client.models.generate_content_stream(model=MODEL, contents="stream"):
        arrivals.append((time.monotonic() - began, chunk.text or ""))
    assert [text for _, text in arrivals] == ["first", "second"], arrivals
    assert arrivals[0][0] < 1.0 and arrivals[1][0] - arrivals[0][0] > 1.2, arrivals


def test_the_admin_token_is_required_and_never_logged(stack: Stack):
    refused = httpx.get(stack.url + "/__emulator/script", headers={"x-goog-api-key": "k"}, timeout=10)
    assert refused.status_code == 403
    assert stack.admin_token not in stack.all_logs()
