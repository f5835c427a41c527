"""Turning a script entry into chunks: the answer, its timing, and the faults it asks for."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from gemini_emulator.engines.scripted.entries import entry_images
from gemini_emulator.engines.synth import builtin, media
from gemini_emulator.engines.synth.calls import function_call_message, mint_call_id, mint_signature
from gemini_emulator.engines.synth.prose import split_for_stream
from gemini_emulator.protocol import errors
from gemini_emulator.seam import DROP, TRUNCATE, Chunk, Fault, GenerateRequest

if TYPE_CHECKING:  # only a type here: the scripted engine hands its Replayer in
    from gemini_emulator.engines.replay import Replayer

ZERO_CONFIG = "zero-config"  # journal name of the unscripted answer


def error_from(spec: str | dict[str, Any], request: GenerateRequest) -> errors.ApiError:
    if isinstance(spec, str):
        return errors.named(spec, request.model, request.version)
    return errors.ApiError(spec["code"], spec.get("message", ""), spec.get("status", ""), list(spec.get("details", [])))


def _function_calls(spec: Any, request: GenerateRequest) -> list[dict[str, Any]]:
    calls = spec if isinstance(spec, list) else [spec]
    parts = []
    for i, call in enumerate(calls):
        seed = f"{request.fingerprint}:{i}:{call['name']}"
        body = {"name": call["name"], "args": call.get("args", {})}
        # Vertex calls carry no id unless the script gives one: 64 of 65 Vertex gemini-3 function calls in the
        # pydantic-ai VCR recordings (2026-02..07) have none.
        if call.get("id") or request.backend != "vertex":
            body["id"] = call.get("id") or mint_call_id(seed)
        part: dict[str, Any] = {"functionCall": body}
        if i == 0:
            part["thoughtSignature"] = mint_signature(seed)
        parts.append(part)
    return parts


def answer_chunks(spec: dict[str, Any], request: GenerateRequest, prelude: Callable[[], list[str]]) -> list[Chunk]:
    """The entry's answer as chunks, before timing and faults; `prelude` is the text used when the
    entry only declares a fault (errorAfterChunks without an answer of its own)."""
    if "blockReason" in spec:
        return [Chunk(block_reason=spec["blockReason"], safety_ratings=spec.get("safetyRatings"))]
    if "raw" in spec:
        items = spec["raw"] if isinstance(spec["raw"], list) else [spec["raw"]]
        return [Chunk(raw=item) for item in items]
    if "functionCall" in spec:
        chunk = Chunk(
            parts=_function_calls(spec["functionCall"], request), finish_message=function_call_message(request)
        )
        return [chunk]
    if "chunks" in spec:
        return [Chunk(parts=[{"text": c} if isinstance(c, str) else dict(c)]) for c in spec["chunks"]]
    if "text" in spec:
        texts = split_for_stream(spec["text"]) if request.stream else [spec["text"]]
    elif "image" in spec:  # images alone
        return [Chunk()]
    else:
        texts = prelude()
    return [Chunk(parts=[{"text": t}]) for t in texts]


def with_faults(spec: dict[str, Any], chunks: list[Chunk]) -> list[Chunk]:
    """The entry's answer as its fault field (one at most) breaks it: `errorAfterChunks` keeps that many
    unfinished chunks (the error follows them: `render`), `dropAfterChunks` follows that many with a DROP,
    `dropAfterBytes` puts a DROP at that byte count on the first chunk, `truncateFinalEvent` a TRUNCATE on the
    last. The wire carries the faults out (emulator/wire/faults.py)."""
    if "errorAfterChunks" in spec:  # the stream never finished
        kept = chunks[: spec["errorAfterChunks"]]
        return [dataclasses.replace(c, finish_reason=None, finish_message=None) for c in kept]
    if "dropAfterChunks" in spec:
        return [*chunks[: spec["dropAfterChunks"]], Chunk(fault=Fault(DROP))]
    if "dropAfterBytes" in spec:
        return [dataclasses.replace(chunks[0], fault=Fault(DROP, at_byte=spec["dropAfterBytes"])), *chunks[1:]]
    if spec.get("truncateFinalEvent"):
        return [*chunks[:-1], dataclasses.replace(chunks[-1], fault=Fault(TRUNCATE))]
    return chunks


def ready(spec: dict[str, Any], request: GenerateRequest, prelude: Callable[[], list[str]]) -> list[Chunk] | None:
    """What `render` yields for the entry, all at once, when none of it waits (no delay, no recording to play, no
    pause between chunks, no mid-stream error, no image or audio made off the event loop); else None, having done
    nothing. Raises the entry's error, as `render` does."""
    if (
        spec.get("delayMs")
        or spec.get("chunkDelayMs")
        or "replay" in spec
        or "errorAfterChunks" in spec
        or "image" in spec
        or request.output_modalities != ("TEXT",)
    ):
        return None
    if "error" in spec:
        raise error_from(spec["error"], request)
    return _finished(spec, request, answer_chunks(spec, request, prelude))


