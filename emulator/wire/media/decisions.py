"""Decisions: `POST /{ver}/decisions`, what google-genai 3.6.1's `client.decisions.create` sends (its generated
`_gaos/decisions.py`, `_gaos/types/decisions`): a shared `input`, a `model` and `questions` keyed by the caller's
ids, each a `noul` (true or false), a `choice` among named options or a `score` over rubric levels.

The decision is asked of the engine as a generateContent call (handlers.start_generation: scripts, faults and the
journal apply): the input and each question's instructions as the prompt, and a JSON response schema with one
property a question, the engine's weights for the outcomes. The weights become the SDK's calibrated answers: a
noul's `P(true)` clamped to [0.01, 0.99], a choice's and a score's probabilities normalised (uniform when the
engine gives none), `confidence` the winning outcome's probability, a score's `score` the expected level, its
`legend` the rubric. A script entry answers with that JSON text (`{"q1": 0.8, "q2": {"yes": 3, "no": 1}}`).
Shapes from the SDK's types; ids, limits and wordings past them are best-known (docs/conformance.md, "Decisions").
"""

from __future__ import annotations

import dataclasses
from typing import Any

import orjson
from starlette.responses import Response

from gemini_emulator.admin.journal import Record
from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import Target
from gemini_emulator.wire import handlers, sending
from gemini_emulator.wire.incoming import Incoming
from gemini_emulator.wire.media.interactions import content_part, usage_of
from gemini_emulator.wire.resources.common import caller

MAX_QUESTIONS = 64
MIN_OPTIONS, MAX_OPTIONS = 2, 255  # a choice's options and a score's levels (the SDK's docs)
MAX_OPTION_ID = 256
NOUL_RANGE = (0.01, 0.99)


async def create(ctx: handlers.Context, request: Incoming, target: Target, record: Record) -> Response:
    """POST /{ver}/decisions."""
    try:
        namespace = caller(ctx, request, target, record)
        record.rpc = "decisions.create"
        body = await handlers.read_body(ctx, request, record)
        questions = _questions(body)
        model_name = body.get("model")
        if not isinstance(model_name, str) or not model_name:
            raise errors.invalid_argument("model is required.")
        model = ctx.catalogue.resolve(model_name, "generateContent", target.version, target.backend)
        record.model = model
        generate = {
            "contents": [{"role": "user", "parts": [*_parts(body.get("input"), "input"), *_asked(questions)]}],
            "generationConfig": {"responseMimeType": "application/json", "responseSchema": _schema(questions)},
        }
        call = dataclasses.replace(target, action="call", model=model_name, method="generateContent")
        gen, builder, _, answer = handlers.start_generation(ctx, call, model, generate, namespace, False, body)
        try:
            chunks = await sending.until_hang_up(request.receive, handlers.collect(answer))
        finally:
            record.entry = gen.notes.get("entry")
        built = builder.build(chunks[0], final=True, stream=False)
        return handlers.json_response(_response(questions, built))
    except errors.ApiError as error:
        return handlers.error_response(error)


