"""The replay engine: recorded exchanges (captures/format.py) served again, byte for byte.

`--engine replay --captures DIR` answers every request from the captures in DIR; a script entry
`{"replay": "<name or glob>"}` hands one namespace's requests to a capture set while others stay scripted.

Each recorded chunk is yielded as `Chunk(raw=...)`: the wire prints it with production's printers and frames
it as the request asks, so the bytes served are the bytes recorded (tests/captures/test_golden.py proves it). A
recorded error is raised as the `ApiError` it was: before any chunk an HTTP error, after them the error tail.
The first chunk carries the recorded response headers (when the capture recorded them), so that a header the
wire would add today (`X-Gemini-Service-Tier`) is left out of a recording that did not have it.

The engine also answers what the wire would otherwise answer itself (emulator/seam/__init__.py's optional capabilities):
it serves models the catalogue retired or never knew (`serves_model`: only for a request it holds a recorded
exchange for), the recorded bodies of countTokens, computeTokens and embedding calls (`answer_method`), and
forgets a caller's conversation progress on the admin reset (`reset`).

Matching, most exact first, always within the same method and backend:
1. exact: same API version and model segment, same JSON with the same key order, as the client sent it
   (`GenerateRequest.sent_body()`);
2. normalized: key order, whitespace and snake_case/lowerCamel spelling ignored, volatile fields dropped
   (`thoughtSignature`, function call/response `id`, the GAPIC `model` field, `labels`). Recordings hold bodies
   as sent and never pass through the wire's normaliser, so `normalize` is a comparison key of its own, applied
   to both sides alike: it respells every key (the caller's data included), which only compares, never serves;
3. loose: same model and the same last user text.
Among equal matches a conversation plays in order: the next exchange of a capture already under way in the
caller's namespace first, then an exchange not yet served there. On `--store redis://...` that progress is in Redis
(engines/replay_redis.py, one Lua call a replayed request), so a conversation whose turns reach different
processes plays in order too. With none, a 404 names the closest
captures and where each first differs.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import threading
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from gemini_emulator.captures.format import Answer, Capture, CaptureError, Exchange, load_dir, select
from gemini_emulator.protocol import errors, printers
from gemini_emulator.seam import Chunk, GenerateRequest, last_user_text
from gemini_emulator.seam.state import MEMORY, link

if TYPE_CHECKING:
    from gemini_emulator.engines.replay_redis import RedisReplayProgress

MAX_CANDIDATES = 1_000  # equally good matches offered to one choice on Redis (engines/replay_redis.py's bound)

log = logging.getLogger("gemini_emulator")

_SNAKE = re.compile(r"_([a-z0-9])")
VOLATILE = frozenset({"thoughtSignature", "labels"})  # dropped anywhere in the body
VOLATILE_TOP = frozenset({"model"})  # GAPIC clients repeat the model in the body
_ID_HOLDERS = frozenset({"functionCall", "functionResponse"})  # their `id` is minted per call
_CLOSEST = 3


def normalize(value: Any, parent: str = "", top: bool = True) -> Any:
    """A request body with spelling and volatile fields taken out (see the module docstring)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name = _SNAKE.sub(lambda m: m.group(1).upper(), key)
            if name in VOLATILE or (top and name in VOLATILE_TOP) or (name == "id" and parent in _ID_HOLDERS):
                continue
            out[name] = normalize(item, name, top=False)
        return out
    if isinstance(value, list):
        return [normalize(item, parent, top=False) for item in value]
    return value


