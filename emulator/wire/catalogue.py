"""The model catalogue: which models exist, their limits and methods, aliases, and retired names.

Data lives in models.json (sources listed in it); this module answers questions about it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from gemini_emulator.protocol import errors

_DATA = Path(__file__).with_name("models.json")
# Methods every generative model accepts on the wire though ListModels does not list them.
_IMPLIED = {"streamGenerateContent": "generateContent", "batchEmbedContents": "embedContent", "predict": "embedContent"}


@dataclass(frozen=True)
class Catalogue:
    models: dict[str, dict[str, Any]]  # id -> production's Model resource, key order kept
    aliases: dict[str, str]
    no_longer_available: frozenset[str]
    not_found: frozenset[str]
    vertex_served: dict[str, frozenset[str]]  # retired on the Developer API, still answered by Vertex: methods
    media: dict[str, dict[str, Any]]  # media models: kind, accepted responseModalities, image token costs
    vertex_only: dict[str, dict[str, Any]]  # media models only Vertex serves (Imagen edit, upscale): kind, methods
    live: dict[str, dict[str, Any]]  # Live models with a say on their responseModalities: output

    def kind(self, model: str) -> str:
        """What a model makes: "text" (the default), "image-out", "tts", "imagen", "imagen-edit", "imagen-upscale",
        "veo"; embedding models are "embedding"."""
        info = self.media.get(model) or self.vertex_only.get(model)
        if info is not None:
            return str(info["kind"])
        entry = self.models.get(model)
        if entry is not None and "embedContent" in entry["supportedGenerationMethods"]:
            return "embedding"
        return "text"

    def output_modalities(self, model: str) -> list[list[str]]:
        """The responseModalities combinations generateContent accepts for `model` (the first is the default)."""
        info = self.media.get(model) or self.vertex_only.get(model)
        if info is not None and "output" in info:
            return [list(c) for c in info["output"]]
        return [["TEXT"]]

    def live_modalities(self, model: str) -> list[list[str]] | None:
        """The responseModalities combinations a Live setup for `model` may ask for; None: any."""
        info = self.live.get(model)
        return [list(c) for c in info["output"]] if info is not None else None

    def image_tokens(self, model: str, side: int) -> int:
        """candidatesTokensDetails IMAGE tokens of one generated image whose longer side is `side` pixels."""
        costs = (self.media.get(model) or {}).get("imageTokens") or {}
        for limit, cost in sorted((int(k), v) for k, v in costs.items()):
            if side <= limit:
                return int(cost)
        return int(max(costs.values(), default=1290))

    def listing(self) -> list[dict[str, Any]]:
        return list(self.models.values())

    def resolve(
        self, model: str, method: str, version: str, backend: str, project: str = "", location: str = ""
    ) -> str:
        """The catalogue id serving `model` for `method`, or the 404 production sends."""
        model_id = model.removeprefix("models/")
        entry = self.models.get(model_id)
        needed = _IMPLIED.get(method, method)
        if method == "computeTokens" and backend == "vertex":  # Vertex computes tokens for what it counts
            needed = "countTokens"
        if entry is not None:
            methods = entry["supportedGenerationMethods"]
            if needed in methods or (method == "predict" and method in methods):  # Imagen lists predict itself
                return self.aliases.get(model_id, model_id)
        if backend == "vertex" and method in self.vertex_only.get(model_id, {}).get("methods", ()):
            return model_id
        if backend == "vertex" and needed in self.vertex_served.get(model_id, ()):
            return model_id  # retirement is per backend (models.json retired_note)
        if backend == "vertex":
            raise errors.vertex_model_not_found(project or "-", location or "global", model_id)
        if model_id in self.no_longer_available:
            raise errors.model_no_longer_available(model_id)
        # The method production names: a stream's is generateContent, a batch's embedContent (pydantic-ai's
        # recording of batchEmbedContents on an unknown model says "not supported for embedContent").
        shown = _IMPLIED.get(method, method) if method != "predict" else method
        raise errors.model_not_found(model_id, version, shown)

    def get(self, model: str, version: str) -> dict[str, Any]:
        """GET models/{m}: the Model resource, or production's 404."""
        model_id = model.removeprefix("models/")
        if model_id in self.models:
            return self.models[model_id]
        if model_id in self.no_longer_available:
            raise errors.model_no_longer_available(model_id)
        raise errors.model_not_found(model_id, version, "get")


@cache
def load() -> Catalogue:
    data = json.loads(_DATA.read_text(encoding="utf-8"))
    return Catalogue(
        models={m["name"].removeprefix("models/"): m for m in data["models"]},
        aliases=dict(data["aliases"]),
        no_longer_available=frozenset(data["retired"]["no_longer_available"]),
        not_found=frozenset(data["retired"]["not_found"]),
        vertex_served={
            name: frozenset(info["methods"]) for name, info in data["retired"].get("vertex_served", {}).items()
        },
        media=dict(data.get("media", {}).get("models", {})),
        vertex_only=dict(data.get("media", {}).get("vertex_only", {})),
        live=dict(data.get("live", {}).get("models", {})),
    )
