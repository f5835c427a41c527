"""Lyria RealTime: the BidiGenerateMusic WebSocket protocol as google-genai 3.6.1 speaks it (live_music.py).

The first message is `{"setup": {"model": "models/lyria-realtime-exp"}}`, answered with `{"setupComplete": {}}`.
Then any of `clientContent.weightedPrompts`, `musicGenerationConfig` and `playbackControl` (PLAY, PAUSE, STOP,
RESET_CONTEXT). After PLAY, with at least one prompt in force, `serverContent.audioChunks` carry synthesized
16-bit PCM, stereo, 48 kHz (media/music.py), at most LEAD_S ahead of real time. Each prompt is asked of the engine
seam (method `bidiGenerateMusic`): a script entry's `blockReason` filters it (`filteredPrompt`), its `error`
ends the session with a close frame, `dropAfterChunks: 0` cuts the connection. The Live room's auth, session
bounds, close codes and journal record are shared (room.py, closing.py, stores/live.py).
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import logging
from typing import Any

import orjson
from starlette.websockets import WebSocket, WebSocketDisconnect

from gemini_emulator.admin.journal import Record
from gemini_emulator.media.music import CHUNK_S, FRAME_BYTES, MIME_TYPE, RATE, Synth
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.framing import DropConnection
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.live import LiveStore
from gemini_emulator.wire import auth, handlers, validate
from gemini_emulator.wire.live import closing
from gemini_emulator.wire.live.closing import Close

log = logging.getLogger("gemini_emulator")

MODELS = frozenset({"lyria-realtime-exp"})  # google-genai's docs and tests; the catalogue does not list it
SETUP_TIMEOUT_S = 30.0
LEAD_S = 4.0  # how far ahead of real time the audio may run (production: "as quickly as possible")
MAX_PROMPTS = 16  # weighted prompts in one message (the emulator's bound)
MAX_PROMPT_CHARS = 2048
MAX_MESSAGE_BYTES = 64 << 10  # a music client message is small JSON
MAX_LOGGED = 2000  # messages journaled each way
LIMIT_REASON = "Resource has been exhausted (e.g. check quota)."
CONTROLS = ("PLAY", "PAUSE", "STOP", "RESET_CONTEXT")

# LiveMusicGenerationConfig (types.py) as proto JSON names: kind and range from the SDK's field descriptions.
_NUMBERS: dict[str, tuple[type, float, float]] = {
    "temperature": (float, 0.0, 3.0),
    "topK": (int, 1, 1000),
    "seed": (int, -(2**31), 2**31 - 1),
    "guidance": (float, 0.0, 6.0),
    "bpm": (int, 60, 200),
    "density": (float, 0.0, 1.0),
    "brightness": (float, 0.0, 1.0),
}
_FLAGS = ("muteBass", "muteDrums", "onlyBassAndDrums")
SCALES = (
    "SCALE_UNSPECIFIED",
    "C_MAJOR_A_MINOR",
    "D_FLAT_MAJOR_B_FLAT_MINOR",
    "D_MAJOR_B_MINOR",
    "E_FLAT_MAJOR_C_MINOR",
    "E_MAJOR_D_FLAT_MINOR",
    "F_MAJOR_D_MINOR",
    "G_FLAT_MAJOR_E_FLAT_MINOR",
    "G_MAJOR_E_MINOR",
    "A_FLAT_MAJOR_F_MINOR",
    "A_MAJOR_G_FLAT_MINOR",
    "B_FLAT_MAJOR_G_MINOR",
    "B_MAJOR_A_FLAT_MINOR",
)
_ENUMS = {
    "scale": SCALES,
    "musicGenerationMode": ("MUSIC_GENERATION_MODE_UNSPECIFIED", "QUALITY", "DIVERSITY", "VOCALIZATION"),
}
_KINDS = ("setup", "clientContent", "musicGenerationConfig", "playbackControl")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _unknown(name: str, where: str) -> Close:
    return closing.invalid(f"Invalid JSON payload received. Unknown name \"{name}\" at '{where}': Cannot find field.")


def check_config(config: Any) -> dict[str, Any]:
    """A musicGenerationConfig in camelCase, every field checked against the SDK's documented range; a Close."""
    if not isinstance(config, dict):
        raise closing.invalid()
    out: dict[str, Any] = {}
    for key, value in config.items():
        name = _camel(str(key))
        if name in _NUMBERS:
            kind, low, high = _NUMBERS[name]
            if isinstance(value, bool) or not isinstance(value, int | float) or (kind is int and value != int(value)):
                raise closing.invalid(f"Invalid value at 'music_generation_config.{key}'")
            if not low <= value <= high:
                raise closing.invalid(f"{name} must be in [{low:g}, {high:g}], got {value:g}.")  # best-known wording
            out[name] = int(value) if kind is int else float(value)
        elif name in _FLAGS:
            if not isinstance(value, bool):
                raise closing.invalid(f"Invalid value at 'music_generation_config.{key}' (TYPE_BOOL)")
            out[name] = value
        elif name in _ENUMS:
            if value not in _ENUMS[name]:
                raise closing.invalid(f"Invalid value at 'music_generation_config.{key}' ({value!r})")
            out[name] = value
        else:
            raise _unknown(str(key), "music_generation_config")
    return out


