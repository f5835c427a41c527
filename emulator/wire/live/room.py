"""One Live API session over a WebSocket: credential, setup, then turns answered by the engine seam.

The first message must be `setup`; it is answered with `setupComplete`. Each user turn (clientContent with
turnComplete, realtimeInput text, realtime audio at its end of speech, a toolResponse) becomes a GenerateRequest
over the conversation so far (handlers.start_generation: the same engines, scripts, rules and namespaces as
generateContent), and the engine's chunks go out as serverContent pieces (text, or speech for AUDIO), then
generationComplete and turnComplete with usageMetadata. New input while a turn is still being sent interrupts it
(`interrupted`). Every error ends the session with a close frame (closing.py), never a traceback.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import re
import time
from typing import Any

import orjson
from starlette.websockets import WebSocket, WebSocketDisconnect

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.framing import DropConnection
from gemini_emulator.protocol.routes import LIVE_CONSTRAINED, Target
from gemini_emulator.stores.live import LiveStore
from gemini_emulator.wire import auth, handlers, validate, voice_rules
from gemini_emulator.wire.live import closing, fields, speaking
from gemini_emulator.wire.live.closing import Close
from gemini_emulator.wire.live.listening import DEFAULT_SILENCE_MS, Listener
from gemini_emulator.wire.live.tokens import locked
from gemini_emulator.wire.live.turns import Turns

log = logging.getLogger("gemini_emulator")

SETUP_TIMEOUT_S = 30.0  # a connection that sends no setup within this is closed


LIMIT_REASON = "Resource has been exhausted (e.g. check quota)."  # production's RESOURCE_EXHAUSTED wording


class Session(Turns):
    """The state of one Live session."""

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
        self.setup: dict[str, Any] = {}
        self.model = ""
        self.contents: list[dict[str, Any]] = []
        self.sizes: list[int] = []
        self.pending_calls: dict[str, str] = {}  # call id -> name, awaiting a toolResponse
        self.turn: asyncio.Task[None] | None = None
        self.turns = 0
        self.listener = Listener()
        self.activity = False  # between activityStart and activityEnd
        self.idle: asyncio.TimerHandle | None = None
        self.idle_due = 0.0  # loop time at which the silence timer ends the spoken turn
        self.stopped: asyncio.Future[BaseException] = asyncio.get_running_loop().create_future()
        self.serving: asyncio.Task[Any] | None = None  # the task reading the client's messages (run)
        self.receiving = False  # it is waiting for the next one
        self.interrupting = False  # `stop` cancelled that wait
        self.received: list[bytes] = []
        self.sent: list[bytes] = []
        self.logged_in = self.logged_out = 0
        self.send_lock = asyncio.Lock()
        self.session_id = ""  # the LiveStore's id of this open session
        self.entries: list[str] = []
        self.token_name = ""  # an ephemeral token's name (the Constrained method)
        self.token_expires = 0.0  # ... its expireTime, on the Redis store (read as the session starts)
        self.timers: list[asyncio.TimerHandle] = []  # goAway's end of session
        self.tasks: set[asyncio.Task[None]] = set()  # turns begun by the silence timer

    # ---- the session's life --------------------------------------------------------------------------------

    async def run(self) -> None:
        self.serving = asyncio.current_task()
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
        except errors.ApiError as error:  # the shared store unreachable (its 503), as a close frame
            await self._close(closing.from_error(error))
        except Exception:  # never a traceback to the client: the session ends as production's internal error
            log.exception("unexpected failure in a Live session")
            await self._close(Close(closing.INTERNAL, "Internal error encountered."))
        finally:
            if self.turn is not None:
                self.turn.cancel()
            if self.idle is not None:
                self.idle.cancel()
            for timer in self.timers:
                timer.cancel()
            for task in self.tasks:
                task.cancel()
            if self.session_id:
                self.store.close(self.session_id)
            self.record.entry = ", ".join(dict.fromkeys(self.entries)) or None

    async def _serve(self) -> None:
        await self._authenticate()
        self.session_id = self.store.open(self.namespace, self.record.path)
        if not self.session_id:
            raise Close(closing.INTERNAL, LIMIT_REASON)
        first = await asyncio.wait_for(self._next(), SETUP_TIMEOUT_S)
        kind, body = first
        if kind != "setup":
            raise closing.invalid()
        await self._begin(body)
        while True:
            kind, body = await self._next()
            self._check_token()
            await self._handle(kind, body)

    async def _authenticate(self) -> None:
        target = self.target
        if target.action == LIVE_CONSTRAINED:
            self.token_name = self.query.get("access_token", "") or self._token_header()
            shared = self.store.shared
            if not self.token_name:
                token = None
            elif shared is not None:  # the Redis store: a token minted through any process
                token = await shared.token(self.token_name)
            else:
                token = self.store.token(self.token_name)
            if token is None:
                raise Close(closing.INVALID, _TOKEN_REFUSALS["unknown"])
            self.namespace = self.record.namespace = token.namespace
            return
        try:
            credential = auth.authenticate(target, self.headers, self.query, self.ctx.settings.api_key)
            self.namespace = auth.namespace_of(self.headers, credential, self.ctx.settings.admin_token)
        except errors.ApiError as error:
            raise closing.from_error(error) from None
        self.record.namespace = self.namespace

    async def _next(self) -> tuple[str, dict[str, Any]]:
        """The next client message, parsed and checked: (its kind, its body with names in lowerCamelCase).

        Awaited directly (no task and wait per message: a message already queued is taken at once, so a session
        that fell behind catches up in one go); `stop` cancels the wait, which ends here as its reason."""
        if self.stopped.done():
            raise self.stopped.result()
        self.receiving = True
        try:
            message = await self.ws.receive()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self.interrupting and task is not None and task.uncancel() == 0:
                raise self.stopped.result() from None
            raise
        finally:
            self.receiving = False
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        raw = message.get("text")
        if raw is None:
            raw = (message.get("bytes") or b"").decode("utf-8", "replace")
        return self._parse(raw)

    def _parse(self, raw: str) -> tuple[str, dict[str, Any]]:
        try:
            validate.check_containers(raw)
        except errors.ApiError as refused:
            self._log_in(raw[:1000])
            raise closing.invalid(refused.message) from None
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            self._log_in(raw[:1000])
            raise closing.invalid("Invalid JSON payload received.") from None
        if not isinstance(value, dict):
            self._log_in(value)
            raise closing.invalid(errors.ROOT_NOT_OBJECT)
        self._log_in(value)
        if validate.nested_too_deeply(value):
            raise closing.invalid(errors.too_deep().message)
        normalised, violations = validate.walk(
            value, fields.CLIENT_MESSAGE, self.target.backend, self.target.version, fields.table()
        )
        if violations:
            raise closing.invalid(violations[0][1])
        kinds = [k for k in fields.KINDS if k in normalised]
        if len(kinds) != 1 or not isinstance(normalised[kinds[0]], dict):
            raise closing.invalid()
        return kinds[0], normalised[kinds[0]]

    async def _begin(self, setup: dict[str, Any]) -> None:
        setup = await self._constrained(setup)
        name = setup.get("model")
        if not isinstance(name, str) or not name:
            raise closing.invalid()
        model_id, project, location = model_path(name)
        self.record.model = model_id
        target = self.target
        try:
            self.model = self.ctx.catalogue.resolve(
                model_id, "bidiGenerateContent", target.version, target.backend, project, location or target.location
            )
        except errors.ApiError as error:
            raise closing.from_error(error) from None
        accepted = self.ctx.catalogue.live_modalities(self.model)
        asked = [str(m) for m in (setup.get("generationConfig") or {}).get("responseModalities") or ["AUDIO"]]
        if accepted is not None and sorted(asked) not in [sorted(c) for c in accepted]:
            raise closing.invalid(errors.live_modalities_refused(asked))
        try:
            speech = (setup.get("generationConfig") or {}).get("speechConfig")
            later: list[str] = []
            voice_rules.check_speech(self.ctx.voices, self.namespace, speech, later)
            await voice_rules.confirm(self.ctx.voices, self.namespace, later)  # stored voices on Redis
        except errors.ApiError as error:
            raise closing.invalid(error.message) from None
        self.setup = setup
        self.store.update(self.session_id, model=model_id)
        resumption = setup.get("sessionResumption")
        handle = resumption.get("handle") if isinstance(resumption, dict) else None
        if handle:
            shared = self.store.shared
            if shared is not None:
                saved = await shared.resume(self.namespace, handle)
            else:
                saved = self.store.resume(self.namespace, handle)
            if saved is None:
                raise Close(closing.POLICY, "Requested entity was not found.")
            self.contents = [dict(c) for c in saved.contents]
        detection = (setup.get("realtimeInputConfig") or {}).get("automaticActivityDetection") or {}
        self.listener = Listener(int(detection.get("silenceDurationMs") or DEFAULT_SILENCE_MS))
        await self._send(speaking.setup_complete(target.backend, f"{self.record.id}:{self.namespace}:{model_id}"))

    async def _constrained(self, setup: dict[str, Any]) -> dict[str, Any]:
        """An ephemeral token's session: the token spent (a resumption is free) and its locked fields applied."""
        if self.target.action != LIVE_CONSTRAINED:
            return setup
        resumption = setup.get("sessionResumption")
        resuming = isinstance(resumption, dict) and bool(resumption.get("handle"))
        shared = self.store.shared
        if shared is not None:  # spent and read in one call; its expireTime kept for the per-message check
            refusal, token = await shared.spend(self.token_name, resuming)
            if token is not None:
                self.token_expires = token.expire_time
        else:
            refusal = self.store.spend(self.token_name, resuming)
        if refusal:
            raise Close(closing.POLICY, _TOKEN_REFUSALS[refusal])
        if shared is None:
            token = self.store.token(self.token_name)
        if token is None or not token.constraints:
            return setup
        constraints = validate.respelled(dict(token.constraints), "BidiGenerateContentSetup")
        return locked(setup, constraints, token.field_mask)

    def _check_token(self) -> None:
        """No message on an ephemeral token past its expireTime."""
        if self.target.action != LIVE_CONSTRAINED:
            return
        if self.store.shared is not None:  # a token's times never change: checked here, no round trip
            if time.time() > self.token_expires:
                raise Close(closing.POLICY, _TOKEN_REFUSALS["expired"])
        elif not self.store.usable(self.token_name):
            raise Close(closing.POLICY, _TOKEN_REFUSALS["expired"])

    def _token_header(self) -> str:
        scheme, _, value = self.headers.get("authorization", "").partition(" ")
        return value.strip() if scheme.lower() == "token" else ""

    async def _close(self, close: Close) -> None:
        self.sent.append(orjson.dumps({"close": {"code": close.code, "reason": close.frame_reason()}}))
        try:
            await self.ws.close(close.code, close.frame_reason())
        except (RuntimeError, OSError):  # already closed by the client
            pass

    def stop(self, why: BaseException) -> None:
        """End the session with `why` (from a turn, a timer): at once when it is waiting for a message, else
        before it reads the next."""
        if not self.stopped.done():
            self.stopped.set_result(why)
            if self.receiving and self.serving is not None and not self.interrupting:
                self.interrupting = True
                self.serving.cancel()

    # ---- client messages ------------------------------------------------------------------------------------

    @property
    def automatic(self) -> bool:
        detection = (self.setup.get("realtimeInputConfig") or {}).get("automaticActivityDetection") or {}
        return not detection.get("disabled", False)

    async def _handle(self, kind: str, body: dict[str, Any]) -> None:
        if kind == "setup":
            raise closing.invalid()
        if kind == "clientContent":
            turns = [t for t in body.get("turns") or [] if isinstance(t, dict)]
            if turns:
                await self._barge_in()
            self._remember(*turns)
            if body.get("turnComplete"):
                await self._start_turn()
        elif kind == "toolResponse":
            responses = [r for r in body.get("functionResponses") or [] if isinstance(r, dict)]
            for response in responses:
                self.pending_calls.pop(str(response.get("id", "")), None)
            if responses:
                self._remember({"role": "user", "parts": [{"functionResponse": r} for r in responses]})
                await self._start_turn()
        elif kind == "realtimeInput":
            await self._realtime(body)
        elif kind == "contextUpdate":
            if "systemInstruction" in body:
                self.setup["systemInstruction"] = body["systemInstruction"]
            if isinstance(body.get("tools"), dict):
                self.setup["tools"] = body["tools"].get("tools") or []

    async def _realtime(self, body: dict[str, Any]) -> None:
        if ("activityStart" in body or "activityEnd" in body) and self.automatic:
            raise closing.invalid(
                "Explicit activity control is not supported when automatic activity detection is enabled."
            )
        if "activityStart" in body:
            self.activity = True
            self.listener.reset()
            await self._barge_in()
        blobs = [body[k] for k in ("audio", "video") if isinstance(body.get(k), dict)]
        blobs += [b for b in body.get("mediaChunks") or [] if isinstance(b, dict)]
        for blob in blobs:
            mime = str(blob.get("mimeType") or "")
            if not mime.startswith("audio/"):
                continue  # a video frame: accepted, not looked at
            try:
                pcm = proto_bytes(str(blob.get("data") or ""))
            except (binascii.Error, ValueError):
                raise closing.invalid() from None
            began, ended = self.listener.feed(pcm, mime)
            if began and self.automatic:
                await self._barge_in()
            if ended and self.automatic:
                await self._audio_turn()
            elif self.automatic and self.listener.heard:
                self._arm_idle()
        if isinstance(body.get("text"), str) and body["text"]:
            await self._barge_in()
            self._remember({"role": "user", "parts": [{"text": body["text"]}]})
            await self._start_turn()
        if body.get("audioStreamEnd") and self.listener.holding:
            await self._audio_turn()
        if "activityEnd" in body:
            self.activity = False
            if self.listener.holding:
                await self._audio_turn()

    def _arm_idle(self) -> None:
        """End the spoken turn when no audio has come for the silence duration after speech. One timer serves
        many pieces: each moves the deadline, and the timer, when it fires early, waits for the rest."""
        loop = asyncio.get_running_loop()
        self.idle_due = loop.time() + self.listener.silence_ms / 1000
        if self.idle is None:
            self.idle = loop.call_at(self.idle_due, self._idle_timer)

    def _idle_timer(self) -> None:
        loop = asyncio.get_running_loop()
        if loop.time() < self.idle_due - 0.001:  # (a timer may fire up to a clock tick early)
            self.idle = loop.call_at(self.idle_due, self._idle_timer)
            return
        self.idle = None
        self._spawn_idle_turn()

    def _spawn_idle_turn(self) -> None:
        task = asyncio.get_running_loop().create_task(self._idle_turn())
        self.tasks.add(task)  # held until done: the loop keeps only a weak reference to a task
        task.add_done_callback(self.tasks.discard)

    async def _idle_turn(self) -> None:
        if self.listener.holding and self.listener.heard:
            try:
                await self._audio_turn()
            except Close as close:
                self.stop(close)

    async def _audio_turn(self) -> None:
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None
        heard = self.listener
        data = base64.b64encode(bytes(heard.audio)).decode()
        seconds = heard.seconds
        self._remember({"role": "user", "parts": [{"inlineData": {"mimeType": heard.mime_type, "data": data}}]})
        self.listener = Listener(heard.silence_ms)
        await self._start_turn(spoken_s=seconds)

    async def _barge_in(self) -> None:
        """New input: a turn still being sent stops (interrupted), calls still awaiting a response are cancelled."""
        if self.turn is not None and not self.turn.done():
            self.turn.cancel()
            try:
                await self.turn
            except asyncio.CancelledError:
                pass
            await self._send(speaking.content(interrupted=True))
        if self.pending_calls:
            await self._cancel_calls()

    async def _start_turn(self, spoken_s: float = 0.0) -> None:
        if self.turn is not None and not self.turn.done():
            await self._barge_in()
        self.turn = asyncio.get_running_loop().create_task(self._answer(spoken_s))