def first_difference(recorded: Any, got: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first place (in key order) where two JSON values differ: (path, recorded value, request's value)."""
    if isinstance(recorded, dict) and isinstance(got, dict):
        for key in sorted(recorded.keys() | got.keys()):
            where = f"{path}.{key}" if path else key
            if key not in recorded or key not in got:
                return where, recorded.get(key, _ABSENT), got.get(key, _ABSENT)
            found = first_difference(recorded[key], got[key], where)
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(got, list):
        for i, (a, b) in enumerate(zip(recorded, got, strict=False)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(recorded) != len(got):
            return f"{path} length", len(recorded), len(got)
        return None
    return None if recorded == got else (path or "body", recorded, got)


def distance(a: Any, b: Any) -> int:
    """How many leaves differ between two JSON values (for ranking near misses)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return sum(distance(a.get(k, _ABSENT), b.get(k, _ABSENT)) for k in a.keys() | b.keys())
    if isinstance(a, list) and isinstance(b, list):
        longer = max(len(a), len(b))
        return sum(distance(a[i] if i < len(a) else _ABSENT, b[i] if i < len(b) else _ABSENT) for i in range(longer))
    return 0 if a == b else 1


def _skipped(path: Path, problem: CaptureError) -> None:
    """A file under --captures that is not a capture: one warning naming it, and every other capture still
    replays."""
    log.warning("skipping %s: not a capture (%s)", path, problem)


class _Absent:
    def __repr__(self) -> str:
        return "(absent)"


_ABSENT = _Absent()


def _short(value: Any) -> str:
    text = repr(value) if value is _ABSENT else orjson.dumps(value).decode()
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass
class Slot:
    """One recorded exchange, indexed for matching."""

    capture: Capture
    index: int
    exchange: Exchange
    rpc: str
    backend: str
    version: str
    model: str
    body: Any
    exact: bytes
    normalized: bytes
    user_text: str
    answer: Answer | None  # None: the wire answers this exchange itself (an HTML page)
    headers: dict[str, str] | None  # the recorded response headers; None when the capture only implies them

    @property
    def label(self) -> str:
        return f"{self.capture.name}#{self.index}"


def _slots(captures: list[Capture]) -> list[Slot]:
    out = []
    for capture in captures:
        for i, exchange in enumerate(capture.exchanges):
            target = exchange.request.target
            if target is None or target.action != "call":
                continue
            body = exchange.request.json
            contents = body.get("contents") if isinstance(body, dict) else None
            try:
                answer: Answer | None = exchange.response.answer()
            except CaptureError:
                answer = None
            out.append(
                Slot(
                    capture,
                    i,
                    exchange,
                    target.method,
                    target.backend,
                    target.version,
                    target.model.removeprefix("models/"),
                    body,
                    orjson.dumps(body),
                    printers.canonical(normalize(body)),
                    last_user_text(contents) if isinstance(contents, list) else "",
                    answer,
                    dict(exchange.response.headers) if exchange.headers_recorded else None,
                )
            )
    return out


@dataclass
class _Played:
    """A namespace's progress through the captures: next exchange per capture, exchanges served."""

    cursors: dict[str, int] = field(default_factory=dict)
    served: set[tuple[str, int]] = field(default_factory=set)


class Replayer:
    """Finds the recorded exchange for a request and yields it as chunks (shared by the replay engine and
    the scripted engine's `replay` entries)."""

    def __init__(self, captures: str | Path | None = None, lazy: bool = False, state: str = MEMORY) -> None:
        """`state`: the --store setting; a redis URL keeps the conversation progress in Redis, shared by every
        process (engines/replay_redis.py), where the request path awaits it (`play`, `abody`)."""
        self.root = Path(captures) if captures else None
        self.progress: RedisReplayProgress | None = None
        if state != MEMORY:
            from gemini_emulator.engines.replay_redis import RedisReplayProgress

            self.progress = RedisReplayProgress(link(state))
        self._slots: list[Slot] | None = None
        self._subsets: dict[str, list[Slot]] = {}
        self._played: dict[str, _Played] = {}
        self._lock = threading.Lock()
        if not lazy:
            self.slots()

    def slots(self, pattern: str | None = None) -> list[Slot]:
        """Every replayable exchange, or those of the captures whose name matches `pattern`."""
        with self._lock:
            if self._slots is None:
                self._slots = _slots(load_dir(self.root, skip=_skipped))
            if pattern is None:
                return self._slots
            if pattern not in self._subsets:
                names = {c.name for c in select([s.capture for s in self._slots], pattern)}
                self._subsets[pattern] = [s for s in self._slots if s.capture.name in names]
            return self._subsets[pattern]

    def reset(self, namespace: str | None = None) -> None:
        """Forget conversation progress (of one namespace, or all; on Redis with the sync client: the admin API
        calls it in a worker thread on that store)."""
        if self.progress is not None:
            self.progress.reset(namespace)
        with self._lock:
            if namespace is None:
                self._played.clear()
            else:
                self._played.pop(namespace, None)

    def find(self, request: GenerateRequest, pattern: str | None = None) -> Slot:
        """The exchange that answers `request` (the caller's conversation moves on), or the 404 naming the
        closest ones."""
        pool = self._pool(pattern)
        found = self._matching(request, pool)
        if not found:
            raise errors.replay_unmatched(self._summary(request), self._closest(request, pool))
        return self._choose(request.namespace, found)

    async def afind(self, request: GenerateRequest, pattern: str | None = None) -> Slot:
        """`find` with the conversation's progress in Redis: the choice made there, in one Lua call."""
        pool = self._pool(pattern)
        found = self._matching(request, pool)
        if not found:
            raise errors.replay_unmatched(self._summary(request), self._closest(request, pool))
        if self.progress is None:
            return self._choose(request.namespace, found)
        offered = found[:MAX_CANDIDATES]
        chosen = await self.progress.choose(request.namespace, [(s.capture.name, s.index) for s in offered])
        return offered[chosen] if 0 <= chosen < len(offered) else offered[0]

    def holds(self, request: GenerateRequest, pattern: str | None = None) -> bool:
        """Whether a recorded exchange answers `request` (nobody's conversation moves on)."""
        try:
            return bool(self._matching(request, self._pool(pattern)))
        except errors.ApiError:  # no captures to look in
            return False

    def _pool(self, pattern: str | None) -> list[Slot]:
        try:
            pool = self.slots(pattern)
        except CaptureError as exc:
            raise errors.replay_unmatched(str(exc), []) from None
        if not pool:
            where = f"no capture is named like {pattern!r}" if pattern else "the captures directory holds none"
            raise errors.replay_unmatched(where, [])
        return pool

    @staticmethod
    def _matching(request: GenerateRequest, pool: list[Slot]) -> list[Slot]:
        """The exchanges that match most exactly (see the module docstring), or none."""
        models = {request.requested_model.removeprefix("models/"), request.model}
        same = [s for s in pool if s.rpc == request.method and s.backend == request.backend and s.model in models]
        exact_body = orjson.dumps(request.sent_body())
        found = [s for s in same if s.exact == exact_body and s.version == request.version]
        if not found:
            normalized = printers.canonical(normalize(request.body))
            found = [s for s in same if s.normalized == normalized]
        if not found:
            text = request.last_user_text()
            found = [s for s in same if s.user_text == text] if text else []
        return found

    def _choose(self, namespace: str, found: list[Slot]) -> Slot:
        with self._lock:
            played = self._played.setdefault(namespace, _Played())
            chosen = next((s for s in found if played.cursors.get(s.capture.name, 0) == s.index), None)
            chosen = chosen or next((s for s in found if (s.capture.name, s.index) not in played.served), found[0])
            played.cursors[chosen.capture.name] = max(played.cursors.get(chosen.capture.name, 0), chosen.index + 1)
            played.served.add((chosen.capture.name, chosen.index))
        return chosen

    @staticmethod
    def _summary(request: GenerateRequest) -> str:
        return f"{request.method} on {request.backend} model {request.requested_model}"

    @staticmethod
    def _closest(request: GenerateRequest, pool: list[Slot]) -> list[str]:
        body = normalize(request.body)
        models = {request.requested_model.removeprefix("models/"), request.model}
        text = request.last_user_text()

        def why(slot: Slot) -> tuple[tuple[float, ...], str]:
            """(rank, reason): method, backend, model mismatches rank last; then how unlike the last user
            text is, then how many body leaves differ."""
            unlike = 1 - SequenceMatcher(None, slot.user_text[:2000], text[:2000]).ratio()
            if slot.rpc != request.method:
                return (3, unlike), f"method {slot.rpc}, not {request.method}"
            if slot.backend != request.backend:
                return (2, unlike), f"backend {slot.backend}, not {request.backend}"
            if slot.model not in models:
                return (1, unlike), f"model {slot.model}, not {request.requested_model}"
            recorded = normalize(slot.body)
            diff = first_difference(recorded, body)
            where = f"at {diff[0]}: recorded {_short(diff[1])}, got {_short(diff[2])}" if diff else "body"
            return (0, unlike, distance(recorded, body)), where

        ranked = sorted(((why(s), s.label) for s in pool), key=lambda item: (item[0][0], item[1]))
        return [f"{label} ({reason})" for (_, reason), label in ranked[:_CLOSEST]]

    def _answer(self, request: GenerateRequest, pattern: str | None) -> tuple[Slot, Answer]:
        return self._answered(request, self.find(request, pattern))

    @staticmethod
    def _answered(request: GenerateRequest, slot: Slot) -> tuple[Slot, Answer]:
        request.notes["entry"] = "replay:" + slot.label
        if slot.answer is None:
            raise errors.replay_unmatched(f"{slot.label} is an HTML page, which only the front end sends", [])
        return slot, slot.answer

    async def play(
        self, request: GenerateRequest, pattern: str | None = None, chunk_delay: float = 0.0
    ) -> AsyncIterator[Chunk]:
        """Yield the recorded answer to `request` (errors raised where they were recorded); the first chunk
        carries the recorded headers."""
        if self.progress is None:
            slot, answer = self._answer(request, pattern)
        else:
            slot, answer = self._answered(request, await self.afind(request, pattern))
        for i, chunk in enumerate(answer.chunks):
            if i:  # a recording's pieces leave one by one, as recorded: the wire sends together only what is
                await asyncio.sleep(chunk_delay)  # ready at the same moment (wire/sending.py), so yield between them
            yield Chunk(raw=chunk, headers=slot.headers if i == 0 else None)
        if request.stream:  # the stream's close (or its error tail) on its own too
            await asyncio.sleep(0)
        if answer.error is not None:
            raise dataclasses.replace(answer.error)  # a fresh exception per request

    def body(self, request: GenerateRequest, pattern: str | None = None) -> dict[str, Any]:
        """The recorded body answering a call the wire would compute (countTokens, embeddings...), or the
        recorded error raised."""
        _, answer = self._answer(request, pattern)
        return self._body_of(answer)

    async def abody(self, request: GenerateRequest, pattern: str | None = None) -> dict[str, Any]:
        """`body` with the conversation's progress in Redis (awaited)."""
        _, answer = self._answered(request, await self.afind(request, pattern))
        return self._body_of(answer)

    @staticmethod
    def _body_of(answer: Answer) -> dict[str, Any]:
        if answer.error is not None and not answer.chunks:
            raise dataclasses.replace(answer.error)
        return answer.chunks[0]


class ReplayEngine:
    """Serves recorded exchanges only (`--engine replay --captures DIR`)."""

    name = "replay"

    def __init__(self, captures: str | Path | None = None, state: str | None = None) -> None:
        """`state` (--store): replay keeps no script; on a redis URL its conversation progress is in Redis, shared
        by every process (engines/replay_redis.py)."""
        self.replayer = Replayer(captures, state=state or MEMORY)

    async def generate(self, request: GenerateRequest) -> AsyncIterator[Chunk]:
        async for chunk in self.replayer.play(request):
            yield chunk

    def serves_model(self, request: GenerateRequest) -> bool:
        """A model the catalogue does not serve is served when a recorded exchange answers this request."""
        return self.replayer.holds(request)

    def answer_method(self, request: GenerateRequest) -> dict[str, Any] | None | Awaitable[dict[str, Any] | None]:
        """The recorded countTokens, computeTokens or embedding answer; with none recorded for this request the
        wire answers as it would (its token estimate; 501 for the rest). On the Redis store an awaitable of the
        same (seam.MethodAnswerer): the progress's round trip never holds the event loop."""
        if not self.replayer.holds(request):
            return None
        if self.replayer.progress is not None:
            return self.replayer.abody(request)
        return self.replayer.body(request)

    def reset(self, namespace: str | None = None) -> None:
        self.replayer.reset(namespace)
