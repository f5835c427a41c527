"""How engines are found: the `gemini_emulator.engines` entry-point group, checked when loaded."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

from gemini_emulator.seam.capabilities import Engine

ENTRY_POINT_GROUP = "gemini_emulator.engines"


class EngineLoadError(Exception):
    """An engine name that no installed plugin provides, or a plugin that breaks the protocol."""


def available_engines() -> dict[str, str]:
    """Installed engine names and the object each entry point names."""
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def load_engine(name: str, options: dict[str, Any] | None = None) -> Engine:
    """Instantiate the engine registered under `name`, checking the protocol eagerly."""
    matches = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not matches:
        known = ", ".join(sorted(available_engines())) or "none"
        raise EngineLoadError(f"no engine named {name!r} is installed (installed: {known})")
    factory = matches[0].load()
    try:
        engine = factory(**(options or {}))
    except TypeError as exc:  # an option this engine does not take (e.g. --captures)
        raise EngineLoadError(f"engine {name!r} does not take the options {sorted(options or {})}: {exc}") from None
    missing = [attr for attr in ("name", "generate") if not hasattr(engine, attr)]
    if missing:
        raise EngineLoadError(f"engine {name!r} ({matches[0].value}) lacks {', '.join(missing)}")
    return engine
