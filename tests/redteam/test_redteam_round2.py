"""The second red-team round (issue 31): the newer surfaces tried as a hostile page and a hostile caller would."""

from __future__ import annotations

import base64
import datetime
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from redteam import ADMIN, server, timed, within
from served import Served, clean_env, spawn
from websockets.sync.client import connect

from gemini_emulator import tls
from gemini_emulator.testing.server import RunningEmulator

LIVE = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"

PAGE = b"<html><script>fetch('/__emulator/journal?all=true').then(r => r.text()).then(alert)</script></html>"


def _form_upload(http: httpx.Client, mime: str, payload: bytes) -> str:
    """A cross-site form's upload: `multipart/form-data` needs no preflight, and it names its own mime type."""
    boundary = "xss"
    metadata = f'{{"file": {{"displayName": "page.html", "mimeType": "{mime}"}}}}'.encode()
    form = (
        f"--{boundary}\r\nContent-Type: application/json\r\n\r\n".encode()
        + metadata
        + f"\r\n--{boundary}\r\nContent-Type: {mime}\r\n\r\n".encode()
        + payload
        + f"\r\n--{boundary}--\r\n".encode()
    )
    answer = http.post(
        "/upload/v1beta/files?uploadType=multipart&key=page",
        content=form,
        headers={"content-type": f"multipart/form-data; boundary={boundary}"},
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["file"]["name"])


@pytest.mark.parametrize("mime", ["text/html", "image/svg+xml"])
def test_an_uploaded_page_downloads_as_an_attachment_that_cannot_run(http: httpx.Client, mime: str) -> None:
    name = _form_upload(http, mime, PAGE)
    served = http.get(f"/v1beta/{name}:download", params={"alt": "media", "key": "page"})
    assert served.status_code == 200 and served.content == PAGE
    assert served.headers["content-type"] == mime  # the bytes and their type come back as stored...
    assert served.headers["content-disposition"] == "attachment"  # ...but a browser saves them, never renders
    assert served.headers["content-security-policy"] == "sandbox"  # and were it to render them, no script runs
    assert served.headers["x-content-type-options"] == "nosniff"


def test_the_openai_surface_honours_the_namespace_header_only_with_the_admin_token() -> None:
    with server(admin_token="tok") as running, httpx.Client(base_url=running.url, timeout=10) as http:
        admin = {"x-emulator-admin-token": "tok", "x-emulator-namespace": "victim"}
        assert http.post(f"{ADMIN}/script", headers=admin, json={"text": "victim's answer"}).is_success
        thief = {"authorization": "Bearer thief", "x-emulator-namespace": "victim"}
        chat = {"model": "gemini-2.5-flash", "messages": [{"role": "user", "content": "hi"}]}
        answer = http.post("/v1beta/openai/chat/completions", headers=thief, json=chat)
        assert answer.status_code == 200, answer.text
        assert answer.json()["choices"][0]["message"]["content"] != "victim's answer"
        assert http.get(f"{ADMIN}/journal", headers=admin).json()["records"] == []
        pending = http.get(f"{ADMIN}/script", headers=admin).json()["entries"]
        assert [e["entry"]["text"] for e in pending] == ["victim's answer"]


def test_the_serve_log_never_holds_a_credential_a_handshake_carried() -> None:
    """The real command at debug level, where uvicorn logs each handshake's query and websockets every header."""
    served = spawn(env=clean_env(GEMINI_EMULATOR_LOG_LEVEL="debug"))
    try:
        ws = served.url.replace("http", "ws", 1) + LIVE
        with connect(f"{ws}?key=query-secret-1", additional_headers={"x-goog-api-key": "header-secret-2"}) as live:
            live.send('{"setup": {"model": "models/gemini-2.5-flash-native-audio-latest"}}')
            assert "setupComplete" in str(live.recv(timeout=10))
        with connect(f"{ws}?access_token=auth_tokens/token-secret-3", additional_headers={"authorization": "Token x"}):
            pass
    finally:
        assert served.terminate() == 0
    printed = served.output()
    assert '"WebSocket ' in printed and "[redacted]" in printed  # the lines are there, the values are not
    for secret in ("query-secret-1", "header-secret-2", "token-secret-3"):
        assert secret not in printed


