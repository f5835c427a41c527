"""The model catalogue: which models exist, their limits and methods, aliases, and retired names.

Data lives in models.json (sources listed in it); this module answers questions about it.
"""

from __future__ import annotations

import dataclasses
import json
import re
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


# --- the user's own models (`--models FILE`, `PUT /__emulator/models`) ---------------------------------------------

MAX_USER_MODELS = 1000
_USER_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")
# The Model resource's fields a user entry may set (its key order is production's, kept from the model it is like).
_MODEL_FIELDS: dict[str, type | tuple[type, ...]] = {
    "version": str,
    "displayName": str,
    "description": str,
    "inputTokenLimit": int,
    "outputTokenLimit": int,
    "supportedGenerationMethods": list,
    "temperature": (int, float),
    "topP": (int, float),
    "topK": int,
    "maxTemperature": (int, float),
    "thinking": bool,
}
_ENTRY_FIELDS = {"name", "like", "output"} | set(_MODEL_FIELDS)
DEFAULT_LIKE = "gemini-2.5-flash"


def with_models(base: Catalogue, entries: Any, where: str = "models") -> tuple[Catalogue, list[str]]:
    """`base` with the user's models added (or overridden) and the ids they name; a ValueError that names the
    entry and what is wrong with it. An entry: {"name": "my-model" (or "models/my-model"), "like": a catalogue
    model to copy (default gemini-2.5-flash: its Model resource, media kind, Live modalities), any Model field to
    change (displayName, inputTokenLimit, supportedGenerationMethods, thinking...), "output": the
    responseModalities combinations generateContent accepts ([["TEXT", "IMAGE"], ["IMAGE"]])}."""
    entries = entry_list(entries, where)
    models, media, live = dict(base.models), dict(base.media), dict(base.live)
    aliases = dict(base.aliases)
    named: list[str] = []
    for i, entry in enumerate(entries):
        at = f"{where}[{i}]"
        model_id, resource, output = _user_model(base, entry, at)
        like_id = str(entry.get("like") or DEFAULT_LIKE).removeprefix("models/")
        models[model_id] = resource
        aliases.pop(model_id, None)  # the id is now this model, not an alias of another
        kind_info = base.media.get(like_id)
        if output is not None or kind_info is not None:
            info = dict(kind_info or {"kind": "text"})
            if output is not None:
                info["output"] = output
            media[model_id] = info
        else:
            media.pop(model_id, None)
        if like_id in base.live:
            live[model_id] = dict(base.live[like_id])
        named.append(model_id)
    return dataclasses.replace(base, models=models, media=media, live=live, aliases=aliases), named


def entry_list(entries: Any, where: str = "models") -> list[Any]:
    """The entries of a models file or admin body: a list, or {"models": [...]}; a ValueError past the bound."""
    if isinstance(entries, dict) and "models" in entries:
        entries = entries["models"]
    if not isinstance(entries, list):
        raise ValueError(f'{where}: expected a list of models (or {{"models": [...]}})')
    if len(entries) > MAX_USER_MODELS:
        raise ValueError(f"{where}: at most {MAX_USER_MODELS} models, not {len(entries)}")
    return entries


def _user_model(base: Catalogue, entry: Any, at: str) -> tuple[str, dict[str, Any], list[list[str]] | None]:
    """One entry of `with_models` checked: (its id, its Model resource, its output combinations or None)."""
    if not isinstance(entry, dict):
        raise ValueError(f"{at}: expected an object {{name, like?, ...Model fields}}")
    unknown = sorted(set(entry) - _ENTRY_FIELDS)
    if unknown:
        raise ValueError(f"{at}: unknown field {unknown[0]!r}; known: {', '.join(sorted(_ENTRY_FIELDS))}")
    name = entry.get("name")
    model_id = name.removeprefix("models/") if isinstance(name, str) else ""
    if not _USER_ID.match(model_id):
        raise ValueError(f"{at}.name: expected a model id of lowercase letters, digits, '.', '_' or '-', not {name!r}")
    like = entry.get("like", DEFAULT_LIKE)
    like_id = like.removeprefix("models/") if isinstance(like, str) else ""
    if like_id not in base.models:
        raise ValueError(f"{at}.like: {like!r} is not a model of the catalogue")
    resource = dict(base.models[like_id])
    for key, kind in _MODEL_FIELDS.items():
        if key not in entry:
            continue
        value = entry[key]
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            raise ValueError(f"{at}.{key}: expected {_kind_name(kind)}, not {value!r}")
        if isinstance(value, list) and not all(isinstance(m, str) and m for m in value):
            raise ValueError(f"{at}.supportedGenerationMethods: expected a list of method names")
        resource[key] = value
    order = ["name", *(k for k in resource if k != "name")]
    resource["name"] = f"models/{model_id}"
    if "version" not in entry and like_id != model_id:
        resource["version"] = model_id
    shown = {k: resource[k] for k in order}
    output = entry.get("output")
    if output is not None:
        if not (
            isinstance(output, list)
            and output
            and all(isinstance(c, list) and c and all(isinstance(m, str) for m in c) for c in output)
        ):
            raise ValueError(f'{at}.output: expected a list of responseModalities lists, like [["TEXT", "IMAGE"]]')
        output = [[m.upper() for m in c] for c in output]
    return model_id, shown, output


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "a whole number", float: "a number", bool: "true or false", list: "a list"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)
