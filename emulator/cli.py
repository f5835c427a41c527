"""The `gemini-emulator` command: its options are generated from the settings' declarations (config.py)."""

from __future__ import annotations

import argparse
import errno
import os
import signal
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from gemini_emulator import __version__, runtime, tls, web, workers
from gemini_emulator.admin.guard import ADMIN_TOKEN_HEADER, is_loopback
from gemini_emulator.config import BY_NAME, DEFAULT_HOST, DEFAULT_PORT, SETTINGS, Settings
from gemini_emulator.engines.openai.config import VARIABLES as OPENAI_VARIABLES
from gemini_emulator.seam import EngineLoadError, available_engines, load_engine
from gemini_emulator.seam.state import MEMORY, SALT_ENV
from gemini_emulator.testing.sdk_env import (
    DEFAULT_CLIENT_KEY,
    SHELLS,
    WILDCARD_LOOPBACK,
    client_base_url,
    sdk_environment,
    shell_lines,
    trust_environment,
)
from gemini_emulator.wire import auth

_ENGINE_EPILOG = (
    f"--engine openai answers from an OpenAI-compatible server, configured by {OPENAI_VARIABLES[0].env} "
    "(required, e.g. http://127.0.0.1:11434/v1), "
    + ", ".join("_" + v.name for v in OPENAI_VARIABLES[1:-1])
    + f" and _{OPENAI_VARIABLES[-1].name} (README: The openai engine)."
)
# The settings `serve` takes (all of them), and those the other subcommands take.
SERVE_SETTINGS = tuple(s.name for s in SETTINGS)
ENV_SETTINGS = ("host", "port", "api_key", "tls", "tls_cert", "tls_key")
RECORD_SETTINGS = ("host", "port", "log_level")


def add_settings(
    parser: argparse.ArgumentParser,
    names: Sequence[str],
    helps: Mapping[str, str] | None = None,
    shown: Mapping[str, str] | None = None,
) -> None:
    """One option per named setting, generated from its declaration: its flag, its help (or `helps[name]`) and,
    once, its variable and default (or `shown[name]`). An option not given leaves no attribute
    (argparse.SUPPRESS), so a value given before the subcommand is not overwritten by the subcommand's parser."""
    for name in names:
        setting = BY_NAME[name]
        default = (shown or {}).get(name, setting.default_text)
        text = f"{(helps or {}).get(name, setting.help)} [env {setting.env}; default {default}]".replace("%", "%%")
        if setting.kind is bool:
            parser.add_argument(
                setting.flag, dest=name, action="store_const", const="true", default=argparse.SUPPRESS, help=text
            )
        else:
            metavar = "{" + ",".join(setting.choices) + "}" if setting.choices else name.upper()
            parser.add_argument(setting.flag, dest=name, metavar=metavar, default=argparse.SUPPRESS, help=text)


def settings_from(args: argparse.Namespace, names: Sequence[str]) -> Settings:
    """Settings from the environment, then from the flags among `names` that were given, each parsed by its
    declaration (a bad value is a one-line ValueError naming the flag or variable)."""
    given = {}
    for name in names:
        raw = getattr(args, name, None)
        if raw is not None:
            setting = BY_NAME[name]
            given[name] = setting.parse(raw, setting.flag)
    return Settings.from_env(**given)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gemini-emulator",
        description="A local, wire-true emulator of Google's Gemini API. With no command, `serve`.",
        epilog=_ENGINE_EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"gemini-emulator {__version__}")
    commands = parser.add_subparsers(dest="command")
    serve = commands.add_parser(
        "serve",
        help="run the emulator (the default command)",
        description="Serve the Gemini API on HOST:PORT until interrupted. Every option is also an environment"
        " variable; a flag wins over its variable.",
        epilog=_ENGINE_EPILOG,
    )
    add_settings(serve, SERVE_SETTINGS)
    commands.add_parser(
        "engines", help="list the installed answer engines", description="List engine names usable with --engine."
    )
    env = commands.add_parser(
        "env",
        help="print shell lines that point SDKs at a running emulator",
        description='Print the environment that points unmodified SDKs at an emulator: eval "$(gemini-emulator env)".'
        " google-genai (Python) and @google/genai (Node) read the base URLs; they, LangChain and @ai-sdk/google"
        " read the key.",
    )
    add_settings(
        env,
        ENV_SETTINGS,
        helps={
            "host": "the emulator's address (a wildcard such as 0.0.0.0 means loopback)",
            "port": "the emulator's port",
            "api_key": "API key to export (the emulator's --api-key, if it has one)",
            "tls": "the emulator serves --tls: export https URLs and what trusts its certificate",
            "tls_cert": "the emulator's --tls-cert, if it was given one",
            "tls_key": "the emulator's --tls-key, if it was given one",
        },
        shown={"api_key": DEFAULT_CLIENT_KEY},
    )
    env.add_argument(
        "--shell",
        choices=SHELLS,
        default="sh",
        help="syntax of the lines: sh (also bash, zsh), fish or powershell [default sh]",
    )
    record = commands.add_parser(
        "record",
        help="proxy to the real service and write a golden capture of every exchange",
        description="Forward each request to UPSTREAM with the caller's credentials, stream the answer back "
        "unchanged, and write a capture of it into CAPTURES (credentials are never written).",
    )
    record.add_argument("--upstream", required=True, help="e.g. https://generativelanguage.googleapis.com")
    record.add_argument("--captures", default="captures/recorded", help="where captures go [default captures/recorded]")
    add_settings(record, RECORD_SETTINGS)
    record.add_argument(
        "--scrub",
        action="append",
        default=[],
        metavar="REGEX[=REPLACEMENT]",
        help="replace matches in both bodies before writing (repeatable; replacement defaults to REDACTED)",
    )
    shim = commands.add_parser(
        "firebase-live-shim",
        help="print the script that sends firebase/ai's Live WebSockets to the emulator",
        description="Print firebase-live-shim.js, for a page to load in development (README, Firebase Live in a web"
        " page). A running emulator also serves it at /__emulator/firebase-live-shim.js; a copy served from the"
        " page's own origin needs --url.",
    )
    shim.add_argument("--url", default="", help="the emulator's URL printed into the copy, e.g. http://127.0.0.1:8080")
    add_settings(parser, SERVE_SETTINGS)
    return parser


