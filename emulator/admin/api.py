"""The admin API, under the reserved prefix /__emulator (no Gemini path starts with "__").

Which namespace a call addresses comes from the same headers the Gemini API reads: `x-emulator-namespace`,
else the API key (`x-goog-api-key` or `?key=`) or bearer token. With none, script calls address the shared
namespace "*", whose entries answer every caller, and journal calls see every namespace.
Errors are Google-style envelopes whose BadRequest violations name the offending field.

Bodies are read as the Gemini API reads them (the same size limit, and a 408 when the sender stalls); a mutation
that has a body must say `Content-Type: application/json`. HEAD is answered as GET without the body. Who may call
at all (Host, Origin, the admin token): emulator/admin/guard.py.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

import orjson
from starlette.requests import Request
from starlette.responses import Response

from gemini_emulator import __version__, web
from gemini_emulator.admin import inspector
from gemini_emulator.admin.guard import ADMIN_TOKEN_HEADER, JWKS_ROUTE, SHIM_ROUTE, AdminGuard
from gemini_emulator.admin.journal import PAGE_RECORDS, Journal
from gemini_emulator.config import Settings
from gemini_emulator.protocol import errors, printers
from gemini_emulator.seam import SHARED, EntryError, Resettable, ScriptBook
from gemini_emulator.wire import auth, validate
from gemini_emulator.wire import openapi as gemini_openapi
from gemini_emulator.wire.bodies import BodyReader

PREFIX = "/__emulator"
# The Firebase Live shim, for pages on any origin: CORP lets a page with COEP (require-corp) load it too; revalidated on
# every load, so a page picks up a new emulator's copy.
SHIM_HEADERS = {
    "cross-origin-resource-policy": "cross-origin",
    "x-content-type-options": "nosniff",
    "cache-control": "no-cache",
}


async def _done(value: Any) -> Any:
    """A view's answer: itself, or what it resolves to when the view works over the network (a coroutine)."""
    return await value if inspect.isawaitable(value) else value


def _json(body: Any, status: int = 200) -> Response:
    return Response(printers.pretty(body), status_code=status, media_type="application/json")


def _error(error: errors.ApiError) -> Response:
    return Response(
        printers.pretty(error.envelope()), status_code=error.code, media_type="application/json", headers=error.headers
    )


def entry_error(exc: EntryError) -> errors.ApiError:
    return errors.ApiError(400, f"invalid script: {exc}", details=[errors.bad_request([(exc.field, exc.expected)])])


# A script's size with every YAML alias expanded (values, plus the characters of each string and key): past it
# the file is refused ("billion laughs": 496 bytes of anchors expand to hundreds of megabytes per answer).
MAX_SCRIPT_EXPANSION = 5_000_000


def load_script_file(path: str) -> Any:
    """Entries from a JSON file, or YAML when PyYAML is installed and the file ends in .yaml/.yml. A file whose
    aliases refer to themselves, or expand past MAX_SCRIPT_EXPANSION, is refused (ValueError saying why)."""
    text = Path(path).read_text(encoding="utf-8")
    if path.endswith((".yaml", ".yml")):
        try:
            import yaml  # type: ignore[import-untyped]
        except ImportError:
            raise ValueError(f"{path}: YAML scripts need PyYAML (pip install pyyaml); JSON works as is") from None
        try:
            loaded = yaml.safe_load(text)
        except RecursionError:
            raise ValueError(f"{path}: nested too deeply") from None
        except yaml.YAMLError as exc:
            raise ValueError(f"{path}: not valid YAML ({exc})") from None
        check_expansion(loaded, path)
        return check_plain_values(loaded, path)
    try:
        loaded = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply (at most {validate.MAX_JSON_DEPTH} levels)") from None
    except ValueError as exc:  # JSONDecodeError, a NaN/Infinity, or an integer of more than 4,300 digits
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    return check_plain_values(loaded, path)


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not a JSON value (the admin API refuses it too)")


