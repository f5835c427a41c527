"""The ASGI application: one catch-all route that hands each request to the URL grammar."""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from gemini_emulator.admin.api import PREFIX, Admin, load_script_file
from gemini_emulator.admin.guard import allowed_hosts, rebound_host
from gemini_emulator.admin.journal import Journal
from gemini_emulator.admin.journal_redis import RedisJournal
from gemini_emulator.config import Settings
from gemini_emulator.protocol import errors, framing, routes
from gemini_emulator.seam import SHARED, Engine, Scriptable, ScriptBook, load_engine
from gemini_emulator.seam.state import MEMORY, SALT_ENV, check_store, link, shared_salt
from gemini_emulator.stores.batches_redis import RedisBatchStore, RedisPlans
from gemini_emulator.stores.caches_redis import RedisCacheStore
from gemini_emulator.stores.file_search_redis import RedisFileSearchStores
from gemini_emulator.stores.files_redis import RedisFileStore
from gemini_emulator.stores.interactions import InteractionStore
from gemini_emulator.stores.interactions_redis import RedisInteractionStore
from gemini_emulator.stores.live import LiveStore
from gemini_emulator.stores.live_redis import RedisLiveShared
from gemini_emulator.stores.models_redis import SharedModels
from gemini_emulator.stores.operations_redis import RedisOperationStore
from gemini_emulator.stores.prediction_jobs_redis import RedisPredictionJobs
from gemini_emulator.stores.records_redis import (
    RedisAgentStore,
    RedisEnvironmentStore,
    RedisTriggerStore,
    RedisVoices,
    RedisWebhookStore,
)
from gemini_emulator.stores.templates import TemplateStore
from gemini_emulator.stores.templates_redis import RedisTemplateStore
from gemini_emulator.stores.triggers import TriggerStore
from gemini_emulator.stores.tunings import Tunings
from gemini_emulator.stores.tunings_redis import RedisTunings
from gemini_emulator.stores.webhooks import WebhookStore
from gemini_emulator.wire import auth, cors, deliveries, handlers, live, templates
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.live import tokens as live_tokens
from gemini_emulator.wire.media import decisions, imagen, interactions, veo
from gemini_emulator.wire.openai_compat import surface as openai_compat
from gemini_emulator.wire.resources import (
    agents,
    batches,
    caches,
    environments,
    prediction_jobs,
    triggers,
    tunings,
    voices,
    webhooks,
)
from gemini_emulator.wire.resources import dispatch as rooms
from gemini_emulator.wire.sending import Stream

log = logging.getLogger("gemini_emulator")

# Google's front end answers unroutable URLs with this page, not with JSON (Firebase fixture
# vertexai/unary-failure-invalid-location-url-not-found.html, copied with the path as a placeholder).
_NOT_FOUND_PAGE = (Path(__file__).parent / "protocol" / "not_found.html").read_text(encoding="utf-8")


def not_found_page(path: str) -> Response:
    body = _NOT_FOUND_PAGE.replace("__PATH__", _html_escape(path))
    return Response(body, status_code=404, media_type="text/html; charset=UTF-8")


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


class _QuietDrops(logging.Filter):
    """Keep scripted connection drops out of the server log: they are requested, not failures."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not _is_drop(exc)


def _is_drop(exc: BaseException | None) -> bool:
    if isinstance(exc, framing.DropConnection):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_drop(e) for e in exc.exceptions)
    return False


_QUIET = _QuietDrops()
logging.getLogger("uvicorn.error").addFilter(_QUIET)


def _header(scope: Scope, wanted: bytes) -> str | None:
    """A request header's value from the ASGI scope (None without one)."""
    for name, value in scope["headers"]:
        if name == wanted:
            return str(value.decode("latin-1"))
    return None


