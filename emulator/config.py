"""Settings: every option with its environment variable and default, in one table."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
# Production's request size limit for generateContent bodies with inline data (20 MiB).
DEFAULT_MAX_BODY = 20 * 1024 * 1024
# Settings never shown, logged or journaled.
SECRET_SETTINGS = frozenset({"api_key", "admin_token"})


@dataclass
class Settings:
    """Emulator settings. Each field reads GEMINI_EMULATOR_<FIELD> when not given explicitly."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    engine: str = "scripted"
    api_key: str | None = field(default=None, repr=False)  # when set, any other API key is rejected
    max_body_bytes: int = DEFAULT_MAX_BODY
    body_timeout: int = 30  # seconds a request body may take to arrive (0: no limit); then 408
    log_level: str = "warning"
    strict: bool = False  # an unmatched request is an error instead of the zero-config answer
    script: str | None = None  # JSON (or YAML) file of script entries shared by every namespace
    journal_cap: int = 10_000  # journal records kept; the oldest are evicted past it
    captures: str | None = None  # golden captures for the replay engine and `replay` entries (default: captures/)
    admin_token: str | None = field(default=None, repr=False)  # the admin API's token: emulator/admin/guard.py

    def public(self) -> dict[str, object]:
        """The settings as shown to callers (GET /__emulator/config): secrets replaced by "REDACTED"."""
        from gemini_emulator.admin.journal import REDACTED

        return {k: (REDACTED if k in SECRET_SETTINGS and v else v) for k, v in vars(self).items()}

    def engine_options(self) -> dict[str, object]:
        """Keyword arguments for the engine's constructor that come from settings."""
        return {"captures": self.captures} if self.captures else {}

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: object) -> Settings:
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for f in fields(cls):
            raw = env.get(env_name(f.name))
            if raw is not None and raw != "":
                values[f.name] = _convert(f.name, str(f.type), raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]


def env_name(field_name: str) -> str:
    return "GEMINI_EMULATOR_" + field_name.upper()


def _convert(name: str, kind: str, raw: str) -> object:
    if kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"{env_name(name)} must be a whole number, not {raw!r}") from None
    if kind == "bool":
        lowered = raw.strip().lower()
        if lowered not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            raise ValueError(f"{env_name(name)} must be true or false, not {raw!r}")
        return lowered in ("1", "true", "yes", "on")
    return raw
