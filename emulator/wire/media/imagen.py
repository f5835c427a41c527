"""Imagen on `:predict`: generate, edit (reference images, masks) and upscale, on the Developer API and Vertex AI.

The request is production's PredictRequest `{instances: [{prompt, referenceImages | image}], parameters: {...}}`
as google-genai 3.6.1 builds it (models.py `_GenerateImagesParameters_to_vertex`, `_EditImageParameters_to_vertex`,
`_UpscaleImageAPIParameters_to_vertex`); the answer is `{predictions: [{bytesBase64Encoded, mimeType}, ...]}` as the
Firebase Vertex fixtures (`vertexai/*generate-images*.json`) and vercel-ai's Developer recording
(`issue-10843-google-imagen-generate-image.json`) show it. The images come from the engine: the call becomes a
GenerateRequest (method "predict", the prompt and the reference images as its contents, `responseModalities
["IMAGE"]`, `candidateCount` = sampleCount), so script entries (`image`, `error`, `blockReason`, `text` as the
enhanced prompt), namespaces and the journal apply as on generateContent.

- sampleCount 1-4 (default 4 for generate, as production); aspectRatio one of Imagen's five; the image is of
  Imagen's size for it (sampleImageSize "2K" doubles it); an edit answers at its raw reference image's size, an
  upscale at the input's size times upscaleFactor (bounded by gemini_emulator.media.images).
- includeRaiReason: an answer the script blocks (blockReason) holds the all-filtered raiFilteredReason, else `{}`;
  includeSafetyAttributes: each image carries safetyAttributes, and a last "Positive Prompt" prediction follows;
  enhancePrompt: each image carries the (enhanced) prompt; storageUri: gcsUri instead of bytes.
- outputOptions: `mimeType` image/png (default) or image/jpeg, `compressionQuality` 0-100 (JPEG; default 75):
  handed to the engine as generateContent's `imageConfig.imageOutputOptions`, so the engine draws a JPEG.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from starlette.responses import Response
from starlette.types import Receive

from gemini_emulator.admin.journal import Record
from gemini_emulator.media import images
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import VERTEX, Target
from gemini_emulator.wire import auth, handlers, model_rules, sending, validate
from gemini_emulator.wire.incoming import Incoming

KINDS = frozenset({"imagen", "imagen-edit", "imagen-upscale"})
MAX_SAMPLES = 4
# Firebase fixture vertexai/unary-failure-generate-images-all-filtered.json (support codes as recorded).
ALL_FILTERED = (
    "Unable to show generated images. All images were filtered out because they violated Vertex AI's usage "
    "guidelines. You will not be charged for blocked images. Try rephrasing the prompt. If you think this was an "
    "error, send feedback. Support codes: 39322892, 29310472"
)
# Firebase fixture vertexai/unary-failure-generate-images-base64-some-filtered.json.
SOME_FILTERED = (
    "Your current safety filter threshold filtered out {n} generated images. You will not be charged for blocked "
    "images. Try rephrasing the prompt. If you think this was an error, send feedback."
)
_UPSCALE = {"x2": 2, "x3": 3, "x4": 4}


def claims(ctx: handlers.Context, target: Target) -> bool:
    """Whether this call is Imagen's: `:predict` on an Imagen model (embedding models keep their own predict)."""
    return target.method == "predict" and ctx.catalogue.kind(target.model.removeprefix("models/")) in KINDS


async def call(ctx: handlers.Context, request: Incoming, target: Target, record: Record) -> Response:
    """POST {imagen model}:predict."""
    record.rpc, record.model = target.method, target.model.removeprefix("models/")
    try:
        credential = auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
        record.namespace = auth.namespace_of(request.headers, credential, ctx.settings.admin_token)
        body = await handlers.read_body(ctx, request, record)
        return handlers.json_response(await answer(ctx, target, body, record, request.receive))
    except errors.ApiError as error:
        return handlers.error_response(error)


