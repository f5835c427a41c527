"""The Interactions API: `POST /{v}/interactions`, `GET` and `DELETE /{v}/interactions/{id}`, `POST .../{id}/cancel`,
on the Developer API and Vertex AI (`/{v}/projects/{p}/locations/{l}/interactions`), as google-genai 3.6.1's
`client.interactions` calls them (_gaos/interactions.py: snake_case JSON, `steps`, the SSE events `interaction.created`,
`step.start`, `step.delta`, `step.stop`, `interaction.completed`, `error`).

Each create becomes a generateContent call through handlers.start_generation (so script entries, zero-config answers,
faults, namespaces and the journal apply as there): `input` (a string, content objects, or steps such as
`user_input` and `function_result`) after the history of `previous_interaction_id`, `system_instruction`, `tools`
(function, google_search, code_execution, url_context), `generation_config`, `response_format` (JSON schema) and
`response_modalities`. The answer's parts become steps: `thought` (its signature, its summary), `model_output`
(text, image, audio content) and `function_call` (status `requires_action`). Without `stream: true` the answer is
the Interaction JSON; with it, the SSE event stream. `background: true` answers at once with status `in_progress`;
GET shows it `completed` once the engine has answered. `store: false` keeps nothing. State per namespace:
gemini_emulator.stores.interactions. Shapes are the SDK's types (no production capture of this API is public);
key order and event details are best-known (docs/conformance.md).
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors, framing
from gemini_emulator.protocol.headers import BASE_HEADERS
from gemini_emulator.protocol.routes import Target
from gemini_emulator.seam import Chunk
from gemini_emulator.stores.interactions import InteractionStore, Stored, StoreFull, new_id
from gemini_emulator.stores.interactions_redis import RedisInteractionStore
from gemini_emulator.stores.keyed import settled
from gemini_emulator.wire import auth, deliveries, handlers, validate
from gemini_emulator.wire.deliveries import Dynamic
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.resources import agents, environments
from gemini_emulator.wire.sending import Stream

FIELDS: dict[str, Any] = {
    "model": str,
    "agent": str,
    "input": (str, list, dict),
    "system_instruction": str,
    "tools": list,
    "generation_config": dict,
    "response_format": (dict, list),
    "response_mime_type": str,
    "response_modalities": list,
    "previous_interaction_id": str,
    "stream": bool,
    "background": bool,
    "store": bool,
    "safety_settings": list,
    "labels": dict,
    "service_tier": str,
    "cached_content": str,
    "agent_config": dict,
    "webhook_config": dict,
    "environment": (str, dict),
    "continuation_token": str,
}
_TYPE_NAMES = {str: "TYPE_STRING", bool: "TYPE_BOOL", list: "TYPE_MESSAGE (repeated)", dict: "TYPE_MESSAGE"}
_MODALITY = {"image": "IMAGE", "audio": "AUDIO", "video": "VIDEO", "document": "DOCUMENT"}
MAX_BACKGROUND = 64  # background runs under way at once, per namespace (on Redis: per namespace and process)
Interactions = InteractionStore | RedisInteractionStore  # in memory (the default) or on Redis (--store redis://...)


async def _cancel_shared(
    ctx: handlers.Context, store: RedisInteractionStore, namespace: str, stored: Stored
) -> Response:
    """Cancel on Redis: a run under way (through any process) is kept cancelled at once, in one call; this
    process's own run stops and publishes its end, another's is published here (its later end is kept by none)."""
    if stored.printed or stored.view.get("status") != "in_progress":
        return handlers.printed_response(stored.body())
    stored.view.pop("_user_steps", None)
    stored.view["status"] = "cancelled"
    stored.view["updated"] = _now()
    if await store.cancel(namespace, stored):
        if stored.task is not None and not stored.task.done():
            stored.task.cancel()
        elif ctx.interaction_ended is not None:
            ctx.interaction_ended(namespace, dict(stored.view), None)
    else:  # it ended meanwhile: as it is now
        now = await store.get(namespace, stored.id)
        if now is not None:
            return handlers.printed_response(now.body())
    return handlers.printed_response(stored.body())


async def serve(
    ctx: handlers.Context, store: Interactions, request: Incoming, target: Target, record: Record
) -> Response:
    """One call on the interactions collection or an interaction."""
    record.rpc = f"interactions.{target.method}"
    try:
        credential = auth.authenticate(target, request.headers, request.query, ctx.settings.api_key)
        namespace = record.namespace = auth.namespace_of(request.headers, credential, ctx.settings.admin_token)
        if target.method == "create":
            return await _create(ctx, store, request, target, record, namespace)
        stored = await settled(store.get(namespace, target.resource))
        if stored is None:
            raise errors.ApiError(404, f"Interaction {target.resource} not found.")
        record.model = str(stored.view.get("model", ""))
        if target.method == "get":
            return handlers.printed_response(stored.body())
        if target.method == "delete":
            if isinstance(store, RedisInteractionStore):
                await store.delete(namespace, target.resource)
            else:
                store.delete(namespace, target.resource)
            if stored.task is not None:
                stored.task.cancel()
            return handlers.json_response({})
        # cancel: a background run stops; a finished interaction stays as it was
        if isinstance(store, RedisInteractionStore):
            return await _cancel_shared(ctx, store, namespace, stored)
        if stored.task is not None and not stored.task.done():
            stored.task.cancel()
            stored.view["status"] = "cancelled"
            stored.view["updated"] = _now()
        return handlers.printed_response(stored.body())
    except StoreFull as full:
        return handlers.error_response(errors.ApiError(429, f"gemini-emulator: {full}."))
    except errors.ApiError as error:
        return handlers.error_response(error)


async def _create(
    ctx: handlers.Context, store: Interactions, request: Incoming, target: Target, record: Record, namespace: str
) -> Response:
    asked = await handlers.read_body(ctx, request, record)
    _check_fields(asked)
    hosts = deliveries.webhook_hosts(ctx.settings.webhook_hosts)
    dynamic = deliveries.dynamic_config(asked.get("webhook_config"), hosts)  # a background run's events go there
    body = asked
    if "agent" in asked:
        if "model" in asked:
            raise errors.invalid_argument("Only one of model and agent may be set.")
        body = await agent_body(ctx, namespace, asked, None)
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise errors.invalid_argument("model or agent is required.")
    if "input" not in body:
        raise errors.invalid_argument("input is required.")
    history: list[dict[str, Any]] = []
    previous = body.get("previous_interaction_id")
    if previous:
        earlier = await settled(store.get(namespace, previous))
        if earlier is None:
            raise errors.ApiError(404, f"Interaction {previous} not found.")
        history = earlier.history()
    turns = _input_turns(body["input"], history)
    generate = _generate_body(body, history + turns)
    call = dataclasses.replace(target, action="call", model=body["model"], method="generateContent")
    model = ctx.catalogue.resolve(body["model"], "generateContent", target.version, target.backend, target.project)
    record.model = model
    stream = body.get("stream") is True
    gen_target = dataclasses.replace(call, method="streamGenerateContent") if stream else call
    environment_id = ""
    if asked.get("environment") is not None:  # a new sandbox, or the stored one named (404 when unknown)
        environment_id = (await environments.provision(ctx.environments, namespace, asked["environment"])).id
    gen, builder, _, answer = handlers.start_generation(ctx, gen_target, model, generate, namespace, stream, body)
    view = _view(asked, model, "in_progress", str(asked.get("agent") or ""), environment_id)
    stored = Stored.of(view, history + turns)
    keep = body.get("store", True) is not False
    if body.get("background") is True and not stream:
        if store.running(namespace) >= MAX_BACKGROUND:
            raise errors.ApiError(429, f"gemini-emulator: at most {MAX_BACKGROUND} background interactions at once.")
        await settled(store.put(namespace, stored))
        keeper = _Keeper(store, namespace, ctx.interaction_ended, dynamic)
        stored.task = asyncio.create_task(_finish_later(stored, answer, builder, record, gen, keeper))
        if isinstance(store, RedisInteractionStore):
            store.track(namespace, stored)
        return handlers.json_response(view)
    if stream:
        if keep:
            await settled(store.put(namespace, stored))
        events = _events(stored, answer, builder, gen, record, _Keeper(store, namespace))
        headers = BASE_HEADERS | framing.SSE_HEADERS | {"content-type": framing.SSE_TYPE}
        return Stream(_framed(events), headers)
    try:
        chunks = await handlers.collect(answer)
    finally:
        record.entry = gen.notes.get("entry")
    _complete(stored, chunks, builder)
    stored.finish()
    if keep:
        await settled(store.put(namespace, stored))
    return handlers.printed_response(stored.body())


async def run_agent(
    ctx: handlers.Context,
    store: Interactions,
    target: Target,
    namespace: str,
    body: dict[str, Any],
    stand_in: str,
    record: Record | None = None,
) -> Stored:
    """An agent interaction (a trigger's) answered now by the engine through the seam and kept: a stored agent's
    model and settings (agent_body), a built-in agent's as `stand_in`; its view names the agent. Raises ApiError
    (the engine's, an unknown agent's 404, or a bad body)."""
    agent = str(body.get("agent", ""))
    settings = await agent_body(ctx, namespace, body, stand_in)
    turns = _input_turns(body.get("input", ""), [])
    generate = _generate_body(settings, turns)
    model = settings["model"]
    call = dataclasses.replace(target, action="call", model=model, method="generateContent")
    resolved = ctx.catalogue.resolve(model, "generateContent", target.version, target.backend, target.project)
    if record is not None:
        record.model = resolved
    _, builder, _, answer = handlers.start_generation(ctx, call, resolved, generate, namespace, False, settings)
    view = _view(body, resolved, "in_progress", agent)
    stored = Stored.of(view, turns)
    chunks = await handlers.collect(answer)
    _complete(stored, chunks, builder)
    stored.finish()
    await settled(store.put(namespace, stored))
    return stored


async def agent_body(
    ctx: handlers.Context, namespace: str, body: dict[str, Any], stand_in: str | None
) -> dict[str, Any]:
    """An interaction naming an agent as a model interaction's body: a stored agent of the namespace answers with
    its configuration (wire/resources/agents.settings); a built-in agent as `stand_in` (None: not served, 501);
    another name is production's 404 (best-known)."""
    name = str(body.get("agent") or "")
    stored = await agents.resolve(ctx.agents, namespace, name)
    if stored is not None:
        return agents.settings(stored, body)
    if name in agents.BUILT_IN:
        if stand_in is None:
            raise errors.not_implemented("agent interactions (deep research and other agents)")
        return {k: v for k, v in body.items() if k not in ("agent", "agent_config")} | {"model": stand_in}
    raise errors.ApiError(404, agents.NOT_FOUND)


def _check_fields(body: dict[str, Any]) -> None:
    violations = []
    for key, value in body.items():
        kind = FIELDS.get(key)
        if kind is None:
            violations.append(errors.unknown_name(key, ""))
        elif not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            expected = _TYPE_NAMES.get(kind if isinstance(kind, type) else kind[0], "TYPE_MESSAGE")
            violations.append(errors.invalid_value(key, expected, orjson.dumps(value).decode()[:100]))
    if violations:
        raise errors.payload_violations(violations)


@dataclasses.dataclass
class _Keeper:
    """Where a running interaction is kept: once it finishes its view is printed and its bytes counted again;
    a background one's end goes to the webhooks (`ended`)."""

    store: Interactions
    namespace: str
    ended: Callable[[str, dict[str, Any], Dynamic | None], None] | None = None
    dynamic: Dynamic | None = None  # the request's webhook_config, when it names URIs

    async def finished(self, stored: Stored) -> None:
        stored.view.pop("_user_steps", None)  # a run that failed or was cancelled never moved them into `steps`
        if isinstance(self.store, RedisInteractionStore):  # its end published once: by the run that settles it,
            view = dict(stored.view)  # or by this process's own cancelled run (a cancel through another publishes)
            stored.finish()
            try:
                kept = await self.store.settle(self.namespace, stored) if stored.tag else False
            except errors.ApiError:  # Redis unreachable (logged by the link): the end is not kept
                kept = False
            if self.ended is not None and (kept or view.get("status") == "cancelled"):
                self.ended(self.namespace, view, self.dynamic)
            return
        if self.ended is not None:
            self.ended(self.namespace, dict(stored.view), self.dynamic)
        stored.finish()
        self.store.settle(self.namespace, stored)


async def _finish_later(
    stored: Stored, answer: AsyncIterator[Chunk], builder: Any, record: Record, gen: Any, keeper: _Keeper
) -> None:
    try:
        chunks = await handlers.collect(answer)
        _complete(stored, chunks, builder)
    except errors.ApiError as error:
        stored.view.update(status="failed", updated=_now(), errors=[error.envelope()["error"]])
    except asyncio.CancelledError:
        stored.view.update(status="cancelled", updated=_now())
        raise
    finally:
        stored.task = None
        await keeper.finished(stored)


def _complete(stored: Stored, chunks: list[Chunk], builder: Any) -> None:
    """The interaction done: its steps, status and usage from the engine's answer (candidate 0)."""
    body = builder.build(chunks[0], final=True, stream=False)
    candidate = (body.get("candidates") or [{}])[0]
    parts = list((candidate.get("content") or {}).get("parts") or [])
    steps = _steps(parts)
    user = stored.view.pop("_user_steps", [])
    status = "requires_action" if any(s["type"] == "function_call" for s in steps) else "completed"
    stored.view.update(
        status=status, updated=_now(), steps=user + steps, usage=usage_of(body.get("usageMetadata") or {})
    )
    stored.add_turn({"role": "model", "parts": parts})


async def _events(
    stored: Stored, answer: AsyncIterator[Chunk], builder: Any, gen: Any, record: Record, keeper: _Keeper
) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    """The SSE events of a streamed interaction."""
    view = stored.view
    head = {k: view[k] for k in ("id", "status", "created", "model", "object") if k in view}
    yield "interaction.created", {"interaction": head, "event_type": "interaction.created"}
    merged: list[dict[str, Any]] = []
    index = 0
    open_text = False
    last: Chunk | None = None
    try:
        async for chunk in answer:
            record.entry = gen.notes.get("entry")
            last = chunk
            for part in chunk.parts:
                merged.append(part)
                if isinstance(part.get("text"), str) and not part.get("thought"):
                    if not part["text"]:
                        continue
                    if not open_text:
                        yield "step.start", _start(index, {"type": "model_output"})
                        open_text = True
                    delta = {"type": "text", "text": part["text"]}
                    yield "step.delta", {"index": index, "delta": delta, "event_type": "step.delta"}
                    continue
                if open_text:
                    yield "step.stop", {"index": index, "event_type": "step.stop"}
                    index, open_text = index + 1, False
                for step in _steps([part]):
                    yield "step.start", _start(index, step)
                    yield "step.stop", {"index": index, "event_type": "step.stop"}
                    index += 1
    except errors.ApiError as error:
        view.update(status="failed", updated=_now(), errors=[error.envelope()["error"]])
        await keeper.finished(stored)
        yield "error", {"error": error.envelope()["error"], "event_type": "error"}
        return
    if open_text:
        yield "step.stop", {"index": index, "event_type": "step.stop"}
    final = dataclasses.replace(last, parts=merged) if last is not None else Chunk(finish_reason="STOP")
    _complete(stored, [final], builder)
    done = {k: view[k] for k in ("id", "status", "created", "updated", "model", "object", "usage") if k in view}
    await keeper.finished(stored)
    yield "interaction.completed", {"interaction": done, "event_type": "interaction.completed"}


def _start(index: int, step: dict[str, Any]) -> dict[str, Any]:
    return {"index": index, "step": step, "event_type": "step.start"}


async def _framed(events: AsyncIterator[tuple[str, dict[str, Any]]]) -> AsyncIterator[bytes]:
    async for name, data in events:
        data = {"event_id": secrets.token_urlsafe(12)} | data
        yield b"event: " + name.encode() + b"\r\ndata: " + orjson.dumps(data) + b"\r\n\r\n"


def _view(body: dict[str, Any], model: str, status: str, agent: str = "", environment_id: str = "") -> dict[str, Any]:
    """An interaction's view as it begins: it names its agent where it has one, else its model."""
    now = _now()
    view: dict[str, Any] = {"id": new_id(), "status": status, "created": now, "updated": now}
    if agent:
        view["agent"] = agent
    else:
        view["model"] = model
    view["object"] = "interaction"
    if environment_id:
        view["environment_id"] = environment_id
    for key in ("previous_interaction_id", "system_instruction", "tools", "generation_config", "response_format"):
        if key in body:
            view[key] = body[key]
    view["_user_steps"] = _user_steps(body.get("input"))  # moved into `steps` when the answer lands
    return view


def _user_steps(value: Any) -> list[dict[str, Any]]:
    """The caller's input as the steps an Interaction lists before the model's."""
    if isinstance(value, str):
        return [{"type": "user_input", "content": [{"type": "text", "text": value}]}]
    items = value if isinstance(value, list) else [value]
    if all(isinstance(i, dict) and i.get("type") in _STEP_TYPES for i in items):
        return list(items)
    return [{"type": "user_input", "content": items}]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- input: strings, contents and steps as Gemini contents -------------------------------------------------------


def _input_turns(value: Any, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(value, str):
        return [{"role": "user", "parts": [{"text": value}]}]
    items = value if isinstance(value, list) else [value]
    if not items:
        raise errors.invalid_argument("input must not be empty.")
    if all(isinstance(i, dict) and i.get("type") in _STEP_TYPES for i in items):
        return _step_turns(items, history)
    return [{"role": "user", "parts": [content_part(i) for i in items]}]


_STEP_TYPES = frozenset({"user_input", "model_output", "function_call", "function_result", "thought"})


def _step_turns(steps: list[dict[str, Any]], history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []

    def add(role: str, part: dict[str, Any]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["parts"].append(part)
        else:
            turns.append({"role": role, "parts": [part]})

    names = {
        p["functionCall"].get("id"): p["functionCall"].get("name")
        for c in history
        for p in c.get("parts", [])
        if isinstance(p.get("functionCall"), dict)
    }
    for step in steps:
        kind = step["type"]
        if kind in ("user_input", "model_output"):
            for item in step.get("content") or []:
                add("user" if kind == "user_input" else "model", content_part(item))
        elif kind == "function_call":
            call = {"name": step.get("name", ""), "args": step.get("arguments") or {}, "id": step.get("id", "")}
            names[call["id"]] = call["name"]
            add("model", {"functionCall": call})
        elif kind == "function_result":
            result = step.get("result")
            response = result if isinstance(result, dict) else {"result": result}
            name = step.get("name") or names.get(step.get("call_id")) or ""
            add("user", {"functionResponse": {"name": name, "id": step.get("call_id", ""), "response": response}})
    if not turns:
        raise errors.invalid_argument("input must hold at least one content.")
    return turns


def content_part(item: Any) -> dict[str, Any]:
    """One Interactions content item (a string, or {type: text|image|audio|document|video, …}) as a part."""
    if isinstance(item, str):
        return {"text": item}
    if not isinstance(item, dict):
        raise errors.invalid_argument("input content must be an object.")
    kind = item.get("type")
    if kind == "text":
        return {"text": str(item.get("text", ""))}
    if kind in _MODALITY:
        mime = str(item.get("mime_type") or "")
        if item.get("data"):
            return {"inlineData": {"mimeType": mime, "data": str(item["data"])}}
        if item.get("uri"):
            return {"fileData": {"mimeType": mime, "fileUri": str(item["uri"])}}
    raise errors.invalid_argument(f"Unsupported input content type: {kind}.")


# --- the request's settings as a generateContent body -----------------------------------------------------------


def _generate_body(body: dict[str, Any], contents: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"contents": contents}
    if body.get("system_instruction"):
        out["systemInstruction"] = {"parts": [{"text": body["system_instruction"]}]}
    tools = _tools(body.get("tools") or [])
    if tools:
        out["tools"] = tools
    config: dict[str, Any] = {}
    settings = body.get("generation_config") or {}
    for theirs, ours in (
        ("temperature", "temperature"),
        ("top_p", "topP"),
        ("seed", "seed"),
        ("max_output_tokens", "maxOutputTokens"),
        ("stop_sequences", "stopSequences"),
    ):
        if theirs in settings:
            config[ours] = settings[theirs]
    thinking: dict[str, Any] = {}
    if isinstance(settings.get("thinking_level"), str):
        thinking["thinkingLevel"] = settings["thinking_level"].upper()
    if settings.get("thinking_summaries") == "auto":
        thinking["includeThoughts"] = True
    if thinking:
        config["thinkingConfig"] = thinking
    image = settings.get("image_config")
    if isinstance(image, dict):
        config["imageConfig"] = {
            k: v for k, v in (("aspectRatio", image.get("aspect_ratio")), ("imageSize", image.get("image_size"))) if v
        }
    choice = settings.get("tool_choice")
    if isinstance(choice, str) and choice in ("auto", "any", "none", "validated"):
        out["toolConfig"] = {"functionCallingConfig": {"mode": choice.upper()}}
    schema, mime = _response_format(body)
    if mime:
        config["responseMimeType"] = mime
    if schema is not None:
        config["responseJsonSchema"] = schema
    modalities = body.get("response_modalities")
    if isinstance(modalities, list) and modalities:
        config["responseModalities"] = [str(m).upper() for m in modalities]
    if config:
        out["generationConfig"] = config
    return validate.check_fields(out, "GenerateContentRequest", "developer", "v1beta")


def _response_format(body: dict[str, Any]) -> tuple[Any, str]:
    mime = str(body.get("response_mime_type") or "")
    value = body.get("response_format")
    formats = value if isinstance(value, list) else [value] if value is not None else []
    for item in formats:
        if isinstance(item, dict) and item.get("type") == "text" and ("schema" in item or "mime_type" in item):
            return item.get("schema"), str(item.get("mime_type") or "application/json")
        if isinstance(item, dict):
            return item, mime or "application/json"
    return None, mime


def _tools(tools: list[Any]) -> list[dict[str, Any]]:
    declarations = []
    out: list[dict[str, Any]] = []
    for tool in tools:
        if not isinstance(tool, dict):
            raise errors.invalid_argument("Each tool must be an object.")
        kind = tool.get("type")
        if kind == "function":
            declaration = {"name": tool.get("name", ""), "description": tool.get("description", "")}
            if tool.get("parameters") is not None:
                declaration["parametersJsonSchema"] = tool["parameters"]
            declarations.append(declaration)
        elif kind == "google_search":
            out.append({"googleSearch": {}})
        elif kind == "code_execution":
            out.append({"codeExecution": {}})
        elif kind == "url_context":
            out.append({"urlContext": {}})
        else:
            raise errors.not_implemented(f"the {kind} tool in interactions")
    if declarations:
        out.insert(0, {"functionDeclarations": declarations})
    return out


# --- the answer as steps and usage ---------------------------------------------------------------------------------


def _steps(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    output: dict[str, Any] | None = None
    for part in parts:
        signature = part.get("thoughtSignature")
        if part.get("thought") and isinstance(part.get("text"), str):
            thought: dict[str, Any] = {"type": "thought", "summary": [{"type": "text", "text": part["text"]}]}
            if signature:
                thought["signature"] = signature
            steps.append(thought)
            output = None
            continue
        if signature:
            steps.append({"type": "thought", "signature": signature})
            output = None
        call = part.get("functionCall")
        if isinstance(call, dict):
            steps.append(
                {
                    "type": "function_call",
                    "id": call.get("id") or new_id()[3:15],
                    "name": call.get("name", ""),
                    "arguments": call.get("args") or {},
                }
            )
            output = None
            continue
        item = _content(part)
        if item is None:
            continue
        if output is None:
            output = {"type": "model_output", "content": []}
            steps.append(output)
        output["content"].append(item)
    return steps


def _content(part: dict[str, Any]) -> dict[str, Any] | None:
    if isinstance(part.get("text"), str):
        return {"type": "text", "text": part["text"]} if part["text"] else None
    blob = part.get("inlineData")
    if isinstance(blob, dict):
        mime = str(blob.get("mimeType", ""))
        kind = mime.split("/", 1)[0] if mime.split("/", 1)[0] in ("image", "audio", "video") else "document"
        return {"type": kind, "data": blob.get("data", ""), "mime_type": mime}
    return None


def usage_of(meta: dict[str, Any]) -> dict[str, Any]:
    """usageMetadata as the Interactions API's usage (modalities lowercase)."""
    usage: dict[str, Any] = {
        "total_input_tokens": meta.get("promptTokenCount", 0),
        "total_output_tokens": meta.get("candidatesTokenCount", 0),
        "total_thought_tokens": meta.get("thoughtsTokenCount", 0),
        "total_tokens": meta.get("totalTokenCount", 0),
    }
    details = meta.get("promptTokensDetails")
    if isinstance(details, list):
        usage["input_tokens_by_modality"] = [
            {"modality": str(d.get("modality", "")).lower(), "tokens": d.get("tokenCount", 0)} for d in details
        ]
    out_details = meta.get("candidatesTokensDetails")
    if isinstance(out_details, list):
        usage["output_tokens_by_modality"] = [
            {"modality": str(d.get("modality", "")).lower(), "tokens": d.get("tokenCount", 0)} for d in out_details
        ]
    return usage


class AdminView:
    """The stored interactions as the admin API lists, removes and resets them (admin.api.Resources)."""

    def __init__(self, store: Interactions) -> None:
        self.store = store

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        return [
            {
                "namespace": ns,
                "name": stored.id,
                "model": stored.view.get("model", ""),
                "status": stored.view.get("status", ""),
                "createTime": stored.view.get("created", ""),
                "sizeBytes": stored.size,
            }
            for ns, stored in self.store.all(namespace)
        ]

    def remove(self, namespace: str, name: str) -> bool:
        if isinstance(self.store, RedisInteractionStore):  # the sync client, as the batches' admin view
            return self.store.delete_sync(namespace, name)
        return self.store.delete(namespace, name) is not None

    def reset(self, namespace: str | None = None) -> None:
        self.store.clear(namespace)