def _leaf_for(name: str, ca_cert: Any, ca_key: Any) -> Any:
    """A server certificate for `name` that the key of the emulator's CA signs, as a thief of that key would."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    public = ec.generate_private_key(ec.SECP256R1()).public_key()
    return (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_cert.subject)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )


def test_the_tls_certificate_vouches_for_the_emulators_names_only(tmp_path: Path) -> None:
    """Trusting `--tls`'s CA must not let its key (readable on disk) sign a leaf for any other site."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.x509.verification import PolicyBuilder, Store, VerificationError

    made = tls.generated("127.0.0.1", tmp_path)
    ca = x509.load_pem_x509_certificate(made.cert.read_bytes())
    key = serialization.load_pem_private_key(made.key.read_bytes(), password=None)
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.path_length == 0

    def verify(name: str) -> None:
        verifier = PolicyBuilder().store(Store([ca])).build_server_verifier(x509.DNSName(name))
        verifier.verify(_leaf_for(name, ca, key), [])

    verify("localhost")  # the names it serves still verify...
    with pytest.raises(VerificationError):
        verify("accounts.google.com")  # ...and a leaf for any other name does not


def test_a_claimed_pcm_rate_neither_stretches_the_turn_bound_nor_divides_by_zero() -> None:
    from gemini_emulator.wire.live.listening import MAX_TURN_BYTES, Listener

    listener = Listener()
    piece = b"\x00\x40" * 32_768  # 64 KiB of loud PCM
    for _ in range(200):  # 12.8 MiB claimed at a rate that would allow ~120 MB a turn
        listener.feed(piece, "audio/pcm;rate=999999")
    assert len(listener.audio) <= MAX_TURN_BYTES
    listener.feed(piece, "audio/pcm;rate=000")  # clamped, not a ZeroDivisionError


def test_live_survives_audio_that_claims_a_zero_rate(running: RunningEmulator) -> None:
    ws = running.url.replace("http", "ws", 1) + LIVE + "?key=rate"
    with connect(ws) as live:
        live.send('{"setup": {"model": "models/gemini-2.5-flash-native-audio-latest"}}')
        assert "setupComplete" in str(live.recv(timeout=10))
        audio = base64.b64encode(b"\x00\x40" * 4000).decode()
        live.send(json.dumps({"realtimeInput": {"audio": {"data": audio, "mimeType": "audio/pcm;rate=000"}}}))
        live.send(json.dumps({"realtimeInput": {"audioStreamEnd": True}}))
        answer = str(live.recv(timeout=10))
        assert "serverContent" in answer or "inputTranscription" in answer, answer[:300]


def _rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])


@pytest.mark.slow  # a server of its own and 22 MB of caches: left out of make test-fast
def test_a_cached_content_keeps_the_bytes_it_counts() -> None:
    """A 12 MB create of 1M tiny parts kept 248 MiB of parsed JSON while the cache budget counted 12 MB."""
    parts = [{"text": "a b"}] * 90_000  # under the parts bound (validate.MAX_PARTS)
    cache = {"model": "models/gemini-2.5-flash", "contents": [{"role": "user", "parts": parts}]}
    each = len(json.dumps(cache, separators=(",", ":")))
    served = spawn()
    try:
        with httpx.Client(base_url=served.url, timeout=60) as http:
            first = http.post("/v1beta/cachedContents?key=hoard", json=cache)  # the parse's own arenas, once
            assert first.status_code == 200, first.text
            before = _rss_kib(served.proc.pid)
            for _ in range(16):
                assert http.post("/v1beta/cachedContents?key=hoard", json=cache).status_code == 200
            grown = (_rss_kib(served.proc.pid) - before) * 1024
            assert grown < 4 * 16 * each, (grown, 16 * each)  # the bytes, the journal's cut copies, arenas: not ~20x
            prompt = {"contents": [{"parts": [{"text": "and?"}]}], "cachedContent": first.json()["name"]}
            used = http.post("/v1beta/models/gemini-2.5-flash:generateContent?key=hoard", json=prompt)
            assert used.status_code == 200, used.text
            cached = used.json()["usageMetadata"]["cachedContentTokenCount"]
            assert cached == first.json()["usageMetadata"]["totalTokenCount"]
    finally:
        served.terminate()