class _Emulator(Starlette):
    """Starlette with HTTP requests straight to `serve_http` (create_app's dispatch), which never lets an exception
    out as a page of its own: the middleware Starlette would wrap it in, and the frames on the way (Starlette's
    own __call__, its middleware stack), only add cost. WebSockets and lifespan events take Starlette's way."""

    serve_http: Callable[[Scope, Receive, Send], Awaitable[None]]  # set by create_app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["app"] = self  # as Starlette's own: the admin API's requests read it (Request.app)
        if scope["type"] == "http":
            await self.serve_http(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


# The model methods only handlers.call serves (no other room claims them: batches, Veo, Imagen), sent straight
# there; tests/test_app_dispatch.py holds them to the rooms' claims.
HANDLERS_ALONE = frozenset({"generateContent", "streamGenerateContent", "countTokens"})


def _load_shared_models(ctx: handlers.Context, shared: SharedModels) -> None:
    """A process starting on Redis: the models added at run time through the others (best effort: a Redis not up
    yet is asked again by the first request that needs it, stores/models_redis.py)."""
    try:
        version, entries = shared.fetch_sync(0)
    except errors.ApiError:
        return
    if entries is not None:
        try:
            ctx.set_models(entries)
        except ValueError:
            log.warning("models set through another process do not fit this one's catalogue; kept its own")
            return
    ctx.models_version = version


def create_app(settings: Settings | None = None, engine: Engine | None = None) -> Starlette:
    """The emulator as an ASGI app; `engine` overrides the one named in settings."""
    settings = settings or Settings.from_env()
    engine = engine or load_engine(settings.engine, settings.engine_options())
    store: ScriptBook | None = engine.script_book() if isinstance(engine, Scriptable) else None
    if store is not None:
        store.default_strict = settings.strict
        if settings.script:  # on a shared store, the file's entries replace the shared script's (no duplicates)
            store.add(SHARED, load_script_file(settings.script), replace=bool(getattr(store, "remote", False)))
    ctx = handlers.Context(settings, engine)
    if settings.models:
        ctx.start_models(load_script_file(settings.models), settings.models)
    if check_store(settings.store) == MEMORY:
        journal = Journal(settings.journal_cap)
    else:  # one namespace salt for every process on the store: a key names one namespace everywhere
        given = os.environ.get(SALT_ENV)
        auth.use_salt(bytes.fromhex(given) if given else shared_salt(link(settings.store), auth.salt()))
        journal = RedisJournal(link(settings.store), settings.journal_cap)
    deferred = journal.deferred
    admin = Admin(settings, store, journal, engine.name, ctx.bodies)
    if check_store(settings.store) != MEMORY:  # cached contents and Veo's operations on Redis, for every process
        ctx.caches = ctx.shared_caches = RedisCacheStore(link(settings.store))
        delay_s = settings.operation_delay_ms / 1000
        ctx.shared_operations = RedisOperationStore(link(settings.store), default_delay_s=delay_s)
    admin.resources["cachedContents"] = caches.AdminView(ctx.caches)
    if check_store(settings.store) != MEMORY:  # file search stores in Redis (stores/file_search_redis.py)
        ctx.shared_search = RedisFileSearchStores(link(settings.store), settings.file_search_budget_bytes)
    rooms.register(admin, ctx)  # operations, files, file search stores
    webhook_store: WebhookStore | RedisWebhookStore
    if check_store(settings.store) == MEMORY:
        batch_room = batches.Batches(ctx.operations)
        webhook_store = WebhookStore()
    else:  # batch jobs and their plans on Redis, seen and answered once by every process (stores/batches_redis.py)
        shared_link = link(settings.store)
        batch_room = batches.Batches(ctx.operations, RedisPlans(shared_link), RedisBatchStore(shared_link))
        # the per-key records too, shared by every process (stores/keyed_redis.py, stores/records_redis.py)
        webhook_store = RedisWebhookStore(shared_link)
        ctx.agents = RedisAgentStore(shared_link)
        ctx.environments = RedisEnvironmentStore(shared_link)
        ctx.voices = RedisVoices(shared_link)
        ctx.shared_files = RedisFileStore(  # files and upload sessions (stores/files_redis.py)
            shared_link,
            budget_bytes=settings.files_budget_bytes,
            video_processing_s=settings.file_processing_ms / 1000,
            replica=settings.replica,
        )
        ctx.file_access = ctx.shared_files
        ctx.files.elsewhere = True  # files and every room's upload sessions are in Redis, none in this process
        ctx.shared_models = SharedModels(shared_link)  # PUT /__emulator/models for every process
        shared_link.on_models = ctx.saw_models  # the journal's writes say when they changed
        _load_shared_models(ctx, ctx.shared_models)
    admin.resources["batches"] = batches.AdminView(batch_room)
    admin.batch_schedule = batches.ScheduleView(batch_room)
    admin.models = handlers.ModelsView(ctx)
    prediction_jobs_here = prediction_jobs.PredictionJobs(batch_room.plans)  # Vertex batches: the same schedule
    prediction_room: prediction_jobs.PredictionJobs | prediction_jobs.SharedJobs = prediction_jobs_here
    shared_jobs = None
    if check_store(settings.store) != MEMORY:  # ... and on Redis, every process's (stores/prediction_jobs_redis.py)
        max_jobs = prediction_jobs.MAX_JOBS_PER_NAMESPACE
        shared_jobs = prediction_jobs.SharedJobs(RedisPredictionJobs(link(settings.store), max_jobs), batch_room.plans)
        prediction_room = shared_jobs
    admin.resources["batchPredictionJobs"] = prediction_jobs.AdminView(prediction_jobs_here, shared_jobs)
    # Vertex tuningJobs, Developer tunedModels; their tuned models answer as their base
    tuning_store: Tunings | RedisTunings
    if check_store(settings.store) == MEMORY:
        tuning_store = Tunings()
    else:  # on Redis: every process's jobs, schedules and tuned models (stores/tunings_redis.py)
        tuning_store = RedisTunings(link(settings.store))
        ctx.tuning_operation = tunings.operation_reader(tuning_store)
    admin.resources["tuningJobs"] = tunings.AdminView(tuning_store)
    admin.tuning_schedule = tunings.ScheduleView(tuning_store)
    ctx.tuned_models = tunings.resolver(tuning_store)
    admin.resources["voices"] = voices.AdminView(ctx.voices)
    admin.resources["agents"] = agents.AdminView(ctx.agents)  # managed agents, named by interactions and triggers
    admin.resources["environments"] = environments.AdminView(ctx.environments)  # their sandboxes and files
    # Live API sessions, resumption handles, ephemeral tokens
    sessions = LiveStore(settings.max_live_sessions_per_namespace, settings.max_live_sessions, settings.replica)
    if check_store(settings.store) != MEMORY:  # tokens and handles on Redis; open sessions stay here
        sessions.shared = RedisLiveShared(link(settings.store), settings.replica)
    admin.resources["liveSessions"] = live.AdminView(sessions)

    template_store: TemplateStore | RedisTemplateStore  # server prompt templates (Firebase AI Logic)
    if check_store(settings.store) == MEMORY:
        template_store = TemplateStore()  # the file's, shared by all, and each caller's set at run time
    else:  # on Redis: set through any process, served by every one (stores/templates_redis.py)
        template_store = RedisTemplateStore(link(settings.store))
    template_view = templates.AdminView(ctx, template_store)
    if settings.templates:
        try:
            template_view.set(SHARED, load_script_file(settings.templates))
        except ValueError as exc:
            raise ValueError(f"{settings.templates}: {exc}") from None
    admin.templates = template_view
    admin.resources["templates"] = template_view

    interaction_store: InteractionStore | RedisInteractionStore = (
        InteractionStore() if check_store(settings.store) == MEMORY else RedisInteractionStore(link(settings.store))
    )
    admin.resources["interactions"] = interactions.AdminView(interaction_store)

    # Webhooks: the registered endpoints per namespace, and the deliveries of their events (off the request path)
    posts = deliveries.Deliveries(
        webhook_store,
        journal,
        deliveries.webhook_hosts(settings.webhook_hosts),
        settings.webhook_retries,
        settings.webhook_backoff_ms / 1000,
    )
    ctx.drain.on_end(posts.close)  # deliveries end with the server
    admin.jwks = posts.signer.jwks
    admin.resources["webhooks"] = webhooks.AdminView(webhook_store)
    batch_room.on_created = webhooks.watch_batch(posts, webhook_store, ctx, batch_room)
    ctx.video_done = lambda op: webhooks.watch_video(posts, webhook_store, op)
    ctx.interaction_ended = lambda namespace, view, dynamic: webhooks.interaction_ended(posts, namespace, view, dynamic)

    # Triggers: scheduled agent interactions, run against each namespace's emulator clock (admin: /clock)
    trigger_store = TriggerStore() if check_store(settings.store) == MEMORY else RedisTriggerStore(link(settings.store))
    trigger_room = triggers.Triggers(ctx, trigger_store, interaction_store, journal)
    admin.resources["triggers"] = triggers.AdminView(trigger_store)
    admin.clock = triggers.ClockView(trigger_room)

    admin_prefix = PREFIX.encode()
    hosts = allowed_hosts(settings)  # the DNS rebinding guard's names (None: bound to a non-loopback address)

    async def dispatch(scope: Scope, receive: Receive, send: Send) -> None:
        """One HTTP request, whatever its method and path, answered: the admin API under its literal prefix
        (/%5F%5Femulator/... is an ordinary, unknown, Gemini path), the rest through the data plane's CORS rules."""
        path = scope["path"]
        if path.startswith(PREFIX) and scope.get("raw_path", admin_prefix).startswith(admin_prefix):
            await (await admin.dispatch(Request(scope, receive), path))(scope, receive, send)
            return
        await data_plane(scope, receive, send)

    async def api_call(scope: Scope, receive: Receive, send: Send) -> None:
        """One Gemini API request answered: the URL grammar decides, not a route pattern (a pattern would answer
        a newline in the path or an unusual method with Starlette's plain-text errors)."""
        path = scope["path"]
        incoming = Incoming.of(scope, receive)
        record = journal.begin(incoming.method, path, incoming.query, scope["headers"])
        target = routes.match(incoming.method, path)
        journaled: bytes | None = None  # the answer as journaled, when it is not the body as sent
        try:
            refusal = rebound_host(hosts, incoming.headers.get("host"))
            if refusal is not None:
                raise refusal
            if settings.app_check and target is not None and target.family in auth.FIREBASE_FAMILIES:
                record.namespace = auth.caller_namespace(incoming.headers, incoming.query, settings.admin_token)
                auth.require_app_check(target, incoming.headers)  # --app-check: production's 401 without a token
            if target is not None and target.action == "call" and target.method in HANDLERS_ALONE:  # the usual call
                response = await handlers.call(ctx, incoming, target, record)
            elif target is None:
                record.namespace = auth.caller_namespace(incoming.headers, incoming.query, settings.admin_token)
                response = not_found_page(path)
            elif target.action == "call" and target.method in batches.METHODS and target.family == "developer":
                response = await batches.create(ctx, batch_room, incoming, target, record)
            elif target.action == "call" and veo.claims(ctx, target):  # Veo: predictLongRunning, its polling
                response = await veo.call(ctx, incoming, target, record)
            elif target.action == "call" and imagen.claims(ctx, target):  # Imagen's :predict (embeddings keep theirs)
                response = await imagen.call(ctx, incoming, target, record)
            elif target.action == "call":
                response = await handlers.call(ctx, incoming, target, record)
            elif target.action == "openai":
                response = await openai_compat.dispatch(ctx, incoming, target, record)
            elif target.action == "cachedContents":
                response = await caches.serve(ctx, incoming, target, record)
            elif target.action == "interactions":  # the Interactions API: gemini_emulator.wire.media.interactions
                response = await interactions.serve(ctx, interaction_store, incoming, target, record)
            elif target.action == "batches":
                response = await batches.serve(ctx, batch_room, incoming, target, record)
            elif target.action == "batchPredictionJobs":
                response = await prediction_jobs.serve(ctx, prediction_room, incoming, target, record)
            elif target.action in tunings.ACTIONS:  # tuningJobs, tunedModels, the Registry's tuned models
                response = await tunings.serve(ctx, tuning_store, incoming, target, record)
            elif target.action == "decisions":  # asked of the engine as a generate call
                response = await decisions.create(ctx, incoming, target, record)
            elif target.action == "voices":
                response = await voices.serve(ctx, ctx.voices, incoming, target, record)
            elif target.action == routes.TEMPLATES:  # server prompt templates: gemini_emulator.wire.templates
                response = await templates.serve(ctx, template_store, incoming, target, record)
            elif target.action == routes.WEBHOOKS:  # client.webhooks; the secrets it shows are journaled REDACTED
                response = await webhooks.serve(ctx, webhook_store, posts, incoming, target, record)
                journaled = webhooks.redacted(bytes(response.body))
            elif target.action == routes.TRIGGERS:  # client.triggers: due executions run first
                response = await triggers.serve(ctx, trigger_room, incoming, target, record)
            elif target.action == routes.AGENTS:  # client.agents; MCP servers' headers are journaled REDACTED
                response = await agents.serve(ctx, ctx.agents, incoming, target, record)
                journaled = agents.journal_body(bytes(response.body))
            elif target.action == routes.ENVIRONMENTS:  # client.environments and its files; keys journaled REDACTED
                response = await environments.serve(ctx, ctx.environments, incoming, target, record)
                kind = response.headers.get("content-type", "")
                journaled = environments.journal_body(bytes(response.body), kind)
            elif target.action == routes.AUTH_TOKENS:  # ephemeral tokens for the Live API
                response = await live_tokens.create(ctx, sessions, incoming, target, record)
                journaled = live_tokens.redacted(bytes(response.body))  # without the token's name: a credential
            elif target.action == "room":  # operations, files: gemini_emulator.wire.resources.dispatch
                response = await rooms.dispatch(ctx, incoming, target, record)
            else:
                record.namespace = auth.caller_namespace(incoming.headers, incoming.query, settings.admin_token)
                record.rpc, record.model = target.action, target.model
                handler = handlers.get_model if target.action == "get_model" else handlers.list_models
                response = await handler(ctx, incoming, target)
        except errors.ApiError as error:  # a namespace header past its cap
            response = handlers.error_response(error)
        except Exception:  # never a stack trace to the client
            log.exception("unexpected failure on %s %s", incoming.method, path)
            response = handlers.error_response(errors.internal())
        if isinstance(response, Stream):
            response.tap = journal.tap(record, response.status_code)
        else:
            journal.finish(record, response.status_code, bytes(response.body) if journaled is None else journaled)
            if deferred:  # the record is in the shared journal before its caller has the answer
                await journal.flushed()
        await response(scope, receive, send)

    pages = cors.origins(settings.cors_origins)  # the web pages that may call the data plane (None: CORS off)
    data_plane = cors.data_plane(api_call, pages)  # preflights answered, allowed origins named

    async def every_request(scope: Scope, receive: Receive, send: Send) -> None:
        """Every HTTP or WebSocket request (the router's default, for whatever reaches the router)."""
        if scope["type"] == "websocket":  # the Live API's room (gemini_emulator.wire.live)
            if rebound_host(hosts, _header(scope, b"host")) is not None or cors.socket_refused(
                pages, _header(scope, b"origin")
            ):
                await send({"type": "websocket.close", "code": 1008})  # before the handshake: a 403
                return
            await live.serve(ctx, sessions, journal, scope, receive, send)
            return
        await dispatch(scope, receive, send)

    app = _Emulator()
    app.router.default = every_request
    app.serve_http = dispatch

    async def entry(scope: Scope, receive: Receive, send: Send) -> None:
        """What is not HTTP: WebSockets to `every_request`, lifespan events to the router."""
        if scope["type"] == "websocket":
            await every_request(scope, receive, send)
        else:
            await app.router(scope, receive, send)

    app.middleware_stack = entry
    app.state.settings = settings
    app.state.engine = engine
    app.state.drain = ctx.drain  # the server's shutdown ends what is still running through it (runtime.py)
    app.state.store = store
    app.state.journal = journal
    app.state.context = ctx  # the handlers' state: its stores, for in-process tests (testing.server)
    app.state.live = sessions
    app.state.interactions = interaction_store
    app.state.webhooks = webhook_store
    app.state.deliveries = posts
    app.state.triggers = trigger_store
    app.state.agents = ctx.agents
    app.state.environments = ctx.environments
    return app
