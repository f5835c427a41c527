"""The `gemini-emulator` command."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence

from gemini_emulator import __version__, runtime
from gemini_emulator.admin.guard import ADMIN_TOKEN_HEADER, is_loopback
from gemini_emulator.config import DEFAULT_HOST, DEFAULT_MAX_BODY, DEFAULT_PORT, Settings, env_name
from gemini_emulator.seam import EngineLoadError, available_engines, load_engine
from gemini_emulator.testing.sdk_env import (
    DEFAULT_CLIENT_KEY,
    SHELLS,
    WILDCARD_LOOPBACK,
    client_base_url,
    sdk_environment,
    shell_lines,
)


def _help(text: str, field: str, default: object) -> str:
    return f"{text} [env {env_name(field)}; default {default}]"


_ENGINE_EPILOG = (
    "--engine openai answers from an OpenAI-compatible server, configured by GEMINI_EMULATOR_OPENAI_BASE_URL "
    "(required, e.g. http://127.0.0.1:11434/v1), _API_KEY, _MODEL_MAP (gemini-x=upstream-y,...), _DEFAULT_MODEL, "
    "_TIMEOUT, _JSON_SCHEMA and _MAX_TOKENS_FIELD (README: The openai engine)."
)


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
        description="Serve the Gemini API on HOST:PORT until interrupted.",
        epilog=_ENGINE_EPILOG,
        argument_default=argparse.SUPPRESS,
    )
    _serve_options(serve)
    commands.add_parser(
        "engines", help="list the installed answer engines", description="List engine names usable with --engine."
    )
    env = commands.add_parser(
        "env",
        help="print shell lines that point SDKs at a running emulator",
        description='Print the environment that points unmodified SDKs at an emulator: eval "$(gemini-emulator env)".'
        " google-genai (Python) and @google/genai (Node) read the base URLs; they, LangChain and @ai-sdk/google"
        " read the key.",
        argument_default=argparse.SUPPRESS,
    )
    env.add_argument(
        "--host", help=_help("the emulator's address (a wildcard such as 0.0.0.0 means loopback)", "host", DEFAULT_HOST)
    )
    env.add_argument("--port", type=int, help=_help("the emulator's port", "port", DEFAULT_PORT))
    env.add_argument(
        "--api-key",
        dest="api_key",
        help=_help("API key to export (the emulator's --api-key, if it has one)", "api_key", DEFAULT_CLIENT_KEY),
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
    record.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind [default {DEFAULT_HOST}]")
    record.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on [default {DEFAULT_PORT}]")
    record.add_argument(
        "--scrub",
        action="append",
        default=[],
        metavar="REGEX[=REPLACEMENT]",
        help="replace matches in both bodies before writing (repeatable; replacement defaults to REDACTED)",
    )
    record.add_argument("--log-level", dest="log_level", default="warning", help="server log level")
    _serve_options(parser)
    return parser


def _serve_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", help=_help("address to bind; use 0.0.0.0 only inside a container", "host", DEFAULT_HOST)
    )
    parser.add_argument("--port", type=int, help=_help("port to listen on", "port", DEFAULT_PORT))
    parser.add_argument("--engine", help=_help("answer engine (see `gemini-emulator engines`)", "engine", "scripted"))
    parser.add_argument(
        "--api-key",
        dest="api_key",
        help=_help(
            "accept only this API key; any other gets production's 400 API_KEY_INVALID", "api_key", "any key accepted"
        ),
    )
    parser.add_argument(
        "--max-body-bytes",
        dest="max_body_bytes",
        type=int,
        help=_help("largest request body accepted", "max_body_bytes", DEFAULT_MAX_BODY),
    )
    parser.add_argument(
        "--body-timeout",
        dest="body_timeout",
        type=int,
        help=_help(
            "seconds a request body may take to arrive before a 408 (0: no limit)",
            "body_timeout",
            Settings.body_timeout,
        ),
    )
    parser.add_argument(
        "--strict",
        action="store_const",
        const=True,
        help=_help(
            "answer requests no script entry matches with an error, not the zero-config answer", "strict", "off"
        ),
    )
    parser.add_argument(
        "--script",
        help=_help("JSON (or YAML) file of script entries shared by every caller", "script", "none"),
    )
    parser.add_argument(
        "--journal-cap",
        dest="journal_cap",
        type=int,
        help=_help("journal records kept (the oldest are evicted)", "journal_cap", 10_000),
    )
    parser.add_argument(
        "--captures",
        help=_help("golden captures for --engine replay and `replay` script entries", "captures", "captures/"),
    )
    parser.add_argument(
        "--admin-token",
        dest="admin_token",
        help=_help(
            "token the admin API (/__emulator/...) requires in the x-emulator-admin-token header; needed to use it "
            "at all when --host is not a loopback address (prefer the variable: arguments are visible to ps)",
            "admin_token",
            "none",
        ),
    )
    parser.add_argument(
        "--log-level",
        dest="log_level",
        choices=["critical", "error", "warning", "info", "debug"],
        help=_help("server log level", "log_level", "warning"),
    )


_OPTIONS = (
    "host",
    "port",
    "engine",
    "api_key",
    "max_body_bytes",
    "body_timeout",
    "strict",
    "script",
    "journal_cap",
    "log_level",
    "captures",
    "admin_token",
)


def _admin_note(settings: Settings) -> str:
    """How the admin API is guarded (never the token itself)."""
    if settings.admin_token:
        return f"\n                 needs header {ADMIN_TOKEN_HEADER} (the admin token)"
    if not is_loopback(settings.host):
        return "\n                 REFUSED: not a loopback address and no --admin-token / GEMINI_EMULATOR_ADMIN_TOKEN"
    return ""


def banner(settings: Settings) -> str:
    """What the server prints at start: where it listens, what it serves, how to point each SDK at it."""
    url = client_base_url(settings.host, settings.port)
    wildcard = settings.host in WILDCARD_LOOPBACK
    env_args = "" if wildcard or settings.host == DEFAULT_HOST else f" --host {settings.host}"
    env_args += "" if settings.port == DEFAULT_PORT else f" --port {settings.port}"
    where = f"{url} (from outside a container: the published port)" if wildcard else url
    return "\n".join(
        [
            f"gemini-emulator {__version__} listening on {settings.host}:{settings.port}, engine {settings.engine}",
            "  Developer API  /{v1,v1beta}/models/{model}:{generateContent,streamGenerateContent,countTokens}",
            "  Vertex AI      /{v1,v1beta1}/projects/{p}/locations/{l}/publishers/google/models/{model}:{method}",
            "                 /{v1,v1beta1}/publishers/google/models/{model}:{method} (express mode)",
            "  Firebase AI    /v1beta/projects/{p}/models/{model}:{method}",
            "  Admin          /__emulator/ (health, script, journal; GET /__emulator/openapi.json)"
            + _admin_note(settings),
            f"  Inspector      {url}/__emulator/inspector (live requests and responses, script entries, namespaces)",
            f"Point an SDK at {where}:",
            f'  eval "$(gemini-emulator env{env_args})"   # then google-genai and @google/genai need no code change',
            f"  google-genai      genai.Client(api_key='any', http_options=types.HttpOptions(base_url='{url}'))",
            f"  @google/genai     new GoogleGenAI({{apiKey: 'any', httpOptions: {{baseUrl: '{url}'}}}})",
            f"  firebase/ai       getGenerativeModel(ai, {{model}}, {{baseUrl: '{url}'}})",
            f"  @ai-sdk/google    createGoogleGenerativeAI({{baseURL: '{url}/v1beta'}})",
            f"  LangChain (JS)    new ChatGoogleGenerativeAI({{model, baseUrl: '{url}'}})",
        ]
    )


def print_env(args: argparse.Namespace) -> int:
    """`gemini-emulator env`: the shell lines that point SDKs at the emulator these settings describe."""
    try:
        settings = Settings.from_env(**{name: getattr(args, name, None) for name in ("host", "port", "api_key")})
    except ValueError as exc:
        print(f"gemini-emulator: {exc}", file=sys.stderr)
        return 2
    url = client_base_url(settings.host, settings.port)
    print(shell_lines(sdk_environment(url, settings.api_key or DEFAULT_CLIENT_KEY), getattr(args, "shell", "sh")))
    return 0


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
    if args.command == "record":
        from gemini_emulator.captures import record

        return record.main(args.upstream, args.captures, args.host, args.port, args.scrub, args.log_level)
    options = {name: getattr(args, name, None) for name in _OPTIONS}
    try:
        settings = Settings.from_env(**options)
        engine = load_engine(settings.engine, settings.engine_options())
        import uvicorn

        from gemini_emulator.app import create_app

        app = create_app(settings, engine)
    except (EngineLoadError, ValueError, OSError) as exc:
        print(f"gemini-emulator: {exc}", file=sys.stderr)
        return 2
    print(banner(settings), flush=True)
    # uvicorn drains in-flight requests on SIGTERM, then raises the signal again: this handler makes that exit 0.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    runtime.tune_gc()
    # No access log: request lines can carry ?key=; the emulator never writes credentials anywhere.
    uvicorn.run(
        runtime.collect_when_idle(app),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=False,
        server_header=False,
        lifespan="off",
        timeout_graceful_shutdown=5,
    )
    return 0
