"""POST /v1beta/openai/images/generations: OpenAI's Images API over the engine seam Imagen and image output use.

Production's compatibility guide (ai.google.dev/gemini-api/docs/openai, "Generate an image"; best-known, no
capture): `model` (Imagen, as `imagen-3.0-generate-002` in the older guide, or a Gemini image model,
`gemini-2.5-flash-image` / `gemini-3-pro-image-preview` in the 2026 one), `prompt`, `n`, `size` and
`response_format` are read; `extra_body` adds `aspect_ratio`, `generation_config`, `safety_settings` and `tools`;
any other field is silently ignored. So:

- an Imagen model: the PredictRequest google-genai would send (`sampleCount` n, `aspectRatio`) answered by
  wire.media.imagen (its engine call, so script entries, namespaces and the journal apply);
- a Gemini image model: the generateContent call (`responseModalities ["IMAGE"]`, `candidateCount` n,
  `imageConfig.aspectRatio`, with extra_body's generation_config, safetySettings and tools), as chat completions
  reach the native path; a model that makes no image gets the native 400 for the modality.

`size` picks the model's aspect ratio nearest to WIDTHxHEIGHT (the picture has the model's own size for it);
`aspect_ratio` wins over it. The answer is `{"created", "data": [{"b64_json"}]}` (alphabetical keys, as this
surface prints), one item per image; `response_format: "url"` gives `url` as a `data:` URL. Errors are this
surface's list-wrapped envelope (surface.dispatch).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Receive

from gemini_emulator.admin.journal import Record
from gemini_emulator.media import images as pictures
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.headers import BASE_HEADERS
from gemini_emulator.protocol.routes import DEVELOPER, Target
from gemini_emulator.seam import Chunk
from gemini_emulator.wire import faults, handlers, sending, validate
from gemini_emulator.wire.media import imagen
from gemini_emulator.wire.openai_compat import translate

MAX_IMAGES = imagen.MAX_SAMPLES  # n: 1-4 (Imagen's sampleCount bound; best-known for the compatibility layer)
MAX_PROMPT_CHARS = 1 << 20
SIZE_PATTERN = "^(auto|[0-9]{1,5}x[0-9]{1,5})$"  # the served OpenAPI document's; zero sides are refused too
_SIZE = re.compile(r"([0-9]{1,5})x([0-9]{1,5})")
_EXTRA = ("aspect_ratio", "generation_config", "safety_settings", "tools")


@dataclass
class ImageAsk:
    """An images/generations request, read."""

    model: str
    prompt: str
    n: int = 1
    size: tuple[int, int] | None = None
    aspect: str | None = None
    url: bool = False
    extra: dict[str, Any] = field(default_factory=dict)  # generation_config, safety_settings, tools


def read(raw: dict[str, Any]) -> ImageAsk:
    """The request body (a JSON object) read; unknown fields are ignored, as production ignores them."""
    body = {translate.snake(k): v for k, v in raw.items()}
    model = translate.model_name(body)
    prompt = body.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise translate.bad("prompt is not specified.") if prompt is None else _type("prompt", "TYPE_STRING", prompt)
    if len(prompt) > MAX_PROMPT_CHARS:
        raise translate.bad(f"prompt: must be at most {MAX_PROMPT_CHARS} characters.")
    ask = ImageAsk(model, prompt)
    n = translate.integer(body, "n")
    if n is not None and not 1 <= n <= MAX_IMAGES:
        raise translate.bad(f"n: must be between 1 and {MAX_IMAGES}.")
    ask.n = n or 1
    size = body.get("size")
    if size is not None and size != "auto":
        match = _SIZE.fullmatch(size) if isinstance(size, str) else None
        if match is None or not int(match[1]) or not int(match[2]):
            raise translate.bad("size: must be auto or WIDTHxHEIGHT (for example 1024x1024).")
        ask.size = (int(match[1]), int(match[2]))
    fmt = body.get("response_format")
    if fmt is not None and fmt not in ("b64_json", "url"):
        raise translate.bad("response_format: must be b64_json or url.")
    ask.url = fmt == "url"
    google = translate.google_options(body)
    for name in _EXTRA:
        value = body.get(name, google.get(name, google.get(translate.camel(name))))
        if value is not None:
            ask.extra[name] = value
    aspect = ask.extra.pop("aspect_ratio", None)
    if aspect is not None and not isinstance(aspect, str):
        raise _type("aspect_ratio", "TYPE_STRING", aspect)
    ask.aspect = aspect
    for name, kind, python in (
        ("generation_config", "TYPE_MESSAGE", dict),
        ("safety_settings", "TYPE_MESSAGE", list),
        ("tools", "TYPE_MESSAGE", list),
    ):
        if name in ask.extra and not isinstance(ask.extra[name], python):
            raise _type(name, kind, ask.extra[name])
    return ask


def nearest_aspect(size: tuple[int, int], ratios: tuple[str, ...]) -> str:
    """The aspect ratio of `ratios` ("W:H") nearest to `size`'s, by the logarithm of width over height."""
    wanted = math.log(size[0] / size[1])

    def distance(ratio: str) -> float:
        w, h = ratio.split(":")
        return abs(math.log(int(w) / int(h)) - wanted)

    return min(ratios, key=distance)