_TOKEN_REFUSALS = {
    "unknown": "Invalid ephemeral token.",  # best-known wording
    "expired": "Ephemeral token expired.",
    "used": "Ephemeral token has no uses left.",
}


_MODEL_PATH = re.compile(r"^(?:projects/(?P<project>[^/]+)/)?(?:locations/(?P<location>[^/]+)/)?")


def model_path(name: str) -> tuple[str, str, str]:
    """A setup's model name as (model id, project, location): `models/m` (the Gemini API), Firebase's
    `projects/p/models/m` (its Gemini API backend) and `projects/p/locations/l/publishers/google/models/m` (Vertex,
    Firebase's Vertex backend); the project and location are "" where the name has none."""
    m = _MODEL_PATH.match(name)
    project, location = (m["project"] or "", m["location"] or "") if m else ("", "")
    return name.rsplit("models/", 1)[-1], project, location


_URL_SAFE = bytes.maketrans(b"-_", b"+/")


def proto_bytes(text: str) -> bytes:
    """A proto3 JSON `bytes` value: base64 in the standard or the URL-safe alphabet (google-genai sends the
    latter: _common.encode_unserializable_types), padded or not. Strict as b64decode(validate=True) is (a
    character outside the alphabet, padding inside or too much of it: binascii.Error; not ASCII: ValueError),
    at about a third of its cost (no regex check, bytes.translate)."""
    data = text.strip().encode("ascii").translate(_URL_SAFE)
    return binascii.a2b_base64(data + b"=" * (-len(data) % 4), strict_mode=True)