async def answer(ctx: handlers.Context, target: Target, body: Any, record: Record, receive: Receive) -> dict[str, Any]:
    """The PredictResponse to a PredictRequest `body` (as sent) on `target`'s Imagen model, asked of the engine as
    generateContent asks it (record.namespace set). The OpenAI-compatible images/generations comes through here
    too, with the PredictRequest it translated."""
    body = validate.check_fields(body, "ImagenPredictRequest", target.backend, target.version)
    model = ctx.catalogue.resolve(
        target.model, target.method, target.version, target.backend, target.project, target.location
    )
    ask = _Ask.of(body, ctx.catalogue.kind(model))
    generate = {
        "contents": [{"role": "user", "parts": [{"text": ask.prompt}, *ask.parts]}],
        "generationConfig": {
            "responseModalities": ["IMAGE"],
            "candidateCount": ask.count,
            "imageConfig": {"aspectRatio": ask.aspect, **ask.output},
        },
    }
    gen, _, _, chunks_of = handlers.start_generation(ctx, target, model, generate, record.namespace, False, body)
    gen.image_size = ask.size  # the engine draws at Imagen's size (read when the engine starts)
    try:
        chunks = await sending.until_hang_up(receive, handlers.collect(chunks_of))
    finally:
        record.entry = gen.notes.get("entry")
    return _predictions(chunks, ask, target.backend)


