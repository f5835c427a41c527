"""The embedding endpoints' wire: the four request forms the SDKs send and production's response layouts.

Developer API: `:embedContent` {content, outputDimensionality?} -> {"embedding": {"values"}};
`:batchEmbedContents` {requests: [...]} -> {"embeddings": [{"values"}]}, at most 100 requests
(vercel-ai fixture issue-16101-google-batch-embed-150-error.json). Vertex AI: `:embedContent` (the Python
SDK, gemini embedding models) -> {"embedding", "usageMetadata"}; `:predict` {instances: [{content}],
parameters} (@google/genai) -> {"predictions": [{"embeddings": {"statistics", "values"}}], "metadata"}
(js-genai recording Client_Tests_embedContent_Vertex_AI_*, vercel-ai google-vertex-embedding.json).

gemini-embedding-2 reports usage (pydantic-ai VCR recordings, ../shared/corpus): its batchEmbedContents
answers add `usageMetadata: {promptTokenCount, promptTokenDetails}` (that spelling, singular "Token"; 8 of 8
gemini-embedding-2 answers, 1 of 3 gemini-embedding-2-preview ones, none of gemini-embedding-001's), and its
Vertex embedContent answer's usage has `promptTokensDetails` (plural, as generateContent spells it).
"""

from __future__ import annotations

from typing import Any

import orjson

from gemini_emulator.protocol import errors, tokens
from gemini_emulator.protocol.limits import MAX_EMBEDDING_DIMENSIONS
from gemini_emulator.protocol.routes import VERTEX, Target
from gemini_emulator.seam import Embedder
from gemini_emulator.wire import validate

MAX_BATCH = 100
MAX_DIMENSIONS = MAX_EMBEDDING_DIMENSIONS  # past it: a 400 (protocol/limits.py)


def _text(content: Any, path: str = "content") -> str:
    """The content's text; production's 400 for a part whose `text` is not a string (`path` names the content)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, dict):
        return ""
    parts = content.get("parts") or []
    texts = [
        (i, p["text"])
        for i, p in enumerate(parts if isinstance(parts, list) else [])
        if isinstance(p, dict) and "text" in p
    ]
    wrong = [
        errors.invalid_value(f"{path}.parts[{i}].text", "TYPE_STRING", orjson.dumps(t).decode())
        for i, t in texts
        if not isinstance(t, str)
    ]
    if wrong:
        raise errors.payload_violations(wrong)
    return "\n".join(t for _, t in texts)


def _dims(obj: dict[str, Any]) -> Any:
    """outputDimensionality: top level (Developer API) or inside embedContentConfig (Vertex, google-genai)."""
    nested = obj.get("embedContentConfig")
    if isinstance(nested, dict):
        obj = {**obj, **nested}
    value = obj.get("outputDimensionality")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > MAX_DIMENSIONS:
        raise errors.field_errors(
            "EmbedContentRequest.", [f"output_dimensionality: {value} is larger than the maximum, {MAX_DIMENSIONS}"]
        )
    return value


def _content_request(message: str, body: dict[str, Any], target: Target, path: str = "content") -> tuple[str, Any]:
    content = body.get("content")
    if not isinstance(content, dict) or not content.get("parts"):
        raise errors.field_errors(f"{message}.", ["content: content is not specified"])
    validate.check_message(content, "Content", path, target.backend, target.version)  # parts not a list, and so on
    return _text(content, path), _dims(body)


def answer(engine: Embedder, target: Target, model: str, body: dict[str, Any]) -> dict[str, Any]:
    """The response body for an embedding call (`body` normalised: emulator/wire/validate.py)."""
    method = target.method
    if method == "batchEmbedContents":
        requests = body.get("requests")
        if not isinstance(requests, list) or not requests:
            raise errors.field_errors("BatchEmbedContentsRequest.", ["requests: requests is not specified"])
        if len(requests) > MAX_BATCH:
            raise errors.field_errors(
                "BatchEmbedContentsRequest.", [f"requests: at most {MAX_BATCH} requests can be in one batch"]
            )
        items = [
            _content_request("EmbedContentRequest", r if isinstance(r, dict) else {}, target, f"requests[{i}].content")
            for i, r in enumerate(requests)
        ]
        vectors = [engine.embed(model, [text], dims)[0] for text, dims in items]
        out: dict[str, Any] = {"embeddings": [{"values": v} for v in vectors]}
        if model.startswith("gemini-embedding-2"):
            count = sum(tokens.count_text(text) for text, _ in items)
            out["usageMetadata"] = {
                "promptTokenCount": count,
                "promptTokenDetails": [{"modality": "TEXT", "tokenCount": count}],
            }
        return out
    if method == "predict":
        instances = body.get("instances")
        if not isinstance(instances, list) or not instances:
            raise errors.invalid_argument()
        given = body.get("parameters")
        parameters: dict[str, Any] = given if isinstance(given, dict) else {}
        texts = [
            _text(x.get("content"), f"instances[{i}].content") if isinstance(x, dict) else ""
            for i, x in enumerate(instances)
        ]
        vectors = engine.embed(model, texts, _dims(parameters))
        predictions = [
            {"embeddings": {"statistics": {"token_count": tokens.count_text(t), "truncated": False}, "values": v}}
            for t, v in zip(texts, vectors, strict=True)
        ]
        billable = sum(len("".join(t.split())) for t in texts)
        return {"predictions": predictions, "metadata": {"billableCharacterCount": billable}}
    text, dims = _content_request("EmbedContentRequest", body, target)
    vector = engine.embed(model, [text], dims)[0]
    if target.backend == VERTEX:
        count = tokens.count_text(text)
        usage: dict[str, Any] = {"promptTokenCount": count, "totalTokenCount": count}
        if model.startswith("gemini-embedding-2"):
            usage["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": count}]
        return {"embedding": {"values": vector}, "usageMetadata": usage}
    return {"embedding": {"values": vector}}