async def render(
    spec: dict[str, Any],
    request: GenerateRequest,
    prelude: Callable[[], list[str]] = lambda: [""],
    replayer: Replayer | None = None,
) -> AsyncIterator[Chunk]:
    """Yield the entry's chunks with its delays, finish details and faults (a `replay` entry: the recorded
    exchange that matches the request, from `replayer`)."""
    if spec.get("delayMs"):
        await asyncio.sleep(spec["delayMs"] / 1000)
    if "replay" in spec:
        if replayer is None:
            raise errors.replay_unmatched("this engine has no captures to replay", [])
        async for chunk in replayer.play(request, spec["replay"], spec.get("chunkDelayMs", 0) / 1000):
            yield chunk
        return
    midstream = "errorAfterChunks" in spec
    if "error" in spec and not midstream:
        raise error_from(spec["error"], request)
    chunks = answer_chunks(spec, request, prelude)
    if (
        chunks[-1].raw is None
        and chunks[-1].block_reason is None
        and ("image" in spec or request.output_modalities != ("TEXT",))
    ):
        given = entry_images(spec["image"]) if "image" in spec else None
        chunks = await asyncio.to_thread(media.dress, request, chunks, given)
    chunks = _finished(spec, request, chunks)
    pause = spec.get("chunkDelayMs", 0) / 1000
    clock = asyncio.get_running_loop().time
    start = clock()
    for i, chunk in enumerate(chunks):
        if i and pause:  # chunk i is due at start + i * pause: a late chunk does not push back the ones after it
            await asyncio.sleep(max(0.0, start + i * pause - clock()))
        yield chunk
    if midstream:
        raise error_from(spec["error"], request)


def _finished(spec: dict[str, Any], request: GenerateRequest, chunks: list[Chunk]) -> list[Chunk]:
    """The entry's answer with its finish details, citations, usage, Live fields and faults."""
    last = chunks[-1]
    if last.raw is None and last.block_reason is None:
        last.finish_reason = spec.get("finishReason", "STOP")
        last.finish_message = spec.get("finishMessage", last.finish_message)
        last.safety_ratings = spec.get("safetyRatings")
    if request.retrieved and last.raw is None and last.block_reason is None and last.grounding is None:
        # a fileSearch tool retrieved chunks: the scripted answer cites them as the zero-config one does
        text = "".join(p["text"] for c in chunks for p in c.parts if isinstance(p.get("text"), str))
        if text:
            last.grounding = builtin.file_search_grounding(request, text)
    if "usage" in spec:
        for chunk in chunks:
            chunk.usage = spec["usage"]
    if "live" in spec:  # a Live turn's own fields ride on its first chunk
        chunks[0].live = dict(spec["live"])
    return with_faults(spec, chunks)
