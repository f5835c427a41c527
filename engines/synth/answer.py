"""The zero-config answer, honouring what the request asked for (issue 4).

In order: a function call when the declared tools and calling mode call for one (engines/synth/tools.py);
a text answer that uses the function responses of the last turn; schema-valid JSON for
`responseMimeType: application/json` (engines/synth/schema.py); one enum member for `text/x.enum`;
otherwise the composed prose of engines/synth/prose.py. Then thinking (thought tokens for thinking models,
thought-summary parts with `includeThoughts`), `stopSequences` and `maxOutputTokens` apply, and Gemini 3's
thought signatures are placed as the 2026 captures show (on the first call part, on the text part of a
unary answer, on a final empty-text part of a stream).
"""

from __future__ import annotations

import json
import re
from typing import Any

from gemini_emulator.engines.synth import builtin as synth_builtin
from gemini_emulator.engines.synth import tools as synth_tools
from gemini_emulator.engines.synth.calls import function_call_message, mint_call_id, mint_signature
from gemini_emulator.engines.synth.prose import compose, split_for_stream
from gemini_emulator.engines.synth.schema import synthesize
from gemini_emulator.protocol import tokens
from gemini_emulator.seam import Chunk, GenerateRequest

# Hidden thinking: a deterministic share of the prompt, as a 2.5 Flash answer to an 11-token question
# spent 33-34 thought tokens (google-adk-go TestModel_Generate*_ok.httprr).
THINKING_BASE = 24


def _structured(request: GenerateRequest, seed: str, prompt: str) -> str | None:
    """The answer text for JSON or enum output, or None for plain text (`prompt`: the last user turn's text)."""
    config = request.generation_config
    mime = str(config.get("responseMimeType") or "")
    if mime not in ("application/json", "text/x.enum"):
        return None
    json_schema = config.get("responseJsonSchema")
    schema = json_schema if json_schema is not None else config.get("responseSchema")
    hints = [w for w in prompt.split() if len(w) > 3][:5]
    if mime == "application/json":
        if not isinstance(schema, dict):
            return json.dumps({"response": compose(prompt, seed)}, indent=2)
        value = synthesize(schema, seed, json_schema is not None, hints)
        return json.dumps(value, indent=2, ensure_ascii=False)  # production's indented output text
    if mime == "text/x.enum" and isinstance(schema, dict) and isinstance(schema.get("enum"), list):
        return str(synthesize(schema, seed, json_schema is not None))
    return None


_FILE_NAME = re.compile(r"(?:^|/)(files/[a-z0-9-]+)")


def _attached(request: GenerateRequest) -> str:
    """A sentence naming the files the last user turn attaches by `fileData` ("" when it attaches none, so
    answers to text-only prompts stay as they were)."""
    last = request.contents[-1] if request.contents else {}
    parts = last.get("parts") if isinstance(last, dict) and last.get("role", "user") == "user" else None
    named = []
    for part in parts if isinstance(parts, list) else []:
        data = part.get("fileData") if isinstance(part, dict) else None
        if not isinstance(data, dict) or not isinstance(data.get("fileUri"), str):
            continue
        uri = data["fileUri"]
        found = _FILE_NAME.search(uri)
        name = found[1] if found else uri[:100]
        mime = data.get("mimeType")
        named.append(f"{name} ({mime})" if isinstance(mime, str) and mime else name)
    if not named:
        return ""
    if len(named) == 1:
        return f"I looked at the attached file {named[0]}. "
    return f"I looked at the attached files {', '.join(named[:-1])} and {named[-1]}. "


def _thinking_tokens(request: GenerateRequest, thinking: dict[str, Any], prompt_tokens: int) -> int:
    """The hidden thought tokens (`thinking`: the request's thinkingConfig, {} without one)."""
    if not request.thinking:
        return 0
    budget = thinking.get("thinkingBudget")
    if budget == 0:
        return 0
    spent = THINKING_BASE + prompt_tokens
    if isinstance(budget, int) and budget > 0:
        spent = min(spent, budget)
    return spent


