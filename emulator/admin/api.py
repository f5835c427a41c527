"""The admin API, under the reserved prefix /__emulator (no Gemini path starts with "__").

Which namespace a call addresses comes from the same headers the Gemini API reads: `x-emulator-namespace`,
else the API key (`x-goog-api-key` or `?key=`) or bearer token. With none, script calls address the shared
namespace "*", whose entries answer every caller, and journal calls see every namespace.
Errors are Google-style envelopes whose BadRequest violations name the offending field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from gemini_emulator import __version__
from gemini_emulator.admin import inspector
from gemini_emulator.admin.guard import ADMIN_TOKEN_HEADER, AdminGuard
from gemini_emulator.admin.journal import Journal
from gemini_emulator.config import Settings
from gemini_emulator.protocol import errors, printers
from gemini_emulator.seam import SHARED, EntryError, Resettable, ScriptBook
from gemini_emulator.wire import auth, validate
from gemini_emulator.wire import openapi as gemini_openapi

PREFIX = "/__emulator"


def _json(body: Any, status: int = 200) -> Response:
    return Response(printers.pretty(body), status_code=status, media_type="application/json")


def _error(error: errors.ApiError) -> Response:
    return Response(
        printers.pretty(error.envelope()), status_code=error.code, media_type="application/json", headers=error.headers
    )


def entry_error(exc: EntryError) -> errors.ApiError:
    return errors.ApiError(400, f"invalid script: {exc}", details=[errors.bad_request([(exc.field, exc.expected)])])


def load_script_file(path: str) -> Any:
    """Entries from a JSON file, or YAML when PyYAML is installed and the file ends in .yaml/.yml."""
    text = Path(path).read_text(encoding="utf-8")
    if path.endswith((".yaml", ".yml")):
        try:
            import yaml  # type: ignore[import-untyped]
        except ImportError:
            raise ValueError(f"{path}: YAML scripts need PyYAML (pip install pyyaml); JSON works as is") from None
        return yaml.safe_load(text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from None


class Admin:
    """Admin endpoints over the engine's script book (None: an engine that takes no script) and the journal."""

    def __init__(self, settings: Settings, store: ScriptBook | None, journal: Journal, engine: str) -> None:
        self.settings = settings
        self.engine = engine
        self.store = store
        self.journal = journal
        self.guard = AdminGuard(settings)
        self._routes = {
            ("GET", "/health"): self.health,
            ("GET", "/version"): self.version,
            ("GET", "/config"): self.config,
            ("GET", "/openapi.json"): self.openapi,
            ("GET", "/gemini-openapi.json"): self.gemini_openapi,
            ("GET", "/inspector"): self.inspector,
            ("GET", "/namespaces"): self.namespaces,
            ("GET", "/script"): self.list_script,
            ("POST", "/script"): self.append_script,
            ("PUT", "/script"): self.replace_script,
            ("DELETE", "/script"): self.clear_script,
            ("PUT", "/strict"): self.set_strict,
            ("POST", "/reset"): self.reset,
            ("GET", "/journal"): self.read_journal,
            ("DELETE", "/journal"): self.clear_journal,
        }

    async def dispatch(self, request: Request, path: str) -> Response:
        try:
            self.guard.check(request.method, path.removeprefix(PREFIX), request.headers)
        except errors.ApiError as error:
            return _error(error)
        handler = self._routes.get((request.method, path.removeprefix(PREFIX)))
        if handler is None:
            known = ", ".join(f"{m} {PREFIX}{p}" for m, p in self._routes)
            return _error(errors.ApiError(404, f"no admin endpoint {request.method} {path}; known: {known}"))
        try:
            return await handler(request)
        except errors.ApiError as error:
            return _error(error)

    # --- service ---------------------------------------------------------------------------------

    async def health(self, request: Request) -> Response:
        return _json({"status": "ok"})

    async def version(self, request: Request) -> Response:
        return _json({"name": "gemini-emulator", "version": __version__})

    async def config(self, request: Request) -> Response:
        return _json(self.settings.public())

    async def openapi(self, request: Request) -> Response:
        return Response(OPENAPI_BYTES, media_type="application/json")

    async def gemini_openapi(self, request: Request) -> Response:
        return Response(gemini_openapi.document_bytes(), media_type="application/json")

    async def inspector(self, request: Request) -> Response:
        return inspector.page()

    async def namespaces(self, request: Request) -> Response:
        """Every namespace with journal records or pending entries, with their counts."""
        requests = self.journal.counts()
        pending = {k: v for k, v in (self.store.pending_counts() if self.store is not None else {}).items() if v}
        spaces = [
            {"name": name, "requests": requests.get(name, 0), "pending": pending.get(name, 0)}
            for name in sorted(requests.keys() | pending.keys())
        ]
        return _json({"requests": sum(requests.values()), "evicted": self.journal.evicted, "namespaces": spaces})

    # --- script ----------------------------------------------------------------------------------

    def _scripts(self) -> ScriptBook:
        if self.store is None:
            raise errors.ApiError(400, f"the {self.engine} engine takes no script", status="FAILED_PRECONDITION")
        return self.store

    @staticmethod
    def _namespace(request: Request) -> str:
        return auth.caller_namespace(request.headers, request.query_params) or SHARED

    async def list_script(self, request: Request) -> Response:
        store, name = self._scripts(), self._namespace(request)
        return _json({"namespace": name, "strict": store.is_strict(name), "entries": store.pending(name)})

    async def _add(self, request: Request, replace: bool) -> Response:
        store, name = self._scripts(), self._namespace(request)
        try:
            payload = orjson.loads(await request.body() or b"null")
        except orjson.JSONDecodeError as exc:
            raise errors.ApiError(400, f"invalid script: the body is not JSON ({exc})") from None
        if validate.nested_too_deeply(payload):
            raise errors.too_deep()
        try:
            added = store.add(name, payload, replace=replace)
        except EntryError as exc:
            raise entry_error(exc) from None
        return _json({"namespace": name, "added": added, "entries": store.pending(name)})

    async def append_script(self, request: Request) -> Response:
        return await self._add(request, replace=False)

    async def replace_script(self, request: Request) -> Response:
        return await self._add(request, replace=True)

    async def clear_script(self, request: Request) -> Response:
        store, name = self._scripts(), self._namespace(request)
        store.add(name, [], replace=True)
        return _json({"namespace": name, "entries": []})

    async def set_strict(self, request: Request) -> Response:
        store, name = self._scripts(), self._namespace(request)
        raw = await request.body()
        if not raw.strip():  # not a silent "follow the server"
            raise errors.ApiError(400, f"strict: the body is empty; expected {STRICT_BODY_TEXT}")
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise errors.ApiError(400, f"strict: the body is not JSON; expected {STRICT_BODY_TEXT}") from None
        strict = body["strict"] if isinstance(body, dict) and body.keys() == {"strict"} else "invalid"
        if strict is not True and strict is not False and strict is not None:  # 1 == True, but not a bool
            raise errors.ApiError(400, f"strict: expected {STRICT_BODY_TEXT}")
        store.set_strict(name, strict)
        return _json({"namespace": name, "strict": store.is_strict(name)})

    async def reset(self, request: Request) -> Response:
        engine = getattr(request.app.state, "engine", None)  # its own per-caller state (seam.Resettable)
        if request.query_params.get("all") in ("1", "true"):
            if self.store is not None:
                self.store.reset()
            if isinstance(engine, Resettable):
                engine.reset(None)
            self.journal.clear()
            return _json({"reset": "all"})
        name = self._namespace(request)
        if self.store is not None:
            self.store.reset(name)
        if isinstance(engine, Resettable):
            engine.reset(name)
        self.journal.clear(name)
        return _json({"reset": name})

    # --- journal ---------------------------------------------------------------------------------

    async def read_journal(self, request: Request) -> Response:
        query = request.query_params
        name = query.get("namespace") or auth.caller_namespace(request.headers, query) or None
        since_text = query.get("since", "0")
        if not (since_text.isascii() and since_text.isdigit()):  # "²".isdigit(), but int("²") fails
            raise errors.ApiError(400, "since: expected a record id (a whole number)")
        records = self.journal.query(name, query.get("model"), query.get("rpc"), int(since_text))
        return _json({"namespace": name, "evicted": self.journal.evicted, "records": [r.to_json() for r in records]})

    async def clear_journal(self, request: Request) -> Response:
        name = auth.caller_namespace(request.headers, request.query_params) or None
        self.journal.clear(name)
        return _json({"cleared": name or "all"})