def check_plain_values(value: Any, path: str) -> Any:
    """`value` when every number in it is one JSON can carry (finite, integers within 64 bits) and it nests at
    most MAX_JSON_DEPTH levels, as the admin API would accept it; else a ValueError naming the problem."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise ValueError(f"{path}: {item} is not a JSON number (NaN and Infinity are refused)")
        if isinstance(item, int) and not isinstance(item, bool) and not -(2**63) <= item < 2**64:
            raise ValueError(f"{path}: the integer {str(item)[:20]}... does not fit in 64 bits")
        if isinstance(item, dict | list):
            if depth >= validate.MAX_JSON_DEPTH:
                raise ValueError(f"{path}: nested too deeply (at most {validate.MAX_JSON_DEPTH} levels)")
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return value


def check_expansion(value: Any, path: str) -> None:
    """Refuse a loaded script that holds itself (a YAML anchor used inside its own node) or whose aliases expand
    past MAX_SCRIPT_EXPANSION. Each shared node is sized once, so checking costs the file's size, not the
    expansion's."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, children_done = stack.pop()
        if not isinstance(node, dict | list):
            continue
        key = id(node)
        if children_done:
            on_path.discard(key)
            items = [*node.keys(), *node.values()] if isinstance(node, dict) else node
            sizes[key] = 1 + sum(_size(item, sizes) for item in items)
            if sizes[key] > MAX_SCRIPT_EXPANSION:
                raise ValueError(
                    f"{path}: its aliases expand past {MAX_SCRIPT_EXPANSION:,} values and characters; "
                    "write the entries out, or share less"
                )
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise ValueError(f"{path}: an anchor is used inside its own value (the script would be endless)")
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in (node.values() if isinstance(node, dict) else node))


def _size(item: Any, sizes: dict[int, int]) -> int:
    if isinstance(item, dict | list):
        return sizes[id(item)]
    return len(item) if isinstance(item, str) else 1


class Resources(Protocol):
    """One kind of Gemini resource (cached contents, batches, files...) as the admin API shows it: what a
    namespace (None: every namespace) holds, one removed by name, a namespace's (or all) forgotten. A view whose
    store answers over the network (the Redis store's) says so with a true `off_loop` attribute: the admin API
    then calls it in a worker thread, never on the event loop (`Admin._on`)."""

    def summaries(self, namespace: str | None) -> list[dict[str, Any]]: ...

    def remove(self, namespace: str, name: str) -> bool: ...

    def reset(self, namespace: str | None = None) -> None: ...


class Schedule(Protocol):
    """A namespace's schedule for the batch jobs it creates next (wire/resources/batches.ScheduleView): shown,
    set from a JSON body (ValueError: why it is refused), cleared back to the default."""

    def show(self, namespace: str) -> dict[str, Any]: ...

    def set(self, namespace: str, body: Any) -> dict[str, Any]: ...

    def clear(self, namespace: str) -> dict[str, Any]: ...


class Models(Protocol):
    """The user's models (wire/handlers.ModelsView): shown, set from a JSON body (ValueError: why it is refused),
    cleared."""

    def show(self) -> dict[str, Any] | Awaitable[dict[str, Any]]: ...

    def set(self, body: Any) -> dict[str, Any] | Awaitable[dict[str, Any]]: ...

    def clear(self) -> dict[str, Any] | Awaitable[dict[str, Any]]: ...


class Clock(Protocol):
    """The emulator clock per namespace (wire/resources/triggers.ClockView): shown, and advanced from a JSON body
    (ValueError: why it is refused), which runs the triggers it makes due."""

    def show(self, namespace: str) -> dict[str, Any]: ...

    async def advance(self, namespace: str, body: Any) -> dict[str, Any]: ...


T = TypeVar("T")


