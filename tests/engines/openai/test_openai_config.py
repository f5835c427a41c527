"""Configuration of the openai engine from GEMINI_EMULATOR_OPENAI_* variables, and its registration."""

from __future__ import annotations

import pytest

from gemini_emulator import cli
from gemini_emulator.engines.openai.config import OpenAIConfig
from gemini_emulator.seam import available_engines, load_engine

BASE = {"GEMINI_EMULATOR_OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}


def test_defaults() -> None:
    config = OpenAIConfig.from_env(BASE)
    assert config == OpenAIConfig(base_url="http://127.0.0.1:11434/v1")
    assert config.chat_url == "http://127.0.0.1:11434/v1/chat/completions"
    assert (config.timeout, config.json_schema, config.max_tokens_field) == (120.0, True, "max_tokens")
    assert config.upstream_model("models/gemini-2.5-flash", "gemini-2.5-flash") == "gemini-2.5-flash"


@pytest.mark.parametrize(
    "text",
    [
        '{"gemini-2.5-flash": "llama3.2", "models/gemini-2.5-pro": "qwen3"}',
        "gemini-2.5-flash=llama3.2, gemini-2.5-pro=qwen3",
    ],
)
def test_model_map_as_json_or_pairs(text: str) -> None:
    config = OpenAIConfig.from_env(BASE | {"GEMINI_EMULATOR_OPENAI_MODEL_MAP": text})
    assert config.model_map == {"gemini-2.5-flash": "llama3.2", "gemini-2.5-pro": "qwen3"}
    assert config.upstream_model("gemini-flash-latest", "gemini-2.5-flash") == "llama3.2"  # the alias's target


def test_every_setting_from_the_environment() -> None:
    env = BASE | {
        "GEMINI_EMULATOR_OPENAI_API_KEY": "sk-x",
        "GEMINI_EMULATOR_OPENAI_DEFAULT_MODEL": "llama3.2",
        "GEMINI_EMULATOR_OPENAI_TIMEOUT": "2.5",
        "GEMINI_EMULATOR_OPENAI_JSON_SCHEMA": "false",
        "GEMINI_EMULATOR_OPENAI_MAX_TOKENS_FIELD": "max_completion_tokens",
    }
    config = OpenAIConfig.from_env(env)
    assert (config.api_key, config.default_model, config.timeout) == ("sk-x", "llama3.2", 2.5)
    assert (config.json_schema, config.max_tokens_field) == (False, "max_completion_tokens")
    assert config.upstream_model("gemini-2.5-pro", "gemini-2.5-pro") == "llama3.2"


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({}, "needs GEMINI_EMULATOR_OPENAI_BASE_URL"),
        ({"GEMINI_EMULATOR_OPENAI_BASE_URL": "localhost:11434"}, "must start with http://"),
        (BASE | {"GEMINI_EMULATOR_OPENAI_MODEL_MAP": "{oops"}, "MODEL_MAP is not valid JSON"),
        (BASE | {"GEMINI_EMULATOR_OPENAI_MODEL_MAP": "a=b,c"}, "item 'c' is not gemini-name=upstream-name"),
        (BASE | {"GEMINI_EMULATOR_OPENAI_TIMEOUT": "soon"}, "TIMEOUT must be a number of seconds"),
        (BASE | {"GEMINI_EMULATOR_OPENAI_JSON_SCHEMA": "maybe"}, "JSON_SCHEMA must be true or false"),
        (BASE | {"GEMINI_EMULATOR_OPENAI_MAX_TOKENS_FIELD": "tokens"}, "MAX_TOKENS_FIELD must be one of"),
    ],
)
def test_bad_settings_are_clear_errors(env: dict[str, str], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        OpenAIConfig.from_env(env)


def test_registered_as_an_entry_point_and_configured_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert available_engines()["openai"] == "gemini_emulator.engines.openai.engine:OpenAIEngine"
    monkeypatch.setenv("GEMINI_EMULATOR_OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("GEMINI_EMULATOR_OPENAI_DEFAULT_MODEL", "tiny")
    engine = load_engine("openai")
    assert engine.name == "openai"
    assert engine.config.default_model == "tiny"  # type: ignore[attr-defined]


def test_the_command_refuses_to_start_without_an_upstream(monkeypatch, capsys) -> None:
    monkeypatch.delenv("GEMINI_EMULATOR_OPENAI_BASE_URL", raising=False)
    assert cli.main(["--engine", "openai", "--port", "1"]) == 2
    assert "needs GEMINI_EMULATOR_OPENAI_BASE_URL" in capsys.readouterr().err


def test_the_command_help_names_the_settings() -> None:
    text = " ".join(cli.build_parser().format_help().split())
    assert "--engine openai answers from an OpenAI-compatible server" in text
    assert "GEMINI_EMULATOR_OPENAI_BASE_URL (required" in text