STRICT_BODY_TEXT = '{"strict": true, false or null (follow the server)}'


def _op(summary: str, body: bool = False, schema: str | None = None) -> dict[str, Any]:
    """An operation; with `body` (the Script schema) or `schema`, a required JSON request body of that schema."""
    op: dict[str, Any] = {"summary": summary, "responses": {"200": {"description": "OK"}}}
    schema = schema or ("Script" if body else None)
    if schema:
        content = {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}
        op["requestBody"] = {"required": True, "content": content}
        op["responses"]["400"] = {"description": "A body that is not this schema, in Google's error envelope"}
    return op


OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "gemini-emulator admin API", "version": __version__},
    # Needed off loopback, or on loopback when the server has an --admin-token (emulator/admin/guard.py).
    "security": [{}, {"adminToken": []}],
    "paths": {
        f"{PREFIX}/health": {"get": _op("Liveness and readiness")},
        f"{PREFIX}/version": {"get": _op("Emulator version")},
        f"{PREFIX}/config": {"get": _op("Current settings (secrets redacted)")},
        f"{PREFIX}/openapi.json": {"get": _op("This OpenAPI 3.1 description of the admin API")},
        f"{PREFIX}/gemini-openapi.json": {"get": _op("OpenAPI 3.1 description of the Gemini subset served")},
        f"{PREFIX}/inspector": {"get": _op("The inspector page (HTML): live requests, script entries, namespaces")},
        f"{PREFIX}/namespaces": {"get": _op("Namespaces in use with their journal records and pending entries")},
        f"{PREFIX}/script": {
            "get": _op("Pending entries of the caller's namespace"),
            "post": _op("Append entries", body=True),
            "put": _op("Replace all entries", body=True),
            "delete": _op("Remove all entries"),
        },
        f"{PREFIX}/strict": {
            "put": _op(
                "Set strict mode for the caller's namespace (every caller's default without a credential)",
                schema="Strict",
            )
        },
        f"{PREFIX}/reset": {"post": _op("Reset the caller's namespace (script and journal); ?all=true for all")},
        f"{PREFIX}/journal": {
            "get": _op("Journal records; query: namespace, model, rpc, since"),
            "delete": _op("Clear the caller's journal records (all without a credential)"),
        },
    },
    "components": {
        "parameters": {},
        "securitySchemes": {"adminToken": {"type": "apiKey", "in": "header", "name": ADMIN_TOKEN_HEADER}},
        "schemas": {
            "Strict": {
                "description": "true: unmatched requests get an error; false: the zero-config answer; null: follow"
                " the server's --strict",
                "type": "object",
                "properties": {"strict": {"type": ["boolean", "null"]}},
                "required": ["strict"],
                "additionalProperties": False,
            },
            "Script": {
                "description": 'One entry, a list of entries, or {"entries": [...]}; see engines/scripted/entries.py.',
                "oneOf": [
                    {"$ref": "#/components/schemas/Entry"},
                    {"type": "array", "items": {"$ref": "#/components/schemas/Entry"}},
                    {"type": "object", "properties": {"entries": {"type": "array"}}, "required": ["entries"]},
                ],
            },
            "Entry": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "match": {"type": "object"},
                    "times": {"oneOf": [{"type": "integer", "minimum": 1}, {"const": "forever"}]},
                    "text": {"type": "string"},
                    "chunks": {"type": "array"},
                    "functionCall": {"oneOf": [{"type": "object"}, {"type": "array"}]},
                    "raw": {"oneOf": [{"type": "object"}, {"type": "array"}]},
                    "error": {"oneOf": [{"type": "string"}, {"type": "object"}]},
                    "replay": {"type": "string", "description": "a golden capture's name or glob"},
                    "finishReason": {"type": "string"},
                    "finishMessage": {"type": "string"},
                    "blockReason": {"type": "string"},
                    "safetyRatings": {"type": "array"},
                    "usage": {"type": "object"},
                    "delayMs": {"type": "number", "minimum": 0},
                    "chunkDelayMs": {"type": "number", "minimum": 0},
                    "errorAfterChunks": {"type": "integer", "minimum": 0},
                    "dropAfterChunks": {"type": "integer", "minimum": 0},
                    "dropAfterBytes": {"type": "integer", "minimum": 0},
                    "truncateFinalEvent": {"type": "boolean"},
                },
                "additionalProperties": False,
            },
        },
    },
}
OPENAPI_BYTES = printers.pretty(OPENAPI)