def check_prompts(content: Any) -> list[dict[str, Any]]:
    """clientContent's weightedPrompts: 1..MAX_PROMPTS of {text, weight != 0}; a Close."""
    if not isinstance(content, dict):
        raise closing.invalid()
    for key in content:
        if _camel(str(key)) != "weightedPrompts":
            raise _unknown(str(key), "client_content")
    prompts = content.get("weightedPrompts", content.get("weighted_prompts"))
    if not isinstance(prompts, list) or not prompts or len(prompts) > MAX_PROMPTS:
        raise closing.invalid(f"weightedPrompts must hold 1 to {MAX_PROMPTS} prompts.")
    out = []
    for prompt in prompts:
        if not isinstance(prompt, dict):
            raise closing.invalid()
        for key in prompt:
            if key not in ("text", "weight"):
                raise _unknown(str(key), "client_content.weighted_prompts[0]")
        text, weight = prompt.get("text"), prompt.get("weight", 1.0)
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_PROMPT_CHARS:
            raise closing.invalid("A weighted prompt needs a text.")
        if isinstance(weight, bool) or not isinstance(weight, int | float) or weight == 0:
            raise closing.invalid("Weight must not be 0.")  # the SDK's WeightedPrompt.weight description
        out.append({"text": text, "weight": float(weight)})
    return out


