"""What the Live room sends: server messages in production's shapes (js-genai recordings live_*.websocket.log).

Developer: `{"setupComplete": {}}`; `{"serverContent": {"modelTurn": {"parts": [...]}}}` (no role);
`{"serverContent": {"generationComplete": true}}`; `{"serverContent": {"turnComplete": true}, "usageMetadata":
{promptTokenCount, responseTokenCount, totalTokenCount, promptTokensDetails, responseTokensDetails}}`.
Vertex: `{"setupComplete": {"sessionId": "<uuid>"}}`; modelTurn with `"role": "model"`; audio as `audio/pcm`;
usage named as generateContent's (candidatesTokenCount, candidatesTokensDetails: google-genai
_UsageMetadata_from_vertex reads those names).
"""

from __future__ import annotations

import base64
import hashlib
import threading
import uuid
from collections import OrderedDict
from typing import Any

import orjson

from gemini_emulator.media import audio
from gemini_emulator.protocol.routes import VERTEX
from gemini_emulator.wire.live.listening import rate_of

AUDIO_PIECE_BYTES = 9600  # 0.2 s of 24 kHz 16-bit audio: the first piece of each Vertex recording's answer
VERTEX_PCM_MIME = "audio/pcm"  # Vertex recordings: no rate parameter
AUDIO_TOKENS_PER_SECOND = 25  # best-known: Gemini counts 25 tokens per second of audio output


def setup_complete(backend: str, seed: str) -> dict[str, Any]:
    if backend == VERTEX:
        return {"setupComplete": {"sessionId": str(uuid.UUID(bytes=_digest(seed), version=4))}}
    return {"setupComplete": {}}


def model_turn(backend: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    turn: dict[str, Any] = {"role": "model", "parts": parts} if backend == VERTEX else {"parts": parts}
    return {"serverContent": {"modelTurn": turn}}


def audio_pieces(backend: str, pcm: bytes) -> list[dict[str, Any]]:
    """The spoken answer as modelTurn messages of AUDIO_PIECE_BYTES each."""
    mime = VERTEX_PCM_MIME if backend == VERTEX else audio.PCM_MIME
    out = []
    for start in range(0, len(pcm), AUDIO_PIECE_BYTES):
        data = base64.b64encode(pcm[start : start + AUDIO_PIECE_BYTES]).decode()
        out.append(model_turn(backend, [{"inlineData": {"mimeType": mime, "data": data}}]))
    return out


Prepared = tuple[tuple[str, bytes], ...]  # each message as sent (indented JSON) and as journaled
PREPARED_ENTRIES = 64  # spoken answers kept ready to send (a script's lines come back every turn)
PREPARED_BYTES = 32 << 20  # and at most this much PCM behind them (their serialized forms are ~2.5x that)
_prepared: OrderedDict[tuple[str, int], tuple[bytes, Prepared]] = OrderedDict()
_prepared_pcm = 0  # bytes of PCM the entries hold
_prepared_lock = threading.Lock()  # in-process servers (tests) run on threads of one process


def prepared_audio(backend: str, pcm: bytes) -> Prepared:
    """`audio_pieces(backend, pcm)` serialized for the wire and the journal, kept for the last PREPARED_ENTRIES
    answers (PREPARED_BYTES of PCM at most; a longer answer is not kept): `pcm` is media.audio.speak's cached
    object, so an entry is found by its identity (held by the entry, so the id cannot be reused while it is
    there)."""
    global _prepared_pcm
    key = (backend, id(pcm))
    with _prepared_lock:
        if (entry := _prepared.get(key)) is not None and entry[0] is pcm:
            _prepared.move_to_end(key)
            return entry[1]
    made = tuple(
        (orjson.dumps(m, option=orjson.OPT_INDENT_2).decode(), orjson.dumps(summarised(m)))
        for m in audio_pieces(backend, pcm)
    )
    if len(pcm) > PREPARED_BYTES // 4:
        return made
    with _prepared_lock:
        if key not in _prepared:
            _prepared[key] = (pcm, made)
            _prepared_pcm += len(pcm)
        while len(_prepared) > PREPARED_ENTRIES or _prepared_pcm > PREPARED_BYTES:
            _prepared_pcm -= len(_prepared.popitem(last=False)[1][0])
    return made


def content(**fields: Any) -> dict[str, Any]:
    return {"serverContent": fields}


def transcription(kind: str, text: str) -> dict[str, Any]:
    return {"serverContent": {kind: {"text": text}}}


def tool_call(calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {"toolCall": {"functionCalls": calls}}


def call_id(backend: str, given: str | None, seed: str) -> str | None:
    """A call's id: the engine's, else (Vertex's Live calls carry uuids: recording live_Vertex_should_send_tool_
    response) one minted from the request."""
    if given:
        return given
    return str(uuid.UUID(bytes=_digest(seed), version=4))


def usage(backend: str, prompt: int, response: int, modality: str) -> dict[str, Any]:
    total = prompt + response
    prompt_details = [{"modality": "TEXT", "tokenCount": prompt}]
    if backend == VERTEX:
        return {
            "promptTokenCount": prompt,
            "candidatesTokenCount": response,
            "totalTokenCount": total,
            "promptTokensDetails": prompt_details,
            "candidatesTokensDetails": [{"modality": modality, "tokenCount": response}],
        }
    return {
        "promptTokenCount": prompt,
        "responseTokenCount": response,
        "totalTokenCount": total,
        "promptTokensDetails": prompt_details,
        "responseTokensDetails": [{"modality": modality, "tokenCount": response}],
    }


def _digest(seed: str) -> bytes:
    return hashlib.sha256(seed.encode()).digest()[:16]


def summarised(message: Any, rate: int = audio.RATE, depth: int = 0) -> Any:
    """A message as the journal keeps it: each base64 `data` of audio or video replaced by its size (and, for
    PCM, its duration; `rate` when the mime type names none)."""
    if depth > 32:
        return message
    if isinstance(message, list):
        return [summarised(m, rate, depth + 1) for m in message]
    if not isinstance(message, dict):
        return message
    out: dict[str, Any] = {}
    mime = message.get("mimeType") or message.get("mime_type") or ""
    for key, value in message.items():
        if key == "data" and isinstance(value, str) and len(value) > 64:
            size = len(value) * 3 // 4 - value[-2:].count("=")
            note = f"<{size} bytes"
            if isinstance(mime, str) and mime.startswith("audio/pcm"):
                note += f", {size / (2 * rate_of(mime, rate)):.3f} s of audio"
            out[key] = note + ">"
        else:
            out[key] = summarised(value, rate, depth + 1)
    return out
