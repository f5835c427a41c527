"""Server prompt templates on the wire (Firebase AI Logic, @firebase/ai's TemplateGenerativeModel):

    POST /v1beta/projects/{p}/templates/{id}:templateGenerateContent                      (Developer backend)
    POST /v1beta/projects/{p}/templates/{id}:templateStreamGenerateContent?alt=sse
    POST /v1beta/projects/{p}/locations/{l}/templates/{id}:{same methods}                 (Vertex backend)

The body is `{inputs, history?, tools?, toolConfig?}`; the caller's template (stores/templates.py) renders it into
a GenerateContentRequest for the template's model, which is then answered exactly as a generateContent or
streamGenerateContent call on that model is (handlers.call: the same checks, engine, scripts and framing). The
journal record holds the rendered request as its body, the template's id and the call's own body under
`template`, and the template method as its rpc.

Error wordings here are the emulator's best guesses (docs/conformance.md, "Server prompt templates"): no
production answer to a bad template call is captured.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Message

from gemini_emulator.admin.journal import Record, template_text
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import TEMPLATE_STREAM, Target
from gemini_emulator.seam import SHARED
from gemini_emulator.stores.keyed import settled
from gemini_emulator.stores.templates import REQUEST_FIELDS, InputsError, Template, TemplateStore, build
from gemini_emulator.stores.templates import parse as parse_template
from gemini_emulator.stores.templates_redis import RedisTemplateStore
from gemini_emulator.wire import auth, handlers, validate
from gemini_emulator.wire.incoming import Incoming

_DROPPED_HEADERS = ("content-length", "content-encoding")  # of the call as sent, not of the rendered body


def template_not_found(target: Target) -> errors.ApiError:
    """A template id the caller's namespace and the shared set lack (wording: the emulator's guess)."""
    return errors.ApiError(404, f"Template {template_name(target)} not found.")


def template_name(target: Target) -> str:
    where = f"locations/{target.location}/" if target.location else ""
    return f"projects/{target.project}/{where}templates/{target.resource}"


def _check_body(body: dict[str, Any]) -> None:
    """The call's own fields: production's unknown-name and wrong-type wordings, the field names the SDK sends."""
    violations = [errors.unknown_name(name, "") for name in body if name not in REQUEST_FIELDS]
    if violations:
        raise errors.payload_violations(violations)
    for name, kind, message in (
        ("inputs", dict, "google.protobuf.Struct"),
        ("history", list, "google.cloud.aiplatform.v1beta1.Content"),
        ("tools", list, "google.cloud.aiplatform.v1beta1.Tool"),
        ("toolConfig", dict, "google.cloud.aiplatform.v1beta1.ToolConfig"),
    ):
        value = body.get(name)
        if value is not None and not isinstance(value, kind):
            shown = orjson.dumps(value).decode()[:80]
            path = "tool_config" if name == "toolConfig" else name
            raise errors.payload_violations([errors.invalid_value(path, f"type.googleapis.com/{message}", shown)])


def inputs_invalid(template: Template, problem: str) -> errors.ApiError:
    """Inputs the template's input schema refuses (wording: the emulator's guess)."""
    return errors.ApiError(400, f"Template {template.id}: invalid inputs: {problem}")


async def serve(
    ctx: handlers.Context, store: TemplateStore | RedisTemplateStore, request: Incoming, target: Target, record: Record
) -> Response:
    """One template call, answered as the rendered generate call on the template's model."""
    streams = target.method == TEMPLATE_STREAM
    mode = handlers.stream_mode(request.query, streams)
    record.rpc = target.method
    settings = ctx.settings
    try:
        credential = auth.authenticate(target, request.headers, request.query, settings.api_key)
        record.namespace = namespace = auth.namespace_of(request.headers, credential, settings.admin_token)
        raw = await ctx.bodies.read(request.receive, request.headers)
        try:
            sent = await validate.parsed_body(raw)
        except errors.ApiError:
            record.body = raw.decode("utf-8", "replace")
            raise
        record.body = sent
        record.template = template_text(target.resource, sent)
        _check_body(sent)
        template = await settled(store.find(namespace, target.resource))
        if template is None:
            raise template_not_found(target)
        record.model = template.model
        try:
            rendered = store_build(template, sent)
        except InputsError as exc:
            raise inputs_invalid(template, str(exc)) from None
    except errors.ApiError as error:
        return handlers.error_response(error, mode)
    method = "streamGenerateContent" if streams else "generateContent"
    model_target = Target(
        "call", target.backend, target.family, target.version, template.model, method, target.project, target.location
    )
    inner = Incoming(request.method, request.path, _headers(request.headers), request.query, _replay(rendered, request))
    response = await handlers.call(ctx, inner, model_target, record)
    record.rpc = target.method  # the journal's: the template method the client called
    return response


def store_build(template: Template, body: dict[str, Any]) -> bytes:
    """The rendered GenerateContentRequest, as the JSON bytes handlers.call reads."""
    return orjson.dumps(build(template, body))


def _headers(headers: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k not in _DROPPED_HEADERS}


def _replay(body: bytes, request: Incoming) -> Any:
    """A receive that hands over `body` once, then the client's own (a hang-up still reaches the call)."""
    given = False

    async def receive() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await request.receive()

    return receive


class AdminView:
    """Templates as the admin API shows, sets and clears them per namespace (admin.api.Schedule), and as a resource
    kind (admin.api.Resources: listed, removed by id, reset)."""

    def __init__(self, ctx: handlers.Context, store: TemplateStore | RedisTemplateStore) -> None:
        self.ctx = ctx
        self.store = store

    def show(self, namespace: str) -> dict[str, Any]:
        own = self.store.listed(namespace)
        shown: dict[str, Any] = {"namespace": namespace, "templates": [t.source for t in own]}
        if namespace != SHARED:
            shown["shared"] = [t.id for t in self.store.listed(SHARED)]
        return shown

    def set(self, namespace: str, body: Any) -> dict[str, Any]:
        entries = body["templates"] if isinstance(body, dict) and body.keys() == {"templates"} else body
        for entry in entries if isinstance(entries, list) else [entries]:
            self.check(parse_template(entry))
        self.store.set(namespace, body)
        return self.show(namespace)

    def check(self, template: Template) -> None:
        """A template's config checked as a request's generationConfig is (ValueError with the 400's words)."""
        if not template.config:
            return
        probe = {"contents": [{"role": "user", "parts": [{"text": "x"}]}], "generationConfig": template.config}
        try:
            validate.check_fields(probe, "GenerateContentRequest", "developer", "v1beta")
        except errors.ApiError as exc:
            raise ValueError(f"template {template.id}: config: {exc.message}") from None

    def clear(self, namespace: str) -> dict[str, Any]:
        self.store.set(namespace, [])
        return self.show(namespace)

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]:
        if namespace is None:
            return [
                {"namespace": space, **t.summary()}
                for space in self.store.namespaces()
                for t in self.store.listed(space)
            ]
        return [{"namespace": namespace, **t.summary()} for t in self.store.listed(namespace)]

    def remove(self, namespace: str, name: str) -> bool:
        return self.store.remove(namespace, name.removeprefix("templates/"))

    def reset(self, namespace: str | None = None) -> None:
        self.store.reset(namespace)
