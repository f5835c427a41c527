"""The benchmark's baseline: a bare Starlette app answering the emulator's URLs with pre-built bytes.

It serves what the emulator serves (same headers, a realistic generateContent body, 4 SSE events, a countTokens
answer, the resumable upload's steps) but does no work per request beyond draining the request body, so the
emulator's throughput divided by this one's is the cost of the emulator's own code. It is run by uvicorn with the
options the emulator's `serve` command passes to `uvicorn.run`, read from emulator/cli.py so they cannot drift.

    python bench/baseline_app.py --port 8081
"""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

CLI_SOURCE = Path(__file__).resolve().parent.parent / "emulator" / "cli.py"
MODEL_PATH = "/v1beta/models/gemini-2.5-flash"
HEADERS = {  # what the emulator sends on a Developer API answer
    "vary": "Origin, X-Origin, Referer",
    "server": "scaffolding on HTTPServer2",
    "x-xss-protection": "0",
    "x-frame-options": "SAMEORIGIN",
    "x-content-type-options": "nosniff",
    "x-gemini-service-tier": "standard",
}
_TEXT = (
    "Good question about request weather paris. ",
    "There is no single right answer ",
    "about request weather paris, but some ",
    "answers are better than others.",
)


def _answer(text: str, candidates: int, final: bool) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": [{"text": text}], "role": "model"}}
    if final:
        candidate["finishReason"] = "STOP"
    candidate["index"] = 0
    usage = {
        "promptTokenCount": 13,
        "candidatesTokenCount": candidates,
        "totalTokenCount": 13 + candidates,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 13}],
        "serviceTier": "standard",
    }
    return {
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": "gemini-2.5-flash",
        "responseId": "ZVoN-iyzawA9ffrlzj1osY",
    }


UNARY_BODY = (json.dumps(_answer("".join(_TEXT), 32, True), indent=2) + "\n").encode()
SSE_EVENTS = [
    b"data: " + json.dumps(_answer(text, 8 * (i + 1), i == 3), separators=(",", ": ")).encode() + b"\r\n\r\n"
    for i, text in enumerate(_TEXT)
]


COUNT_BODY = (
    json.dumps({"totalTokens": 11, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 11}]}, indent=2) + "\n"
).encode()
COUNT_HEADERS = {k: v for k, v in HEADERS.items() if k != "x-gemini-service-tier"}


async def health(request: Request) -> Response:
    return Response(b'{"status": "ok"}\n', media_type="application/json")


async def generate(request: Request) -> Response:
    await request.body()
    return Response(UNARY_BODY, headers=HEADERS | {"content-type": "application/json; charset=UTF-8"})


async def count_tokens(request: Request) -> Response:
    await request.body()
    return Response(COUNT_BODY, headers=COUNT_HEADERS | {"content-type": "application/json; charset=UTF-8"})


async def stream(request: Request) -> Response:
    await request.body()

    async def events() -> Any:
        for event in SSE_EVENTS:
            yield event

    headers = HEADERS | {"content-disposition": "attachment", "content-type": "text/event-stream"}
    return StreamingResponse(events(), headers=headers)


UPLOAD_PATH = "/upload/v1beta/files"
UPLOAD_ANSWER = json.dumps({"file": {"name": "files/bench", "mimeType": "application/octet-stream"}}, indent=2).encode()


async def upload(request: Request) -> Response:
    """The resumable upload protocol's two steps, reduced to reading the body: `start` answers with an upload URL
    back to this server, each chunk is read whole (`await request.body()`, as Starlette apps do) and answered
    `active`, or `final` with a File for `upload, finalize` (issue 16's throughput baseline)."""
    await request.body()
    command = request.headers.get("x-goog-upload-command", "")
    if command == "start":
        url = f"http://{request.headers['host']}{UPLOAD_PATH}?upload_id=bench&upload_protocol=resumable"
        return Response(b"", headers={"x-goog-upload-url": url, "x-goog-upload-status": "active"})
    if "finalize" in command:
        return Response(UPLOAD_ANSWER, media_type="application/json", headers={"x-goog-upload-status": "final"})
    return Response(b"", headers={"x-goog-upload-status": "active"})


app = Starlette(
    routes=[
        Route("/__emulator/health", health, methods=["GET"]),
        Route(MODEL_PATH + ":generateContent", generate, methods=["POST"]),
        Route(MODEL_PATH + ":streamGenerateContent", stream, methods=["POST"]),
        Route(MODEL_PATH + ":countTokens", count_tokens, methods=["POST"]),
        Route(UPLOAD_PATH, upload, methods=["POST"]),
    ]
)


def emulator_uvicorn_options() -> dict[str, Any]:
    """The constant keyword arguments of the `runtime.serve(...)` call in emulator/cli.py, and the same HTTP stack
    (protocol and event loop) the emulator picks by default."""
    from gemini_emulator import runtime

    for node in ast.walk(ast.parse(CLI_SOURCE.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("uvicorn.run", "runtime.serve"):
            constants = {k.arg: k.value.value for k in node.keywords if k.arg and isinstance(k.value, ast.Constant)}
            return constants | {"http": runtime.http_protocol(), "loop": runtime.event_loop()}
    raise RuntimeError(f"no runtime.serve(...) call in {CLI_SOURCE}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    import uvicorn

    # host and log_level are the emulator's defaults (Settings: 127.0.0.1, "warning").
    uvicorn.run(app, **{"host": "127.0.0.1", "port": args.port, "log_level": "warning", **emulator_uvicorn_options()})


if __name__ == "__main__":
    main()
