"""Interactions (the Interactions API's stored turns): each caller's interactions, for `GET /interactions/{id}` and for
chaining a new one onto an earlier one (`previous_interaction_id`).

    store = InteractionStore()
    kept = store.put(namespace, Stored(view={...}, history=[...]))     # the store names it: kept.id
    store.get(namespace, kept.id)                                       # None when missing or another caller's

A stored interaction holds its wire view (what GET answers, updated as a background run goes on) and its
conversation history as Gemini contents (every earlier turn and this one's answer), which the next interaction of
the chain starts from. Both are kept as the JSON bytes the bounds count: the history one content at a time, the
view printed once the interaction is finished (`Stored.finish`); parsed JSON costs up to ~20x its bytes in
objects. Bounds: at most `max_per_namespace` interactions and `max_bytes_per_namespace` bytes (view and history)
per namespace, past either the namespace's oldest are forgotten (production keeps interactions for a retention
period; the emulator keeps the most recent ones); at most `max_bytes` over every namespace, past which a new one
is refused (StoreFull) rather than another caller's forgotten. Thread-safe.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import orjson

from gemini_emulator.protocol import printers

MAX_PER_NAMESPACE = 1000
MAX_BYTES_PER_NAMESPACE = 64 << 20
MAX_BYTES = 512 << 20
HEAD = ("id", "status", "created", "updated", "model", "agent", "object")  # what a finished view keeps unprinted


class StoreFull(Exception):
    """A new interaction past the bound over every namespace."""


@dataclass
class Stored:
    """One interaction: its wire view, its history (Gemini contents, one JSON object each) and, while it runs,
    its task. Once finished the view is printed (`printed`) and `view` keeps only its HEAD keys."""

    view: dict[str, Any]
    turns: list[bytes] = field(default_factory=list)
    task: Any = None  # the asyncio task of a background run, while it runs
    printed: bytes = b""
    size: int = 0
    tag: str = ""  # on Redis: the put that kept it (stores/interactions_redis.py)

    @classmethod
    def of(cls, view: dict[str, Any], history: list[dict[str, Any]]) -> Stored:
        return cls(view=view, turns=[orjson.dumps(content) for content in history])

    @property
    def id(self) -> str:
        return str(self.view.get("id", ""))

    def history(self) -> list[dict[str, Any]]:
        """The conversation so far, parsed afresh (a chained interaction starts from it)."""
        return [orjson.loads(turn) for turn in self.turns]

    def add_turn(self, content: dict[str, Any]) -> None:
        self.turns.append(orjson.dumps(content))

    def body(self) -> bytes:
        """The view as GET prints it."""
        return self.printed or printers.pretty(self.view)

    def finish(self) -> None:
        """The interaction will change no more: print its view once and drop the parsed one."""
        if not self.printed:
            self.printed = printers.pretty(self.view)
            self.view = {key: self.view[key] for key in HEAD if key in self.view}

    def measure(self) -> int:
        """The bytes this interaction holds, as the bounds count them."""
        return len(self.printed or orjson.dumps(self.view)) + sum(len(turn) for turn in self.turns)


def new_id() -> str:
    """An interaction id in production's style: "v1_" and URL-safe characters."""
    return "v1_" + secrets.token_urlsafe(33)


class InteractionStore:
    """Every namespace's interactions (module docstring: bounds, isolation)."""

    def __init__(
        self,
        max_per_namespace: int = MAX_PER_NAMESPACE,
        max_bytes_per_namespace: int = MAX_BYTES_PER_NAMESPACE,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.max_per_namespace = max_per_namespace
        self.max_bytes_per_namespace = max_bytes_per_namespace
        self.max_bytes = max_bytes
        self._spaces: dict[str, OrderedDict[str, Stored]] = {}
        self._bytes: dict[str, int] = {}
        self._total = 0  # the sum of _bytes
        self._lock = threading.Lock()

    def put(self, namespace: str, stored: Stored) -> Stored:
        """Keep `stored` (named by its view's id, given one when it has none), forgetting the namespace's oldest
        past its bounds; StoreFull when every namespace's together would pass `max_bytes`."""
        if not stored.view.get("id"):
            stored.view["id"] = new_id()
        size = stored.measure()
        with self._lock:
            others = self._total - self._bytes.get(namespace, 0)
            if others + min(size, self.max_bytes_per_namespace) > self.max_bytes:
                raise StoreFull(f"the emulator's interactions would take more than {self.max_bytes} bytes")
            space = self._spaces.setdefault(namespace, OrderedDict())
            old = space.pop(stored.id, None)
            used = self._bytes.get(namespace, 0) - (old.size if old else 0)
            stored.size = size
            space[stored.id] = stored
            used += size
            while len(space) > self.max_per_namespace or (used > self.max_bytes_per_namespace and len(space) > 1):
                _, gone = space.popitem(last=False)
                used -= gone.size
            self._set_used(namespace, used)
        return stored

    def settle(self, namespace: str, stored: Stored) -> None:
        """`stored` has finished (its answer added, its view printed): count what it holds now, if it is still
        kept (deleted or forgotten meanwhile, it stays gone)."""
        size = stored.measure()
        with self._lock:
            space = self._spaces.get(namespace)
            if space is None or space.get(stored.id) is not stored:
                return
            used = self._bytes.get(namespace, 0) - stored.size + size
            stored.size = size
            while used > self.max_bytes_per_namespace and len(space) > 1:
                _, gone = space.popitem(last=False)
                used -= gone.size
            self._set_used(namespace, used)

    def _set_used(self, namespace: str, used: int) -> None:
        """The lock is held."""
        self._total += used - self._bytes.get(namespace, 0)
        self._bytes[namespace] = used

    def get(self, namespace: str, interaction_id: str) -> Stored | None:
        with self._lock:
            return self._spaces.get(namespace, OrderedDict()).get(interaction_id)

    def delete(self, namespace: str, interaction_id: str) -> Stored | None:
        with self._lock:
            space = self._spaces.get(namespace)
            gone = space.pop(interaction_id, None) if space is not None else None
            if gone is not None:
                self._set_used(namespace, self._bytes[namespace] - gone.size)
            return gone

    def all(self, namespace: str | None = None) -> list[tuple[str, Stored]]:
        """(namespace, interaction) pairs, oldest first: one namespace's, or every namespace's."""
        with self._lock:
            names = list(self._spaces) if namespace is None else [namespace]
            return [(n, s) for n in names for s in self._spaces.get(n, OrderedDict()).values()]

    def running(self, namespace: str) -> int:
        """How many of the namespace's interactions run in the background now."""
        with self._lock:
            space = self._spaces.get(namespace, OrderedDict())
            return sum(1 for s in space.values() if s.task is not None and not s.task.done())

    def count(self, namespace: str) -> int:
        with self._lock:
            return len(self._spaces.get(namespace, ()))

    def clear(self, namespace: str | None = None) -> None:
        """Forget a namespace's interactions (None: every namespace's), cancelling background runs."""
        with self._lock:
            spaces = list(self._spaces) if namespace is None else [namespace]
            for name in spaces:
                for stored in self._spaces.pop(name, OrderedDict()).values():
                    if stored.task is not None:
                        stored.task.cancel()
                self._total -= self._bytes.pop(name, 0)