def print_shim(url: str) -> int:
    """`gemini-emulator firebase-live-shim`: the shim's text, with `url` printed into it when given."""
    if url and not url.startswith(("http://", "https://")):
        return _refuse(ValueError(f"--url: an http:// or https:// URL, not {url[:100]!r}"))
    print(web.firebase_live_shim(url), end="")
    return 0


def check_captures(settings: Settings) -> None:
    """For --engine replay, a captures directory (--captures, else the curated captures shipped in the package)
    that is missing or holds no captures is a one-line ValueError saying to pass --captures DIR. (The scripted
    engine reads captures only when a `replay` entry asks, and says so then.)"""
    from gemini_emulator.captures.format import DEFAULT_DIR

    if settings.engine != "replay":
        return
    root = Path(settings.captures) if settings.captures else DEFAULT_DIR
    advice = "pass --captures DIR, a folder of golden captures (captures/README.md)"
    if not root.is_dir():
        raise ValueError(f"no captures directory at {root}: {advice}")
    if next(root.rglob("*.json"), None) is None:
        raise ValueError(f"no captures in {root}: {advice}")


def check_port(host: str, port: int) -> None:
    """Bind HOST:PORT as uvicorn will (SO_REUSEADDR) and let it go: a port in use, or an address this machine
    does not have, is a one-line OSError before the banner instead of a log line after it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                reason = f"port {port} is already in use (another server?); choose another with --port N"
            else:
                reason = (exc.strerror or str(exc)).lower()
            raise OSError(f"cannot listen on {host}:{port}: {reason}") from None


def _admin_note(settings: Settings) -> str:
    """How the admin API is guarded (never the token itself)."""
    if settings.admin_token:
        return f"\n                 needs header {ADMIN_TOKEN_HEADER} (the admin token)"
    if not is_loopback(settings.host):
        return "\n                 REFUSED: not a loopback address and no --admin-token / GEMINI_EMULATOR_ADMIN_TOKEN"
    return ""


def banner(settings: Settings) -> str:
    """What the server prints at start: where it listens, what it serves, how to point each SDK at it."""
    url = client_base_url(settings.host, settings.port, settings.tls)
    wildcard = settings.host in WILDCARD_LOOPBACK
    env_args = "" if wildcard or settings.host == DEFAULT_HOST else f" --host {settings.host}"
    env_args += "" if settings.port == DEFAULT_PORT else f" --port {settings.port}"
    env_args += " --tls" if settings.tls else ""
    env_args += f" --tls-cert {settings.tls_cert} --tls-key {settings.tls_key}" if settings.tls_cert else ""
    where = f"{url} (from outside a container: the published port)" if wildcard else url
    return "\n".join(
        [
            f"gemini-emulator {__version__} listening on {settings.host}:{settings.port}, engine {settings.engine}",
            "  Developer API  /{v1,v1beta}/models/{model}:{generateContent,streamGenerateContent,countTokens}",
            "  Vertex AI      /{v1,v1beta1}/projects/{p}/locations/{l}/publishers/google/models/{model}:{method}",
            "                 /{v1,v1beta1}/publishers/google/models/{model}:{method} (express mode)",
            "  Firebase AI    /v1beta/projects/{p}/models/{model}:{method}",
            "  OpenAI compat  /v1beta/openai/ (chat/completions, embeddings, models; the bearer token is the key)",
            f"  Live API       {'wss' if settings.tls else 'ws'}://…/ws/google.ai.generativelanguage.{{v1beta,v1alpha}}"
            ".GenerativeService.BidiGenerateContent, /ws/google.cloud.aiplatform.{v1,v1beta1}.LlmBidiService"
            "/BidiGenerateContent" + ("" if settings.tls else " (google-genai dials wss: --tls)"),
            "  Admin          /__emulator/ (health, script, journal; GET /__emulator/openapi.json)"
            + _admin_note(settings),
            f"  Inspector      {url}/__emulator/inspector (live requests and responses, script entries, namespaces)",
            f"Point an SDK at {where}:",
            f'  eval "$(gemini-emulator env{env_args})"   # then google-genai and @google/genai need no code change',
            f"  google-genai      genai.Client(api_key='any', http_options=types.HttpOptions(base_url='{url}'))",
            f"  @google/genai     new GoogleGenAI({{apiKey: 'any', httpOptions: {{baseUrl: '{url}'}}}})",
            f"  firebase/ai       getGenerativeModel(ai, {{model}}, {{baseUrl: '{url}'}})",
            f'  firebase/ai Live  <script src="{url}/__emulator/firebase-live-shim.js"></script> first in the page',
            f"  @ai-sdk/google    createGoogleGenerativeAI({{baseURL: '{url}/v1beta'}})",
            f"  LangChain (JS)    new ChatGoogleGenerativeAI({{model, baseUrl: '{url}'}})",
            f"  openai            OpenAI(base_url='{url}/v1beta/openai/', api_key='any')",
        ]
    )


def print_env(args: argparse.Namespace) -> int:
    """`gemini-emulator env`: the shell lines that point SDKs at the emulator these settings describe."""
    try:
        settings = settings_from(args, ENV_SETTINGS)
    except ValueError as exc:
        return _refuse(exc)
    url = client_base_url(settings.host, settings.port, settings.tls)
    environment = sdk_environment(url, settings.api_key or DEFAULT_CLIENT_KEY)
    if settings.tls:
        try:
            certificate = tls.resolve(settings.tls_cert, settings.tls_key, settings.host)
        except (ValueError, OSError) as exc:
            return _refuse(exc)
        environment |= trust_environment(str(certificate.bundle), str(certificate.cert))
    print(shell_lines(environment, getattr(args, "shell", "sh")))
    return 0


def _refuse(exc: Exception) -> int:
    """One line on stderr, exit status 2."""
    print(f"gemini-emulator: {exc}", file=sys.stderr)
    return 2


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "engines":
        for name, target in sorted(available_engines().items()):
            print(f"{name}\t{target}")
        return 0
    if args.command == "env":
        return print_env(args)
    if args.command == "firebase-live-shim":
        return print_shim(args.url)
    if args.command == "record":
        from gemini_emulator.captures import record

        try:
            settings = settings_from(args, RECORD_SETTINGS)
            check_port(settings.host, settings.port)
        except (ValueError, OSError) as exc:
            return _refuse(exc)
        return record.main(args.upstream, args.captures, settings.host, settings.port, args.scrub, settings.log_level)
    try:
        settings = settings_from(args, SERVE_SETTINGS)
        check_captures(settings)
        check_workers(settings)
        engine = load_engine(settings.engine, settings.engine_options())

        from gemini_emulator.app import create_app

        app = create_app(settings, engine)  # with --workers, once here: it loads --script into the shared store
        check_port(settings.host, settings.port)
        certificate = tls.resolve(settings.tls_cert, settings.tls_key, settings.host) if settings.tls else None
        options = workers.server_options(settings, certificate)
    except (EngineLoadError, ValueError, OSError) as exc:
        return _refuse(exc)
    print(banner(settings), flush=True)
    # uvicorn drains in-flight requests on SIGTERM, then raises the signal again: this handler makes that exit 0.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    runtime.filter_logs()
    if settings.workers > 1:
        os.environ.update(worker_environment(settings))
        runtime.serve_workers(settings.workers, settings.host, settings.port, settings.log_level)
        return 0
    runtime.tune_gc()
    runtime.serve(runtime.collect_when_idle(app), app.state.drain, settings.shutdown_grace, **options)
    return 0


def check_workers(settings: Settings) -> None:
    """`--workers N` (N > 1) needs the shared store: a one-line ValueError saying why otherwise."""
    if settings.workers > 1 and settings.store == MEMORY:
        raise ValueError(
            f"--workers {settings.workers} needs --store redis://host:port/db: with the memory store each worker"
            " process would hold its own scripts and journal, so a script added through one worker would not answer"
            " the requests the others take (docs/scaling.md)"
        )


def worker_environment(settings: Settings) -> dict[str, str]:
    """The settings as GEMINI_EMULATOR_* variables for the worker processes (they inherit the environment, so no
    secret is ever on a command line); --script is loaded once, by the parent, not again by each worker."""
    env = {}
    for setting in SETTINGS:
        value = getattr(settings, setting.name)
        if value is None:
            continue
        env[setting.env] = ("true" if value else "false") if setting.kind is bool else str(value)
    env[BY_NAME["script"].env] = ""
    env[BY_NAME["workers"].env] = "1"  # each worker is one process
    env[SALT_ENV] = auth.salt().hex()  # the store's namespace salt (create_app drew it), for every worker
    return env
