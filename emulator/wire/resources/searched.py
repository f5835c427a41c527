"""`tools: [{fileSearch: {fileSearchStoreNames, topK?, metadataFilter?}}]` in a generate call (Developer API): the
named stores must be the caller's (else production's 403, best-known wording as for files); the chunks of their
active documents that share the most words with the last user turn are retrieved (stores/file_search.py `search`)
and handed to the engine as `GenerateRequest.retrieved`, each one a groundingChunk's `retrievedContext` as
production prints it: `title` (the document's display name, when it has one), `text`, `fileSearchStore`,
`customMetadata` (when the document has any), `mediaId` (a media document's blob, `fileSearchStores/S/media/ID`;
its place and the blob id best-known) — the key order of the captured stream (pydantic-ai cassette
test_google_model_file_search_grounding_gemini_3[True].yaml); title first is best-known.

`metadataFilter` takes the AIP-160 subset the guide's examples use: comparisons `key = "text"`, `key != "text"`,
`key < 3` (=, !=, <, <=, >, >=) joined by AND (OR inside parentheses is not supported: a 400); a document passes
when each comparison holds for one of its custom metadata of that key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from gemini_emulator.protocol import errors
from gemini_emulator.protocol.routes import DEVELOPER, Target
from gemini_emulator.seam.request import last_user_text
from gemini_emulator.stores.file_search import (
    DEFAULT_TOP_K,
    MAX_TOP_K,
    Document,
    Hit,
    query_words,
    store_not_found,
)
from gemini_emulator.stores.file_search_redis import RedisFileSearchStores

MAX_STORES_PER_TOOL = 10  # best-known bound on fileSearchStoreNames
MAX_FILTER = 1024
_CLAUSE = re.compile(
    r'\s*(?P<key>[A-Za-z_][A-Za-z0-9_.\-]*)\s*(?P<op>!=|<=|>=|=|<|>)\s*(?P<value>"(?:[^"\\]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?)\s*'
)
_AND = re.compile(r"\s+AND\s+", re.IGNORECASE)


class Searchable(Protocol):
    """What retrieval reads: the memory store (stores/file_search.py) or a Redis snapshot of the named stores
    (stores/file_search_redis.py Snapshot)."""

    def get(self, namespace: str, name: str) -> Any: ...

    def search(
        self,
        namespace: str,
        store_names: Iterable[str],
        query: str,
        top_k: int = DEFAULT_TOP_K,
        accept: Callable[[Document], bool] | None = None,
    ) -> list[Hit]: ...


class Pending(list[dict[str, Any]]):
    """The retrieval a generate call's fileSearch tools ask of the stores in Redis, in place of its result
    (empty) until it is awaited (`resolve`: wire/handlers.py does, before the engine is asked)."""

    def __init__(
        self, stores: RedisFileSearchStores, target: Target, tools: list[Any], contents: list[Any], namespace: str
    ) -> None:
        super().__init__()
        self.args = (stores, target, tools, contents, namespace)

    async def resolve(self) -> list[dict[str, Any]]:
        """What `retrieve` finds, over one snapshot of every store the tools name (one round trip, and one more
        for the texts of documents this process has not parsed)."""
        stores, target, tools, contents, namespace = self.args
        names: dict[str, None] = {}
        for tool in tools:
            spec = tool.get("fileSearch") if isinstance(tool, dict) else None
            listed = spec.get("fileSearchStoreNames") if isinstance(spec, dict) else None
            if isinstance(listed, list) and len(listed) <= MAX_STORES_PER_TOOL:
                for name in listed:
                    names.setdefault("fileSearchStores/" + str(name).removeprefix("fileSearchStores/"), None)
        texts = target.backend == DEVELOPER and bool(query_words(last_user_text(contents)))
        snapshot = await stores.snapshot(namespace, names, texts)
        return retrieve(snapshot, target, tools, contents, namespace)


def pending(
    stores: RedisFileSearchStores, target: Target, tools: list[Any], contents: list[Any], namespace: str
) -> list[dict[str, Any]]:
    """A Pending retrieval when the request has a fileSearch tool (else [], as `retrieve` would find)."""
    if target.backend != DEVELOPER or not any(
        isinstance(t, dict) and isinstance(t.get("fileSearch"), dict) for t in tools
    ):
        return []
    return Pending(stores, target, tools, contents, namespace)


def retrieve(
    stores: Searchable, target: Target, tools: Iterable[Any], contents: list[Any], namespace: str
) -> list[dict[str, Any]]:
    """The retrieved contexts for the request's fileSearch tools ([] without one); production's errors for a
    store the caller does not have, an empty store list or a filter that cannot be read."""
    specs = [t["fileSearch"] for t in tools if isinstance(t, dict) and isinstance(t.get("fileSearch"), dict)]
    if not specs or target.backend != DEVELOPER:
        return []
    query = last_user_text(contents)
    retrieved: list[dict[str, Any]] = []
    for spec in specs:
        names = spec.get("fileSearchStoreNames") or []
        if not names:
            raise errors.invalid_argument("file_search.file_search_store_names must name at least one store.")
        if len(names) > MAX_STORES_PER_TOOL:
            raise errors.invalid_argument(f"file_search names at most {MAX_STORES_PER_TOOL} stores.")
        checked = []
        for name in names:
            store_id = str(name).removeprefix("fileSearchStores/")
            store = stores.get(namespace, f"fileSearchStores/{store_id}")
            if store is None:
                raise store_not_found(store_id)
            checked.append(store.name)
        top_k = spec.get("topK")
        top_k = DEFAULT_TOP_K if not isinstance(top_k, int) or top_k <= 0 else min(top_k, MAX_TOP_K)
        accept = _filter(str(spec.get("metadataFilter") or ""))
        for hit in stores.search(namespace, checked, query, top_k, accept):
            context: dict[str, Any] = {}
            if hit.document.display_name:
                context["title"] = hit.document.display_name
            context["text"] = hit.text
            context["fileSearchStore"] = hit.store
            if hit.document.custom_metadata:
                context["customMetadata"] = [dict(m) for m in hit.document.custom_metadata]
            if hit.document.media_name:  # a media document's blob, for file_search_stores.download_media
                context["mediaId"] = hit.document.media_name
            retrieved.append(context)
    return retrieved


Comparison = tuple[str, str, str | float]


def _filter(text: str) -> Callable[[Document], bool] | None:
    """A metadataFilter as a predicate on documents (None: no filter)."""
    text = text.strip()
    if not text:
        return None
    if len(text) > MAX_FILTER:
        raise errors.invalid_argument(f"metadata_filter is at most {MAX_FILTER} characters.")
    clauses: list[Comparison] = []
    for piece in _AND.split(text):
        found = _CLAUSE.fullmatch(piece)
        if found is None:
            raise errors.invalid_argument(f"Invalid metadata_filter: {text[:200]}")
        raw = found["value"]
        value: str | float = re.sub(r"\\(.)", r"\1", raw[1:-1]) if raw.startswith('"') else float(raw)
        clauses.append((found["key"], found["op"], value))
    return lambda doc: all(_holds(doc, clause) for clause in clauses)


def _holds(doc: Document, clause: Comparison) -> bool:
    key, op, wanted = clause
    for meta in doc.custom_metadata:
        if meta.get("key") != key:
            continue
        values: list[Any] = []
        if "stringValue" in meta:
            values = [meta["stringValue"]]
        elif "numericValue" in meta:
            values = [meta["numericValue"]]
        elif isinstance(meta.get("stringListValue"), dict):
            values = list(meta["stringListValue"].get("values") or [])
        for value in values:
            if _compare(value, op, wanted):
                return True
    return False


def _compare(value: Any, op: str, wanted: str | float) -> bool:
    if isinstance(wanted, float):
        try:
            number = float(value)
        except (TypeError, ValueError):
            return False
        return _ordered(number, op, wanted)
    return _ordered(str(value), op, wanted)


def _ordered(left: Any, op: str, right: Any) -> bool:
    """`left op right` for two values of one type."""
    if op == "=":
        return bool(left == right)
    if op == "!=":
        return bool(left != right)
    if op == "<":
        return bool(left < right)
    if op == "<=":
        return bool(left <= right)
    if op == ">":
        return bool(left > right)
    return bool(left >= right)