class Admin:
    """Admin endpoints over the engine's script book (None: an engine that takes no script), the journal and
    the resource stores (`resources`, by collection name: filled in by the app)."""

    def __init__(
        self,
        settings: Settings,
        store: ScriptBook | None,
        journal: Journal,
        engine: str,
        bodies: BodyReader | None = None,
    ) -> None:
        self.settings = settings
        self.engine = engine
        self.store = store
        self.journal = journal
        self.remote = bool(getattr(store, "remote", False) or getattr(journal, "deferred", False))
        self.guard = AdminGuard(settings)
        self.bodies = bodies or BodyReader(settings.max_body_bytes, settings.body_timeout)
        self.resources: dict[str, Resources] = {}
        self.batch_schedule: Schedule | None = None  # filled in by the app
        self.models: Models | None = None  # filled in by the app
        self.tuning_schedule: Schedule | None = None  # ... and the tuning jobs' (wire/resources/tunings.py)
        self.templates: Schedule | None = None  # server prompt templates per namespace (wire/templates.py)
        self.clock: Clock | None = None  # the emulator clock triggers run against (wire/resources/triggers.py)
        self.jwks: Callable[[], dict[str, Any]] | None = None  # dynamic webhooks' public key (wire/deliveries.py)
        self._routes = {
            ("GET", "/health"): self.health,
            ("GET", "/version"): self.version,
            ("GET", "/config"): self.config,
            ("GET", "/openapi.json"): self.openapi,
            ("GET", "/gemini-openapi.json"): self.gemini_openapi,
            ("GET", "/inspector"): self.inspector,
            ("GET", SHIM_ROUTE): self.firebase_live_shim,
            ("GET", JWKS_ROUTE): self.webhook_jwks,
            ("GET", "/namespaces"): self.namespaces,
            ("GET", "/script"): self.list_script,
            ("POST", "/script"): self.append_script,
            ("PUT", "/script"): self.replace_script,
            ("DELETE", "/script"): self.clear_script,
            ("PUT", "/strict"): self.set_strict,
            ("POST", "/reset"): self.reset,
            ("GET", "/batches"): self.show_schedule,
            ("PUT", "/batches"): self.set_schedule,
            ("DELETE", "/batches"): self.clear_schedule,
            ("GET", "/models"): self.show_models,
            ("PUT", "/models"): self.set_models,
            ("DELETE", "/models"): self.clear_models,
            ("GET", "/tunings"): self.show_tuning_schedule,
            ("PUT", "/tunings"): self.set_tuning_schedule,
            ("DELETE", "/tunings"): self.clear_tuning_schedule,
            ("GET", "/templates"): self.show_templates,
            ("PUT", "/templates"): self.set_templates,
            ("DELETE", "/templates"): self.clear_templates,
            ("GET", "/clock"): self.show_clock,
            ("PUT", "/clock"): self.advance_clock,
            ("GET", "/resources"): self.list_resources,
            ("DELETE", "/resources"): self.remove_resource,
            ("PUT", "/files/state"): self.set_file_state,
            ("PUT", "/fileSearchStores/state"): self.set_document_state,
            ("GET", "/journal"): self.read_journal,
            ("DELETE", "/journal"): self.clear_journal,
        }

    async def dispatch(self, request: Request, path: str) -> Response:
        route = path.removeprefix(PREFIX)
        method = "GET" if request.method == "HEAD" else request.method
        try:
            if method == "OPTIONS":  # a CORS preflight: same-origin callers need none, others get none
                self.guard.check_origin(request.headers)
                allowed = sorted({m for m, p in self._routes if p == route} | {"OPTIONS", "HEAD"})
                response = _json({"allow": allowed})  # and no Access-Control-Allow-* header: no origin is let in
                response.headers["allow"] = ", ".join(allowed)
                return response
            self.guard.check(method, route, request.headers)
        except errors.ApiError as error:
            return _error(error)
        handler = self._routes.get((method, route))
        if handler is None:
            known = ", ".join(f"{m} {PREFIX}{p}" for m, p in self._routes)
            return _error(errors.ApiError(404, f"no admin endpoint {request.method} {path}; known: {known}"))
        try:
            response = await handler(request)
        except errors.ApiError as error:
            response = _error(error)
        if request.method == "HEAD":
            response.body = b""  # the headers GET would send, content-length included
        return response

    async def _body(self, request: Request) -> bytes:
        """The body, read with the Gemini API's size limit and deadline; a body must be declared as JSON."""
        raw = await self.bodies.read(request.receive, request.headers)
        if raw:
            media = request.headers.get("content-type", "").partition(";")[0].strip().lower()
            if media != "application/json":
                raise errors.ApiError(
                    415, f"admin API bodies are JSON: send Content-Type: application/json, not {media or 'none'}"
                )
        return raw

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

    async def firebase_live_shim(self, request: Request) -> Response:
        """The script that sends firebase/ai's Live WebSockets here; any page may load it (guard.OPEN)."""
        return Response(web.SHIM, media_type="text/javascript; charset=utf-8", headers=SHIM_HEADERS)

    async def webhook_jwks(self, request: Request) -> Response:
        """The JWKS dynamic webhooks' signatures verify against (no token needed: guard.OPEN)."""
        return _json(self.jwks() if self.jwks is not None else {"keys": []})

    async def namespaces(self, request: Request) -> Response:
        """Every namespace with journal records or pending entries, with their counts."""
        requests = await self._off(self.journal.counts)
        counted = await self._off(self.store.pending_counts) if self.store is not None else {}
        pending = {k: v for k, v in counted.items() if v}
        spaces = [
            {"name": name, "requests": requests.get(name, 0), "pending": pending.get(name, 0)}
            for name in sorted(requests.keys() | pending.keys())
        ]
        evicted, total = await self._off(lambda: (self.journal.evicted_by, self.journal.evicted))
        for space in spaces:
            space["evicted"] = evicted.get(str(space["name"]), 0)
        return _json({"requests": sum(requests.values()), "evicted": total, "namespaces": spaces})

    # --- script ----------------------------------------------------------------------------------

    async def _off(self, call: Callable[..., T], *args: Any) -> T:
        """`call(*args)`: in a worker thread when the script book or journal is in Redis (their sync clients
        never block the event loop), else right here (the memory stores answer at once)."""
        if self.remote:
            return await asyncio.to_thread(call, *args)
        return call(*args)

    async def _on(self, view: object, call: Callable[..., T], *args: Any) -> T:
        """`call(*args)`, a resource view's method: in a worker thread when the view's store answers over the
        network (`off_loop`), else right here (an in-memory store answers at once; some views touch the loop)."""
        if getattr(view, "off_loop", False):
            return await asyncio.to_thread(call, *args)
        return call(*args)

    def _scripts(self) -> ScriptBook:
        if self.store is None:
            raise errors.ApiError(400, f"the {self.engine} engine takes no script", status="FAILED_PRECONDITION")
        return self.store

    def _namespace(self, request: Request) -> str:
        return auth.caller_namespace(request.headers, request.query_params, self.settings.admin_token) or SHARED

    async def list_script(self, request: Request) -> Response:
        store, name = self._scripts(), self._namespace(request)
        strict, entries = await self._off(lambda: (store.is_strict(name), store.pending(name)))
        return _json({"namespace": name, "strict": strict, "entries": entries})

    async def _add(self, request: Request, replace: bool) -> Response:
        store, name = self._scripts(), self._namespace(request)
        try:
            payload = orjson.loads(await self._body(request) or b"null")
        except orjson.JSONDecodeError as exc:
            raise errors.ApiError(400, f"invalid script: the body is not JSON ({exc})") from None
        if validate.nested_too_deeply(payload):
            raise errors.too_deep()
        try:
            added = await self._off(lambda: store.add(name, payload, replace=replace))
        except EntryError as exc:
            raise entry_error(exc) from None
        return _json({"namespace": name, "added": added, "entries": await self._off(store.pending, name)})

    async def append_script(self, request: Request) -> Response:
        return await self._add(request, replace=False)

    async def replace_script(self, request: Request) -> Response:
        return await self._add(request, replace=True)

    async def clear_script(self, request: Request) -> Response:
        store, name = self._scripts(), self._namespace(request)
        await self._off(lambda: store.add(name, [], replace=True))
        return _json({"namespace": name, "entries": []})

    async def set_strict(self, request: Request) -> Response:
        store, name = self._scripts(), self._namespace(request)
        raw = await self._body(request)
        if not raw.strip():  # not a silent "follow the server"
            raise errors.ApiError(400, f"strict: the body is empty; expected {STRICT_BODY_TEXT}")
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise errors.ApiError(400, f"strict: the body is not JSON; expected {STRICT_BODY_TEXT}") from None
        strict = body["strict"] if isinstance(body, dict) and body.keys() == {"strict"} else "invalid"
        if strict is not True and strict is not False and strict is not None:  # 1 == True, but not a bool
            raise errors.ApiError(400, f"strict: expected {STRICT_BODY_TEXT}")
        await self._off(store.set_strict, name, strict)
        return _json({"namespace": name, "strict": await self._off(store.is_strict, name)})

    async def reset(self, request: Request) -> Response:
        engine = getattr(request.app.state, "engine", None)  # its own per-caller state (seam.Resettable)
        if request.query_params.get("all") in ("1", "true"):
            if self.store is not None:
                await self._off(self.store.reset)
            if isinstance(engine, Resettable):
                await self._off(engine.reset, None)  # on Redis its progress is there (worker thread)
            for resources in self.resources.values():
                await self._on(resources, resources.reset, None)
            await self._off(self.journal.clear)
            return _json({"reset": "all"})
        name = self._namespace(request)
        if self.store is not None:
            await self._off(self.store.reset, name)
        if isinstance(engine, Resettable):
            await self._off(engine.reset, name)
        for resources in self.resources.values():
            await self._on(resources, resources.reset, name)
        await self._off(self.journal.clear, name)
        return _json({"reset": name})

    # --- resources -------------------------------------------------------------------------------

    async def list_resources(self, request: Request) -> Response:
        """The caller's cached contents, batches... (every namespace's without a credential); ?kind= one kind."""
        asked = self._namespace(request)
        name = None if asked == SHARED else asked
        kind = request.query_params.get("kind")
        if kind is not None and kind not in self.resources:
            raise errors.ApiError(400, f"kind: expected one of {', '.join(sorted(self.resources))}")
        shown = {
            k: await self._on(r, r.summaries, name) for k, r in sorted(self.resources.items()) if kind in (None, k)
        }
        return _json({"namespace": name, "resources": shown})

    def _schedule(self) -> Schedule:
        if self.batch_schedule is None:
            raise errors.ApiError(400, "this server serves no batches", status="FAILED_PRECONDITION")
        return self.batch_schedule

    async def show_schedule(self, request: Request) -> Response:
        """The caller's schedule for the batch jobs it creates next."""
        return _json(self._schedule().show(self._namespace(request)))

    async def set_schedule(self, request: Request) -> Response:
        """Set the caller's batch schedule: {pendingMs, runningMs, state, hold, error} (all optional)."""
        return await self._set_schedule(request, self._schedule(), "batches")

    async def _set_schedule(self, request: Request, schedule: Schedule, kind: str) -> Response:
        """A schedule (`kind`: batches, tunings) set from the request's JSON body, its refusal named by kind."""
        name = self._namespace(request)
        raw = await self._body(request)
        if not raw.strip():
            raise errors.ApiError(
                400, f"{kind}: the body is empty; expected {{pendingMs, runningMs, state, hold, error}}"
            )
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise errors.ApiError(400, f"{kind}: the body is not JSON") from None
        try:
            return _json(schedule.set(name, body))
        except ValueError as exc:
            raise errors.ApiError(400, f"{kind}: {exc}") from None

    async def clear_schedule(self, request: Request) -> Response:
        return _json(self._schedule().clear(self._namespace(request)))

    def _templates(self) -> Schedule:
        if self.templates is None:
            raise errors.ApiError(400, "this server serves no templates", status="FAILED_PRECONDITION")
        return self.templates

    async def show_templates(self, request: Request) -> Response:
        """The caller's server prompt templates as set (and the shared set's ids)."""
        return _json(self._templates().show(self._namespace(request)))

    async def set_templates(self, request: Request) -> Response:
        """Replace the caller's templates: [{id, template}] or [{id, model, config?, input?, output?, prompt}], one
        such object, or {"templates": [...]}; without a credential, the shared set every caller falls back to."""
        name = self._namespace(request)
        raw = await self._body(request)
        try:
            body = orjson.loads(raw or b"null")
        except orjson.JSONDecodeError:
            raise errors.ApiError(400, "templates: the body is not JSON") from None
        if validate.nested_too_deeply(body):
            raise errors.too_deep()
        try:
            return _json(self._templates().set(name, body))
        except ValueError as exc:
            raise errors.ApiError(400, f"templates: {exc}") from None

    async def clear_templates(self, request: Request) -> Response:
        return _json(self._templates().clear(self._namespace(request)))

    def _models(self) -> Models:
        if self.models is None:
            raise errors.ApiError(400, "this server serves no catalogue", status="FAILED_PRECONDITION")
        return self.models

    async def show_models(self, request: Request) -> Response:
        """The models added through this API, and every id they serve."""
        return _json(await _done(self._models().show()))

    async def set_models(self, request: Request) -> Response:
        """Add models to the catalogue (or change its own), for every caller: [{name, like?, ...Model fields,
        output?}] or {"models": [...]}; replaces the models set here before (the --models file's stay)."""
        raw = await self._body(request)
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise errors.ApiError(400, "models: the body is not JSON") from None
        try:
            return _json(await _done(self._models().set(body)))
        except ValueError as exc:
            raise errors.ApiError(400, str(exc)) from None

    async def clear_models(self, request: Request) -> Response:
        """Take away the models added through this API."""
        return _json(await _done(self._models().clear()))

    def _clock(self) -> Clock:
        if self.clock is None:
            raise errors.ApiError(400, "this server has no emulator clock", status="FAILED_PRECONDITION")
        return self.clock

    async def show_clock(self, request: Request) -> Response:
        """The caller's emulator clock: its time and offset from wall time."""
        return _json(self._clock().show(self._namespace(request)))

    async def advance_clock(self, request: Request) -> Response:
        """Move the caller's clock forward ({advanceSeconds} or {time}) and run the triggers it makes due."""
        raw = await self._body(request)
        try:
            body = orjson.loads(raw or b"null")
        except orjson.JSONDecodeError:
            raise errors.ApiError(400, "clock: the body is not JSON") from None
        try:
            return _json(await self._clock().advance(self._namespace(request), body))
        except ValueError as exc:
            raise errors.ApiError(400, f"clock: {exc}") from None

    def _tuning_schedule(self) -> Schedule:
        if self.tuning_schedule is None:
            raise errors.ApiError(400, "this server serves no tuning jobs", status="FAILED_PRECONDITION")
        return self.tuning_schedule

    async def show_tuning_schedule(self, request: Request) -> Response:
        """The caller's schedule for the tuning jobs it creates next."""
        return _json(self._tuning_schedule().show(self._namespace(request)))

    async def set_tuning_schedule(self, request: Request) -> Response:
        """Set the caller's tuning schedule: {pendingMs, runningMs, state, hold, error} (all optional)."""
        return await self._set_schedule(request, self._tuning_schedule(), "tunings")

    async def clear_tuning_schedule(self, request: Request) -> Response:
        return _json(self._tuning_schedule().clear(self._namespace(request)))

    async def remove_resource(self, request: Request) -> Response:
        """Remove one of the caller's resources by its name (?name=cachedContents/abc); without a name, all of
        them (every namespace's without a credential)."""
        if "name" not in request.query_params:
            asked_space = self._namespace(request)
            space = None if asked_space == SHARED else asked_space
            for resources in self.resources.values():
                await self._on(resources, resources.reset, space)
            return _json({"namespace": space, "removed": "all"})
        asked = request.query_params.get("name", "")
        kind = asked.split("/", 1)[0] if "/" in asked else ""
        if kind.startswith("projects"):  # a Vertex name: projects/P/locations/L/cachedContents/ID
            kind = asked.split("/")[4] if asked.count("/") >= 5 else ""
        if "/operations/" in asked:  # an operation under any parent: models/M/operations/ID, batches/B/...
            kind = "operations"
        found = self.resources.get(kind)
        if found is None:
            raise errors.ApiError(400, f"name: expected a resource name ({', '.join(sorted(self.resources))}/...)")
        namespace = self._namespace(request)
        if not await self._on(found, found.remove, namespace, asked):
            raise errors.ApiError(404, f"no {asked} in namespace {namespace}")
        return _json({"namespace": namespace, "removed": asked})

    async def set_file_state(self, request: Request) -> Response:
        """Make one of the caller's files stay PROCESSING, go FAILED or be ACTIVE (`{"name": "files/ID", "state":
        ..., "error"?: {"code", "message"}}`); without a name, the caller's next upload gets that state."""
        return await self._set_state(request, "files", FILE_STATES, FILE_STATE_BODY_TEXT)

    async def set_document_state(self, request: Request) -> Response:
        """Make one of the caller's file search documents stay STATE_PENDING (its operation held), go STATE_FAILED
        (its operation failed with `error`) or be STATE_ACTIVE; without a name, the caller's next upload or import."""
        return await self._set_state(request, "fileSearchStores", DOCUMENT_STATES, DOCUMENT_STATE_BODY_TEXT)

    async def _set_state(self, request: Request, kind: str, states: tuple[str, ...], expected: str) -> Response:
        """`PUT /{kind}/state`: `{"state", "name"?, "error"?: {"code", "message"}}` handed to the kind's
        resource view (`set_state`)."""
        view = self.resources.get(kind)
        raw = await self._body(request)
        try:
            body = orjson.loads(raw or b"null")
        except orjson.JSONDecodeError:
            body = None
        refused = errors.ApiError(400, f"{kind}/state: expected {expected}")
        if (
            not isinstance(body, dict)
            or not body.keys() <= {"name", "state", "error"}
            or body.get("state") not in states
        ):
            raise refused
        error = body.get("error")
        if "error" in body and not (
            isinstance(error, dict) and isinstance(error.get("message"), str) and isinstance(error.get("code", 0), int)
        ):
            raise refused
        name = body.get("name")
        if "name" in body and not isinstance(name, str):
            raise refused
        if view is None or not hasattr(view, "set_state"):
            raise errors.ApiError(400, f"{kind}/state: this server keeps no {kind}", status="FAILED_PRECONDITION")
        namespace = self._namespace(request)
        if not await self._on(view, view.set_state, namespace, name, body["state"], error):
            raise errors.ApiError(404, f"no {name} in namespace {namespace}")
        return _json({"namespace": namespace, "name": name, "state": body["state"]})

    # --- journal ---------------------------------------------------------------------------------

    async def read_journal(self, request: Request) -> Response:
        """A page of records: `next`, when present, is the `since` that reads the following page."""
        query = request.query_params
        asked = query.get("namespace") or self._namespace(request)
        name = None if asked == SHARED else asked
        since = _whole(query.get("since", "0"), "since", "a record id (a whole number)")
        limit = _whole(query.get("limit", str(PAGE_RECORDS)), "limit", f"a number of records from 1 to {PAGE_RECORDS}")
        if not 1 <= limit <= PAGE_RECORDS:
            raise errors.ApiError(400, f"limit: expected a number of records from 1 to {PAGE_RECORDS}")
        records, following = await self._off(
            self.journal.page, name, query.get("model"), query.get("rpc"), since, limit
        )
        journal = self.journal
        evicted = await self._off(lambda: journal.evicted if name is None else journal.evicted_by.get(name, 0))
        body: dict[str, Any] = {"namespace": name, "evicted": evicted, "records": [r.to_json() for r in records]}
        if following is not None:
            body["next"] = following
        return _json(body)

    async def clear_journal(self, request: Request) -> Response:
        asked = self._namespace(request)
        name = None if asked == SHARED else asked
        await self._off(self.journal.clear, name)
        return _json({"cleared": name or "all"})