def _gemini3(request: GenerateRequest) -> bool:
    return request.model.startswith("gemini-3")


def _call_chunk(request: GenerateRequest, decl: synth_tools.Declaration) -> Chunk:
    body: dict[str, Any] = {"name": decl.name, "args": synth_tools.arguments(decl, request)}
    if _gemini3(request) and request.backend == "developer":
        body["id"] = mint_call_id(f"{request.fingerprint}:{decl.name}")
    part: dict[str, Any] = {"functionCall": body}
    if request.thinking or _gemini3(request):  # Gemini 3 refuses a replayed call without its signature
        part["thoughtSignature"] = mint_signature(f"{request.fingerprint}:{decl.name}")
    return Chunk(parts=[part], finish_reason="STOP", finish_message=function_call_message(request))


def answer(request: GenerateRequest, prompt_tokens: int) -> list[Chunk]:
    """The zero-config answer as chunks (one per candidate for unary calls, several when streamed)."""
    config = request.generation_config  # most requests set none of it: each field is looked up once, here
    thinking = config.get("thinkingConfig") or {}
    thoughts = _thinking_tokens(request, thinking, prompt_tokens)
    limit = config.get("maxOutputTokens")
    limit = limit if isinstance(limit, int) and limit > 0 else None
    decl = synth_tools.choose(request) if request.tools else None  # no tools, no function to call
    if decl is not None and (limit is None or thoughts < limit):
        chunk = _call_chunk(request, decl)
        chunk.usage = {"thoughtsTokenCount": thoughts} if thoughts else None
        return [chunk]
    count = config.get("candidateCount")
    count = count if isinstance(count, int) and 1 < count <= 8 else 1
    prompt = _plain_turn(request.contents)  # read once for every candidate
    plain = prompt is not None
    if prompt is None:
        prompt = request.last_user_text()
    summary = ""
    if thoughts and thinking.get("includeThoughts"):
        topic = " ".join(prompt.split()[:6])
        summary = f"**Considering the request**\n\nThe user asks: {topic}. I will answer directly.\n"
        thoughts += tokens.count_text(summary)
    if limit is not None and thoughts >= limit:
        thoughts, summary = limit, ""
    usage = {"thoughtsTokenCount": thoughts} if thoughts else None
    if count == 1:
        return _candidate(request, prompt, plain, 0, summary, thoughts, limit, usage)
    chunks: list[Chunk] = []
    for index in range(count):
        chunks += _candidate(request, prompt, plain, index, summary, thoughts, limit, usage)
    return chunks


def _plain_turn(contents: list[dict[str, Any]]) -> str | None:
    """The last turn's text when it is a user turn of nothing but text parts (the usual prompt): then it is the
    last user turn's text, and the turn answers no call and attaches no file. None for any other last turn."""
    last = contents[-1] if contents else None
    if type(last) is not dict or last.get("role", "user") != "user":
        return None
    parts = last.get("parts")
    if type(parts) is not list or not parts:
        return None
    texts = []
    for part in parts:
        if type(part) is not dict or len(part) != 1 or type(text := part.get("text")) is not str:
            return None
        texts.append(text)
    return texts[0] if len(texts) == 1 else "\n".join(texts)