def _interaction(http: httpx.Client, key: str, **fields: Any) -> httpx.Response:
    body = {"model": "gemini-2.5-flash", "input": "hi", **fields}
    return http.post("/v1beta/interactions", params={"key": key}, json=body)


def test_an_interactions_echoed_fields_count_and_every_namespace_shares_one_bound(
    http: httpx.Client, running: RunningEmulator
) -> None:
    """system_instruction, tools, generation_config and response_format were kept uncounted (10 x 15 MB: +219 MiB),
    and no bound held across namespaces."""
    store = running._server.config.app.state.interactions
    store.max_bytes = 8 << 20
    try:
        big = "x" * (3 << 20)
        first = _interaction(http, "a", system_instruction=big, generation_config={"temperature": 0.5})
        assert first.status_code == 200, first.text
        kept = http.get(f"{ADMIN}/resources", params={"kind": "interactions", "key": "a"}).json()
        assert kept["resources"]["interactions"][0]["sizeBytes"] > 3 << 20  # the echoed field is counted
        again = http.get(f"/v1beta/interactions/{first.json()['id']}", params={"key": "a"})
        assert again.content == first.content  # the printed view, byte for byte
        assert _interaction(http, "b", system_instruction=big).status_code == 200
        refused = _interaction(http, "c", tools=[{"type": "function", "name": "f", "description": big}])
        assert refused.status_code == 429 and "interactions" in refused.json()["error"]["message"]
        assert http.get(f"/v1beta/interactions/{first.json()['id']}", params={"key": "a"}).status_code == 200
    finally:
        store.max_bytes = 512 << 20


def _mint(http: httpx.Client, key: str, expire: datetime.datetime | None = None, setup_text: str = "") -> int:
    body: dict[str, Any] = {"uses": 1}
    if expire is not None:
        body["expireTime"] = expire.isoformat().replace("+00:00", "Z")
    if setup_text:
        body["bidiGenerateContentSetup"] = {"systemInstruction": {"parts": [{"text": setup_text}]}}
    return http.post("/v1alpha/auth_tokens", params={"key": key}, json=body).status_code


def _tokens(http: httpx.Client, key: str) -> int:
    listed = http.get(f"{ADMIN}/resources", params={"kind": "liveSessions", "key": key}).json()
    return sum(1 for r in listed["resources"]["liveSessions"] if r["kind"] == "ephemeralToken")


def test_ephemeral_tokens_are_bounded_in_bytes_and_the_expired_are_pruned(
    http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token's setup was kept unbounded (10 x 15 MB: +195 MiB) and an expired token was never forgotten."""
    from gemini_emulator.stores import live

    past = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)
    assert all(_mint(http, "old", expire=past) == 200 for _ in range(5))
    assert _tokens(http, "old") == 1  # each mint dropped the namespace's expired ones...
    assert _mint(http, "old") == 200 and _tokens(http, "old") == 1  # ...and this one the last
    big = "x" * (3 << 20)
    assert all(_mint(http, "big", setup_text=big) == 200 for _ in range(6))
    assert _tokens(http, "big") == 5  # 16 MiB a namespace: the oldest went
    monkeypatch.setattr(live, "MAX_TOKEN_BYTES", 20 << 20)
    assert _mint(http, "other", setup_text=big) == 200
    refused = http.post(
        "/v1alpha/auth_tokens",
        params={"key": "third"},
        json={"bidiGenerateContentSetup": {"systemInstruction": {"parts": [{"text": big}]}}},
    )
    assert refused.status_code == 429 and "ephemeral tokens" in refused.json()["error"]["message"]
    assert _tokens(http, "big") == 5 and _tokens(http, "other") == 1  # nobody else's token went


COMPUTE = "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:computeTokens"
BEARER = {"authorization": "Bearer t"}