def _questions(body: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(body, dict):
        raise errors.invalid_argument("The request body must be a JSON object.")
    if "input" not in body:
        raise errors.invalid_argument("input is required.")
    questions = body.get("questions")
    if not isinstance(questions, dict) or not questions:
        raise errors.invalid_argument("questions must hold at least one question.")
    if len(questions) > MAX_QUESTIONS:
        raise errors.invalid_argument(f"At most {MAX_QUESTIONS} questions per decision.")
    for key, question in questions.items():
        _check_id(key, "question id")
        if not isinstance(question, dict) or question.get("type") not in ("noul", "choice", "score"):
            raise errors.invalid_argument(f"questions[{key}].type must be noul, choice or score.")
        if not _parts(question.get("instructions"), f"questions[{key}].instructions"):
            raise errors.invalid_argument(f"questions[{key}].instructions must hold at least one content block.")
        criteria = question.get("criteria")
        if question["type"] == "choice":
            if not isinstance(criteria, dict) or not MIN_OPTIONS <= len(criteria) <= MAX_OPTIONS:
                raise errors.invalid_argument(
                    f"questions[{key}].criteria must name between {MIN_OPTIONS} and {MAX_OPTIONS} options."
                )
            for option, text in criteria.items():
                _check_id(option, f"questions[{key}] option id")
                if not isinstance(text, str):
                    raise errors.invalid_argument(f"questions[{key}].criteria[{option}] must be a string.")
        elif question["type"] == "score":
            if (
                not isinstance(criteria, list)
                or not MIN_OPTIONS <= len(criteria) <= MAX_OPTIONS
                or not all(isinstance(level, str) and level for level in criteria)
            ):
                raise errors.invalid_argument(
                    f"questions[{key}].criteria must list between {MIN_OPTIONS} and {MAX_OPTIONS} non-empty levels."
                )
        elif criteria is not None and not isinstance(criteria, dict):
            raise errors.invalid_argument(f"questions[{key}].criteria must be an object.")
    return questions


def _check_id(value: Any, what: str) -> None:
    if (
        not isinstance(value, str)
        or not value
        or len(value) > MAX_OPTION_ID
        or value != value.strip()
        or any(ord(c) < 32 or ord(c) == 127 for c in value)
    ):
        raise errors.invalid_argument(f"Invalid {what}: {str(value)[:100]!r}.")


def _parts(value: Any, where: str) -> list[dict[str, Any]]:
    """Interactions content (a string, one content, or a list of them) as generateContent parts."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    try:
        return [content_part(item) for item in items]
    except errors.ApiError as error:
        raise errors.invalid_argument(f"{where}: {error.message}") from None


def _asked(questions: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each question's instructions and outcomes, after the input, as the prompt's last parts."""
    parts: list[dict[str, Any]] = []
    for key, question in questions.items():
        parts.append({"text": f"Question {key} ({question['type']}):"})
        parts += _parts(question.get("instructions"), key)
        criteria: Any = question.get("criteria")  # checked by _questions: a dict (choice), a list (score)
        if question["type"] == "choice":
            options = "; ".join(f"{option}: {text}" if text else option for option, text in criteria.items())
            parts.append({"text": f"Options: {options}"})
        elif question["type"] == "score":
            parts.append({"text": "Levels: " + "; ".join(f"{i}: {level}" for i, level in enumerate(criteria))})
        elif isinstance(criteria, dict):
            said = [
                f"{side}: {criteria[f'{side}_description']}"
                for side in ("true", "false")
                if isinstance(criteria.get(f"{side}_description"), str)
            ]
            if said:
                parts.append({"text": "; ".join(said)})
    return parts


def _schema(questions: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One property a question: P(true) for a noul, a weight per option (or level) for a choice (or a score)."""
    properties: dict[str, Any] = {}
    for key, question in questions.items():
        if question["type"] == "noul":
            properties[key] = {"type": "NUMBER"}
        else:
            outcomes = _outcomes(question)
            properties[key] = {
                "type": "OBJECT",
                "properties": {outcome: {"type": "NUMBER"} for outcome in outcomes},
                "required": outcomes,
            }
    return {"type": "OBJECT", "properties": properties, "required": list(questions)}


def _outcomes(question: dict[str, Any]) -> list[str]:
    if question["type"] == "choice":
        return list(question["criteria"])
    return [str(level) for level in range(len(question["criteria"]))]


def _response(questions: dict[str, dict[str, Any]], built: dict[str, Any]) -> dict[str, Any]:
    feedback = built.get("promptFeedback") or {}
    usage = usage_of(built.get("usageMetadata") or {})
    if feedback.get("blockReason"):
        return {"prompt_feedback": {"block_reason": str(feedback["blockReason"]).lower()}, "usage": usage}
    candidate = (built.get("candidates") or [{}])[0]
    text = "".join(str(p.get("text", "")) for p in (candidate.get("content") or {}).get("parts") or [])
    try:
        weights = orjson.loads(text) if text.strip() else {}
    except orjson.JSONDecodeError:
        weights = {}
    if not isinstance(weights, dict):
        weights = {}
    answers = {key: _answer(question, weights.get(key)) for key, question in questions.items()}
    return {"answers": answers, "usage": usage}


def _answer(question: dict[str, Any], given: Any) -> dict[str, Any]:
    if question["type"] == "noul":
        low, high = NOUL_RANGE
        noul = round(min(high, max(low, _number(given, 0.5))), 4)
        return {"confidence": max(noul, round(1 - noul, 4)), "noul": noul, "type": "noul"}
    outcomes = _outcomes(question)
    raw = given if isinstance(given, dict) else {}
    weights = [max(0.0, _number(raw.get(outcome), 0.0)) for outcome in outcomes]
    total = sum(weights)
    probabilities = [w / total for w in weights] if total > 0 else [1 / len(outcomes)] * len(outcomes)
    rounded = {outcome: round(p, 4) for outcome, p in zip(outcomes, probabilities, strict=True)}
    best = max(range(len(outcomes)), key=lambda i: probabilities[i])
    confidence = round(probabilities[best], 4)
    if question["type"] == "choice":
        return {"choice": outcomes[best], "confidence": confidence, "probabilities": rounded, "type": "choice"}
    expected = round(sum(level * p for level, p in enumerate(probabilities)), 4)
    legend = {str(level): text for level, text in enumerate(question["criteria"])}
    return {"confidence": confidence, "legend": legend, "probabilities": rounded, "score": expected, "type": "score"}


def _number(value: Any, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    number = float(value)
    return number if number == number and abs(number) != float("inf") else default  # NaN, infinities: no weight
