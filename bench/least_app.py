"""The benchmark's floor for a Python emulator: the least work a zero-config answer takes, in plain Python.

Where bench/baseline_app.py sends pre-built bytes, this one does per request what any emulator must do to answer
a text prompt with deterministic text, and nothing more: parse the JSON body, check its shape in a few lines,
pick words by a digest of the prompt, estimate tokens, build and print each answer body (4 SSE events, as the
emulator sends), keep a journal record (headers with the key redacted, the body as JSON text, the answer bytes)
and send it. No URL grammar, field validation, error envelopes, namespaces, scripts or faults. Its CPU time per
request is a lower bound for the emulator's on the same stack: it is served by the emulator's own runtime
(protocol, event loop, garbage collector tuning), so the two differ only by what the emulator's code does.

    python bench/least_app.py --port 8082
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import time
from collections import deque
from typing import Any

import orjson
from baseline_app import HEADERS as BASELINE_HEADERS
from baseline_app import emulator_uvicorn_options
from starlette.types import Receive, Scope, Send

from gemini_emulator import runtime
from gemini_emulator.config import Settings
from gemini_emulator.wire.draining import Drain
from gemini_emulator.wire.sending import BODY_FOLLOWS

WORDS = (
    "good question about there is no single right answer but some answers are better than others when the "
    "weather in paris turns and a request asks again"
).split()
# The emulator's answer headers, as the baseline sends them (one list for both bench apps).
HEADERS = [(k.encode(), v.encode()) for k, v in BASELINE_HEADERS.items() if k != "x-gemini-service-tier"]
JSON_TYPE = (b"content-type", b"application/json; charset=UTF-8")
SSE_HEADERS = [*HEADERS, (b"content-disposition", b"attachment"), (b"content-type", b"text/event-stream")]
UNARY_HEADERS = [*HEADERS, (b"x-gemini-service-tier", b"standard"), JSON_TYPE]
PRETTY = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE

journal: deque[tuple[float, str, list[tuple[str, str]], str, bytes]] = deque(maxlen=10_000)
served = 0


def _prompt(body: Any) -> str:
    """The last user turn's text, after a shape check (ValueError for anything unexpected)."""
    if type(body) is not dict or not body.keys() <= {"contents", "generationConfig", "systemInstruction"}:
        raise ValueError("unexpected fields")
    contents = body.get("contents")
    if type(contents) is not list or not contents or type(contents[-1]) is not dict:
        raise ValueError("contents")
    last = contents[-1]
    if last.get("role", "user") != "user" or type(last.get("parts")) is not list:
        raise ValueError("turn")
    return "".join(p["text"] for p in last["parts"] if type(p) is dict and type(p.get("text")) is str)


def _words(text: str, count: int) -> list[str]:
    seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
    picked = []
    for _ in range(count):
        picked.append(WORDS[seed % len(WORDS)])
        seed = (seed * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
    return picked


def _tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4)


def _answer(text: str, prompt: int, output: int, final: bool, response_id: str) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": [{"text": text}], "role": "model"}}
    if final:
        candidate["finishReason"] = "STOP"
    candidate["index"] = 0
    usage = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "totalTokenCount": prompt + output,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
    }
    model = "gemini-2.5-flash"
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": model, "responseId": response_id}


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    global served
    if scope["type"] != "http":
        return
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    raw = b"".join(chunks)
    path: str = scope["path"]
    try:
        body = orjson.loads(raw) if raw else {}
        text = _prompt(body)
    except ValueError:
        await send({"type": "http.response.start", "status": 400, "headers": [JSON_TYPE]})
        await send({"type": "http.response.body", "body": b'{"error": {"code": 400}}\n'})
        return
    prompt = _tokens(text)
    served += 1
    response_id = base64.urlsafe_b64encode(hashlib.sha256(b"%d" % served + raw).digest()[:16]).rstrip(b"=").decode()
    if path.endswith(":countTokens"):
        answer = {"totalTokens": prompt, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}]}
        out, headers = orjson.dumps(answer, option=PRETTY), [*HEADERS, JSON_TYPE]
    elif path.endswith(":streamGenerateContent"):
        words = _words(text, 16)
        pieces, output = [], 0
        for i in range(4):
            piece = " ".join(words[4 * i : 4 * i + 4]) + " "
            output += _tokens(piece)
            event = orjson.dumps(_answer(piece, prompt, output, i == 3, response_id)).replace(b'":', b'": ')
            pieces.append(b"data: " + event + b"\r\n\r\n")
        out, headers = b"".join(pieces), SSE_HEADERS
    else:
        answer_text = " ".join(_words(text, 16)).capitalize() + "."
        out = orjson.dumps(_answer(answer_text, prompt, _tokens(answer_text), True, response_id), option=PRETTY)
        headers = UNARY_HEADERS
    redacted = [(k.decode(), "REDACTED" if k == b"x-goog-api-key" else v.decode()) for k, v in scope["headers"]]
    journal.append((time.time(), path, redacted, orjson.dumps(body).decode(), bytes(out)))
    if headers is not SSE_HEADERS:
        headers = [*headers, (b"content-length", b"%d" % len(out))]
    await send({"type": "http.response.start", "status": 200, "headers": headers, BODY_FOLLOWS: True})  # one write
    await send({"type": "http.response.body", "body": out})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port
    settings = Settings.from_env()
    protocol = runtime.guarded_http(settings.header_timeout, runtime.connection_cap(0), settings.http)
    runtime.tune_gc()
    options = emulator_uvicorn_options() | {"http": protocol, "log_level": "warning"}  # the emulator's own
    runtime.serve(runtime.collect_when_idle(app), Drain(), 1, host="127.0.0.1", port=port, **options)


if __name__ == "__main__":
    main()
