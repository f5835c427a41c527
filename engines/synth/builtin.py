"""Answers for the built-in tools, when the request enables them (deterministic rules, README):

- `codeExecution`: the answer runs code first: an `executableCode` part (PYTHON) that sums the numbers in the
  prompt (or prints its topic), its `codeExecutionResult` (OUTCOME_OK), then the text; shapes as in the
  Firebase fixture googleai/unary-success-code-execution.json, tool tokens in `toolUsePromptTokenCount`.
- `googleSearch` (or `googleSearchRetrieval`): the text is grounded: `groundingMetadata` with a search entry
  point, one web chunk per query, and a support for the first sentence (googleai/unary-success-google-search-
  grounding.json).
- `urlContext`: `urlContextMetadata` lists every URL of the prompt as retrieved
  (googleai/unary-success-url-context.json).
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
    return names


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