def test_compute_tokens_past_the_models_input_limit_is_refused(http: httpx.Client) -> None:
    """8 MB of text answered 126 MiB (7.4 s, 1.3 GiB RSS); production reads at most the model's inputTokenLimit."""
    sent = {"contents": [{"role": "user", "parts": [{"text": "a " * (4 << 20)}]}]}
    refused = http.post(COMPUTE, headers=BEARER, json=sent, timeout=30)
    assert refused.status_code == 400, refused.text[:200]
    assert refused.json()["error"]["message"] == (
        "The input token count (4194304) exceeds the maximum number of tokens allowed (1048576)."
    )


def _slowest_ping_during(running: RunningEmulator | Served, call: Any) -> tuple[Any, float]:
    """What `call()` answers, run in a thread, and the slowest health check another client saw meanwhile. (An
    in-process server shares this process's interpreter lock with both clients: a long answer read here slows
    the pings too, so a test of a big answer measures a server of its own.)"""
    import threading

    answered: list[Any] = []
    worker = threading.Thread(target=lambda: answered.append(call()))
    slowest = 0.0
    with httpx.Client(base_url=running.url, timeout=10) as pinger:
        pinger.get(f"{ADMIN}/health")
        worker.start()
        while worker.is_alive():
            _, seconds = timed(lambda: pinger.get(f"{ADMIN}/health"))
            slowest = max(slowest, seconds)
        worker.join()
    return answered[0], slowest


@pytest.mark.slow  # a million tokens listed: seconds of work, left out of make test-fast
def test_a_long_compute_tokens_leaves_the_loop_free(running: RunningEmulator) -> None:
    """A 2 MB body (a million tokens, a 31.5 MiB answer) held every other caller for 2.3 s."""
    sent = {"contents": [{"role": "user", "parts": [{"text": "a " * 1_000_000}]}]}
    answer, slowest = _slowest_ping_during(
        running, lambda: httpx.post(running.url + COMPUTE, headers=BEARER, json=sent, timeout=60)
    )
    assert answer.status_code == 200
    assert len(answer.json()["tokensInfo"][0]["tokens"]) == 1_000_000
    assert slowest < 0.5, slowest  # served between the listing's pieces, not after it


@pytest.mark.parametrize("method", ["generateContent", "countTokens"])
def test_a_million_tiny_parts_are_refused_before_they_are_parsed(running: RunningEmulator, method: str) -> None:
    """A 12 MB body of 1M tiny parts held the loop 2.3 s (generateContent) and 2.9 s (countTokens)."""
    raw = json.dumps({"contents": [{"role": "user", "parts": [{"text": "a"}] * 1_000_000}]}).encode()
    url = f"{running.url}/v1beta/models/gemini-2.5-flash:{method}?key=parts"
    answer, slowest = _slowest_ping_during(running, lambda: httpx.post(url, content=raw, timeout=60))
    assert answer.status_code == 400, answer.text[:300]
    assert "at most 250000 JSON objects and arrays" in answer.json()["error"]["message"]
    assert slowest < 0.5, slowest


def test_parts_past_the_bound_are_refused_and_up_to_it_served(http: httpx.Client) -> None:
    many = {"contents": [{"role": "user", "parts": [{"text": "a"}] * 100_001}]}
    refused = http.post("/v1beta/models/gemini-2.5-flash:countTokens?key=parts", json=many)
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == (
        "gemini-emulator: a request may hold at most 100000 parts in its contents; this one holds 100001."
    )
    many["contents"][0]["parts"].pop()
    counted = http.post("/v1beta/models/gemini-2.5-flash:countTokens?key=parts", json=many)
    assert counted.status_code == 200 and counted.json()["totalTokens"] == 100_000


def _start_upload(http: httpx.Client, key: str) -> str:
    started = http.post(
        "/upload/v1beta/files",
        params={"key": key},
        headers={"x-goog-upload-protocol": "resumable", "x-goog-upload-command": "start"},
        json={"file": {"displayName": "held", "mimeType": "text/plain"}},
    )
    assert started.status_code == 200, started.text
    return str(started.headers["x-goog-upload-url"])


def _used(running: RunningEmulator) -> int:
    return int(running._server.config.app.state.context.files.used)


