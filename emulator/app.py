"""The ASGI application: one catch-all route that hands each request to the URL grammar."""

from __future__ import annotations

import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator import errors, handlers, routes
from emulator.config import Settings
from emulator.headers import BASE_HEADERS
from engines.base import Engine, load_engine

log = logging.getLogger("gemini_emulator")

# Google's front end answers unroutable URLs with this page, not with JSON (Firebase fixture
# vertexai/unary-failure-invalid-location-url-not-found.html, copied with the path as a placeholder).
_NOT_FOUND_PAGE = Path(__file__).with_name("not_found.html").read_text(encoding="utf-8")
HEALTH_PATH = "/__emulator/health"


def not_found_page(path: str) -> Response:
    body = _NOT_FOUND_PAGE.replace("__PATH__", _html_escape(path))
    return Response(body, status_code=404, media_type="text/html; charset=UTF-8")


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def create_app(settings: Settings | None = None, engine: Engine | None = None) -> Starlette:
    """The emulator as an ASGI app; `engine` overrides the one named in settings."""
    settings = settings or Settings.from_env()
    ctx = handlers.Context(settings, engine or load_engine(settings.engine))

    async def dispatch(request: Request) -> Response:
        path = request.scope["path"]
        if path == HEALTH_PATH:
            return Response(b'{"status": "ok"}\n', media_type="application/json")
        target = routes.match(request.method, path)
        if target is None:
            return not_found_page(path)
        try:
            if target.action == "call":
                return await handlers.call(ctx, request, target)
            if target.action == "get_model":
                return await handlers.get_model(ctx, request, target)
            return await handlers.list_models(ctx, request, target)
        except Exception:  # never a stack trace to the client
            log.exception("unexpected failure on %s %s", request.method, path)
            return handlers.error_response(errors.internal())

    methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    app = Starlette(routes=[Route("/{path:path}", dispatch, methods=methods)])
    app.state.settings = settings
    app.state.engine = ctx.engine
    return app


__all__ = ["create_app", "BASE_HEADERS"]
