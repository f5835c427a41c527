"""The scripted engine (the default): answers from the caller's script, else the zero-config answer.

Scripts are per namespace (engines/scripted/store.py), entries are validated in engines/scripted/entries.py and turned
into chunks by engines/scripted/render.py; engines/synth/prose.py writes the unscripted text.

A `replay` entry hands its request to the captures, with what the replay engine can do beyond generateContent
(the seam's optional capabilities, emulator/seam/capabilities.py): when the entry that answers a request is a
replay entry holding a recorded exchange for it, that recording serves a model the catalogue does not (a retired
one) and answers countTokens, computeTokens and embedding calls. The engine's own answers never vouch for such a
model. The engine is `Scriptable`: its ScriptStore is the book the admin API and the fixtures write to.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable
from typing import Any

from gemini_emulator.engines.replay import Replayer
from gemini_emulator.engines.scripted.render import ZERO_CONFIG, ready, render
from gemini_emulator.engines.scripted.store import Misses, ScriptStore
from gemini_emulator.engines.synth import answer as synthesis
from gemini_emulator.engines.synth import embeddings, media
from gemini_emulator.engines.synth.prose import compose, split_for_stream
from gemini_emulator.protocol import errors
from gemini_emulator.seam import Chunk, GenerateRequest, ScriptBook
from gemini_emulator.seam.capabilities import Answer
from gemini_emulator.seam.state import MEMORY, link


class ScriptedEngine:
    """Answers from the caller's script when an entry matches, else the zero-config answer (or, in strict
    mode, an error naming the nearest entries)."""

    name = "scripted"

    def __init__(
        self,
        store: ScriptStore | None = None,
        strict: bool = False,
        captures: str | None = None,
        state: str = MEMORY,
    ) -> None:
        """`state`: the --store setting; a redis URL keeps the scripts in Redis (engines/scripted/redis_store.py)."""
        self.store: Any = store or ScriptStore(strict=strict)
        self.remote: Any = None
        if store is None and state != MEMORY:
            from gemini_emulator.engines.scripted.redis_store import RedisScriptStore

            self.store = self.remote = RedisScriptStore(link(state), strict=strict)
        # for `replay` entries; loads on first use; on Redis their conversation progress is there too
        self.replayer = Replayer(captures, lazy=True, state=MEMORY if store is not None else state)

    def script_book(self) -> ScriptBook:
        """The engine's scripts (seam.Scriptable): what the admin API, --script and the fixtures add to."""
        return self.store

    async def generate(self, request: GenerateRequest) -> AsyncIterator[Chunk]:
        answer = self.answer_ready(request)
        if not isinstance(answer, list) and inspect.isawaitable(answer):
            answer = await answer
        if isinstance(answer, list):
            for chunk in answer:
                yield chunk
        else:
            async for chunk in answer:
                yield chunk

    def answer_ready(self, request: GenerateRequest) -> Answer | Awaitable[Answer]:
        """The answer (seam.ReadyAnswerer): a list when nothing in it waits (the zero-config text answer, an
        entry without timing, media or a recording), else the chunks as they come; on the Redis store an
        awaitable of the same (its round trips awaited, never blocking the loop)."""
        if self.remote is not None:
            return self._remote_ready(request)
        store = self.store
        if store.spaces or store.default_strict:  # else the zero-config server: no script nor setting anywhere
            near_misses: Misses = []
            if store.holds_entries(request.namespace):
                selection = store.select(request)
                if selection.entry is not None:
                    request.notes["entry"] = selection.entry.name
                    zero_config = lambda: self._zero_config(request)  # noqa: E731
                    spec = selection.entry.spec
                    at_once = ready(spec, request, zero_config)
                    return at_once if at_once is not None else render(spec, request, zero_config, self.replayer)
                near_misses = selection.near_misses
            if store.is_strict(request.namespace):
                raise errors.script_unmatched(near_misses)
        request.notes["entry"] = ZERO_CONFIG
        chunks = synthesis.answer(request, request.prompt_tokens)
        if request.output_modalities != ("TEXT",):
            return self._dressed(request, chunks)
        return chunks

    async def _remote_ready(self, request: GenerateRequest) -> Answer:
        """answer_ready on the Redis store: the same choice, its round trips awaited (never blocking the loop)."""
        outcome = await self.remote.answer(request)
        answer: Answer
        if outcome.entry is not None:
            request.notes["entry"] = outcome.entry.name
            zero_config = lambda: self._zero_config(request)  # noqa: E731
            spec = outcome.entry.spec
            at_once = ready(spec, request, zero_config)
            answer = at_once if at_once is not None else render(spec, request, zero_config, self.replayer)
        elif outcome.strict:
            raise errors.script_unmatched(outcome.near_misses)
        else:
            request.notes["entry"] = ZERO_CONFIG
            chunks = synthesis.answer(request, request.prompt_tokens)
            answer = chunks if request.output_modalities == ("TEXT",) else self._dressed(request, chunks)
        return answer

    @staticmethod
    async def _dressed(request: GenerateRequest, chunks: list[Chunk]) -> AsyncIterator[Chunk]:
        """A TTS model reads the prompt aloud; an image model draws beside its text. Off the event loop: speech
        may run espeak-ng."""
        speech = request.last_user_text() if "AUDIO" in request.output_modalities else None
        for chunk in await asyncio.to_thread(media.dress, request, chunks, None, speech):
            yield chunk

    def serves_model(self, request: GenerateRequest) -> bool | Awaitable[bool]:
        """Only through a replay entry that answers this request and holds a recording of it. On the Redis store,
        an awaitable of the same (seam.ModelServer): its round trips never hold the event loop."""
        if self.remote is not None:
            return self._remote_serves(request)
        if not self.store.holds_kind(request.namespace, "replay"):
            return False
        entry = self.store.peek(request)
        return entry is not None and self._replays(entry.spec, request)

    async def _remote_serves(self, request: GenerateRequest) -> bool:
        if not await self.remote.aholds_kind(request.namespace, "replay"):
            return False
        entry = await self.remote.apeek(request)
        return entry is not None and self._replays(entry.spec, request)

    def answer_method(self, request: GenerateRequest) -> dict[str, Any] | None | Awaitable[dict[str, Any] | None]:
        """A replay entry's recorded countTokens, computeTokens or embedding answer; None (the wire computes it)
        when the entry that answers is not such a replay entry, which then stays pending. Without replay entries
        the script's matchers are not even asked. On the Redis store, an awaitable of the same (seam.MethodAnswerer):
        its round trips never hold the event loop."""
        if self.remote is not None:
            return self._remote_method(request)
        if not self.store.holds_kind(request.namespace, "replay"):
            return None
        entry = self.store.select_if(request, lambda e: self._replays(e.spec, request))
        return self._replayed(request, entry)

    async def _remote_method(self, request: GenerateRequest) -> dict[str, Any] | None:
        if not await self.remote.aholds_kind(request.namespace, "replay"):
            return None
        entry = await self.remote.aselect_if(request, lambda e: self._replays(e.spec, request))
        if entry is None:
            return None
        request.notes["entry"] = entry.name
        return await self.replayer.abody(request, entry.spec["replay"])

    def _replayed(self, request: GenerateRequest, entry: Any) -> dict[str, Any] | None:
        if entry is None:
            return None
        request.notes["entry"] = entry.name
        return self.replayer.body(request, entry.spec["replay"])

    def reset(self, namespace: str | None = None) -> None:
        """Forget the replay entries' conversation progress (the admin reset clears the script itself)."""
        self.replayer.reset(namespace)

    def _replays(self, spec: dict[str, Any], request: GenerateRequest) -> bool:
        return "replay" in spec and self.replayer.holds(request, spec["replay"])

    def embed(self, model: str, texts: list[str], dimensions: int | None) -> list[list[float]]:
        size = embeddings.dimensions(model, dimensions)
        return [embeddings.embed(text, size) for text in texts]

    @staticmethod
    def _zero_config(request: GenerateRequest) -> list[str]:
        text = compose(request.last_user_text(), request.fingerprint)
        return split_for_stream(text) if request.stream else [text]
