"""Agents: `POST|GET /{v}/agents`, `GET|DELETE /{v}/agents/{id}`, as google-genai 3.6.1's `client.agents` calls them
(_gaos/agents.py: snake_case JSON, `page_size`/`page_token` in the query), on the caller's namespace
(stores/agents.py).

An agent (the SDK's Agent: id, description, base_agent, agent_config {type antigravity, model, max_total_tokens},
system_instruction, base_environment, tools) is what an interaction names by id, as the managed-agents guide shows
(`client.agents.create(id="code-reviewer", base_agent=..., system_instruction=...)`, then
`client.interactions.create(agent="code-reviewer", ...)`). `settings` turns such an interaction into the engine's
terms: the agent's model (agent_config.model, else the stand-in STAND_IN_MODEL), system instruction and tools,
each overridden by the interaction's own; an agent extending another stored agent (`base_agent`) takes what it
does not set from it. Field names from the SDK; ids' form, key order, page sizes and errors' wording are
best-known (docs/conformance.md, "Agents and environments (issue 33)").
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors, printers
from gemini_emulator.protocol.routes import Target
from gemini_emulator.stores.agents import AgentExists, AgentsFull, AgentStore, new_id
from gemini_emulator.stores.keyed import settled
from gemini_emulator.stores.records_redis import RedisAgentStore
from gemini_emulator.wire import validate
from gemini_emulator.wire.handlers import Context, error_response, json_response, read_body
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources import common
from gemini_emulator.wire.resources.common import caller

# The built-in agents google-genai 3.6.1 names (types/interactions/agentoption.py, AgentOption).
BUILT_IN = frozenset(
    {
        "deep-research-pro-preview-12-2025",
        "deep-research-preview-04-2026",
        "deep-research-max-preview-04-2026",
        "antigravity-preview-05-2026",
        "antigravity-preview-09-2026",
    }
)
STAND_IN_MODEL = "gemini-2.5-flash"  # best-known: the model that answers for an agent with none of its own
FIELDS = ("id", "description", "base_agent", "agent_config", "system_instruction", "base_environment", "tools")
CONFIG_FIELDS = ("type", "model", "max_total_tokens")  # AntigravityAgentConfig
TOOL_TYPES = ("code_execution", "url_context", "google_search", "function", "mcp_server")  # AgentTool
SERVED_TOOL_TYPES = ("code_execution", "url_context", "google_search", "function")  # the engine path's
PAGE_DEFAULT, PAGE_MAX = 50, 1000  # best-known: as triggers' and webhooks'
MAX_TOOLS = 128
MAX_TEXT_CHARS = 32_768  # a description or system instruction
MAX_BASE_DEPTH = 8  # base_agent links followed
ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,62}")  # best-known (production's rule is not published)
NOT_FOUND = "Requested entity was not found."  # Google's generic 404 text, as the sibling rooms
Agents = AgentStore | RedisAgentStore  # in memory (the default) or on Redis (--store redis://...)


async def serve(ctx: Context, store: Agents, request: Incoming, target: Target, record: Record) -> Response:
    """Every agents URL (routes: action `agents`)."""
    try:
        namespace = caller(ctx, request, target, record)
        record.rpc = f"agents.{target.method}"
        if target.method == "create":
            body = await read_body(ctx, request, record)
            record.body = redacted(record.body)
            return json_response(await _create(store, namespace, body))
        if target.method == "list":
            ids = await settled(store.ids(namespace))
            start, size = page_start(request.query, ids), page_size(request.query)
            out: dict[str, Any] = {}
            found = await settled(store.agents_of(namespace, ids[start : start + size]))
            if found:
                out["agents"] = [view(agent) for agent in found if agent is not None]
            if start + size < len(ids):
                out["next_page_token"] = page_token(ids[start + size])
            return json_response(out)
        agent_id = target.resource.removeprefix("agents/")
        held = await settled(store.agent(namespace, agent_id))
        if held is None:
            raise errors.ApiError(404, NOT_FOUND)
        if target.method == "get":
            return json_response(view(held))
        await settled(store.delete(namespace, agent_id))  # delete
        return json_response({})
    except errors.ApiError as error:
        return error_response(error)


def view(agent: dict[str, Any]) -> dict[str, Any]:
    """An Agent as printed: its fields in FIELDS' order (best-known), those set only."""
    return {key: agent[key] for key in FIELDS if key in agent}


