"""docs/scaling.md's routing recipes, run for real: two `gemini-emulator serve --replica r0|r1` processes behind
Debian's nginx (and HAProxy), each proxy started by the test on a free port, in the foreground, with the config
block docs/scaling.md shows (read from the document, its ports replaced), so the document cannot drift from what
is tested. A proxy whose binary is absent skips, saying which package brings it.

Checked through the proxy with google-genai: each of several keys reaches one replica for its Gemini and admin
calls alike (scripts honoured, journals whole); a resumable upload of three chunks by a key that hashes to the
other replica than the key-less follow-ups would completes and is then a usable file; an `alt=sse` stream's
events arrive as the replica sends them, not buffered to the end.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import websockets
from google import genai
from google.genai import types
from google.genai.errors import ExperimentalWarning
from served import Served, spawn

from gemini_emulator.admin.client import AdminClient
from gemini_emulator.testing.server import free_port

pytestmark = pytest.mark.slow  # two servers and a proxy of their own, a 17 MiB upload: left out of make test-fast

DOC = Path(__file__).resolve().parents[2] / "docs" / "scaling.md"
MODEL = "gemini-2.5-flash"
REPLICAS = ("r0", "r1")
DOC_PORTS = {"r0": "127.0.0.1:8081", "r1": "127.0.0.1:8082", "proxy": "127.0.0.1:8080"}
READY_POLLS = 400  # x 25 ms: a bound for a hung proxy start, not a speed check
CHUNK = 8 * 1024 * 1024  # google-genai's upload chunk
UPLOAD_BYTES = 2 * CHUNK + 1024 * 1024  # three chunks: upload, upload, upload+finalize
BINARIES = {"nginx": "/usr/sbin/nginx", "haproxy": "/usr/sbin/haproxy"}


def recipe(language: str) -> str:
    """The one ```language block of docs/scaling.md (`nginx`, `haproxy`, `nginx round-robin`)."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    assert len(blocks) == 1, f"docs/scaling.md has {len(blocks)} ```{language} blocks, not one"
    return str(blocks[0])


def with_ports(text: str, ports: dict[str, int]) -> str:
    """The recipe with the document's example addresses replaced by this run's."""
    for name, address in DOC_PORTS.items():
        assert address in text, f"the recipe names no {address} ({name})"
        text = text.replace(address, f"127.0.0.1:{ports[name]}")
    return text


@dataclass
class Proxy:
    kind: str
    url: str
    replicas: dict[str, Served]

    @property
    def keys(self) -> tuple[str, ...]:
        """Keys of this proxy's own (the replicas serve both proxies, which hash differently)."""
        return tuple(f"{self.kind}-key-{i}" for i in range(12))


