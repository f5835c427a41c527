"""The request side builds its GenerateRequest (and Usage) with positional arguments, in the order of the
dataclass's fields, because a call by keywords costs twice as much. These tests hold each positional call to the
keyword spelling it stands for, field by field, with values that would show any two fields swapped."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from gemini_emulator.app import create_app
from gemini_emulator.config import Settings
from gemini_emulator.protocol import routes, tokens
from gemini_emulator.seam import GenerateRequest
from gemini_emulator.wire import handlers, responses

BODY: dict[str, Any] = {
    "contents": [{"role": "user", "parts": [{"text": "Is it sunny in Paris?"}]}],
    "systemInstruction": {"parts": [{"text": "Be brief."}]},
    "tools": [{"functionDeclarations": [{"name": "get_weather", "description": "The weather"}]}],
    "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
    "generationConfig": {"temperature": 0.5},
    "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
}
SENT: dict[str, Any] = {**BODY, "generation_config": {"temperature": 0.5}}  # another object than BODY


def _context() -> handlers.Context:
    context: handlers.Context = create_app(Settings()).state.context
    return context


def _target(method: str) -> routes.Target:
    target = routes.match("POST", f"/v1beta/models/gemini-flash-latest:{method}")
    assert target is not None
    return target


def _same(built: GenerateRequest, expected: GenerateRequest) -> None:
    for spec in fields(GenerateRequest):
        assert getattr(built, spec.name) == getattr(expected, spec.name), spec.name


def test_the_generate_request_is_built_as_by_keywords() -> None:
    target = _target("streamGenerateContent")
    ctx = _context()
    built, usage, _ = handlers._generate_request(ctx, target, "gemini-2.5-flash", BODY, SENT, "ns-1", False)
    facts = ctx.model_facts("gemini-2.5-flash")
    assert facts is not None and facts.thinking  # so that `thinking` differs from `stream`
    expected = GenerateRequest(
        method="streamGenerateContent",
        version="v1beta",
        model="gemini-2.5-flash",
        requested_model="gemini-flash-latest",
        backend="developer",
        stream=False,
        namespace="ns-1",
        contents=BODY["contents"],
        system_instruction=BODY["systemInstruction"],
        generation_config=BODY["generationConfig"],
        tools=BODY["tools"],
        tool_config=BODY["toolConfig"],
        safety_settings=BODY["safetySettings"],
        body=BODY,
        sent=SENT,
        fingerprint=handlers.fingerprint("gemini-2.5-flash", BODY),
        thinking=True,
        prompt_tokens=usage.prompt,
        output_modalities=facts.outputs,
        retrieved=[],
    )
    _same(built, expected)
    assert usage == responses.Usage(prompt_text=usage.prompt_text, prompt_media=0, billable_chars=0)
    assert usage.prompt_text > 0


def test_the_probe_is_built_as_by_keywords() -> None:
    target = _target("countTokens")
    built = handlers._probe(target, BODY, SENT, "ns-1", True, "gemini-2.5-flash")
    expected = GenerateRequest(
        method="countTokens",
        version="v1beta",
        model="gemini-2.5-flash",
        requested_model="gemini-flash-latest",
        backend="developer",
        stream=True,
        namespace="ns-1",
        contents=BODY["contents"],
        body=BODY,
        sent=SENT,
    )
    _same(built, expected)
    unnamed = handlers._probe(target, BODY, SENT, "ns-1", False)
    assert unnamed.model == "gemini-flash-latest" and not unnamed.stream


def test_usage_is_built_as_by_keywords() -> None:
    target = routes.match("POST", "/v1/projects/p/locations/us-central1/publishers/google/models/m:generateContent")
    assert target is not None
    contents, system, tools = BODY["contents"], BODY["systemInstruction"], BODY["tools"]
    usage = handlers._usage(target, contents, system, tools)
    text, media = tokens.count_prompt(contents, system, tools)
    billable = tokens.billable_characters(contents, system)
    assert len({text, billable, 0}) == 3
    assert usage == responses.Usage(prompt_text=text, prompt_media=media, billable_chars=billable)


def test_a_body_of_contents_alone_is_read_as_any_other() -> None:
    """_generate_request's shortcut for a body holding contents alone, against the general reading of the same body
    with a field it does not read (labels)."""
    target = _target("generateContent")
    ctx = _context()
    for text in ("Is it sunny in Paris?", ""):
        alone = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
        other = {**alone, "labels": {"team": "a"}}
        short, short_usage, short_text = handlers._generate_request(
            ctx, target, "gemini-2.5-flash", alone, None, "n", False
        )
        full, full_usage, full_text = handlers._generate_request(
            ctx, target, "gemini-2.5-flash", other, None, "n", False
        )
        assert (short_usage, short_text) == (full_usage, full_text)
        for spec in fields(GenerateRequest):
            if spec.name not in ("body", "fingerprint"):
                assert getattr(short, spec.name) == getattr(full, spec.name), spec.name
