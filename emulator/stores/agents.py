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
from typing import Any

import orjson

from gemini_emulator.stores.keyed import Full, Keyed

MAX_PER_NAMESPACE = 100
MAX_AGENTS = 10_000
MAX_AGENT_BYTES = 64 << 10  # one agent's fields as kept (JSON)
MAX_BYTES_PER_NAMESPACE = 2 << 20
MAX_BYTES = 64 << 20
ID_PREFIX = "agent_"
_ID_CHARS = string.ascii_lowercase + string.digits


class AgentsFull(Full):
    """No room for another agent: the message says which bound."""


class AgentExists(Exception):
    """An agent of that id is already the namespace's."""


def new_id() -> str:
    """An id for an agent created without one (best-known form: `agent_` and 12 lowercase letters or digits)."""
    return ID_PREFIX + "".join(secrets.choice(_ID_CHARS) for _ in range(12))


class AgentStore(Keyed[bytes]):
    """Every namespace's agents as their JSON, oldest first (module docstring: bounds)."""

    full = AgentsFull
    noun = "agents"

    def __init__(self) -> None:
        super().__init__(
            MAX_PER_NAMESPACE, MAX_AGENTS, bytes_per_namespace=MAX_BYTES_PER_NAMESPACE, bytes_overall=MAX_BYTES
        )

    def size_of(self, record: bytes) -> int:
        return len(record)

    def create(self, namespace: str, agent: dict[str, Any]) -> dict[str, Any]:
        """Keep `agent` (its `id` set); AgentExists, AgentsFull, or ValueError past MAX_AGENT_BYTES."""
        data = orjson.dumps(agent)
        if len(data) > MAX_AGENT_BYTES:
            raise ValueError(f"an agent's fields take at most {MAX_AGENT_BYTES} bytes of JSON")
        with self._lock:
            if self._find(namespace, agent["id"]) is not None:
                raise AgentExists(agent["id"])
            self._room(namespace, len(data))
            self._put(namespace, agent["id"], data)
        return dict(agent)

    def agent(self, namespace: str, agent_id: str) -> dict[str, Any] | None:
        data = self.get(namespace, agent_id)
        return None if data is None else dict(orjson.loads(data))

    def agents_of(self, namespace: str, ids: list[str]) -> list[dict[str, Any] | None]:
        """The agents of `ids` (None for one not held)."""
        return [None if data is None else dict(orjson.loads(data)) for data in self.many(namespace, ids)]

    def agents(self, namespace: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        """(namespace, agent) for every agent, or one namespace's, oldest first (the admin view)."""
        return [(name, orjson.loads(data)) for name, data in self.owned(namespace)]