def test_a_cancel_while_a_chunk_arrives_gives_back_every_byte(http: httpx.Client, running: RunningEmulator) -> None:
    """Cancelling mid-chunk kept writing to the spool and never returned those bytes; finalizing after a cancel
    stored a file whose deletion released its size twice (the budget's count went negative)."""
    import threading

    baseline = _used(running)
    url = _start_upload(http, "race")
    piece = b"x" * (1 << 20)
    go_on, sent_first = threading.Event(), threading.Event()

    def body() -> Any:
        yield piece
        sent_first.set()
        go_on.wait(10)
        for _ in range(7):
            yield piece

    answers: list[httpx.Response] = []
    upload = {"x-goog-upload-command": "upload, finalize", "x-goog-upload-offset": "0"}
    worker = threading.Thread(target=lambda: answers.append(httpx.post(url, content=body(), headers=upload)))
    worker.start()
    assert sent_first.wait(10)
    within(10, lambda: _used(running) > baseline)  # the first MiB is in the spool
    cancelled = http.post(url, headers={"x-goog-upload-command": "cancel"})
    assert cancelled.headers["x-goog-upload-status"] == "cancelled"
    go_on.set()
    worker.join(20)
    assert answers[0].status_code == 404  # the rest of the chunk found the session gone, and stored nothing
    assert _used(running) == baseline  # every byte given back, none spent twice
    assert http.get("/v1beta/files", params={"key": "race"}).json() == {}


def test_one_keys_resumable_uploads_cannot_evict_anothers(http: httpx.Client, running: RunningEmulator) -> None:
    """256 sessions of one key evicted another key's upload in progress."""
    from gemini_emulator.stores.files import MAX_SESSIONS

    victim = _start_upload(http, "victim")
    for _ in range(MAX_SESSIONS + 10):
        _start_upload(http, "hog")
    query = http.post(victim, headers={"x-goog-upload-command": "query"})
    assert query.status_code == 200 and query.headers["x-goog-upload-status"] == "active"


def test_one_keys_video_generations_cannot_take_every_slot(http: httpx.Client) -> None:
    """256 pending Veo operations of one key gave everyone a 429."""
    from gemini_emulator.wire.media.veo import MAX_RUNNING_PER_NAMESPACE

    held = {"text": "ok", "delayMs": 60_000, "times": "forever"}
    assert http.post(f"{ADMIN}/script", params={"key": "hog"}, json=held).is_success
    start = "/v1beta/models/veo-3.0-generate-001:predictLongRunning"
    ask = {"instances": [{"prompt": "a slow one"}]}
    for _ in range(MAX_RUNNING_PER_NAMESPACE):
        assert http.post(start, params={"key": "hog"}, json=ask).status_code == 200
    refused = http.post(start, params={"key": "hog"}, json=ask)
    assert refused.status_code == 429 and "of one caller" in refused.json()["error"]["message"]
    assert http.post(start, params={"key": "victim"}, json=ask).status_code == 200


BATCH = "/v1beta/models/gemini-2.5-flash:batchGenerateContent"


def _batch(http: httpx.Client, key: str, count: int, text: str = "hi") -> str:
    """A job of `count` inlined requests, answered on its first read (the caller's schedule is immediate)."""
    assert http.put(f"{ADMIN}/batches", params={"key": key}, json={"pendingMs": 0, "runningMs": 0}).is_success
    item = {"request": {"contents": [{"parts": [{"text": text}]}]}}
    inlined = {"batch": {"inputConfig": {"requests": {"requests": [item] * count}}}}
    made = http.post(BATCH, params={"key": key}, json=inlined)
    assert made.status_code == 200, made.text
    return str(made.json()["name"])