def _wait_listening(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    for _ in range(READY_POLLS):
        if proc.poll() is not None:
            raise AssertionError(f"the proxy exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.025)
    raise AssertionError(f"the proxy did not listen on {port}:\n{log.read_text(errors='replace')}")


def _nginx_conf(directory: Path, ports: dict[str, int], block: str = "nginx") -> list[str]:
    """nginx in the foreground with its pid, logs and temporary files in `directory`; the http block is the
    document's (its ```nginx block, or the one named `block`). `routed.log` says which replica answered each
    request (its URI and upstream address)."""
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (directory / sub).mkdir()
    temp = "\n".join(
        f"    {kind}_temp_path {directory / sub};"
        for kind, sub in (
            ("client_body", "body"),
            ("proxy", "proxy"),
            ("fastcgi", "fastcgi"),
            ("uwsgi", "uwsgi"),
            ("scgi", "scgi"),
        )
    )
    conf = directory / "nginx.conf"
    conf.write_text(
        f"daemon off;\nworker_processes 1;\npid {directory / 'nginx.pid'};\nerror_log {directory / 'proxy.log'} warn;\n"
        f"events {{ worker_connections 256; }}\nhttp {{\n    log_format routed '$request_uri $upstream_addr';\n"
        f"    access_log {directory / 'routed.log'} routed;\n{temp}\n" + with_ports(recipe(block), ports) + "}\n",
        encoding="utf-8",
    )
    return [BINARIES["nginx"], "-p", str(directory), "-e", str(directory / "proxy.log"), "-c", str(conf)]


def _haproxy_conf(directory: Path, ports: dict[str, int]) -> list[str]:
    conf = directory / "haproxy.cfg"
    conf.write_text(with_ports(recipe("haproxy"), ports), encoding="utf-8")
    return [BINARIES["haproxy"], "-db", "-f", str(conf)]  # -db: in the foreground


@pytest.fixture(scope="module")
def replicas() -> Iterator[dict[str, Served]]:
    served: dict[str, Served] = {}
    try:
        for name in REPLICAS:
            served[name] = spawn("--replica", name)
        yield served
    finally:
        for server in served.values():
            server.terminate()


@contextmanager
def running_proxy(kind: str, ports: dict[str, int], block: str = "") -> Iterator[tuple[str, Path]]:
    """The `kind` proxy with the document's recipe on `ports` (replica names and "proxy"), in the foreground: its
    URL and its directory (nginx writes routed.log there). A proxy whose binary is absent skips."""
    if not os.access(BINARIES[kind], os.X_OK):
        pytest.skip(f"{BINARIES[kind]} is absent: `apt-get install {kind}` (Debian's package) brings it")
    directory = Path(tempfile.mkdtemp(prefix=f"gemini-emulator-{kind}-"))
    directory.chmod(0o755)  # nginx's workers run as another user when the test runs as root
    command = _nginx_conf(directory, ports, block or kind) if kind == "nginx" else _haproxy_conf(directory, ports)
    log = directory / "proxy.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_listening(proc, ports["proxy"], log)
        yield f"http://127.0.0.1:{ports['proxy']}", directory
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # both: a fast shutdown
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module", params=["nginx", "haproxy"])
def proxy(request: pytest.FixtureRequest, replicas: dict[str, Served]) -> Iterator[Proxy]:
    kind = str(request.param)
    ports = {name: served.port for name, served in replicas.items()} | {"proxy": free_port("127.0.0.1")}
    with running_proxy(kind, ports) as (url, _):
        yield Proxy(kind, url, replicas)


def replica_of(url: str, key: str | None) -> str:
    """The replica that answers `key`'s calls through the proxy at `url` (its --replica, from GET
    /__emulator/config)."""
    headers = {"x-goog-api-key": key} if key else {}
    response = httpx.get(url + "/__emulator/config", headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    return str(response.json()["replica"])


def sdk(url: str, key: str) -> genai.Client:
    return genai.Client(api_key=key, http_options=types.HttpOptions(base_url=url, api_version="v1beta"))


def test_each_key_reaches_one_replica_for_gemini_and_admin_calls(proxy: Proxy) -> None:
    """Every key's calls land on one replica, both replicas serve some keys, and each key's script is honoured
    there and its journal read back through the proxy whole."""
    homes = {key: replica_of(proxy.url, key) for key in proxy.keys}
    assert set(homes.values()) == set(REPLICAS), homes  # the hash spreads the keys over both replicas
    for key in proxy.keys:
        with closing(AdminClient(proxy.url, api_key=key)) as admin:
            admin.clear()
            admin.script({"text": f"scripted for {key}"}, {"chunks": [f"streamed for {key}", " (end)"]})
            client = sdk(proxy.url, key)
            answer = client.models.generate_content(model=MODEL, contents=f"hello from {key}")
            assert answer.text == f"scripted for {key}"
            streamed = "".join(c.text or "" for c in client.models.generate_content_stream(model=MODEL, contents="go"))
            assert streamed == f"streamed for {key} (end)"
            assert admin.pending() == []
            calls = admin.journal()
            assert calls.user_texts[-2:] == [f"hello from {key}", "go"]
        # the key's state is on its replica only: the other one saw none of its calls
        for name, served in proxy.replicas.items():
            with closing(AdminClient(served.url, api_key=key)) as direct:
                texts = direct.journal().user_texts
            assert (f"hello from {key}" in texts) == (name == homes[key]), (key, name, homes[key])


def test_resumable_upload_follow_ups_reach_the_replica_holding_the_session(proxy: Proxy) -> None:
    """google-genai's chunks carry no key: without the upload_id route they would go where the empty key hashes.
    A key whose home is the other replica uploads three chunks through the proxy; the file is then whole there."""
    keyless_home = replica_of(proxy.url, None)
    key = next(k for k in proxy.keys if replica_of(proxy.url, k) != keyless_home)
    home = replica_of(proxy.url, key)
    data = bytes(range(256)) * (UPLOAD_BYTES // 256)
    client = sdk(proxy.url, key)
    uploaded = client.files.upload(file=io.BytesIO(data), config={"mime_type": "application/octet-stream"})
    assert uploaded.name and uploaded.size_bytes == len(data)
    got = client.files.get(name=uploaded.name)
    assert got.size_bytes == len(data) and got.sha256_hash == uploaded.sha256_hash
    assert got.uri and got.uri.startswith(proxy.url + "/"), got.uri  # the proxy's Host passed through
    with closing(AdminClient(proxy.replicas[home].url, api_key=key)) as direct:
        chunks = [c for c in direct.journal() if c.rpc == "files.upload"]
    assert len(chunks) >= 4, [c.rpc for c in chunks]  # the start and three chunks, all on the key's replica
    with httpx.Client(base_url=proxy.url, timeout=30) as http:
        start = http.post(
            "/upload/v1beta/files",
            headers={
                "x-goog-api-key": key,
                "x-goog-upload-protocol": "resumable",
                "x-goog-upload-command": "start",
                "x-goog-upload-header-content-length": "4",
            },
            json={"file": {"mimeType": "text/plain"}},
        )
        upload_url = start.headers["x-goog-upload-url"]
        assert upload_url.startswith(f"{proxy.url}/upload/v1beta/files?upload_id={home}-"), upload_url
        assert key not in upload_url  # the key is never in the URL
        final = http.post(
            upload_url,
            headers={"x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0"},
            content=b"abcd",
        )
        assert final.headers["x-goog-upload-status"] == "final" and final.json()["file"]["sizeBytes"] == "4"
        # the routing prefix is no credential: the same id with another replica's name is no session anywhere
        other = next(n for n in REPLICAS if n != home)
        forged = upload_url.replace(f"upload_id={home}-", f"upload_id={other}-")
        gone = http.post(forged, headers={"x-goog-upload-command": "query"})
        assert gone.status_code == 404 and gone.headers["x-goog-upload-status"] == "final"


def test_sse_events_pass_through_as_they_are_sent(proxy: Proxy) -> None:
    """A stream whose second event is 1.5 s after its first: the first reaches the client through the proxy
    long before the second is sent."""
    key = proxy.keys[0]
    with closing(AdminClient(proxy.url, api_key=key)) as admin:
        admin.clear()
        admin.script({"chunks": ["first", "second"], "chunkDelayMs": 1500})
    path = f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
    body = {"contents": [{"role": "user", "parts": [{"text": "stream"}]}]}
    arrivals: list[float] = []
    began = time.monotonic()
    with httpx.stream("POST", proxy.url + path, headers={"x-goog-api-key": key}, json=body, timeout=30) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("data: "):
                arrivals.append(time.monotonic() - began)
    assert len(arrivals) == 2, arrivals
    assert arrivals[0] < 1.0 and arrivals[1] - arrivals[0] > 1.2, arrivals


LIVE = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
LIVE_MODEL = "models/gemini-2.5-flash-native-audio-latest"


async def _live_turn(url: str, text: str, headers: dict[str, str] | None = None) -> str:
    """One text turn on a Live session at `url`: the model turn's text."""
    said = []
    async with websockets.connect(url, open_timeout=10, additional_headers=headers) as ws:
        await ws.send(
            json.dumps({"setup": {"model": LIVE_MODEL, "generationConfig": {"responseModalities": ["TEXT"]}}})
        )
        assert "setupComplete" in json.loads(await asyncio.wait_for(ws.recv(), 10))
        turn = {"clientContent": {"turns": [{"role": "user", "parts": [{"text": text}]}], "turnComplete": True}}
        await ws.send(json.dumps(turn))
        for _ in range(200):  # a bound: a turn is a few messages
            content = json.loads(await asyncio.wait_for(ws.recv(), 10)).get("serverContent", {})
            said += [p.get("text", "") for p in content.get("modelTurn", {}).get("parts", [])]
            if content.get("turnComplete"):
                return "".join(said)
    raise AssertionError("the turn did not complete")


def test_live_websocket_upgrades_through_the_proxy_to_the_keys_replica(proxy: Proxy) -> None:
    """The Live API's WebSocket (key in the query, as the SDKs send it) passes the proxy's upgrade and reaches the
    replica holding the key's script."""
    key = proxy.keys[1]
    with closing(AdminClient(proxy.url, api_key=key)) as admin:
        admin.clear()
        admin.script({"text": f"live for {key}"})
    url = proxy.url.replace("http", "ws", 1) + LIVE + f"?key={key}"
    assert asyncio.run(_live_turn(url, "hello")) == f"live for {key}"
    with closing(AdminClient(proxy.replicas[replica_of(proxy.url, key)].url, api_key=key)) as direct:
        assert direct.pending() == []


LIVE_CONSTRAINED = "/ws/google.ai.generativelanguage.v1alpha.GenerativeService.BidiGenerateContentConstrained"


def test_live_sessions_opened_with_ephemeral_tokens_reach_the_replica_that_minted_them(proxy: Proxy) -> None:
    """A token minted through the proxy (google-genai) lives on its key's replica: a Live session opened with it as
    google-genai sends it (`Authorization: Token ...`; the SDK itself always dials wss://, so the header is sent
    here as it sends it) or as a browser opens it (`?access_token=`, its slash as sent or escaped) reaches that
    replica, whatever the token itself would hash to. Six tokens, three minted on each replica: without the
    route each would land on the right one by chance, one time in two."""
    keys: dict[str, str] = {}
    for key in proxy.keys:
        keys.setdefault(replica_of(proxy.url, key), key)
    assert set(keys) == set(REPLICAS)
    alpha = types.HttpOptions(base_url=proxy.url, api_version="v1alpha")
    opened: list[tuple[str, str]] = []
    for name, key in sorted(keys.items()):
        with closing(AdminClient(proxy.url, api_key=key)) as admin:
            admin.clear()
            admin.script({"text": f"token session on {name}", "times": 3})
        for way in ("sdk", "query", "escaped"):
            minter = genai.Client(api_key=key, http_options=alpha)
            with warnings.catch_warnings():  # google-genai: token creation is experimental
                warnings.simplefilter("ignore", ExperimentalWarning)
                token = minter.auth_tokens.create(config={"uses": 1})
            assert token.name is not None and token.name.startswith(f"auth_tokens/{name}-")
            url = proxy.url.replace("http", "ws", 1) + LIVE_CONSTRAINED
            if way == "sdk":
                said = asyncio.run(_live_turn(url, "hello", {"Authorization": f"Token {token.name}"}))
            else:
                credential = token.name if way == "query" else token.name.replace("/", "%2F")
                said = asyncio.run(_live_turn(url + f"?access_token={credential}", "hello"))
            opened.append((way, said))
    assert opened == [(way, f"token session on {name}") for name in sorted(keys) for way in ("sdk", "query", "escaped")]


def test_a_replica_that_was_still_starting_gets_its_keys_at_once() -> None:
    """nginx's recipe keeps a replica in the hash however its connections failed (`max_fails=0`): while r1 is not
    listening yet its keys' calls go on to r0 (nginx's next upstream), and once r1 answers its health route the
    next call of one of its keys reaches it, rather than r0 for nginx's default 10 s `fail_timeout`."""
    r0 = spawn("--replica", "r0")
    r1_port = free_port("127.0.0.1")
    ports = {"r0": r0.port, "r1": r1_port, "proxy": free_port("127.0.0.1")}
    r1: Served | None = None
    try:
        with running_proxy("nginx", ports) as (url, _):
            keys = [f"starting-key-{i}" for i in range(12)]
            assert {replica_of(url, key) for key in keys} == {"r0"}  # r1 refused each of its keys' connections
            r1 = spawn("--replica", "r1", port=r1_port)  # returns once its health route answers
            assert "r1" in {replica_of(url, key) for key in keys}
    finally:
        r0.terminate()
        if r1 is not None:
            r1.terminate()


GENERATE = f"/v1beta/models/{MODEL}:generateContent"


def test_replicas_on_redis_need_no_sticky_routing(redis_url: str) -> None:
    """docs/scaling.md's round-robin block in front of two replicas on one Redis, two workers each (four
    processes): 1,000 scripted entries are each answered exactly once to 50 concurrent clients; a 17 MiB
    google-genai upload's start and chunks alternate between the replicas and make one file both read; a batch
    created through the proxy is polled done on each replica; the journal is the same whole log on both."""
    replicas = {name: spawn("--store", redis_url, "--workers", "2", "--replica", name) for name in REPLICAS}
    ports = {name: served.port for name, served in replicas.items()} | {"proxy": free_port("127.0.0.1")}
    key = "round-robin-key"
    try:
        with running_proxy("nginx", ports, "nginx round-robin") as (url, directory):
            assert {replica_of(url, key) for _ in range(4)} == set(REPLICAS)  # each call the next replica
            entries = [{"name": f"e{i}", "text": f"answer {i}"} for i in range(1000)]
            with closing(AdminClient(url, api_key=key)) as admin:
                admin.clear()
                admin.script(*entries)
            texts = asyncio.run(_generate_many(url, key, 1000, clients=50))
            assert sorted(texts) == sorted(e["text"] for e in entries)  # every text exactly once
            with closing(AdminClient(url, api_key=key)) as admin:
                assert admin.pending() == []

            data = bytes(range(256)) * (UPLOAD_BYTES // 256)
            through = sdk(url, key)  # kept: a client collected closes its connections
            direct = {name: sdk(served.url, key) for name, served in replicas.items()}
            uploaded = through.files.upload(file=io.BytesIO(data), config={"mime_type": "text/plain"})
            assert uploaded.name and uploaded.size_bytes == len(data)
            for client in direct.values():
                got = client.files.get(name=uploaded.name)
                assert got.size_bytes == len(data) and got.sha256_hash == uploaded.sha256_hash
            routed = (directory / "routed.log").read_text().splitlines()
            uploads = [line.split()[1] for line in routed if line.startswith("/upload/")]
            assert len(uploads) == 4 and len(set(uploads)) == 2, routed[-8:]  # the start and 3 chunks, alternating

            requests = [{"contents": [{"parts": [{"text": f"q{i}"}], "role": "user"}]} for i in range(3)]
            job = through.batches.create(model=MODEL, src=requests)
            for client in direct.values():
                done = _polled_done(client, str(job.name))
                assert done.state == types.JobState.JOB_STATE_SUCCEEDED
            logs = [_journal(served.url, key) for served in replicas.values()]
            assert logs[0] == logs[1] and len(logs[0]) > 1000
    finally:
        for served in replicas.values():
            served.terminate()


async def _generate_many(url: str, key: str, count: int, clients: int) -> list[str]:
    """`count` generate calls from `clients` connections through the proxy: the answers' texts (200s only)."""
    texts: list[str] = []
    left = iter(range(count))

    async def client() -> None:
        async with httpx.AsyncClient(base_url=url, headers={"x-goog-api-key": key}, timeout=30) as http:
            for _ in left:
                answer = await http.post(GENERATE, json={"contents": [{"role": "user", "parts": [{"text": "x"}]}]})
                assert answer.status_code == 200, answer.text
                texts.append(answer.json()["candidates"][0]["content"]["parts"][0]["text"])

    await asyncio.gather(*(client() for _ in range(clients)))
    return texts


def _journal(url: str, key: str) -> list[tuple[int, str]]:
    """The key's whole journal read through `url`: each record's id and path, in order."""
    records: list[tuple[int, str]] = []
    since = 0
    for _ in range(100):  # pages
        page = httpx.get(url + "/__emulator/journal", params={"since": since}, headers={"x-goog-api-key": key}).json()
        records += [(r["id"], r["path"]) for r in page["records"]]
        if "next" not in page:
            return records
        since = page["next"]
    raise AssertionError("the journal did not end within 100 pages")


def _polled_done(client: genai.Client, name: str) -> types.BatchJob:
    for _ in range(600):  # x 50 ms: a bound, not a speed check
        seen = client.batches.get(name=name)
        if seen.done:
            return seen
        time.sleep(0.05)
    raise AssertionError(f"{name} was not done within 30 s")
