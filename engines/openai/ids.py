"""OpenAI tool-call ids across stateless Gemini requests.

Gemini clients replay the whole history on every call; OpenAI upstreams want each `tool` message to name the
id of an assistant tool call, and some (Mistral, some vLLM parsers) accept only the ids they issued. So the
engine keeps the ids an upstream gave, per namespace and per *conversation turn*, and finds them again when
the history comes back.

The rule: a function-call turn is identified by the digest of everything before it in `contents` plus the
calls it holds (name and args, in order); ids, thought signatures and thought parts are left out, since
clients drop or rewrite them. When a replayed turn is found, its calls get the stored ids in order; when it
is not (another process answered, the store evicted it, the client edited the history), each call keeps the
`id` the client echoed, else gets one minted from the digest. Function responses are then matched FIFO
against the open calls: same id first, else the oldest open call of the same name, so parallel calls of one
function are answered in the order they were made.

On `--store redis://...` the turns live in Redis (engines/openai/ids_redis.py), so a conversation whose turns reach
different processes keeps the upstream's ids: a request whose history holds function-call turns fetches their ids
in one round trip before it is sent upstream (TurnIds is that request's view), and an answer with calls writes its
ids in one before it is shown (a request without calls in its history or its answer costs none).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

from gemini_emulator.protocol import printers

_DROPPED = ("thoughtSignature", "thought")
DEFAULT_CAP = 10_000


def normalize_part(part: dict[str, Any]) -> dict[str, Any] | None:
    """A part as the digest sees it (names arrive in lowerCamelCase: the wire normalises them): no signature, no
    call/response id; thoughts vanish."""
    if part.get("thought") is True:
        return None
    out: dict[str, Any] = {}
    for key, value in part.items():
        if key in _DROPPED:
            continue
        if key in ("functionCall", "functionResponse") and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k != "id"}
        out[key] = value
    if out.get("text") == "" and len(out) == 1:
        return None  # Gemini 3's signature-only closing part
    return out or None


def _normalize(contents: list[dict[str, Any]]) -> list[Any]:
    turns = []
    for content in contents:
        parts = [normalize_part(p) for p in content.get("parts") or [] if isinstance(p, dict)]
        turns.append([content.get("role") or "user", [p for p in parts if p is not None]])
    return turns


def _numbers(value: Any) -> Any:
    """Whole floats as ints: `21.0` from the upstream comes back as `21` once printed and parsed by a client."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    return value


def turn_key(namespace: str, before: list[dict[str, Any]], calls: list[tuple[str, Any]]) -> str:
    """The digest naming one function-call turn of one conversation."""
    material = [namespace, _normalize(before), [[name, args] for name, args in calls]]
    return hashlib.sha256(printers.canonical(_numbers(material))).hexdigest()


def minted_id(key: str, position: int) -> str:
    """An OpenAI-style id for a call whose upstream id is unknown: stable for the same turn and position."""
    return "call_" + hashlib.sha256(f"{key}:{position}".encode()).hexdigest()[:24]


class CallIdStore:
    """Upstream ids of function-call turns, most recent `cap` turns kept (thread-safe)."""

    def __init__(self, cap: int = DEFAULT_CAP) -> None:
        self.cap = cap
        self._lock = threading.Lock()
        self._turns: OrderedDict[str, list[str]] = OrderedDict()

    def remember(self, key: str, ids: list[str]) -> None:
        with self._lock:
            self._turns[key] = list(ids)
            self._turns.move_to_end(key)
            while len(self._turns) > self.cap:
                self._turns.popitem(last=False)

    def recall(self, key: str) -> list[str] | None:
        with self._lock:
            ids = self._turns.get(key)
            if ids is not None:
                self._turns.move_to_end(key)
            return list(ids) if ids is not None else None

    def __len__(self) -> int:
        return len(self._turns)


class TurnIds(CallIdStore):
    """One request's view of a shared store (ids_redis.py): the turns `known` when it began, and what it
    remembers, kept in `written` for the store."""

    def __init__(self, known: dict[str, list[str]]) -> None:
        super().__init__(cap=len(known) + 64)
        self._turns.update(known)
        self.written: dict[str, list[str]] = {}

    def remember(self, key: str, ids: list[str]) -> None:
        super().remember(key, ids)
        self.written[key] = list(ids)