class MusicSession:
    """One Lyria RealTime session: its reader (`run`) and, while playing, its producer task."""

    def __init__(
        self,
        ctx: handlers.Context,
        store: LiveStore,
        ws: WebSocket,
        target: Target,
        record: Record,
        headers: dict[str, str],
        query: dict[str, str],
    ) -> None:
        self.ctx, self.store, self.ws, self.target, self.record = ctx, store, ws, target, record
        self.headers, self.query = headers, query
        self.namespace = ""
        self.session_id = ""
        self.model = ""
        self.prompts: list[dict[str, Any]] = []
        self.config: dict[str, Any] = {}
        self.synth = Synth()
        self.steered = asyncio.Event()  # set when prompts arrive
        self.producer: asyncio.Task[None] | None = None
        self.stopped: asyncio.Future[BaseException] = asyncio.get_running_loop().create_future()
        self.send_lock = asyncio.Lock()
        self.received: list[bytes] = []
        self.sent: list[bytes] = []
        self.entries: list[str] = []
        self.chunks = 0  # audio chunks sent
        self.audio_bytes = 0

    async def run(self) -> None:
        await self.ws.accept()
        try:
            await self._serve()
        except Close as close:
            await self._close(close)
        except DropConnection:
            self._log_out({"dropped": True})
            raise
        except WebSocketDisconnect:
            pass
        except Exception:
            log.exception("unexpected failure in a music session")
            await self._close(Close(closing.INTERNAL, "Internal error encountered."))
        finally:
            await self._halt()
            if self.session_id:
                self.store.close(self.session_id)
            self.record.entry = ", ".join(dict.fromkeys(self.entries)) or None

    async def _serve(self) -> None:
        try:
            credential = auth.authenticate(self.target, self.headers, self.query, self.ctx.settings.api_key)
            self.namespace = auth.namespace_of(self.headers, credential, self.ctx.settings.admin_token)
        except errors.ApiError as error:
            raise closing.from_error(error) from None
        self.record.namespace = self.namespace
        self.session_id = self.store.open(self.namespace, self.record.path)
        if not self.session_id:
            raise Close(closing.INTERNAL, LIMIT_REASON)
        kind, body = await asyncio.wait_for(self._next(), SETUP_TIMEOUT_S)
        if kind != "setup":
            raise closing.invalid()
        await self._begin(body)
        while True:
            kind, body = await self._next()
            await self._handle(kind, body)

    async def _next(self) -> tuple[str, Any]:
        """The next client message: its kind and body. A producer's failure ends the session here."""
        receiving: asyncio.Future[Any] = asyncio.ensure_future(self.ws.receive())
        waits: set[asyncio.Future[Any]] = {receiving, self.stopped}
        done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        if receiving not in done:
            receiving.cancel()
            raise self.stopped.result()
        message = receiving.result()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        raw = message.get("text")
        if raw is None:
            raw = (message.get("bytes") or b"").decode("utf-8", "replace")
        if len(raw) > MAX_MESSAGE_BYTES:
            self._log_in({"tooLarge": len(raw)})
            raise closing.invalid(f"A music message holds at most {MAX_MESSAGE_BYTES} bytes.")
        try:
            validate.check_containers(raw)
            value = orjson.loads(raw)
        except errors.ApiError as refused:
            self._log_in(raw[:1000])
            raise closing.invalid(refused.message) from None
        except orjson.JSONDecodeError:
            self._log_in(raw[:1000])
            raise closing.invalid("Invalid JSON payload received.") from None
        self._log_in(value)
        if not isinstance(value, dict):
            raise closing.invalid(errors.ROOT_NOT_OBJECT)
        if validate.nested_too_deeply(value):
            raise closing.invalid(errors.too_deep().message)
        named = {_camel(str(k)): v for k, v in value.items()}
        for key in named:
            if key not in _KINDS:
                raise _unknown(key, "")
        if len(named) != 1:
            raise closing.invalid()
        kind, body = next(iter(named.items()))
        return kind, body

    async def _begin(self, setup: Any) -> None:
        if not isinstance(setup, dict):
            raise closing.invalid()
        for key in setup:
            if key != "model":
                raise _unknown(str(key), "setup")
        name = setup.get("model")
        if not isinstance(name, str) or not name:
            raise closing.invalid()
        model_id = name.rsplit("models/", 1)[-1]
        self.record.model = model_id
        if model_id not in MODELS:
            raise closing.from_error(errors.model_not_found(model_id, self.target.version, "bidiGenerateMusic"))
        self.model = model_id
        self.store.update(self.session_id, model=model_id)
        await self._send({"setupComplete": {}})

    async def _handle(self, kind: str, body: Any) -> None:
        if kind == "setup":
            raise closing.invalid()
        if kind == "clientContent":
            prompts = check_prompts(body)
            kept = []
            for prompt in prompts:
                reason = await self._ask(prompt["text"])
                if reason:
                    await self._send({"filteredPrompt": {"text": prompt["text"], "filteredReason": reason}})
                else:
                    kept.append(prompt)
            if kept:
                self.prompts = kept
                self.synth.steer(self.prompts, self.config)
                self.steered.set()
        elif kind == "musicGenerationConfig":
            self.config = check_config(body)
            self.synth.steer(self.prompts, self.config)
        else:
            await self._control(body)

    async def _control(self, value: Any) -> None:
        if value not in CONTROLS:
            raise closing.invalid(f"Invalid value at 'playback_control' ({value!r})")
        if value == "PLAY":
            if self.producer is None or self.producer.done():
                self.producer = asyncio.get_running_loop().create_task(self._produce())
        elif value == "PAUSE":
            await self._halt()
        elif value == "STOP":
            await self._halt()
            self.synth.reset()
        else:
            self.synth.reset()

    async def _ask(self, text: str) -> str:
        """One prompt through the engine seam: the answer's blockReason (the prompt is filtered with that
        reason), else ""."""
        target = dataclasses.replace(self.target, model=self.model)
        body = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
        try:
            gen, _, _, chunks = handlers.start_generation(self.ctx, target, self.model, body, self.namespace, True)
            blocked = ""
            async for chunk in chunks:
                if chunk.fault is not None and chunk.fault.before_chunk:
                    raise DropConnection
                blocked = blocked or chunk.block_reason or ""
        except errors.ApiError as error:
            raise closing.from_error(error) from None
        if gen.notes.get("entry"):
            self.entries.append(str(gen.notes["entry"]))
        return blocked

    async def _produce(self) -> None:
        """Audio chunks while playing: at most LEAD_S ahead of the wall clock since PLAY, in CHUNK_S pieces."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        made = 0.0
        try:
            while True:
                if not self.prompts:  # nothing to play yet: wait for a prompt, the clock starting then
                    self.steered.clear()
                    await self.steered.wait()
                    started, made = loop.time(), 0.0
                    continue
                ahead = made - (loop.time() - started)
                if ahead > LEAD_S:
                    await asyncio.sleep(ahead - LEAD_S)
                pcm = self.synth.chunk()
                data = base64.b64encode(pcm).decode()
                await self._send({"serverContent": {"audioChunks": [{"data": data, "mimeType": MIME_TYPE}]}}, len(pcm))
                self.chunks += 1
                self.audio_bytes += len(pcm)
                made += CHUNK_S
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a closed socket, a failure: the reader ends the session
            if not self.stopped.done():
                self.stopped.set_result(exc if isinstance(exc, Close) else WebSocketDisconnect(1006))

    async def _halt(self) -> None:
        """No chunk after this returns: the producer is cancelled and awaited."""
        producer, self.producer = self.producer, None
        if producer is not None and not producer.done():
            producer.cancel()
            try:
                await producer
            except asyncio.CancelledError:
                pass

    async def _close(self, close: Close) -> None:
        await self._halt()
        self.sent.append(orjson.dumps({"close": {"code": close.code, "reason": close.frame_reason()}}))
        try:
            await self.ws.close(close.code, close.frame_reason())
        except (RuntimeError, OSError):
            pass

    # ---- sending and the journal --------------------------------------------------------------------------

    async def _send(self, message: dict[str, Any], pcm_bytes: int = -1) -> None:
        text = orjson.dumps(message).decode()
        async with self.send_lock:
            await self.ws.send_text(text)
        self._log_out(message, pcm_bytes)

    def _log_in(self, message: Any) -> None:
        if len(self.received) < MAX_LOGGED:
            self.received.append(orjson.dumps(message))

    def _log_out(self, message: dict[str, Any], pcm_bytes: int = -1) -> None:
        """A server message for the journal; an audio chunk's data as its size and (stereo) duration."""
        if len(self.sent) < MAX_LOGGED:
            if pcm_bytes >= 0:
                seconds = pcm_bytes / FRAME_BYTES / RATE
                chunk = {"data": f"<{pcm_bytes} bytes, {seconds:.3f} s of audio>", "mimeType": MIME_TYPE}
                message = {"serverContent": {"audioChunks": [chunk]}}
            self.sent.append(orjson.dumps(message))

    def received_messages(self) -> list[Any]:
        return [orjson.loads(line) for line in self.received]

    def transcript(self) -> bytes:
        return b"\n".join(self.sent)
