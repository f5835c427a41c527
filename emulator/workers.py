"""What `serve` hands uvicorn, in one process and in each `--workers` process (runtime.serve_workers starts them;
each builds its server here from the settings in its environment: cli.worker_environment put them there)."""

from __future__ import annotations

from typing import Any

from gemini_emulator import runtime, tls
from gemini_emulator.config import Settings


def server_options(settings: Settings, certificate: Any = None) -> dict[str, Any]:
    """uvicorn's options for these settings (runtime.server_config), the same in one process and in each worker."""
    return {
        "http": runtime.guarded_http(
            settings.header_timeout, runtime.connection_cap(settings.max_connections), settings.http
        ),
        "loop": runtime.event_loop(settings.loop),
        "host": settings.host,
        "port": settings.port,
        "log_level": settings.log_level,
        # No access log: request lines can carry ?key=; the emulator never writes credentials anywhere (and
        # filter_logs redacts them from the WebSocket handshake lines uvicorn and websockets write).
        "access_log": False,
        # uvicorn's X-Forwarded-* middleware only rewrites the scope's client and scheme, which nothing here reads
        # (the Files room reads X-Forwarded-Proto itself): a dict of the headers per request for nothing.
        "proxy_headers": False,
        "server_header": False,
        "lifespan": "off",
        **({"ssl_certfile": str(certificate.cert), "ssl_keyfile": str(certificate.key)} if certificate else {}),
    }


def worker_server() -> Any:
    """One `--workers` process's server (runtime._Worker calls it in the child): the app from the settings in
    the environment, served as `serve` serves it, drained on shutdown."""
    from gemini_emulator.app import create_app

    settings = Settings.from_env()
    certificate = tls.resolve(settings.tls_cert, settings.tls_key, settings.host) if settings.tls else None
    app = create_app(settings)
    runtime.tune_gc()
    runtime.filter_logs()
    options = server_options(settings, certificate)
    config = runtime.server_config(runtime.collect_when_idle(app), settings.shutdown_grace, **options)
    return runtime.DrainingServer(config, app.state.drain, settings.shutdown_grace)
