"""Settings, declared once: each field of `Settings` is one setting with its type, default, help and secrecy.

Everything else is generated from these declarations: the environment variable (GEMINI_EMULATOR_<NAME>), the
command-line flag (--name-with-dashes) of `serve` and the other subcommands that take it, the help text (which shows
each default once, from here), the parsing of both, and the README's configuration table (tools/gen_settings_table.py
writes it; tests/testing/test_settings.py fails when the README and this module disagree).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

ENV_PREFIX = "GEMINI_EMULATOR_"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
# Production's request size limit for generateContent bodies with inline data (20 MiB).
DEFAULT_MAX_BODY = 20 * 1024 * 1024
LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_META = "gemini_emulator.setting"
# --replica: letters and digits only, so `NAME-` starts no other replica's upload ids (docs/scaling.md)
REPLICA_PATTERN = r"[A-Za-z0-9]{1,16}"


@dataclass(frozen=True)
class Setting:
    """One setting: where it is read from, what it holds, and how it is described."""

    name: str  # the Settings field
    kind: type  # str, int or bool
    default: object
    help: str  # one line, for `--help` and the README (backticks allowed)
    shown: str | None = None  # how the default reads when its value says too little ("any key accepted")
    secret: bool = False  # never shown in help, banner, repr, logs or GET /__emulator/config
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    pattern: str = ""  # a str setting's values must match it whole (regular expression); "" matches anything
    pattern_text: str = ""  # what `pattern` asks for, as the refusal says it

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def default_text(self) -> str:
        """The default as help and the README show it: never a secret's value."""
        if self.shown is not None:
            return self.shown
        if self.kind is bool:
            return "on" if self.default else "off"
        return "none" if self.default is None or self.secret else str(self.default)

    def parse(self, raw: str, source: str) -> object:
        """`raw` (from the environment variable or flag named `source`) as this setting's value; a ValueError
        saying what was wanted, in one line."""
        if self.kind is int:
            try:
                value = int(raw)
            except ValueError:
                raise ValueError(f"{source} must be a whole number, not {raw!r}") from None
            low, high = self.minimum, self.maximum
            if (low is not None and value < low) or (high is not None and value > high):
                bounds = f"between {low} and {high}" if low is not None and high is not None else f"at least {low}"
                raise ValueError(f"{source} must be {bounds}, not {value}")
            return value
        if self.kind is bool:
            lowered = raw.strip().lower()
            if lowered not in _TRUE + _FALSE:
                raise ValueError(f"{source} must be true or false, not {raw!r}")
            return lowered in _TRUE
        if self.choices and raw not in self.choices:
            raise ValueError(f"{source} must be one of {', '.join(self.choices)}, not {raw!r}")
        if self.pattern and re.fullmatch(self.pattern, raw) is None:
            raise ValueError(f"{source} must be {self.pattern_text or self.pattern}, not {raw[:80]!r}")
        return raw


def _setting(default: Any, help: str, **options: Any) -> Any:
    """A Settings field declaring one setting (see `Setting` for the options)."""
    return field(default=default, repr=not options.get("secret", False), metadata={_META: (help, options)})


