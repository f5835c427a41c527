"""Settings are declared once (gemini_emulator.config): the flags, the variables, the help and the README's tables
all come from that declaration, and secrets never show."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from served import clean_env

from gemini_emulator import cli
from gemini_emulator.config import BY_NAME, SECRET_SETTINGS, SETTINGS, Settings
from gemini_emulator.engines.openai.config import VARIABLES, OpenAIConfig

ROOT = Path(__file__).resolve().parents[2]
# A value per setting, as text (what a flag or a variable gives) and as the setting holds it.
SAMPLES: dict[str, tuple[str, object]] = {
    "host": ("::1", "::1"),
    "port": ("9123", 9123),
    "allowed_hosts": ("proxy.example,other.example", "proxy.example,other.example"),
    "cors_origins": ("http://localhost:5173,loopback", "http://localhost:5173,loopback"),
    "app_check": ("on", True),
    "engine": ("replay", "replay"),
    "api_key": ("sekrit-api-key-1", "sekrit-api-key-1"),
    "max_body_bytes": ("1024", 1024),
    "body_timeout": ("0", 0),
    "shutdown_grace": ("12", 12),
    "strict": ("yes", True),
    "script": ("entries.json", "entries.json"),
    "models": ("models.json", "models.json"),
    "templates": ("templates.json", "templates.json"),
    "journal_cap": ("5", 5),
    "log_level": ("debug", "debug"),
    "captures": ("elsewhere", "elsewhere"),
    "admin_token": ("sekrit-admin-token-1", "sekrit-admin-token-1"),
    "header_timeout": ("3", 3),
    "max_connections": ("500", 500),
    "http": ("h11", "h11"),
    "loop": ("asyncio", "asyncio"),
    "store": ("redis://127.0.0.1:6390/2", "redis://127.0.0.1:6390/2"),
    "workers": ("3", 3),
    "operation_delay_ms": ("250", 250),
    "max_live_sessions": ("100", 100),
    "max_live_sessions_per_namespace": ("3", 3),
    "tls": ("true", True),
    "tls_cert": ("/tmp/cert.pem", "/tmp/cert.pem"),
    "tls_key": ("/tmp/key.pem", "/tmp/key.pem"),
    "files_budget_bytes": ("4096", 4096),
    "file_search_budget_bytes": ("8192", 8192),
    "files_memory_bytes": ("1024", 1024),
    "file_processing_ms": ("0", 0),
    "webhook_hosts": ("hooks.example,other.example", "hooks.example,other.example"),
    "webhook_retries": ("2", 2),
    "webhook_backoff_ms": ("10", 10),
    "replica": ("r0", "r0"),
}


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_settings_table", ROOT / "tools" / "gen_settings_table.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _serve_help() -> str:
    done = subprocess.run(
        [sys.executable, "-m", "gemini_emulator", "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        env=clean_env(COLUMNS="1000"),  # no wrapping inside a help text
    )
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())


def test_the_readme_tables_are_the_declarations() -> None:
    """Fails when README.md and emulator/config.py (or the openai engine's VARIABLES) disagree: run
    `python tools/gen_settings_table.py`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    generator = _generator()
    assert generator.render(readme) == readme, "README.md is stale: run python tools/gen_settings_table.py"
    for setting in SETTINGS:
        assert f"| `{setting.flag}` | `{setting.env}` |" in readme
    for variable in VARIABLES:
        assert f"| `{variable.env}` |" in readme


def test_the_check_fails_on_a_stale_table() -> None:
    generator = _generator()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stale = readme.replace("| `--port` | `GEMINI_EMULATOR_PORT` | 8080 |", "| `--port` | `GEMINI_EMULATOR_PORT` | 80 |")
    assert stale != readme and generator.render(stale) == readme


def test_every_setting_is_a_flag_and_a_variable_of_serve() -> None:
    declared = {f.name for f in Settings.__dataclass_fields__.values()}
    assert declared == set(BY_NAME) == set(SAMPLES)
    flags = [SAMPLES[s.name][0] for s in SETTINGS]
    argv = ["serve"]
    for setting, raw in zip(SETTINGS, flags, strict=True):
        argv += [setting.flag] if setting.kind is bool else [setting.flag, raw]
    from_flags = cli.settings_from(cli.build_parser().parse_args(argv), cli.SERVE_SETTINGS)
    from_env = Settings.from_env({s.env: SAMPLES[s.name][0] for s in SETTINGS})
    wanted = {name: value for name, (_, value) in SAMPLES.items()}
    assert vars(from_flags) == vars(from_env) == wanted


def test_a_flag_wins_over_its_variable_also_before_the_subcommand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_EMULATOR_PORT", "9001")
    monkeypatch.setenv("GEMINI_EMULATOR_JOURNAL_CAP", "7")
    for argv in (["serve", "--port", "9002"], ["--port", "9002", "serve"], ["--port", "9002"]):
        settings = cli.settings_from(cli.build_parser().parse_args(argv), cli.SERVE_SETTINGS)
        assert (settings.port, settings.journal_cap) == (9002, 7), argv
    settings = cli.settings_from(cli.build_parser().parse_args([]), cli.SERVE_SETTINGS)
    assert (settings.port, settings.host, settings.strict) == (9001, "127.0.0.1", False)


def test_serve_help_names_each_setting_with_its_variable_and_default_once() -> None:
    text = _serve_help()
    assert text.startswith("usage: gemini-emulator serve")
    for setting in SETTINGS:
        assert setting.flag in text
        assert text.count(f"[env {setting.env}; default {setting.default_text}]") == 1, setting.name
        assert " ".join(setting.help.split()) in text
    assert "{critical,error,warning,info,debug}" in text  # the choices show
    assert "GEMINI_EMULATOR_OPENAI_BASE_URL (required" in text


def test_secrets_never_show_in_help_banner_repr_or_config(monkeypatch: pytest.MonkeyPatch) -> None:
    assert SECRET_SETTINGS == {"api_key", "admin_token"}
    secrets = [SAMPLES[name][0] for name in sorted(SECRET_SETTINGS)]
    for name in SECRET_SETTINGS:
        monkeypatch.setenv(BY_NAME[name].env, SAMPLES[name][0])
    settings = Settings.from_env()
    assert settings.api_key == SAMPLES["api_key"][0]
    shown = [repr(settings), cli.banner(settings), str(settings.public()), cli.build_parser().format_help()]
    for text in shown:
        for secret in secrets:
            assert secret not in text
    assert settings.public()["admin_token"] == settings.public()["api_key"] == "REDACTED"
    config = OpenAIConfig(base_url="http://127.0.0.1:1/v1", api_key="sk-sekrit-upstream")
    assert "sk-sekrit-upstream" not in repr(config)


def test_help_of_every_subcommand_hides_secrets_from_the_environment() -> None:
    env = {"GEMINI_EMULATOR_API_KEY": "sekrit-api-key-1", "GEMINI_EMULATOR_ADMIN_TOKEN": "sekrit-admin-token-1"}
    for argv in (["serve", "--help"], ["env", "--help"], ["record", "--help"], ["--help"]):
        done = subprocess.run(
            [sys.executable, "-m", "gemini_emulator", *argv],
            capture_output=True,
            text=True,
            timeout=30,
            env=clean_env(**env),
        )
        assert done.returncode == 0 and "--host" in done.stdout, argv
        assert "sekrit" not in done.stdout + done.stderr, argv


def test_record_reads_the_same_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_EMULATOR_LOG_LEVEL", "info")
    args = cli.build_parser().parse_args(["record", "--upstream", "https://example.com", "--port", "9004"])
    settings = cli.settings_from(args, cli.RECORD_SETTINGS)
    assert (settings.host, settings.port, settings.log_level) == ("127.0.0.1", 9004, "info")


@pytest.mark.parametrize(
    ("env", "argv", "message"),
    [
        ({}, ["--port", "eighty"], "--port must be a whole number, not 'eighty'"),
        ({"GEMINI_EMULATOR_PORT": "70000"}, [], "GEMINI_EMULATOR_PORT must be between 1 and 65535, not 70000"),
        ({}, ["--log-level", "loud"], "--log-level must be one of critical, error, warning, info, debug, not 'loud'"),
        ({"GEMINI_EMULATOR_STRICT": "maybe"}, [], "GEMINI_EMULATOR_STRICT must be true or false, not 'maybe'"),
        ({"GEMINI_EMULATOR_JOURNAL_CAP": "-1"}, [], "GEMINI_EMULATOR_JOURNAL_CAP must be at least 0, not -1"),
    ],
)
def test_a_bad_value_is_one_line_naming_where_it_came_from(
    env: dict[str, str], argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValueError) as caught:
        cli.settings_from(cli.build_parser().parse_args(["serve", *argv]), cli.SERVE_SETTINGS)
    assert str(caught.value) == message
