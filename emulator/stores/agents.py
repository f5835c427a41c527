"""Agents (google-genai 3.6.1's `client.agents`): each namespace's managed agents, the reusable configurations an
interaction names by id (`interactions.create(agent="code-reviewer", ...)`).

An agent is kept as the JSON bytes of its fields (the SDK's Agent: id, description, base_agent, agent_config,
system_instruction, base_environment, tools), oldest first. Its id is the caller's (`id`) or one made here.

Bounds: MAX_PER_NAMESPACE agents and MAX_BYTES_PER_NAMESPACE bytes per namespace, MAX_AGENTS agents and MAX_BYTES
bytes in all (a create past any is refused: AgentsFull), MAX_AGENT_BYTES an agent. Thread-safe.
"""

from __future__ import annotations

import secrets
import string
import threading
from collections import OrderedDict
from typing import Any

import orjson

MAX_PER_NAMESPACE = 100
MAX_AGENTS = 10_000
MAX_AGENT_BYTES = 64 << 10  # one agent's fields as kept (JSON)
MAX_BYTES_PER_NAMESPACE = 2 << 20
MAX_BYTES = 64 << 20
ID_PREFIX = "agent_"
_ID_CHARS = string.ascii_lowercase + string.digits


class AgentsFull(Exception):
    """No room for another agent: the message says which bound."""


class AgentExists(Exception):
    """An agent of that id is already the namespace's."""


def new_id() -> str:
    """An id for an agent created without one (best-known form: `agent_` and 12 lowercase letters or digits)."""
    return ID_PREFIX + "".join(secrets.choice(_ID_CHARS) for _ in range(12))


class AgentStore:
    """Every namespace's agents, oldest first (module docstring: bounds)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spaces: dict[str, OrderedDict[str, bytes]] = {}
        self._count = 0
        self._bytes: dict[str, int] = {}
        self._total = 0

    def create(self, namespace: str, agent: dict[str, Any]) -> dict[str, Any]:
        """Keep `agent` (its `id` set); AgentExists, AgentsFull, or ValueError past MAX_AGENT_BYTES."""
        data = orjson.dumps(agent)
        if len(data) > MAX_AGENT_BYTES:
            raise ValueError(f"an agent's fields take at most {MAX_AGENT_BYTES} bytes of JSON")
        with self._lock:
            space = self._spaces.setdefault(namespace, OrderedDict())
            if agent["id"] in space:
                raise AgentExists(agent["id"])
            used = self._bytes.get(namespace, 0)
            if len(space) >= MAX_PER_NAMESPACE:
                raise AgentsFull(f"this caller has {MAX_PER_NAMESPACE} agents, the emulator's bound per caller")
            if used + len(data) > MAX_BYTES_PER_NAMESPACE:
                raise AgentsFull(f"this caller's agents would take more than {MAX_BYTES_PER_NAMESPACE} bytes")
            if self._count >= MAX_AGENTS or self._total + len(data) > MAX_BYTES:
                raise AgentsFull(f"the emulator holds {MAX_AGENTS} agents or {MAX_BYTES} bytes of them, its bound")
            space[agent["id"]] = data
            self._count += 1
            self._bytes[namespace] = used + len(data)
            self._total += len(data)
        return dict(agent)

    def get(self, namespace: str, agent_id: str) -> dict[str, Any] | None:
        with self._lock:
            data = self._spaces.get(namespace, OrderedDict()).get(agent_id)
        return None if data is None else dict(orjson.loads(data))

    def delete(self, namespace: str, agent_id: str) -> bool:
        with self._lock:
            space = self._spaces.get(namespace)
            data = space.pop(agent_id, None) if space is not None else None
            if data is None:
                return False
            self._count -= 1
            self._bytes[namespace] -= len(data)
            self._total -= len(data)
            return True

    def ids(self, namespace: str) -> list[str]:
        with self._lock:
            return list(self._spaces.get(namespace, OrderedDict()))

    def all(self, namespace: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """(namespace, agent) for every agent, or one namespace's, oldest first (the admin view)."""
        with self._lock:
            picked = [
                (name, list(space.values()))
                for name, space in self._spaces.items()
                if namespace is None or name == namespace
            ]
        return [(name, orjson.loads(data)) for name, datas in picked for data in datas]

    def reset(self, namespace: str | None = None) -> None:
        """Forget every agent, or one namespace's."""
        with self._lock:
            if namespace is None:
                self._spaces.clear()
                self._bytes.clear()
            else:
                self._spaces.pop(namespace, None)
                self._bytes.pop(namespace, None)
            self._count = sum(len(space) for space in self._spaces.values())
            self._total = sum(self._bytes.values())