def _candidate(
    request: GenerateRequest,
    prompt: str,
    plain: bool,
    index: int,
    summary: str,
    thoughts: int,
    limit: int | None,
    usage: dict[str, Any] | None,
) -> list[Chunk]:
    """One candidate's chunks (candidate 0 is the answer; later ones vary the seed); `prompt` is the last user
    turn's text, and `plain` says the last turn is that text alone (`_plain_turn`)."""
    seed = request.fingerprint if index == 0 else f"{request.fingerprint}:{index}"
    config = request.generation_config
    # Structured output holds after a tool result too: the VCR recordings (pydantic-ai and Mirascope, Developer) hold 5
    # requests ending in a function response with responseMimeType application/json and a schema; all 5
    # answers are JSON.
    text = _structured(request, seed, prompt) if config else None
    if text is None:
        if not plain and synth_tools.has_function_response(request):
            text = synth_tools.response_summary(request)
        else:
            preface = synth_builtin.file_search_preface(request) if request.retrieved else ""
            text = preface + ("" if plain else _attached(request)) + compose(prompt, seed)
    stops = config.get("stopSequences")
    if stops is not None:
        text = _stop(text, stops)
    finish = "STOP"
    if limit is not None:
        if thoughts >= limit:
            text, finish = "", "MAX_TOKENS"
        elif tokens.count_text(text) > limit - thoughts:
            text, finish = tokens.truncate(text, limit - thoughts), "MAX_TOKENS"
    pieces = split_for_stream(text) if request.stream and text else ([text] if text else [])
    chunks = [Chunk.of_text(p, usage, index) for p in pieces]
    if summary:
        chunks.insert(0, Chunk(parts=[{"text": summary, "thought": True}], usage=usage, index=index))
    if _gemini3(request):
        signature = mint_signature(seed)
        if not request.stream and pieces:
            chunks[-1].parts[-1]["thoughtSignature"] = signature
        elif request.stream:
            chunks.append(Chunk(parts=[{"text": "", "thoughtSignature": signature}], usage=usage, index=index))
    if not chunks:
        chunks = [Chunk(usage=usage, index=index)]
    if request.tools:  # built-in tools are tools too
        _builtin_tools(request, chunks, text)
    chunks[-1].finish_reason = finish
    return chunks


def _builtin_tools(request: GenerateRequest, chunks: list[Chunk], text: str) -> None:
    """Code execution parts before the answer; search grounding and URL context on the last chunk."""
    tools = synth_builtin.enabled(request)
    if not tools:
        return
    if "code" in tools:
        parts, cost = synth_builtin.code_parts(request)
        usage = dict(chunks[0].usage or {}) | {"toolUsePromptTokenCount": cost}
        for chunk in chunks:
            chunk.usage = usage
        chunks.insert(0, Chunk(parts=parts, usage=usage, index=chunks[0].index))
    grounding: dict[str, Any] = {}
    if "search" in tools and text:
        grounding |= synth_builtin.search_grounding(request, text)
    if "url" in tools:
        grounding |= synth_builtin.url_context(request) or {}
    if "file" in tools and (request.tool_config or {}).get("includeServerSideToolInvocations") is True:
        chunks[:0] = _file_search_invocation(request, chunks[0])
    if "file" in tools and request.retrieved:
        grounding |= synth_builtin.file_search_grounding(request, text)
        tool_usage = synth_builtin.file_search_usage(request)
        for chunk in chunks:
            chunk.usage = dict(chunk.usage or {}) | tool_usage
    if grounding:
        chunks[-1].grounding = grounding


def _file_search_invocation(request: GenerateRequest, first: Chunk) -> list[Chunk]:
    """The server-side file search the answer reports with `includeServerSideToolInvocations`: a `toolCall` part
    then a `toolResponse` part (toolType FILE_SEARCH, one id; a thought signature first on Gemini 3), each a chunk
    of its own when streamed (pydantic-ai cassettes test_google_model_file_search_grounding_gemini_3[*].yaml)."""
    call_id = mint_call_id(f"{request.fingerprint}:fileSearch:{first.index}")
    parts: list[dict[str, Any]] = []
    for kind in ("toolCall", "toolResponse"):
        part: dict[str, Any] = {}
        if _gemini3(request) or request.thinking:
            part["thoughtSignature"] = mint_signature(f"{request.fingerprint}:{kind}:{first.index}")
        part[kind] = {"toolType": "FILE_SEARCH", "id": call_id}
        parts.append(part)
    return [Chunk(parts=[p], usage=first.usage, index=first.index) for p in parts]


def _stop(text: str, stops: Any) -> str:
    """Text cut before the first stop sequence (production stops without emitting it)."""
    if not isinstance(stops, list):
        return text
    cut = min((i for s in stops if isinstance(s, str) and s and (i := text.find(s)) >= 0), default=-1)
    return text[:cut] if cut >= 0 else text