FILE_STATES = ("PROCESSING", "ACTIVE", "FAILED")
FILE_STATE_BODY_TEXT = (
    '{"state": "PROCESSING", "ACTIVE" or "FAILED", "name"?: "files/ID", "error"?: {"code", "message"}}'
)
DOCUMENT_STATES = ("STATE_PENDING", "STATE_ACTIVE", "STATE_FAILED")
DOCUMENT_STATE_BODY_TEXT = (
    '{"state": "STATE_PENDING", "STATE_ACTIVE" or "STATE_FAILED", "name"?: "fileSearchStores/S/documents/D", '
    '"error"?: {"code", "message"}}'
)
STRICT_BODY_TEXT = '{"strict": true, false or null (follow the server)}'


def _whole(text: str, name: str, expected: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 18:  # "²".isdigit(), but int("²") fails
        raise errors.ApiError(400, f"{name}: expected {expected}")
    return int(text)


def _op(summary: str, body: bool = False, schema: str | None = None) -> dict[str, Any]:
    """An operation; with `body` (the Script schema) or `schema`, a required JSON request body of that schema."""
    op: dict[str, Any] = {"summary": summary, "responses": {"200": {"description": "OK"}}}
    schema = schema or ("Script" if body else None)
    if schema:
        content = {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}
        op["requestBody"] = {"required": True, "content": content}
        op["responses"]["400"] = {"description": "A body that is not this schema, in Google's error envelope"}
    return op


def _schedule_schema(description: str, states: list[str]) -> dict[str, Any]:
    """A job schedule's schema (batches, tunings): phase lengths in ms, the final state, hold, a failure's Status."""
    phase = {"type": "number", "minimum": 0, "maximum": 86400000}
    status = {"code": {"type": "integer", "minimum": 0, "maximum": 16}, "message": {"type": "string"}}
    return {
        "description": description,
        "type": "object",
        "properties": {
            "pendingMs": phase,
            "runningMs": phase,
            "state": {"enum": states},
            "hold": {"type": "boolean"},
            "error": {"type": ["object", "null"], "properties": status},
        },
        "additionalProperties": False,
    }


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
        f"{PREFIX}{SHIM_ROUTE}": {
            "get": _op("firebase-live-shim.js: a page loads it to send firebase/ai's Live WebSockets here (any origin)")
        },
        f"{PREFIX}{JWKS_ROUTE}": {
            "get": _op("The JWKS dynamic webhooks (a request's webhook_config) are signed against (no token needed)")
        },
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
        f"{PREFIX}/reset": {
            "post": _op("Reset the caller's namespace (script, journal, resources); ?all=true for all")
        },
        f"{PREFIX}/batches": {
            "get": _op("The caller's schedule for the batch jobs it creates next"),
            "put": _op(
                "Set it: {pendingMs, runningMs, state: SUCCEEDED|FAILED|CANCELLED|EXPIRED, hold, error}",
                schema="BatchSchedule",
            ),
            "delete": _op("Back to the default schedule (done within a second)"),
        },
        f"{PREFIX}/models": {
            "get": _op("The models added through this API (global), and the ids they serve"),
            "put": _op(
                "Add models to the catalogue or change its own, for every caller: [{name, like?, ...Model fields,"
                " output?}]; replaces those set here before",
            ),
            "delete": _op("Take away the models added through this API"),
        },
        f"{PREFIX}/tunings": {
            "get": _op("The caller's schedule for the tuning jobs it creates next"),
            "put": _op(
                "Set it: {pendingMs, runningMs, state: SUCCEEDED|FAILED|CANCELLED, hold, error}",
                schema="TuningSchedule",
            ),
            "delete": _op("Back to the default schedule (done within a second); held jobs finish"),
        },
        f"{PREFIX}/templates": {
            "get": _op("The caller's server prompt templates (Firebase AI Logic), and the shared set's ids"),
            "put": _op(
                "Replace them: [{id, template: Dotprompt source}] or [{id, model, config?, input?, output?, prompt}];"
                " without a credential, the shared set",
                schema="Templates",
            ),
            "delete": _op("Remove the caller's templates"),
        },
        f"{PREFIX}/clock": {
            "get": _op("The caller's emulator clock (time, offsetSeconds): what its triggers run against"),
            "put": _op(
                "Move it forward: {advanceSeconds} or {time: RFC 3339}; runs the triggers it makes due (bounded)"
                " and lists their executions",
                schema="Clock",
            ),
        },
        f"{PREFIX}/resources": {
            "get": _op("The caller's resources (cached contents, batches...); every namespace's without a credential"),
            "delete": _op("Remove one of the caller's resources (?name=cachedContents/ID), or all of them"),
        },
        f"{PREFIX}/files/state": {
            "put": _op(
                "Make one of the caller's files stay PROCESSING, go FAILED or be ACTIVE; without a name, the caller's"
                " next upload",
                schema="FileState",
            )
        },
        f"{PREFIX}/fileSearchStores/state": {
            "put": _op(
                "Make one of the caller's file search documents stay STATE_PENDING, go STATE_FAILED or be"
                " STATE_ACTIVE; without a name, the caller's next upload or import",
                schema="DocumentState",
            )
        },
        f"{PREFIX}/journal": {
            "get": _op("A page of journal records; query: namespace, model, rpc, since, limit; `next` reads on"),
            "delete": _op("Clear the caller's journal records (all without a credential)"),
        },
    },
    "components": {
        "parameters": {},
        "securitySchemes": {"adminToken": {"type": "apiKey", "in": "header", "name": ADMIN_TOKEN_HEADER}},
        "schemas": {
            "BatchSchedule": _schedule_schema(
                "How the caller's next batch jobs walk: PENDING for pendingMs, RUNNING for runningMs, then state;"
                " hold keeps them RUNNING until the schedule is set again without it",
                ["SUCCEEDED", "FAILED", "CANCELLED", "EXPIRED"],
            ),
            "TuningSchedule": _schedule_schema(
                "How the caller's next tuning jobs (Vertex tuningJobs, Developer tunedModels) walk: PENDING for"
                " pendingMs, RUNNING for runningMs, then state; hold keeps them RUNNING until the schedule is set"
                " again without it (then they end on its state)",
                ["SUCCEEDED", "FAILED", "CANCELLED"],
            ),
            "Clock": {
                "description": "Move the caller's emulator clock forward: by advanceSeconds, or to time (RFC 3339,"
                " with its offset, not before the clock's reading)",
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"advanceSeconds": {"type": "number", "minimum": 0, "maximum": 316224000}},
                        "required": ["advanceSeconds"],
                        "additionalProperties": False,
                    },
                    {
                        "type": "object",
                        "properties": {"time": {"type": "string", "format": "date-time"}},
                        "required": ["time"],
                        "additionalProperties": False,
                    },
                ],
            },
            "Templates": {
                "description": "Server prompt templates: a list, one template, or {templates: [...]}",
                "oneOf": [
                    {"$ref": "#/components/schemas/Template"},
                    {"type": "array", "items": {"$ref": "#/components/schemas/Template"}},
                    {"type": "object", "properties": {"templates": {"type": "array"}}, "required": ["templates"]},
                ],
            },
            "Template": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$"},
                    "template": {"type": "string", "description": "Dotprompt source: YAML frontmatter, then the body"},
                    "model": {"type": "string"},
                    "config": {"type": "object", "description": "generationConfig fields"},
                    "input": {"type": "object", "properties": {"schema": {}, "default": {"type": "object"}}},
                    "output": {"type": "object", "properties": {"format": {"enum": ["json", "text"]}, "schema": {}}},
                    "prompt": {"type": "string", "description": "the body (Handlebars) of the structured form"},
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "version": {"type": "string"},
                },
                "required": ["id"],
            },
            "FileState": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "files/ID; absent: the caller's next upload"},
                    "state": {"enum": ["PROCESSING", "ACTIVE", "FAILED"]},
                    "error": {
                        "type": "object",
                        "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
                        "required": ["message"],
                    },
                },
                "required": ["state"],
                "additionalProperties": False,
            },
            "DocumentState": {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "description": "fileSearchStores/S/documents/D; absent: the caller's next upload or import",
                    },
                    "state": {"enum": list(DOCUMENT_STATES)},
                    "error": {
                        "type": "object",
                        "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
                        "required": ["message"],
                    },
                },
                "required": ["state"],
                "additionalProperties": False,
            },
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
                    "image": {
                        "oneOf": [{"type": "string"}, {"type": "object"}, {"type": "array"}],
                        "description": "images an image model answers: a path, base64, or {path} / {data, mimeType}",
                    },
                    "live": {
                        "type": "object",
                        "description": "a Live API turn's own fields (README: The Live API)",
                        "properties": {
                            "inputTranscription": {"type": "string"},
                            "outputTranscription": {"type": "string"},
                            "audio": {"type": "string", "format": "byte"},
                            "interrupted": {"type": "boolean"},
                            "goAway": {"type": "string"},
                            "cancelToolCalls": {"type": "boolean"},
                            "drop": {"type": "boolean"},
                        },
                        "additionalProperties": False,
                    },
                },
                "additionalProperties": False,
            },
        },
    },
}
OPENAPI_BYTES = printers.pretty(OPENAPI)
