"""Requests production refuses for a particular model: thinking settings and Gemini 3's thought signatures.

Messages are production's, as public issue threads quote them (see docs/conformance.md):
- "Budget 0 is invalid. This model only works in thinking mode." (Pro models; vercel/ai#8027,
  docker/docker-agent#2051 for gemini-3.1-pro-preview);
- "Penalty is not enabled for models/gemini-2.5-flash" (presence or frequency penalty on 2.5 models;
  vercel-ai fixtures issue-8943-*);
- "Thinking level MINIMAL is not supported for this model. ..." (vercel-ai fixture
  google-thinking-level-minimal-unsupported.json);
- "Function call is missing a thought_signature in functionCall parts. ..." (Developer API, Gemini 3;
  lbjlaq/Antigravity-Manager#3202 and others) and its Vertex wording (GewoonJaap/gemini-cli-openai#156).
"""

from __future__ import annotations

from typing import Any

from gemini_emulator.media import images
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import VERTEX

PENALTY = "Penalty is not enabled for models/{model}"  # vercel-ai fixtures issue-8943-gemini-2.5-*-error.json
NO_BUDGET_ZERO = "Budget 0 is invalid. This model only works in thinking mode."
LEVEL_UNSUPPORTED = "Thinking level {level} is not supported for this model. Please retry with other thinking level."
MISSING_SIGNATURE = (
    "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
    "correctly, and missing thought_signature may lead to degraded model performance. Additional data, function "
    "call `default_api:{name}` , position {position}. Please refer to "
    "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)
VERTEX_MISSING_SIGNATURE = (
    "Unable to submit request because function call `{name}` in the {position}. content block is missing a "
    "`thought_signature`. Learn more: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures"
)


def check(model: str, thinking: bool, body: dict[str, Any], backend: str, text_only: bool = False) -> None:
    """Raise production's 400 when `body` (validated and normalised: emulator/wire/validate.py) asks `model` for
    something it refuses. `text_only`: every part of the contents is plain text (validate.contents_checked), so
    no function call needs a signature."""
    config = body.get("generationConfig")
    if config:
        _check_config(model, thinking, config)
    if not text_only and model.startswith("gemini-3"):
        _check_signatures(body.get("contents") or [], backend)


def _check_config(model: str, thinking: bool, config: dict[str, Any]) -> None:
    thinking_config = config.get("thinkingConfig")
    if thinking_config:
        pro = "-pro" in model
        if thinking and pro and thinking_config.get("thinkingBudget") == 0:
            raise errors.invalid_argument(NO_BUDGET_ZERO)
        level = thinking_config.get("thinkingLevel")
        if isinstance(level, str) and level.upper() == "MINIMAL" and pro:
            raise errors.invalid_argument(LEVEL_UNSUPPORTED.format(level="MINIMAL"))
    image_config = config.get("imageConfig")
    if isinstance(image_config, dict) and image_config.get("imageOutputOptions") is not None:
        check_output_options(image_config["imageOutputOptions"], "imageOutputOptions")
    if ("presencePenalty" in config or "frequencyPenalty" in config) and model.startswith("gemini-2.5"):
        penalties = [config.get("presencePenalty"), config.get("frequencyPenalty")]
        if any(isinstance(p, int | float) and p != 0 for p in penalties):
            raise errors.invalid_argument(PENALTY.format(model=model))


def check_output_options(options: Any, where: str) -> tuple[str, int | None]:
    """(MIME type, compression quality) of an image output format: generateContent's
    `imageConfig.imageOutputOptions`, Imagen's `parameters.outputOptions`. A type other than PNG or JPEG, or a
    quality outside 0-100, is a 400 (best-known wording: production's is not captured)."""
    if not isinstance(options, dict):
        raise errors.invalid_argument(f"{where} must be an object.")
    mime = options.get("mimeType") or images.PNG_MIME
    if mime not in images.OUTPUT_MIMES:
        raise errors.invalid_argument(
            f"Unsupported {where}.mimeType: {mime}. Supported: {', '.join(images.OUTPUT_MIMES)}."
        )
    quality = options.get("compressionQuality")
    if quality is not None and (not isinstance(quality, int) or isinstance(quality, bool) or not 0 <= quality <= 100):
        raise errors.invalid_argument(f"{where}.compressionQuality must be between 0 and 100.")
    return str(mime), quality


def _check_signatures(contents: list[Any], backend: str) -> None:
    """Gemini 3 validates the current turn: since the last user text, the first functionCall part of each
    model step must carry the thoughtSignature it was given."""
    start = 0
    for i, content in enumerate(contents):
        if isinstance(content, dict) and content.get("role", "user") == "user":
            parts = content.get("parts") or []
            if any(isinstance(p, dict) and "text" in p for p in parts):
                start = i
    for i in range(start, len(contents)):
        content = contents[i]
        if not isinstance(content, dict) or content.get("role") != "model":
            continue
        calls = [p for p in content.get("parts") or [] if isinstance(p, dict) and p.get("functionCall")]
        if calls and not calls[0].get("thoughtSignature"):
            name = calls[0]["functionCall"].get("name", "")
            template = VERTEX_MISSING_SIGNATURE if backend == VERTEX else MISSING_SIGNATURE
            raise errors.invalid_argument(template.format(name=name, position=i + 1))


# responseModalities a model cannot answer (docs/conformance.md, "Images, speech and video"):
# a text model: "Model does not support the requested response modalities: image,text" (Developer API, 2025-03,
# Laisky/one-api#45); a media model: the combinations it accepts, as a TTS model answered an absent
# responseModalities (BerriAI/litellm#11118, 2025-06).
UNSUPPORTED_MODALITIES = "Model does not support the requested response modalities: {asked}"
UNSUPPORTED_COMBINATION = (
    "The requested combination of response modalities is not supported by the model. models/{model} accepts the "
    "following combination of response modalities:\n{combinations}"
)


def output_modalities(model: str, accepted: list[list[str]], config: dict[str, Any], required: bool) -> tuple[str, ...]:
    """The modalities the answer carries, in the model's own order; production's 400 when `config`'s
    responseModalities asks for a combination `model` does not make (or, `required`, names none)."""
    asked_raw = config.get("responseModalities") if isinstance(config, dict) else None
    asked = [str(m).upper() for m in asked_raw or [] if str(m).upper() != "MODALITY_UNSPECIFIED"]
    asked = list(dict.fromkeys(asked))
    if not asked:
        if required:
            raise _combination(model, accepted)
        return tuple(accepted[0])
    for combination in accepted:
        if set(combination) == set(asked):
            return tuple(combination)
    if accepted == [["TEXT"]]:
        raise errors.invalid_argument(UNSUPPORTED_MODALITIES.format(asked=",".join(m.lower() for m in asked)))
    raise _combination(model, accepted)


def _combination(model: str, accepted: list[list[str]]) -> errors.ApiError:
    lines = "".join(f"* {', '.join(c)}\n" for c in accepted)
    return errors.invalid_argument(UNSUPPORTED_COMBINATION.format(model=model, combinations=lines))