@pytest.mark.slow  # 10,000 requests answered, by a server of its own: seconds of work, left out of make test-fast
def test_answering_a_big_batch_leaves_the_loop_free() -> None:
    """10,000 inlined requests were answered in one go on the first read: a GET froze everyone 1.7 s."""
    served = spawn()
    try:
        with httpx.Client(base_url=served.url, timeout=60) as http:
            name = _batch(http, "many", 10_000)
            url = f"{served.url}/v1beta/{name}?key=many"
            answer, slowest = _slowest_ping_during(served, lambda: httpx.get(url, timeout=120))
            assert answer.status_code == 200 and answer.json()["done"] is True
            stats = answer.json()["metadata"]["batchStats"]
            assert stats == {"requestCount": "10000", "successfulRequestCount": "10000"}
            assert slowest < 0.5, slowest
            listed = http.get("/v1beta/batches", params={"key": "many"})  # the same answers spliced at another depth
            assert listed.json()["operations"] == [answer.json()]
    finally:
        served.terminate()


def test_a_batch_view_splices_its_printed_answers_as_the_printer_would(
    http: httpx.Client, running: RunningEmulator
) -> None:
    from gemini_emulator.protocol.printers import pretty
    from gemini_emulator.wire.auth import key_namespace
    from gemini_emulator.wire.resources.batches import view

    name = _batch(http, "spliced", 3, text="<b>escaped</b>")
    shown = http.get(f"/v1beta/{name}", params={"key": "spliced"})
    listed = http.get("/v1beta/batches", params={"key": "spliced"})
    (op,) = [
        o for o in running._server.config.app.state.context.operations.all(key_namespace("spliced")) if o.name == name
    ]
    assert shown.content == pretty(view(op))  # byte for byte what printing the whole would give
    assert listed.content == pretty({"operations": [view(op)]})


def test_a_batchs_answers_count_against_the_bound(http: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers were not counted against any cap (2,000 embeddings at 3,072 dimensions: +340 MiB)."""
    from gemini_emulator.wire.resources import batches

    monkeypatch.setattr(batches, "MAX_BYTES_PER_NAMESPACE", 16 << 10)
    name = _batch(http, "heavy", 100)  # 6 KB of requests asked, some 60 KB of answers
    failed = http.get(f"/v1beta/{name}", params={"key": "heavy"}).json()
    assert failed["done"] is True and failed["metadata"]["state"] == "BATCH_STATE_FAILED"
    assert failed["error"]["code"] == 8 and "bytes of batches per caller" in failed["error"]["message"]
    listed = http.get(f"{ADMIN}/resources", params={"kind": "batches", "key": "heavy"}).json()
    assert listed["resources"]["batches"][0]["requestCount"] == 0  # it holds nothing now


def test_a_batch_input_line_past_the_body_limit_is_that_items_error() -> None:
    """A 100 MB JSONL file (lines not bounded by the body limit) was read whole and froze the loop 18 s."""
    with server(max_body_bytes=1 << 20) as running, httpx.Client(base_url=running.url, timeout=30) as http:
        ok = json.dumps({"key": "a", "request": {"contents": [{"parts": [{"text": "hi"}]}]}}).encode()
        lines = ok + b"\n" + b'{"key": "b", "request": "' + b"x" * (2 << 20) + b'"}\n' + ok.replace(b'"a"', b'"c"')
        upload = http.post(
            "/upload/v1beta/files?uploadType=media&key=lines",
            content=lines,
            headers={"content-type": "application/jsonl", "x-goog-upload-protocol": "raw"},
        )
        assert upload.status_code == 200, upload.text
        assert http.put(f"{ADMIN}/batches", params={"key": "lines"}, json={"pendingMs": 0, "runningMs": 0}).is_success
        source = {"batch": {"inputConfig": {"fileName": upload.json()["file"]["name"]}}}
        name = http.post(BATCH, params={"key": "lines"}, json=source).json()["name"]
        done = http.get(f"/v1beta/{name}", params={"key": "lines"}).json()
        assert done["metadata"]["batchStats"] == {
            "requestCount": "3",
            "successfulRequestCount": "2",
            "failedRequestCount": "1",
        }
        results = done["response"]["responsesFile"]
        got = http.get(f"/v1beta/{results}:download", params={"alt": "media", "key": "lines"}).content.splitlines()
        answers = [json.loads(line) for line in got]
        assert [a.get("key") for a in answers] == ["a", None, "c"]
        assert "longer than the 1048576 bytes a request may hold" in answers[1]["error"]["message"]
