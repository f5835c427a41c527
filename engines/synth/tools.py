"""Function calls built from the request's declarations, when production's model would make one.

Rule for mode AUTO (deterministic, documented in README): a declared function is called when a word of
its name (split on `_`, `-` and camelCase, words of 3+ letters) or a distinctive word of its description
(5+ letters, not a common word) appears in the last user turn; the best-scoring function wins (ties: the
first declared). ANY and VALIDATED always call (the best-scoring allowed function, else the first allowed).
NONE never calls. A request whose last turn is a function response is answered with text, except in mode
ANY, where production calls again: in the pydantic-ai and Mirascope VCR recordings (../shared/corpus,
Developer, 2025-2026) 18 of 18 mode-ANY requests ending in a function response got a function call (mostly
the `final_result` output tool), while mode VALIDATED got text in 9 of 11 and AUTO in 7 of 10 (unset: 26 of
59). After a response, ANY prefers a function the last turn did not just answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from gemini_emulator.engines.synth.calls import has_function_response
from gemini_emulator.engines.synth.schema import Synthesizer
from gemini_emulator.seam import GenerateRequest

_SPLIT = re.compile(r"[_\-\s]+|(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[A-Za-z]+")
_COMMON = frozenset(
    "about after again also another because before being between could does doing during every given "
    "their there these thing those through under until using which while would should function returns "
    "return value values current information details specified provided user given".split()
)
_CAPITALIZED = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)*)")


@dataclass(frozen=True)
class Declaration:
    name: str
    description: str
    schema: dict[str, Any] | None
    json_schema: bool


def declarations(request: GenerateRequest) -> list[Declaration]:
    """Every function declared in the request's tools (either schema field)."""
    out = []
    for tool in request.tools:
        if not isinstance(tool, dict):
            continue
        for decl in tool.get("functionDeclarations") or []:
            if not isinstance(decl, dict) or not isinstance(decl.get("name"), str):
                continue
            json_schema = decl.get("parametersJsonSchema") or None  # an empty one: `parameters` decide
            schema = json_schema if json_schema is not None else decl.get("parameters")
            out.append(Declaration(decl["name"], str(decl.get("description") or ""), schema, json_schema is not None))
    return out


def calling_config(request: GenerateRequest) -> tuple[str, list[str]]:
    """(mode, allowed names) from toolConfig.functionCallingConfig; mode defaults to AUTO."""
    config = request.tool_config or {}
    calling = config.get("functionCallingConfig") or {}
    mode = calling.get("mode") or "AUTO"
    if isinstance(mode, int):
        mode = {0: "AUTO", 1: "AUTO", 2: "ANY", 3: "NONE", 4: "VALIDATED"}.get(mode, "AUTO")
    allowed = calling.get("allowedFunctionNames") or []
    return str(mode).upper(), [a for a in allowed if isinstance(a, str)]


def _name_words(name: str) -> set[str]:
    return {w.lower() for w in _SPLIT.split(name) if len(w) >= 3}


def score(decl: Declaration, text: str) -> int:
    words = {w.lower() for w in _WORD.findall(text)}
    stems = {w.rstrip("s") for w in words}
    hits = sum(2 for w in _name_words(decl.name) if w in words or w.rstrip("s") in stems)
    described = {w.lower() for w in _WORD.findall(decl.description) if len(w) >= 5} - _COMMON
    return hits + sum(1 for w in described if w in words)


def choose(request: GenerateRequest) -> Declaration | None:
    """The function production's model would call for this request, or None for a text answer."""
    decls = declarations(request)
    if not decls:
        return None
    mode, allowed = calling_config(request)
    answered = has_function_response(request)
    if mode == "NONE" or (answered and mode != "ANY"):
        return None
    pool = [d for d in decls if d.name in allowed] if allowed else decls
    if answered:
        fresh = [d for d in pool if d.name not in _answered_names(request)]
        pool = fresh or pool
    if not pool:
        return None
    text = request.last_user_text()
    best = max(pool, key=lambda d: score(d, text))  # max keeps the first of equal scores
    if mode in ("ANY", "VALIDATED"):
        return best
    return best if score(best, text) > 0 else None


def _answered_names(request: GenerateRequest) -> set[str]:
    last = request.contents[-1] if request.contents else {}
    names = set()
    for part in last.get("parts") or []:
        response = (part.get("functionResponse") or part.get("function_response")) if isinstance(part, dict) else None
        if isinstance(response, dict) and isinstance(response.get("name"), str):
            names.add(response["name"])
    return names


def arguments(decl: Declaration, request: GenerateRequest) -> dict[str, Any]:
    """Arguments valid against the declaration, preferring values the user mentioned."""
    if not isinstance(decl.schema, dict):
        return {}
    text = request.last_user_text()
    mentioned = [m.group(1) for m in _CAPITALIZED.finditer(text)]
    hints = mentioned or [w for w in _WORD.findall(text) if len(w) >= 4][:5]
    synth = Synthesizer(f"{request.fingerprint}:{decl.name}", decl.json_schema, decl.schema, hints)
    args = synth.value(decl.schema)
    return args if isinstance(args, dict) else {}


def response_summary(request: GenerateRequest) -> str:
    """A text answer that uses the function responses of the last turn."""
    last = request.contents[-1] if request.contents else {}
    pieces = []
    for part in last.get("parts") or []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if not isinstance(response, dict):
            continue
        body = response.get("response")
        if isinstance(body, dict) and len(body) == 1 and set(body) <= {"output", "result"}:
            body = next(iter(body.values()))  # the SDKs wrap plain return values as {"result": ...}
        if isinstance(body, dict):
            facts = ", ".join(f"{k.replace('_', ' ')} {_show(v)}" for k, v in body.items())
        else:
            facts = _show(body)
        pieces.append(f"{response.get('name', 'the tool')} reports {facts}".strip())
    if not pieces:
        return "Done."
    return "Here is what I found: " + "; ".join(pieces) + "."


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else str(value)