@dataclass
class Settings:
    """Emulator settings. Each field reads GEMINI_EMULATOR_<FIELD> (then its flag) when not given explicitly."""

    host: str = _setting(DEFAULT_HOST, "address to bind; 0.0.0.0 only inside a container")
    port: int = _setting(DEFAULT_PORT, "port to listen on", minimum=1, maximum=65535)
    allowed_hosts: str = _setting(
        "",
        "comma-separated Host names a loopback-bound server answers besides loopback ones (a proxy on this machine"
        " that passes its own Host); any other name is refused, a DNS rebinding guard",
        shown="loopback names only",
    )
    cors_origins: str = _setting(
        "loopback",
        "web pages that may call the Gemini API paths and read the answers (CORS): `loopback` (pages on localhost,"
        " 127.0.0.1 or [::1], any port), comma-separated origins (`http://localhost:5173,loopback`), `*` (any page:"
        " it reads what the key it sends can read) or `off`; the admin API answers no other origin whatever this says",
    )
    app_check: bool = _setting(
        False,
        "Firebase AI Logic paths refuse a request without an `X-Firebase-AppCheck` token with production's 401, to"
        " test an app's App Check wiring (any token is accepted; none is verified)",
    )
    engine: str = _setting("scripted", "answer engine (`gemini-emulator engines` lists them)")
    api_key: str | None = _setting(
        None,
        "accept only this API key; any other gets production's 400 API_KEY_INVALID",
        shown="any key accepted",
        secret=True,
    )
    max_body_bytes: int = _setting(DEFAULT_MAX_BODY, "largest request body accepted", minimum=0)
    body_timeout: int = _setting(
        30, "seconds a request body may take to arrive; a sender that stalls gets a 408 (0: no limit)", minimum=0
    )
    shutdown_grace: int = _setting(
        5,
        "seconds a shutdown (SIGTERM, Ctrl-C) waits for requests in flight; streams still running then end with"
        " an error tail, and calls still waiting get a 503",
        minimum=0,
    )
    strict: bool = _setting(False, "unmatched requests get an error instead of the zero-config answer")
    script: str | None = _setting(
        None, "JSON (or YAML: `pip install gemini-emulator[yaml]`) file of script entries shared by every caller"
    )
    models: str | None = _setting(
        None,
        "JSON (or YAML) file of models to add to the catalogue or change in it: [{name, like?, ...Model fields,"
        ' output?}] (README, "Models the catalogue lacks"); PUT /__emulator/models adds more at run time',
    )
    templates: str | None = _setting(
        None,
        "JSON (or YAML) file of server prompt templates (Firebase AI Logic) shared by every caller: [{id, template:"
        ' Dotprompt source}] or [{id, model, config?, input?, output?, prompt}] (docs/conformance.md, "Server prompt'
        " templates\"); PUT /__emulator/templates sets a caller's own",
    )
    journal_cap: int = _setting(10_000, "journal records kept; the oldest are evicted (and counted)", minimum=0)
    log_level: str = _setting(
        "warning", "server log level; no access log is written (URLs can carry `?key=`)", choices=LOG_LEVELS
    )
    captures: str | None = _setting(
        None,
        "golden captures for `--engine replay` and `replay` script entries",
        shown="the curated captures shipped in the package",
    )
    admin_token: str | None = _setting(
        None,
        "token the admin API (/__emulator/...) then requires in the x-emulator-admin-token header; off loopback"
        " (`--host 0.0.0.0`) the admin API is refused without one, health excepted (prefer the variable: arguments"
        " are visible to ps)",
        secret=True,
    )
    header_timeout: int = _setting(
        10, "seconds a connection may take to send its request head; then it is closed (0: no limit)", minimum=0
    )
    max_live_sessions: int = _setting(
        1024,
        "Live API sessions open at once; past it a new session is closed with 1011 (resource exhausted)",
        minimum=1,
    )
    max_live_sessions_per_namespace: int = _setting(
        64, "Live API sessions one key (namespace) may hold open at once; past it the same 1011", minimum=1
    )
    tls: bool = _setting(
        False,
        "serve HTTPS and WSS (the Live API) on the port; the certificate is --tls-cert/--tls-key, else one the"
        " emulator makes and keeps in ~/.cache/gemini-emulator/tls (`gemini-emulator env --tls` says how to trust it)",
    )
    tls_cert: str | None = _setting(None, "PEM certificate (chain) for --tls", shown="generated")
    tls_key: str | None = _setting(None, "PEM private key of --tls-cert", shown="generated")
    max_connections: int = _setting(
        0,
        "connections served at once; past it the one waiting longest for its request head is closed",
        shown="what the file descriptor limit leaves room for",
        minimum=0,
    )
    http: str = _setting(
        "auto",
        "HTTP/1.1 parser: `httptools` (llhttp, in C) or `h11` (pure Python; the same bytes, about twice the CPU);"
        " `auto` takes httptools when it is installed",
        choices=("auto", "httptools", "h11"),
    )
    loop: str = _setting(
        "auto",
        "event loop: `uvloop` or `asyncio`; `auto` takes uvloop when it is installed",
        choices=("auto", "uvloop", "asyncio"),
    )

    store: str = _setting(
        "memory",
        "where shared state lives: `memory` (this process) or `redis://host:port/db` (scripts, strict settings, the"
        " journal and the resources docs/scaling.md lists in Redis, shared by every worker and replica;"
        " `pip install gemini-emulator[redis]`)",
    )
    workers: int = _setting(
        1,
        "worker processes serving the one port (all cores); more than 1 needs `--store redis://...`, since each"
        " worker would otherwise hold its own scripts and journal",
        minimum=1,
        maximum=64,
    )

    operation_delay_ms: int = _setting(
        500,
        "milliseconds a long-running operation (batch job, video, import) takes before it reports done; a script"
        " entry may set its own",
        minimum=0,
    )

    files_budget_bytes: int = _setting(
        2 << 30,
        "bytes of uploaded and generated files kept, all callers together; past it an upload gets a 429",
        minimum=0,
    )
    file_search_budget_bytes: int = _setting(
        256 << 20,
        "bytes of file search store documents kept (their sizeBytes), all callers together; past it an upload or"
        " import gets a 429",
        minimum=0,
    )
    files_memory_bytes: int = _setting(
        64 << 20, "of those, bytes kept in memory; the rest spill to a temporary directory removed on exit", minimum=0
    )
    file_processing_ms: int = _setting(
        500,
        "milliseconds an uploaded video stays PROCESSING before it is ACTIVE (other files are ACTIVE at once)",
        minimum=0,
    )

    webhook_hosts: str = _setting(
        "",
        "comma-separated host names webhooks may be delivered to besides loopback ones (localhost, 127.0.0.0/8,"
        " [::1]); a webhook whose URI names any other host is refused with a 400, a guard against the emulator"
        " being made to post to other machines",
        shown="loopback hosts only",
    )
    webhook_retries: int = _setting(
        3,
        "times a webhook delivery that fails (no 2xx answer) is tried again, with exponential backoff",
        minimum=0,
        maximum=10,
    )
    webhook_backoff_ms: int = _setting(
        1000,
        "milliseconds before a failed webhook delivery's first retry; each later retry waits twice as long (at most"
        " 60 s)",
        minimum=0,
        maximum=60_000,
    )

    replica: str = _setting(
        "",
        "this replica's name (1 to 16 letters and digits) behind a proxy routing several replicas by API key: it"
        " begins the upload_id of the resumable upload URLs the server hands out, so the proxy can route their"
        " key-less follow-ups to the replica holding the session (docs/scaling.md)",
        shown="none (upload ids as before)",
        pattern=REPLICA_PATTERN,
        pattern_text="1 to 16 letters and digits",
    )

    def public(self) -> dict[str, object]:
        """The settings as shown to callers (GET /__emulator/config): secrets replaced by "REDACTED"."""
        from gemini_emulator.admin.journal import REDACTED
        from gemini_emulator.seam.state import shown_url

        shown = {k: (REDACTED if k in SECRET_SETTINGS and v else v) for k, v in vars(self).items()}
        shown["store"] = shown_url(self.store)  # a redis URL's password never shown
        return shown

    def engine_options(self) -> dict[str, object]:
        """Keyword arguments for the engine's constructor that come from settings."""
        options: dict[str, object] = {"captures": self.captures} if self.captures else {}
        if self.store != "memory":
            options["state"] = self.store
        return options

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, /, **overrides: object) -> Settings:
        """Settings from GEMINI_EMULATOR_* variables (an empty one counts as unset), then `overrides` (values, as
        a flag gives them; None counts as not given). A bad variable raises a one-line ValueError naming it."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for setting in SETTINGS:
            raw = env.get(setting.env)
            if raw is not None and raw != "":
                values[setting.name] = setting.parse(raw, setting.env)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]


def _declared() -> tuple[Setting, ...]:
    kinds = {"int": int, "bool": bool}
    declared = []
    for f in fields(Settings):
        help, options = f.metadata[_META]
        kind = kinds.get(str(f.type).removesuffix(" | None"), str)
        declared.append(Setting(f.name, kind, f.default, help, **options))
    return tuple(declared)


SETTINGS: tuple[Setting, ...] = _declared()
BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}
# Settings never shown, logged or journaled.
SECRET_SETTINGS = frozenset(s.name for s in SETTINGS if s.secret)


def env_name(field_name: str) -> str:
    """The environment variable of a setting."""
    return BY_NAME[field_name].env