class _Ask:
    """What one Imagen call asks for, read from its (normalised) PredictRequest."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.prompt = ""
        self.parts: list[dict[str, Any]] = []
        self.count = 1
        self.aspect = "1:1"
        self.size: tuple[int, int] = (1024, 1024)
        self.params: dict[str, Any] = {}
        self.output: dict[str, Any] = {}  # imageOutputOptions for the engine, from outputOptions

    @classmethod
    def of(cls, body: dict[str, Any], kind: str) -> _Ask:
        ask = cls(kind)
        instances = body.get("instances")
        if not isinstance(instances, list) or not instances or not isinstance(instances[0], dict):
            raise errors.invalid_argument("instances must hold one instance object.")
        instance = instances[0]
        params = body.get("parameters") or {}
        if not isinstance(params, dict):
            raise errors.invalid_argument("parameters must be an object.")
        ask.params = params
        prompt = instance.get("prompt", "")
        if not isinstance(prompt, str) or (kind == "imagen" and not prompt.strip()):
            raise errors.invalid_argument("The prompt is empty. Please provide a prompt.")
        ask.prompt = prompt
        default = MAX_SAMPLES if kind == "imagen" else 1
        count = params.get("sampleCount", default)
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_SAMPLES:
            raise errors.invalid_argument(f"sampleCount must be between 1 and {MAX_SAMPLES}.")
        ask.count = count
        aspect = params.get("aspectRatio", "1:1")
        if aspect not in images.IMAGEN_ASPECT_RATIOS:
            raise errors.invalid_argument(
                f"Unsupported aspect ratio: {aspect}. Supported: {', '.join(images.IMAGEN_ASPECT_RATIOS)}."
            )
        ask.aspect = str(aspect)
        ask.size = images.imagen_dimensions(ask.aspect, str(params.get("sampleImageSize") or "1K"))
        if params.get("outputOptions") is not None:
            mime, quality = model_rules.check_output_options(params["outputOptions"], "outputOptions")
            options = {"mimeType": mime} | ({} if quality is None else {"compressionQuality": quality})
            ask.output = {"imageOutputOptions": options}
        if kind == "imagen-edit":
            ask._references(instance)
        elif kind == "imagen-upscale":
            ask._upscale(instance, params)
        return ask

    def _references(self, instance: dict[str, Any]) -> None:
        references = instance.get("referenceImages")
        if not isinstance(references, list) or not references:
            raise errors.invalid_argument("Image editing needs at least one reference image.")
        for i, reference in enumerate(references[:8]):
            if not isinstance(reference, dict):
                raise errors.invalid_argument(f"referenceImages[{i}] must be an object.")
            picture = reference.get("referenceImage")
            if isinstance(picture, dict) and picture.get("bytesBase64Encoded"):
                data = _decoded(picture["bytesBase64Encoded"], f"referenceImages[{i}].referenceImage")
                self.parts.append({"inlineData": {"mimeType": _mime(picture, data), "data": _b64(data)}})
                if reference.get("referenceType", "REFERENCE_TYPE_RAW") == "REFERENCE_TYPE_RAW":
                    self.size = _size_of(data, self.size)

    def _upscale(self, instance: dict[str, Any], params: dict[str, Any]) -> None:
        picture = instance.get("image")
        if not isinstance(picture, dict) or not picture.get("bytesBase64Encoded"):
            raise errors.invalid_argument("Image upscaling needs an image (bytesBase64Encoded).")
        data = _decoded(picture["bytesBase64Encoded"], "image")
        self.parts.append({"inlineData": {"mimeType": _mime(picture, data), "data": _b64(data)}})
        config = params.get("upscaleConfig") or {}
        factor = _UPSCALE.get(str(config.get("upscaleFactor") if isinstance(config, dict) else ""))
        if factor is None:
            raise errors.invalid_argument("upscaleFactor must be x2, x3 or x4.")
        width, height = _size_of(data, (1024, 1024))
        self.size = images.bounded(width * factor, height * factor)


def _decoded(text: Any, where: str) -> bytes:
    try:
        return base64.b64decode(str(text), validate=True)
    except (binascii.Error, ValueError):
        raise errors.invalid_argument(f"{where}.bytesBase64Encoded is not valid base64.") from None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _mime(picture: dict[str, Any], data: bytes) -> str:
    return str(picture.get("mimeType") or images.sniff_mime(data) or images.PNG_MIME)


def _size_of(data: bytes, default: tuple[int, int]) -> tuple[int, int]:
    return images.image_size(data) or default


def _predictions(chunks: list[Any], ask: _Ask, backend: str) -> dict[str, Any]:
    """The PredictResponse for the engine's merged chunks (one per candidate)."""
    params = ask.params
    vertex = backend == VERTEX
    blocked = any(c.block_reason for c in chunks)
    parts = [p for c in chunks for p in c.parts]
    blobs = [] if blocked else [p["inlineData"] for p in parts if isinstance(p.get("inlineData"), dict)]
    enhanced = " ".join(p["text"] for p in parts if isinstance(p.get("text"), str) and not p.get("thought")).strip()
    predictions: list[dict[str, Any]] = []
    storage = params.get("storageUri") if vertex else None
    for i, blob in enumerate(blobs[: max(ask.count, 1) * 8]):
        mime = str(blob.get("mimeType") or images.PNG_MIME)
        if isinstance(storage, str) and storage:
            extension = mime.rsplit("/", 1)[-1].replace("jpeg", "jpg")
            item: dict[str, Any] = {"mimeType": mime, "gcsUri": f"{storage.rstrip('/')}/sample_{i}.{extension}"}
        elif vertex:
            item = {"bytesBase64Encoded": blob.get("data", ""), "mimeType": mime}
        else:
            item = {"mimeType": mime, "bytesBase64Encoded": blob.get("data", "")}
        if params.get("enhancePrompt"):
            item["prompt"] = enhanced or ask.prompt
        if params.get("includeSafetyAttributes"):
            item["safetyAttributes"] = {"categories": [], "scores": []}
        predictions.append(item)
    if params.get("includeRaiReason"):
        if blocked:
            predictions = [{"raiFilteredReason": ALL_FILTERED}]
        elif len(predictions) < ask.count:  # a script answered fewer images than asked: the rest were filtered
            predictions.append({"raiFilteredReason": SOME_FILTERED.format(n=ask.count - len(predictions))})
    if params.get("includeSafetyAttributes") and not blocked:
        predictions.append({"safetyAttributes": {"categories": [], "scores": []}, "contentType": "Positive Prompt"})
    return {"predictions": predictions} if predictions else {}
