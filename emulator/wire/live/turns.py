"""A Live session's model turns: the conversation asked of the engine, its chunks sent as serverContent pieces (text,
or speech for AUDIO), tool calls, transcriptions, and what a script entry's `live` object adds; and the sending
itself, journaled. `Session` (room.py) is built on this; it owns the client's side of the conversation."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import logging
from typing import Any

import orjson

from gemini_emulator.media import audio
from gemini_emulator.protocol import errors, tokens
from gemini_emulator.protocol.framing import DropConnection
from gemini_emulator.protocol.routes import VERTEX, Target
from gemini_emulator.stores.live import LiveStore
from gemini_emulator.wire import handlers
from gemini_emulator.wire.live import closing, speaking
from gemini_emulator.wire.live.closing import Close

log = logging.getLogger("gemini_emulator")

MAX_CONTENTS = 1000  # conversation turns kept (the oldest go first, as a sliding window would)
MAX_CONTENT_BYTES = 32 << 20  # and at most this much of them (as JSON)
MAX_LOGGED = 2000  # messages journaled each way per session
MAX_LOGGED_BYTES = 1 << 20  # and at most this much each way (the journal keeps a body's first MiB anyway)
_ENGINE_ONLY = ("responseModalities", "speechConfig", "enableAffectiveDialog", "translationConfig")


class Turns:
    """The model's side of a session (the attributes are the session's: room.Session sets them)."""

    ctx: handlers.Context
    store: LiveStore
    ws: Any
    target: Target
    session_id: str
    namespace: str
    setup: dict[str, Any]
    model: str
    contents: list[dict[str, Any]]
    sizes: list[int]  # each turn's JSON size, for MAX_CONTENT_BYTES
    pending_calls: dict[str, str]
    turns: int
    entries: list[str]
    timers: list[asyncio.TimerHandle]
    received: list[bytes]  # each as JSON (_log_in)
    sent: list[bytes]
    logged_in: int  # bytes journaled of the client's messages
    logged_out: int
    send_lock: asyncio.Lock

    def stop(self, why: BaseException) -> None:
        raise NotImplementedError

    # ---- model turns ------------------------------------------------------------------------------------------

    @property
    def speaks(self) -> bool:
        modalities = (self.setup.get("generationConfig") or {}).get("responseModalities") or ["AUDIO"]
        return any(str(m).upper() == "AUDIO" for m in modalities)

    def _voice(self) -> str:
        speech = (self.setup.get("generationConfig") or {}).get("speechConfig") or {}
        config = speech.get("voiceConfig") or {}
        prebuilt = config.get("prebuiltVoiceConfig") or {}
        return str(prebuilt.get("voiceName") or config.get("voice") or "")  # `voice`: a stored voice's id too

    def _request_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"contents": list(self.contents)}
        for key in ("systemInstruction", "tools", "toolConfig", "safetySettings"):
            if self.setup.get(key):
                body[key] = self.setup[key]
        config = {k: v for k, v in (self.setup.get("generationConfig") or {}).items() if k not in _ENGINE_ONLY}
        if config:
            body["generationConfig"] = config
        return body

    async def _answer(self, spoken_s: float) -> None:
        """One model turn, sent piece by piece; a Close or a drop ends the session through `stop`."""
        try:
            await self._answer_turn(spoken_s)
        except asyncio.CancelledError:
            raise
        except errors.ApiError as error:
            self.stop(closing.from_error(error))
        except (Close, DropConnection) as why:
            self.stop(why)
        except Exception as exc:  # never a traceback to the client
            log.exception("unexpected failure in a Live turn")
            self.stop(Close(closing.INTERNAL, "Internal error encountered.") if not isinstance(exc, OSError) else exc)

    async def _answer_turn(self, spoken_s: float) -> None:
        self.turns += 1
        self.store.update(self.session_id, turns=self.turns)
        target = dataclasses.replace(self.target, model=self.model)
        body = self._request_body()
        gen, _, _, chunks = handlers.start_generation(
            self.ctx, target, self.model, body, self.namespace, True, {"setup": self.setup, **body}
        )
        backend = self.target.backend
        speaks = self.speaks
        texts: list[str] = []
        spoken = 0.0
        model_parts: list[dict[str, Any]] = []
        calls: list[dict[str, Any]] = []
        live: dict[str, Any] = {}
        first = True
        try:
            async for chunk in chunks:
                if first:
                    first = False
                    live = dict(chunk.live or {})
                    await self._first_chunk(live, spoken_s)
                if chunk.fault is not None and chunk.fault.before_chunk:
                    raise DropConnection
                for part in chunk.parts:
                    if part.get("thought"):
                        continue
                    if "functionCall" in part:
                        calls.append(part)
                        continue
                    text = part.get("text")
                    if isinstance(text, str):
                        if not text:
                            continue
                        texts.append(text)
                        model_parts.append({"text": text})
                        if speaks:
                            spoken += await self._speak(text, live)
                        else:
                            await self._send(speaking.model_turn(backend, [{"text": text}]))
                    else:
                        model_parts.append(part)
                        await self._send(speaking.model_turn(backend, [part]))
                    if live.get("interrupted") and len(texts) >= 1:
                        break
                if chunk.fault is not None:  # a drop at a byte count: the turn so far, then the cut
                    raise DropConnection
        finally:
            if gen.notes.get("entry"):
                self.entries.append(str(gen.notes["entry"]))
        if speaks and "outputTranscription" in live and self.setup.get("outputAudioTranscription") is not None:
            await self._send(speaking.transcription("outputTranscription", live["outputTranscription"]))
        self._settle_user_audio(live, spoken_s)
        if live.get("interrupted"):
            self._remember({"role": "model", "parts": model_parts or [{"text": ""}]})
            await self._send(speaking.content(interrupted=True))
            await self._after_turn(live)
            return
        if calls:
            await self._send_calls(calls, model_parts, gen.fingerprint)
            await self._after_turn(live)
            return
        self._remember({"role": "model", "parts": model_parts or [{"text": ""}]})
        await self._send(speaking.content(generationComplete=True))
        text_tokens = tokens.count_text("".join(texts))
        response = round(spoken * speaking.AUDIO_TOKENS_PER_SECOND) if speaks else text_tokens
        usage = speaking.usage(backend, gen.prompt_tokens, response, "AUDIO" if speaks else "TEXT")
        await self._resumable()  # before turnComplete: google-genai's receive() stops reading at turnComplete
        await self._send({"serverContent": {"turnComplete": True}, "usageMetadata": usage})
        await self._after_turn(live, saved=True)

    async def _first_chunk(self, live: dict[str, Any], spoken_s: float) -> None:
        if live.get("cancelToolCalls") and self.pending_calls:
            await self._cancel_calls()
        if spoken_s and self.setup.get("inputAudioTranscription") is not None:
            heard = live.get("inputTranscription") or _placeholder(spoken_s)
            await self._send(speaking.transcription("inputTranscription", heard))

    def _settle_user_audio(self, live: dict[str, Any], spoken_s: float) -> None:
        """The user's audio turn stays in the conversation as its transcription (the audio itself is not kept)."""
        if not spoken_s:
            return
        for i in range(len(self.contents) - 1, -1, -1):
            parts = self.contents[i].get("parts") or []
            if self.contents[i].get("role") == "user" and parts and "inlineData" in parts[0]:
                heard = live.get("inputTranscription") or _placeholder(spoken_s)
                self.contents[i] = {"role": "user", "parts": [{"text": heard}]}
                return

    async def _speak(self, text: str, live: dict[str, Any]) -> float:
        """Send `text` as speech (and its transcription when asked for); the seconds sent."""
        scripted = "audio" in live
        if scripted:  # the script's own audio: sent once, with the first text piece
            pcm = base64.b64decode(live.pop("audio"))
            live["scriptedAudio"] = True
        elif live.get("scriptedAudio"):
            return 0.0
        else:  # the synthetic voice (cached) on the loop; espeak-ng, a subprocess, from a thread
            voice = self._voice()
            made = audio.speak_now(text, voice)
            pcm = made if made is not None else await asyncio.to_thread(audio.speak, text, voice)
        if self.setup.get("outputAudioTranscription") is not None and "outputTranscription" not in live:
            await self._send(speaking.transcription("outputTranscription", text))
        if scripted:
            for message in speaking.audio_pieces(self.target.backend, pcm):
                await self._send(message)
        else:
            for wire, line in speaking.prepared_audio(self.target.backend, pcm):
                await self._send_ready(wire, line)
        return audio.seconds_of(pcm)

    async def _send_calls(self, calls: list[dict[str, Any]], parts: list[dict[str, Any]], seed: str) -> None:
        wire_calls = []
        for i, part in enumerate(calls):
            call = dict(part["functionCall"])
            call["id"] = speaking.call_id(self.target.backend, call.get("id"), f"{seed}:{self.turns}:{i}")
            part = part | {"functionCall": call}
            parts.append(part)
            self.pending_calls[call["id"]] = str(call.get("name", ""))
            wire_calls.append({"name": call.get("name"), "args": call.get("args", {}), "id": call["id"]})
        self._remember({"role": "model", "parts": parts})
        await self._send(speaking.tool_call(wire_calls))
        if self.target.backend == VERTEX:  # recording live_Vertex_should_send_tool_response
            await self._send(speaking.content(generationComplete=True))

    async def _resumable(self) -> None:
        if self.setup.get("sessionResumption") is not None:
            shared = self.store.shared
            if shared is not None:  # the Redis store: resumable through any process
                handle = await shared.save(self.namespace, self.setup, self.contents)
            else:
                handle = self.store.save(self.namespace, self.setup, self.contents)
            await self._send({"sessionResumptionUpdate": {"newHandle": handle, "resumable": True}})

    async def _after_turn(self, live: dict[str, Any], saved: bool = False) -> None:
        if not saved:
            await self._resumable()
        if live.get("drop"):
            raise DropConnection
        if "goAway" in live:
            await self._send({"goAway": {"timeLeft": live["goAway"]}})
            later = asyncio.get_running_loop().call_later
            self.timers.append(later(float(live["goAway"][:-1]), self.stop, Close(closing.NORMAL, "")))

    def _remember(self, *turns: dict[str, Any]) -> None:
        sizes = self.sizes
        if len(sizes) != len(self.contents):  # a resumed conversation: measured once
            sizes[:] = [len(orjson.dumps(c)) for c in self.contents]
        self.contents.extend(turns)
        sizes.extend(len(orjson.dumps(t)) for t in turns)
        dropped = max(0, len(self.contents) - MAX_CONTENTS)
        total = sum(sizes[dropped:])
        while total > MAX_CONTENT_BYTES and dropped < len(sizes) - 1:  # the newest turn always stays
            total -= sizes[dropped]
            dropped += 1
        del self.contents[:dropped]
        del sizes[:dropped]

    async def _cancel_calls(self) -> None:
        ids = list(self.pending_calls)
        self.pending_calls.clear()
        await self._send({"toolCallCancellation": {"ids": ids}})

    # ---- sending and the journal --------------------------------------------------------------------------

    async def _send(self, message: dict[str, Any]) -> None:
        text = orjson.dumps(message, option=orjson.OPT_INDENT_2).decode()
        async with self.send_lock:
            await self.ws.send_text(text)
        self._log_out(message)

    async def _send_ready(self, text: str, line: bytes) -> None:
        """A message already serialized: `text` to the client, `line` (its summary) to the journal."""
        async with self.send_lock:
            await self.ws.send_text(text)
        self._log_line(line)

    def _log_in(self, message: Any) -> None:
        """The client's message kept for the journal as its summary's JSON (one bytes object, which the garbage
        collector never walks: 200 sessions streaming audio for 30 s would otherwise hold 300,000 small dicts
        that every full collection visits); `received_messages` turns them back into values."""
        if len(self.received) < MAX_LOGGED and self.logged_in < MAX_LOGGED_BYTES:
            kept = speaking.summarised(message, rate=16_000)
            line = _compact(orjson.dumps(kept))
            self.logged_in += len(line) if not isinstance(kept, str) else len(kept)
            self.received.append(line if self.logged_in <= MAX_LOGGED_BYTES else b'{"journalCut":true}')

    def received_messages(self) -> list[Any]:
        return [orjson.loads(line) for line in self.received]

    def _log_out(self, message: dict[str, Any]) -> None:
        if len(self.sent) < MAX_LOGGED and self.logged_out < MAX_LOGGED_BYTES:
            self._log_line(_compact(orjson.dumps(speaking.summarised(message))))

    def _log_line(self, line: bytes) -> None:
        if len(self.sent) < MAX_LOGGED and self.logged_out < MAX_LOGGED_BYTES:
            self.logged_out += len(line)
            self.sent.append(line if self.logged_out <= MAX_LOGGED_BYTES else b'{"journalCut":true}')

    def transcript(self) -> bytes:
        return b"\n".join(self.sent)


def _compact(line: bytes) -> bytes:
    """A copy of `line` that holds only its bytes: orjson's own result keeps its ~4 KiB write buffer (measured with
    orjson 3.13: 100,000 lines of 103 bytes held 393 MiB), too much for the thousands of lines a session keeps."""
    return bytes(memoryview(line))


def _placeholder(seconds: float) -> str:
    """The zero-config transcription of audio the script says nothing about."""
    return f"[{seconds:.1f} seconds of audio]"