async def generations(
    ctx: handlers.Context, target: Target, body: dict[str, Any], record: Record, receive: Receive
) -> Response:
    """Serve one images/generations call (record.namespace set; errors raised as ApiError)."""
    ask = read(body)
    record.model = ask.model
    if ctx.catalogue.kind(ask.model) == "imagen":
        blobs, fault = await _imagen(ctx, target, ask, record, receive), None
    else:
        blobs, fault = await _gemini(ctx, target, ask, record, receive)
    data = [_item(mime, data, ask.url) for mime, data in blobs]
    content = orjson.dumps({"created": int(time.time()), "data": data})
    return faults.unary(content, BASE_HEADERS | {"content-type": "application/json"}, fault)


def _item(mime: str, data: str, url: bool) -> dict[str, str]:
    return {"url": f"data:{mime};base64,{data}"} if url else {"b64_json": data}


async def _imagen(
    ctx: handlers.Context, target: Target, ask: ImageAsk, record: Record, receive: Receive
) -> list[tuple[str, str]]:
    aspect = ask.aspect or (nearest_aspect(ask.size, pictures.IMAGEN_ASPECT_RATIOS) if ask.size else "1:1")
    predict = {"instances": [{"prompt": ask.prompt}], "parameters": {"sampleCount": ask.n, "aspectRatio": aspect}}
    record.body = predict  # journaled as the native request it became
    call = Target("call", DEVELOPER, target.family, "v1beta", model="models/" + ask.model, method="predict")
    answer = await imagen.answer(ctx, call, predict, record, receive)
    return [
        (str(p.get("mimeType") or pictures.PNG_MIME), p["bytesBase64Encoded"])
        for p in answer.get("predictions", [])
        if isinstance(p.get("bytesBase64Encoded"), str)
    ]


async def _gemini(
    ctx: handlers.Context, target: Target, ask: ImageAsk, record: Record, receive: Receive
) -> tuple[list[tuple[str, str]], Any]:
    aspect = ask.aspect or (nearest_aspect(ask.size, pictures.ASPECT_RATIOS) if ask.size else None)
    config: dict[str, Any] = {"responseModalities": ["IMAGE"]}
    if ask.n > 1:
        config["candidateCount"] = ask.n
    if aspect:
        config["imageConfig"] = {"aspectRatio": aspect}
    config |= {translate.camel(k): v for k, v in ask.extra.get("generation_config", {}).items()}
    sent: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": ask.prompt}]}], "generationConfig": config}
    if "safety_settings" in ask.extra:
        sent["safetySettings"] = ask.extra["safety_settings"]
    if "tools" in ask.extra:
        sent["tools"] = ask.extra["tools"]
    record.body = sent
    call = Target("call", DEVELOPER, target.family, "v1beta", model="models/" + ask.model, method="generateContent")
    native = validate.check_fields(sent, "GenerateContentRequest", DEVELOPER, "v1beta")
    model = await handlers.resolve_model(ctx, call, native, record.namespace, False)
    gen, _, _, answer = handlers.start_generation(ctx, call, model, native, record.namespace, False, sent=sent)
    try:
        chunks: list[Chunk] = await sending.until_hang_up(receive, handlers.collect(answer))
    finally:
        record.entry = gen.notes.get("entry")
    parts = [p for c in chunks for p in c.parts]
    if chunks and chunks[0].raw is not None:  # an engine's whole response (a recording)
        candidates = chunks[0].raw.get("candidates") or []
        parts = [p for c in candidates if isinstance(c, dict) for p in (c.get("content") or {}).get("parts") or []]
    blobs = []
    for part in parts:
        blob = part.get("inlineData") if isinstance(part, dict) else None
        if isinstance(blob, dict) and str(blob.get("mimeType", "")).startswith("image/"):
            blobs.append((str(blob["mimeType"]), str(blob.get("data", ""))))
    return blobs, chunks[0].fault if chunks else None


def _type(name: str, kind: str, value: Any) -> errors.ApiError:
    return translate.type_error(name, kind, value)