async def _create(store: Agents, namespace: str, body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise errors.root_not_object()
    unknown = [key for key in body if key not in FIELDS]
    if unknown:
        raise errors.payload_violations([errors.unknown_name(key, "") for key in unknown])
    agent: dict[str, Any] = {}
    for key in ("id", "description", "base_agent", "system_instruction"):
        if body.get(key) is not None:
            agent[key] = _string(body[key], key)
    agent_id = agent.get("id") or new_id()
    if not ID_PATTERN.fullmatch(agent_id):
        raise errors.invalid_argument(
            f"Invalid agent id {agent_id[:80]!r}: expected 1 to 63 lowercase letters, digits, - or _, "
            "beginning with a letter or digit."
        )
    if agent_id in BUILT_IN:
        raise errors.ApiError(409, f"Agent {agent_id} already exists.", status="ALREADY_EXISTS")
    agent["id"] = agent_id
    if body.get("agent_config") is not None:
        agent["agent_config"] = _agent_config(body["agent_config"])
    if body.get("base_environment") is not None:
        agent["base_environment"] = _base_environment(body["base_environment"])
    if body.get("tools") is not None:
        agent["tools"] = _tools(body["tools"])
    try:
        return view(await settled(store.create(namespace, {key: agent[key] for key in FIELDS if key in agent})))
    except AgentExists:
        raise errors.ApiError(409, f"Agent {agent_id} already exists.", status="ALREADY_EXISTS") from None
    except AgentsFull as full:
        raise errors.ApiError(429, f"gemini-emulator: {full}.", status="RESOURCE_EXHAUSTED") from None
    except ValueError as too_big:
        raise errors.invalid_argument(str(too_big)) from None


def _string(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise errors.payload_violations([errors.invalid_value(key, "TYPE_STRING", orjson.dumps(value).decode()[:100])])
    if len(value) > MAX_TEXT_CHARS:
        raise errors.invalid_argument(f"{key} must be at most {MAX_TEXT_CHARS} characters.")
    return value


def _agent_config(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise errors.payload_violations([errors.invalid_value("agent_config", "TYPE_MESSAGE", _text(value))])
    unknown = [key for key in value if key not in CONFIG_FIELDS]
    if unknown:
        raise errors.payload_violations([errors.unknown_name(key, "agent_config") for key in unknown])
    if value.get("type", "antigravity") != "antigravity":
        raise errors.invalid_argument('agent_config.type must be "antigravity".')
    config: dict[str, Any] = {"type": "antigravity"}
    if value.get("model") is not None:
        config["model"] = _string(value["model"], "agent_config.model")
    tokens = value.get("max_total_tokens")
    if tokens is not None:
        text = str(tokens)
        if isinstance(tokens, bool) or not isinstance(tokens, int | str) or not validate.int_text_ok("int32", text):
            raise errors.payload_violations(
                [errors.invalid_value("agent_config.max_total_tokens", "TYPE_INT32", _text(tokens))]
            )
        config["max_total_tokens"] = int(text)
    return config


def _base_environment(value: Any) -> Any:
    if isinstance(value, str):
        return _string(value, "base_environment")
    if not isinstance(value, dict) or value.get("type", "remote") != "remote":
        raise errors.invalid_argument('base_environment must be an environment id or {"type": "remote", ...}.')
    if len(orjson.dumps(value)) > MAX_TEXT_CHARS:
        raise errors.invalid_argument(f"base_environment must take at most {MAX_TEXT_CHARS} bytes of JSON.")
    return dict(value)


def _tools(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise errors.payload_violations([errors.invalid_value("tools", "TYPE_MESSAGE (repeated)", _text(value))])
    if len(value) > MAX_TOOLS:
        raise errors.invalid_argument(f"An agent has at most {MAX_TOOLS} tools.")
    for index, tool in enumerate(value):
        if not isinstance(tool, dict) or tool.get("type") not in TOOL_TYPES:
            raise errors.invalid_argument(f"tools[{index}].type must be one of {', '.join(TOOL_TYPES)}.")
        if tool["type"] == "function" and not (isinstance(tool.get("name"), str) and tool["name"]):
            raise errors.invalid_argument(f"tools[{index}].name is required for a function tool.")
    return [dict(tool) for tool in value]


def redacted(body: Any) -> Any:
    """A create body as journaled: an MCP server tool's headers (its credentials, often) REDACTED."""
    if not isinstance(body, dict) or not isinstance(body.get("tools"), list):
        return body
    tools = [
        {**tool, "headers": {name: "REDACTED" for name in tool["headers"]}}
        if isinstance(tool, dict) and isinstance(tool.get("headers"), dict)
        else tool
        for tool in body["tools"]
    ]
    return {**body, "tools": tools}


def journal_body(raw: bytes) -> bytes:
    """An answer as journaled: the MCP server tools' headers of the agents it shows REDACTED."""
    if b'"headers"' not in raw:
        return raw
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw
    if isinstance(body, dict) and isinstance(body.get("agents"), list):
        body["agents"] = [redacted(agent) for agent in body["agents"]]
    return printers.pretty(redacted(body))


def _text(value: Any) -> str:
    return orjson.dumps(value).decode()[:100]


# --- an interaction naming an agent -----------------------------------------------------------------------------


async def resolve(store: Agents, namespace: str, name: str) -> dict[str, Any] | None:
    """The stored agent `name` (or `agents/name`) of the namespace, with what it takes from the stored agents it
    extends (`base_agent`, at most MAX_BASE_DEPTH deep) filled in; None when the namespace has none of that id."""
    found = await settled(store.agent(namespace, name.removeprefix("agents/")))
    if found is None:
        return None
    merged = dict(found)
    seen = {merged["id"]}
    base = merged.get("base_agent", "")
    for _ in range(MAX_BASE_DEPTH):
        parent = await settled(store.agent(namespace, base)) if base and base not in seen else None
        if parent is None:
            break
        seen.add(base)
        for key in ("agent_config", "system_instruction", "base_environment", "tools"):
            merged.setdefault(key, parent.get(key))
        merged = {k: v for k, v in merged.items() if v is not None}
        base = parent.get("base_agent", "")
    return merged


def settings(agent: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """An interaction's body naming `agent` (resolved) as a model interaction's: the agent's model, system
    instruction and tools where the interaction gives none (MCP servers left out: the engine has none)."""
    out = {key: value for key, value in body.items() if key not in ("agent", "agent_config")}
    config = agent.get("agent_config") or {}
    given = body.get("agent_config")
    asked: dict[str, Any] = given if isinstance(given, dict) else {}
    out["model"] = str(asked.get("model") or config.get("model") or STAND_IN_MODEL)
    if not out.get("system_instruction") and agent.get("system_instruction"):
        out["system_instruction"] = agent["system_instruction"]
    if "tools" not in out and agent.get("tools"):
        served = [tool for tool in agent["tools"] if tool.get("type") in SERVED_TOOL_TYPES]
        if served:
            out["tools"] = served
    return out


# --- paging (shared with environments.py) -----------------------------------------------------------------------


def page_size(query: Mapping[str, str]) -> int:
    return common.page_size(query, PAGE_DEFAULT, PAGE_MAX)


def page_token(key: str) -> str:
    """An opaque token for the page that begins at `key`."""
    return base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")


def page_start(query: Mapping[str, str], keys: list[str]) -> int:
    """Where the query's page token points among `keys`; its 400 when it names none of them."""
    token = query.get("page_token", query.get("pageToken", ""))
    if not token:
        return 0
    try:
        key = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        key = None
    if key is None or key not in keys:
        raise errors.invalid_argument("Invalid page_token.")
    return keys.index(key)


class AdminView:
    """The agents as the admin API lists, removes and resets them (admin.api.Resources)."""

    def __init__(self, store: Agents) -> None:
        self.store = store

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        return [
            {
                "namespace": name,
                "name": f"agents/{agent['id']}",
                "baseAgent": agent.get("base_agent", ""),
                "model": (agent.get("agent_config") or {}).get("model", ""),
                "tools": len(agent.get("tools") or []),
            }
            for name, agent in self.store.agents(namespace)
        ]

    def remove(self, namespace: str, name: str) -> bool:
        if isinstance(self.store, RedisAgentStore):  # the sync client, as the batches' admin view
            return self.store.delete_sync(namespace, name.removeprefix("agents/"))
        return self.store.delete(namespace, name.removeprefix("agents/"))

    def reset(self, namespace: str | None = None) -> None:
        self.store.reset(namespace)
