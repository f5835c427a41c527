"""Answers for the built-in tools, when the request enables them (deterministic rules, README):

- `codeExecution`: the answer runs code first: an `executableCode` part (PYTHON) that sums the numbers in the
  prompt (or prints its topic), its `codeExecutionResult` (OUTCOME_OK), then the text; shapes as in the
  Firebase fixture googleai/unary-success-code-execution.json, tool tokens in `toolUsePromptTokenCount`.
- `googleSearch` (or `googleSearchRetrieval`): the text is grounded: `groundingMetadata` with a search entry
  point, one web chunk per query, and a support for the first sentence (googleai/unary-success-google-search-
  grounding.json).
- `urlContext`: `urlContextMetadata` lists every URL of the prompt as retrieved
  (googleai/unary-success-url-context.json).
- `fileSearch`: the wire retrieved the caller's stored chunks (`request.retrieved`); the answer opens with the
  sentence of each of the first chunks that shares the most words with the prompt, and `groundingMetadata`
  lists every retrieved chunk (`retrievedContext`) with a support per quoted sentence citing the chunks that
  hold it (pydantic-ai cassettes test_google_model_file_search_*.yaml: supports' segments in bytes, startIndex
  left out at 0); the retrieved text counts as tool-use prompt tokens.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote_plus

from gemini_emulator.protocol import tokens
from gemini_emulator.seam import GenerateRequest

# ASCII numbers of at most 30 digits a side (a longer run is not a number the answer sums: int() refuses past 4,300
# digits), the first MAX_NUMBERS of them, so the code part stays small whatever the prompt holds.
_NUMBER = re.compile(r"(?<![0-9.])-?[0-9]{1,30}(?:\.[0-9]{1,30})?(?![0-9])")
MAX_NUMBERS = 100
_URL = re.compile(r"https?://[^\s<>\"')]+")


def enabled(request: GenerateRequest) -> set[str]:
    """The built-in tools the request turns on: "code", "search", "url"."""
    names = set()
    for tool in request.tools:
        if not isinstance(tool, dict):
            continue
        if "codeExecution" in tool:
            names.add("code")
        if "googleSearch" in tool or "googleSearchRetrieval" in tool:
            names.add("search")
        if "urlContext" in tool:
            names.add("url")
        if "fileSearch" in tool:
            names.add("file")
    return names


QUOTED_CHUNKS = 3  # the answer quotes a sentence of at most this many retrieved chunks
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[0-9a-z]+")
MAX_SENTENCES = 200
MAX_QUOTE = 300


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def best_sentence(text: str, query: str) -> str:
    """The sentence of `text` (of its first MAX_SENTENCES) sharing the most words with `query`, the first on a
    tie, cut at MAX_QUOTE characters."""
    wanted = _words(query[:65536])
    best, score = "", -1
    for sentence in _SENTENCE_END.split(text.strip(), maxsplit=MAX_SENTENCES)[:MAX_SENTENCES]:
        sentence = " ".join(sentence.split())
        shared = len(wanted & _words(sentence))
        if sentence and shared > score:
            best, score = sentence, shared
    return best[:MAX_QUOTE]


def file_search_preface(request: GenerateRequest) -> str:
    """The answer's opening: the best sentence of each of the first QUOTED_CHUNKS retrieved chunks (each once),
    then a blank line; "" when nothing was retrieved."""
    query = request.last_user_text()
    quoted: list[str] = []
    for context in request.retrieved[:QUOTED_CHUNKS]:
        sentence = best_sentence(str(context.get("text", "")), query)
        if sentence and sentence not in quoted:
            quoted.append(sentence)
    return " ".join(quoted) + "\n\n" if quoted else ""


def file_search_grounding(request: GenerateRequest, answer: str) -> dict[str, Any]:
    """groundingMetadata citing the retrieved chunks: one support per quoted sentence found in `answer` (the
    chunks holding it), or, for an answer that quotes none (a scripted one), its first sentence citing chunk 0."""
    query = request.last_user_text()
    chunks = [{"retrievedContext": dict(c)} for c in request.retrieved]
    supports: list[dict[str, Any]] = []
    cited: dict[str, list[int]] = {}
    for index, context in enumerate(request.retrieved):
        sentence = best_sentence(str(context.get("text", "")), query)
        if sentence and sentence in answer:
            cited.setdefault(sentence, []).append(index)
    for sentence, indices in sorted(cited.items(), key=lambda item: answer.find(item[0])):
        supports.append({"segment": _segment(answer, sentence), "groundingChunkIndices": indices})
    if not supports and answer.strip() and chunks:
        first = answer.strip().split("\n")[0]
        first = _SENTENCE_END.split(first, maxsplit=1)[0][:MAX_QUOTE]
        supports.append({"segment": _segment(answer, first), "groundingChunkIndices": [0]})
    metadata: dict[str, Any] = {"groundingChunks": chunks}
    if supports:
        metadata["groundingSupports"] = supports
    return {"groundingMetadata": metadata}


def _segment(answer: str, text: str) -> dict[str, Any]:
    """A Segment of `answer` (byte offsets of UTF-8, as production counts them; startIndex absent at 0)."""
    at = max(0, answer.find(text))
    start = len(answer[:at].encode())
    segment: dict[str, Any] = {}
    if start:
        segment["startIndex"] = start
    segment["endIndex"] = start + len(text.encode())
    segment["text"] = text
    return segment


def file_search_usage(request: GenerateRequest) -> dict[str, Any]:
    """The tool-use prompt tokens the retrieved text costs (the captures' toolUsePromptTokenCount and details)."""
    cost = sum(tokens.count_text(str(c.get("text", ""))) for c in request.retrieved)
    if not cost:
        return {}
    return {"toolUsePromptTokenCount": cost, "toolUsePromptTokensDetails": [{"modality": "TEXT", "tokenCount": cost}]}


def code_parts(request: GenerateRequest) -> tuple[list[dict[str, Any]], int]:
    """executableCode and codeExecutionResult parts, and the tool-use tokens they cost."""
    text = request.last_user_text()
    numbers = [float(n) if "." in n else int(n) for n in _NUMBER.findall(text)[:MAX_NUMBERS]]
    if numbers:
        code = f"numbers = {numbers!r}\nprint(f'{{sum(numbers)=}}')\n"
        output = f"sum(numbers)={sum(numbers)!r}\n"
    else:
        topic = " ".join(text.split()[:6]) or "the question"
        code = f"topic = {topic!r}\nprint(f'{{len(topic.split())=}}')\n"
        output = f"len(topic.split())={len(topic.split())}\n"
    parts = [
        {"executableCode": {"language": "PYTHON", "code": code}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": output}},
    ]
    return parts, tokens.count_text(code) + tokens.count_text(output)


def search_grounding(request: GenerateRequest, answer: str) -> dict[str, Any]:
    query = " ".join(request.last_user_text().split()[:12]) or "query"
    link = f"https://www.google.com/search?q={quote_plus(query)}"
    first = answer.split(". ")[0]
    first = first if first.endswith(".") or len(first) == len(answer) else first + "."
    return {
        "groundingMetadata": {
            "searchEntryPoint": {
                "renderedContent": f'<div class="container"><a class="chip" href="{link}">{query}</a></div>\n'
            },
            "groundingChunks": [{"web": {"uri": link, "title": f"Search results for: {query}"}}],
            "groundingSupports": [
                {"segment": {"endIndex": len(first.encode()), "text": first}, "groundingChunkIndices": [0]}
            ],
            "webSearchQueries": [query],
        }
    }


def url_context(request: GenerateRequest) -> dict[str, Any] | None:
    urls = _URL.findall(request.last_user_text())
    if not urls:
        return None
    return {
        "urlContextMetadata": {
            "urlMetadata": [{"retrievedUrl": u, "urlRetrievalStatus": "URL_RETRIEVAL_STATUS_SUCCESS"} for u in urls]
        }
    }
