"""Configuration of the openai engine, read from GEMINI_EMULATOR_OPENAI_* environment variables.

VARIABLES declares them (name, default, meaning) once: `from_env` reads only those, `gemini-emulator --help` names
them, and the README's openai table is generated from them (tools/gen_settings_table.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

PREFIX = "GEMINI_EMULATOR_OPENAI_"
MAX_TOKENS_FIELDS = ("max_tokens", "max_completion_tokens")


@dataclass(frozen=True)
class Variable:
    """One GEMINI_EMULATOR_OPENAI_* variable as documented."""

    name: str  # after the prefix
    default: str  # as the README shows it
    help: str

    @property
    def env(self) -> str:
        return PREFIX + self.name


VARIABLES = (
    Variable("BASE_URL", "required", "the upstream base URL including `/v1`; `{BASE_URL}/chat/completions` is called"),
    Variable(
        "API_KEY", "none", "sent upstream as `Authorization: Bearer`; never logged, journaled or echoed in an error"
    ),
    Variable(
        "MODEL_MAP",
        "empty",
        'Gemini model → upstream model, JSON (`{"gemini-2.5-flash": "llama3.2"}`) or'
        " `gemini-2.5-flash=llama3.2,gemini-2.5-pro=qwen3`",
    ),
    Variable("DEFAULT_MODEL", "the Gemini name", "upstream model for Gemini models not in the map"),
    Variable("TIMEOUT", "120", "seconds to connect and to wait for each piece of the answer"),
    Variable(
        "JSON_SCHEMA",
        "true",
        "`false` for upstreams without `response_format: json_schema` (`json_object` is sent instead)",
    ),
    Variable("MAX_TOKENS_FIELD", "`max_tokens`", "or `max_completion_tokens` (OpenAI's reasoning models)"),
)
_DECLARED = frozenset(v.name for v in VARIABLES)
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class OpenAIConfig:
    """Where the upstream is and how to talk to it."""

    base_url: str
    api_key: str = field(default="", repr=False)  # repr=False: never printed with the config
    model_map: dict[str, str] = field(default_factory=dict)
    default_model: str = ""
    timeout: float = 120.0
    json_schema: bool = True
    max_tokens_field: str = "max_tokens"

    @property
    def chat_url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def upstream_model(self, *names: str) -> str:
        """The upstream model for the first of `names` (as written, then the catalogue id) found in the map,
        else the default model, else the catalogue id itself."""
        for name in names:
            bare = name.removeprefix("models/")
            if bare in self.model_map:
                return self.model_map[bare]
        return self.default_model or names[-1].removeprefix("models/")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> OpenAIConfig:
        env = os.environ if environ is None else environ

        def get(name: str) -> str:
            assert name in _DECLARED, f"{PREFIX}{name} is not declared in VARIABLES"
            return env.get(PREFIX + name, "").strip()

        base_url = get("BASE_URL")
        if not base_url:
            raise ValueError(f"the openai engine needs {PREFIX}BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama)")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"{PREFIX}BASE_URL must start with http:// or https://, not {base_url!r}")
        field_name = get("MAX_TOKENS_FIELD") or "max_tokens"
        if field_name not in MAX_TOKENS_FIELDS:
            raise ValueError(f"{PREFIX}MAX_TOKENS_FIELD must be one of {', '.join(MAX_TOKENS_FIELDS)}")
        return cls(
            base_url=base_url,
            api_key=get("API_KEY"),
            model_map=parse_model_map(get("MODEL_MAP")),
            default_model=get("DEFAULT_MODEL"),
            timeout=_seconds(get("TIMEOUT")),
            json_schema=_flag("JSON_SCHEMA", get("JSON_SCHEMA"), default=True),
            max_tokens_field=field_name,
        )


def parse_model_map(text: str) -> dict[str, str]:
    """`{"gemini-2.5-flash": "llama3.2"}` or `gemini-2.5-flash=llama3.2,gemini-2.5-pro=qwen3`."""
    if not text:
        return {}
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{PREFIX}MODEL_MAP is not valid JSON: {exc}") from None
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise ValueError(f"{PREFIX}MODEL_MAP must map model names to model names")
        return {k.removeprefix("models/"): v for k, v in value.items()}
    pairs = {}
    for item in filter(None, (piece.strip() for piece in text.split(","))):
        gemini, sep, upstream = item.partition("=")
        if not sep or not gemini.strip() or not upstream.strip():
            raise ValueError(f"{PREFIX}MODEL_MAP item {item!r} is not gemini-name=upstream-name")
        pairs[gemini.strip().removeprefix("models/")] = upstream.strip()
    return pairs


def _seconds(text: str) -> float:
    if not text:
        return 120.0
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{PREFIX}TIMEOUT must be a number of seconds, not {text!r}") from None
    if value <= 0:
        raise ValueError(f"{PREFIX}TIMEOUT must be positive")
    return value


def _flag(name: str, text: str, default: bool) -> bool:
    lowered = text.lower()
    if not lowered:
        return default
    if lowered not in _TRUE + _FALSE:
        raise ValueError(f"{PREFIX}{name} must be true or false, not {text!r}")
    return lowered in _TRUE
