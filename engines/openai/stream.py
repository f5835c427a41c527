"""OpenAI chat-completion stream events -> Gemini chunks, as they arrive.

Text and reasoning deltas pass through at once (one chunk per delta). Tool-call fragments are buffered per
index and leave as whole functionCall parts with parsed args on the final chunk. Refusal deltas are held
back: they never become answer text; the answer ends SAFETY with the refusal as its finishMessage. The
final chunk (finish reason, tool calls, usage) is held until the stream ends, because OpenAI sends usage
(stream_options.include_usage) in an event after the one carrying finish_reason. `[DONE]` is consumed here
and never forwarded. A stream that ends with neither a finish reason nor `[DONE]` was cut short: an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from gemini_emulator.engines.openai.ids import CallIdStore
from gemini_emulator.engines.openai.response import (
    PendingCall,
    call_parts,
    error_body,
    final_details,
    reasoning_of,
    usage_override,
)
from gemini_emulator.protocol import errors
from gemini_emulator.seam import Chunk, GenerateRequest

DONE = "[DONE]"


@dataclass
class ChoiceState:
    """What one choice (candidate) has said so far that is not sent yet."""

    reason: Any = None
    finished: bool = False
    refusal: list[str] = field(default_factory=list)
    calls: dict[int, PendingCall] = field(default_factory=dict)


@dataclass
class StreamTranslator:
    """State of one streamed answer; `feed` each event's data, then `finish`."""

    request: GenerateRequest
    ids: CallIdStore
    upstream: str
    secret: str
    thoughts: bool
    done: bool = False
    choices: dict[int, ChoiceState] = field(default_factory=dict)
    usage: dict[str, Any] | None = None

    def feed(self, data: str) -> list[Chunk]:
        """Chunks ready to send after one SSE event's data."""
        if data.strip() == DONE:
            self.done = True
            return []
        try:
            event = orjson.loads(data)
        except orjson.JSONDecodeError:
            raise errors.upstream_invalid(self.upstream, f"a stream event is not JSON: {data[:200]!r}") from None
        if not isinstance(event, dict):
            raise errors.upstream_invalid(self.upstream, "a stream event is not a JSON object")
        if "error" in event:
            raise error_body(event, self.request, self.upstream, self.secret)
        usage = usage_override(event.get("usage"), self.request)
        if usage is not None:
            self.usage = usage
        chunks: list[Chunk] = []
        for n, choice in enumerate(event.get("choices") or []):
            if isinstance(choice, dict):
                index = given if isinstance(given := choice.get("index"), int) else n
                chunks.extend(self._choice(index, choice))
        if usage is not None:
            for chunk in chunks:  # upstreams with continuous usage stats: running counts on every chunk
                chunk.usage = usage
        return chunks

    def _choice(self, index: int, choice: dict[str, Any]) -> list[Chunk]:
        state = self.choices.setdefault(index, ChoiceState())
        given = choice.get("delta")
        delta: dict[str, Any] = given if isinstance(given, dict) else {}
        out: list[Chunk] = []
        reasoning = reasoning_of(delta)
        if reasoning and self.thoughts:
            out.append(Chunk(parts=[{"text": reasoning, "thought": True}], index=index))
        if isinstance(delta.get("refusal"), str):
            state.refusal.append(delta["refusal"])
        content = delta.get("content")
        if isinstance(content, str) and content and not state.refusal:
            out.append(Chunk(parts=[{"text": content}], index=index))
        for fragment in delta.get("tool_calls") or []:
            self._fragment(state, fragment)
        if choice.get("finish_reason") is not None:
            state.reason, state.finished = choice["finish_reason"], True
        return out

    def _fragment(self, state: ChoiceState, fragment: Any) -> None:
        if not isinstance(fragment, dict):
            raise errors.upstream_invalid(self.upstream, "a tool-call fragment is not an object")
        index = fragment.get("index")
        call = state.calls.setdefault(index if isinstance(index, int) else len(state.calls), PendingCall())
        if isinstance(fragment.get("id"), str) and fragment["id"] and not call.id:
            call.id = fragment["id"]
        given = fragment.get("function")
        function: dict[str, Any] = given if isinstance(given, dict) else {}
        if isinstance(function.get("name"), str) and function["name"] and not call.name:
            call.name = function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call.arguments.append(arguments)
        elif arguments is not None:  # some servers send the object itself
            call.arguments.append(orjson.dumps(arguments).decode())

    def finish(self) -> list[Chunk]:
        """The final chunk of each choice, once the upstream stream has ended; the last carries the usage."""
        complete = self.choices and all(state.finished for state in self.choices.values())
        if not self.done and not complete:
            raise errors.upstream_unavailable(self.upstream, "the stream ended before the answer was complete")
        out = []
        for index in sorted(self.choices) or [0]:
            state = self.choices.get(index, ChoiceState())
            refusal = "".join(state.refusal)
            calls = [state.calls[i] for i in sorted(state.calls)]
            parts = call_parts(calls, self.request, self.ids, self.upstream) if calls and not refusal else []
            reason, message = final_details(state.reason, refusal, bool(calls), self.request)
            out.append(Chunk(parts=parts, finish_reason=reason, finish_message=message, index=index))
        out[-1].usage = self.usage
        return out
