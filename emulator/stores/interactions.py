"""Interactions (the Interactions API's stored turns): each caller's interactions, for `GET /interactions/{id}` and for
chaining a new one onto an earlier one (`previous_interaction_id`).

    store = InteractionStore()
    kept = store.put(namespace, Stored(view={...}, history=[...]))     # the store names it: kept.id
    store.get(namespace, kept.id)                                       # None when missing or another caller's

A stored interaction holds its wire view (what GET answers, updated as a background run goes on) and its
conversation history as Gemini contents (every earlier turn and this one's answer), which the next interaction of
the chain starts from. Bounds: at most `max_per_namespace` interactions and `max_bytes_per_namespace` bytes of
history per namespace; past either the namespace's oldest interactions are forgotten (production keeps
interactions for a retention period; the emulator keeps the most recent ones). Thread-safe.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import orjson

MAX_PER_NAMESPACE = 1000
MAX_BYTES_PER_NAMESPACE = 64 << 20


@dataclass
class Stored:
    """One interaction: its wire view, its history (Gemini contents) and, while it runs, its task."""

    view: dict[str, Any]
    history: list[dict[str, Any]] = field(default_factory=list)
    task: Any = None  # the asyncio task of a background run, while it runs
    size: int = 0

    @property
    def id(self) -> str:
        return str(self.view.get("id", ""))


def new_id() -> str:
    """An interaction id in production's style: "v1_" and URL-safe characters."""
    return "v1_" + secrets.token_urlsafe(33)


class InteractionStore:
    """Every namespace's interactions (module docstring: bounds, isolation)."""

    def __init__(
        self, max_per_namespace: int = MAX_PER_NAMESPACE, max_bytes_per_namespace: int = MAX_BYTES_PER_NAMESPACE
    ) -> None:
        self.max_per_namespace = max_per_namespace
        self.max_bytes_per_namespace = max_bytes_per_namespace
        self._spaces: dict[str, OrderedDict[str, Stored]] = {}
        self._bytes: dict[str, int] = {}
        self._lock = threading.Lock()

    def put(self, namespace: str, stored: Stored) -> Stored:
        """Keep `stored` (named by its view's id, given one when it has none), forgetting the namespace's oldest
        past the bounds."""
        if not stored.view.get("id"):
            stored.view["id"] = new_id()
        stored.size = len(orjson.dumps(stored.history))
        with self._lock:
            space = self._spaces.setdefault(namespace, OrderedDict())
            old = space.pop(stored.id, None)
            used = self._bytes.get(namespace, 0) - (old.size if old else 0)
            space[stored.id] = stored
            used += stored.size
            while len(space) > self.max_per_namespace or (used > self.max_bytes_per_namespace and len(space) > 1):
                _, gone = space.popitem(last=False)
                used -= gone.size
            self._bytes[namespace] = used
        return stored

    def get(self, namespace: str, interaction_id: str) -> Stored | None:
        with self._lock:
            return self._spaces.get(namespace, OrderedDict()).get(interaction_id)

    def delete(self, namespace: str, interaction_id: str) -> Stored | None:
        with self._lock:
            space = self._spaces.get(namespace)
            gone = space.pop(interaction_id, None) if space is not None else None
            if gone is not None:
                self._bytes[namespace] -= gone.size
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
                self._bytes.pop(name, None)
