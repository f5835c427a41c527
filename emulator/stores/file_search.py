"""File search stores (the File Search API): per namespace, each store holding documents whose text is kept,
chunked, for the `fileSearch` tool of a generate call to retrieve from. The wire room
(gemini_emulator.wire.resources.file_search) speaks HTTP; generate calls retrieve through `search`:

    stores = FileSearchStores(budget_bytes=256 << 20)
    store = stores.create(namespace, display_name="docs")            # fileSearchStores/docs-abc123def456
    doc = stores.add_document(namespace, store.name, data, "text/plain", ready_at=clock() + 0.5)
    stores.search(namespace, [store.name], "what is the capital of France", top_k=5)   # [Hit(...)]

Names are derived as production derives them (pydantic-ai cassettes test_google_model_file_search_*.yaml): the
display name lowercased with everything but [a-z0-9] dropped, cut at 27 characters, then `-` and 12 random
characters; a document uploaded without a display name gets `{12}-{12}` random characters (its upload's operation
carries the same id). A document is STATE_PENDING until `ready_at` (its operation's schedule), then STATE_ACTIVE;
only active documents are searched.

Retrieval is deterministic and bounded: a document's text (at most MAX_TEXT_BYTES of it: text types decoded as
UTF-8, others reduced to their runs of printable characters) is cut into chunks of about `maxTokensPerChunk`
words (its chunkingConfig; default 200) overlapping by `maxOverlapTokens`; a query's distinct words (at most
MAX_QUERY_WORDS, short and common words left out) are looked up in each document's inverted index (word to the
bit set of its chunks, built once at upload), so a search's work grows with the chunks that match, not with the
store; best overlap first, ties in upload order.

Bounds: MAX_STORES_PER_NAMESPACE stores, MAX_DOCUMENTS_PER_STORE documents, production's 100 MB per document,
and `budget_bytes` of documents (their sizeBytes) over every namespace: past it an upload is refused (StoreFull).
A namespace sees only its own stores.
"""

from __future__ import annotations

import builtins
import heapq
import re
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from time import monotonic
from typing import Any

from gemini_emulator.protocol import errors
from gemini_emulator.stores.files import stamp
from gemini_emulator.stores.operations import new_id

MAX_STORES_PER_NAMESPACE = 100
MAX_DOCUMENTS_PER_STORE = 1000
MAX_DOCUMENT_BYTES = 100 * 1000 * 1000  # production: 100 MB per document
MAX_TEXT_BYTES = 1 << 20  # of a document's bytes, what is read for its text
MAX_CUSTOM_METADATA = 20  # production: at most 20 CustomMetadata per document
MAX_DISPLAY_NAME = 512
MAX_QUERY_WORDS = 64
MAX_TOP_K = 20
DEFAULT_TOP_K = 5
DEFAULT_CHUNK_WORDS = 200
MAX_CHUNK_WORDS = 2048
DEFAULT_EMBEDDING_MODEL = "models/gemini-embedding-001"  # the 2026-07 cassette's store prints it
STATES = ("STATE_PENDING", "STATE_ACTIVE", "STATE_FAILED")
_NAME_PREFIX_CHARS = 27
_WORD = re.compile(r"[0-9a-z]+")
_PRINTABLE_RUN = re.compile(rb"[\x20-\x7e\t\r\n]{4,}")
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-yaml")
_STOP_WORDS = frozenset(
    "the and for are was were what which who whom whose when where why how does did has have had this that these "
    "those with from into about than then them they their there here its it's you your our not but can could "
    "would should will shall may might must tell me please give say said is an of to in on at by as be or do "
    "any all some".split()
)


def words(text: str) -> list[str]:
    """The lowercase words of `text` (letters and digits)."""
    return _WORD.findall(text.lower())


def query_words(text: str) -> builtins.list[str]:
    """A query's distinct meaningful words, in order, at most MAX_QUERY_WORDS."""
    seen: dict[str, None] = {}
    for word in words(text[: 64 * 1024]):
        if len(word) > 2 and word not in _STOP_WORDS:
            seen.setdefault(word, None)
            if len(seen) >= MAX_QUERY_WORDS:
                break
    return list(seen)


def derived_id(display_name: str) -> str:
    """A new resource id: the display name's [a-z0-9] (at most 27) and 12 random characters, or 12 and 12."""
    stem = "".join(_WORD.findall(display_name.lower()))[:_NAME_PREFIX_CHARS]
    return f"{stem or new_id()}-{new_id()}"


def is_media(mime_type: str) -> bool:
    """Whether a document is a media one, kept whole and cited with a `mediaId` (production's multimodal file
    search: images; best-known)."""
    return mime_type.partition(";")[0].strip().lower().startswith("image/")


def extract_text(data: bytes, mime_type: str) -> str:
    """The text retrieval reads from a document's first bytes."""
    head = data[:MAX_TEXT_BYTES]
    media = mime_type.partition(";")[0].strip().lower()
    if media.startswith("text/") or media in _TEXT_TYPES or media.endswith(("+json", "+xml")):
        return head.decode("utf-8", "replace")
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError:
        return "\n".join(run.decode("ascii").strip() for run in _PRINTABLE_RUN.findall(head))


def chunk_text(text: str, max_words: int, overlap: int) -> builtins.list[str]:
    """`text` cut at whitespace into pieces of at most `max_words` words, each starting `overlap` words before
    the previous one ended (whitespace inside a piece kept as it was)."""
    spans = [m.span() for m in re.finditer(r"\S+", text)]
    if not spans:
        return []
    max_words = max(1, min(max_words, MAX_CHUNK_WORDS))
    step = max(1, max_words - max(0, min(overlap, max_words - 1)))
    pieces = []
    for start in range(0, len(spans), step):
        end = min(start + max_words, len(spans))
        pieces.append(text[spans[start][0] : spans[end - 1][1]])
        if end == len(spans):
            break
    return pieces


class StoreFull(Exception):
    """The documents' byte budget is spent."""


Prepared = tuple[builtins.list[str], dict[str, int]]  # a document's chunks and their index


def prepare(data: bytes, mime_type: str, chunk_words: int = DEFAULT_CHUNK_WORDS, overlap_words: int = 0) -> Prepared:
    """A document's chunks and inverted index from its bytes: the costly part of adding one (~45 ms per 240 KB),
    which the wire runs off the event loop."""
    chunks = chunk_text(extract_text(data, mime_type), chunk_words, overlap_words)
    return chunks, index_chunks(chunks)


def index_chunks(chunks: builtins.list[str]) -> dict[str, int]:
    """An inverted index of a document's chunks: each word (interned) to the bit set of the chunks holding it."""
    index: dict[str, int] = {}
    for i, chunk in enumerate(chunks):
        bit = 1 << i
        for word in set(words(chunk)):
            word = sys.intern(word)
            index[word] = index.get(word, 0) | bit
    return index


@dataclass
class Document:
    """One document of a store; `view()` is production's Document."""

    name: str
    display_name: str
    mime_type: str
    size: int
    custom_metadata: list[dict[str, Any]]
    chunks: list[str]
    index: dict[str, int]  # word -> bit set of the chunks holding it (index_chunks)
    created_ns: int
    ready_at: float
    clock: Callable[[], float]
    source: str = ""  # the Files API file it was imported from ("" for an upload)
    forced_state: str = ""  # "STATE_PENDING" (held) or "STATE_FAILED" (set through the admin API)
    error: dict[str, Any] | None = None  # a failed document's google.rpc.Status
    operation: str = ""  # the name of the operation that made it
    media: bytes | None = None  # a media document's whole bytes (is_media), served as its media blob

    @property
    def id(self) -> str:
        return self.name.rpartition("/")[2]

    @property
    def media_name(self) -> str:
        """Its media blob's name, `fileSearchStores/S/media/ID` (the blob id is the document's: best-known), or ""
        for a document without one."""
        if self.media is None:
            return ""
        store, _, _ = self.name.partition("/documents/")
        return f"{store}/media/{self.id}"

    @property
    def state(self) -> str:
        if self.forced_state:
            return self.forced_state
        return "STATE_ACTIVE" if self.clock() >= self.ready_at else "STATE_PENDING"

    def view(self) -> dict[str, Any]:
        """Production's Document, in the REST reference's field order: name, displayName, customMetadata,
        updateTime, createTime, state, sizeBytes (int64 as a string), mimeType."""
        body: dict[str, Any] = {"name": self.name}
        if self.display_name:
            body["displayName"] = self.display_name
        if self.custom_metadata:
            body["customMetadata"] = self.custom_metadata
        created = stamp(self.created_ns)
        body |= {"updateTime": created, "createTime": created, "state": self.state}
        body["sizeBytes"] = str(self.size)
        body["mimeType"] = self.mime_type
        return body


@dataclass
class FileSearchStore:
    """One store; `view()` is production's FileSearchStore."""

    name: str
    namespace: str
    display_name: str
    embedding_model: str
    created_ns: int
    updated_ns: int
    documents: OrderedDict[str, Document] = field(default_factory=OrderedDict)

    @property
    def id(self) -> str:
        return self.name.removeprefix("fileSearchStores/")

    @property
    def size(self) -> int:
        return sum(d.size for d in self.documents.values())

    def state_counts(self) -> tuple[int, int, int]:
        """How many of its documents are active, pending and failed."""
        states = [d.state for d in self.documents.values()]
        return states.count("STATE_ACTIVE"), states.count("STATE_PENDING"), states.count("STATE_FAILED")

    def view(self) -> dict[str, Any]:
        """Production's FileSearchStore: name, displayName (when set), createTime, updateTime, the document
        counts and sizeBytes (int64 strings, left out at 0 as the captured create answers leave them),
        embeddingModel."""
        body: dict[str, Any] = {"name": self.name}
        if self.display_name:
            body["displayName"] = self.display_name
        body["createTime"] = stamp(self.created_ns)
        body["updateTime"] = stamp(self.updated_ns)
        for key, count in zip(
            ("activeDocumentsCount", "pendingDocumentsCount", "failedDocumentsCount"), self.state_counts(), strict=True
        ):
            if count:
                body[key] = str(count)
        if size := self.size:
            body["sizeBytes"] = str(size)
        body["embeddingModel"] = self.embedding_model
        return body


@dataclass
class Hit:
    """A retrieved chunk: its store, its document, its text and how many query words it shares."""

    store: str
    document: Document
    text: str
    score: int


def store_not_found(store_id: str) -> errors.ApiError:
    """Another key's, a deleted or an unknown store (best-known: the Files API's wording; docs/conformance.md)."""
    return errors.ApiError(
        403, f"You do not have permission to access the FileSearchStore {store_id} or it may not exist."
    )


def document_not_found(name: str) -> errors.ApiError:
    """A missing document of one of the caller's stores (best-known wording)."""
    return errors.ApiError(404, f"Document {name} not found.", status="NOT_FOUND")


def non_empty(kind: str) -> errors.ApiError:
    """Deleting a store that holds documents (or a document that holds chunks) without `force` (the wording
    quoted in python-genai#1774)."""
    return errors.ApiError(400, f"Cannot delete non-empty {kind}", status="FAILED_PRECONDITION")


class FileSearchStores:
    """Every namespace's file search stores (module docstring: the API and the bounds). Thread-safe."""

    def __init__(
        self,
        budget_bytes: int = 256 << 20,
        max_stores: int = MAX_STORES_PER_NAMESPACE,
        max_documents: int = MAX_DOCUMENTS_PER_STORE,
        clock: Callable[[], float] = monotonic,
        wall_ns: Callable[[], int] = time.time_ns,
    ) -> None:
        self.budget_bytes = budget_bytes
        self.max_stores = max_stores
        self.max_documents = max_documents
        self.clock = clock
        self.wall_ns = wall_ns
        self.used = 0
        self._spaces: dict[str, OrderedDict[str, FileSearchStore]] = {}
        self._next: dict[str, tuple[str, dict[str, Any] | None]] = {}
        self._lock = threading.RLock()

    # --- stores ------------------------------------------------------------------------------------

    def create(self, namespace: str, display_name: str = "", embedding_model: str = "") -> FileSearchStore:
        now = self.wall_ns()
        with self._lock:
            space = self._spaces.setdefault(namespace, OrderedDict())
            if len(space) >= self.max_stores:
                raise errors.ApiError(
                    429,
                    f"gemini-emulator: at most {self.max_stores} file search stores per API key; delete one first.",
                )
            name = "fileSearchStores/" + derived_id(display_name)
            while name in space:
                name = "fileSearchStores/" + derived_id(display_name)
            store = FileSearchStore(name, namespace, display_name, embedding_model or DEFAULT_EMBEDDING_MODEL, now, now)
            space[name] = store
        return store

    def get(self, namespace: str, name: str) -> FileSearchStore | None:
        with self._lock:
            space = self._spaces.get(namespace)
            return space.get(name) if space is not None else None

    def require(self, namespace: str, name: str) -> FileSearchStore:
        store = self.get(namespace, name)
        if store is None:
            raise store_not_found(name.removeprefix("fileSearchStores/"))
        return store

    def list(self, namespace: str, page_size: int, page_token: str = "") -> tuple[builtins.list[FileSearchStore], str]:
        """A page of the namespace's stores, newest first, and the next page's token ("" at the end)."""
        with self._lock:
            stores = list(reversed(self._spaces.get(namespace, OrderedDict()).values()))
        return _page(stores, page_size, page_token)

    def delete(self, namespace: str, name: str, force: bool = False) -> None:
        with self._lock:
            store = self.require(namespace, name)
            if store.documents and not force:
                raise non_empty("FileSearchStore")
            self._spaces[namespace].pop(name)
            self.used -= store.size

    def all(self, namespace: str | None = None) -> builtins.list[FileSearchStore]:
        with self._lock:
            names = [namespace] if namespace is not None else list(self._spaces)
            return [s for n in names for s in self._spaces.get(n, OrderedDict()).values()]

    def reset(self, namespace: str | None = None) -> None:
        with self._lock:
            names = [namespace] if namespace is not None else list(self._spaces)
            for name in names:
                self._next.pop(name, None)
                for store in self._spaces.pop(name, OrderedDict()).values():
                    self.used -= store.size

    # --- documents ---------------------------------------------------------------------------------

    def check_room(self, namespace: str, store_name: str, size: int | None) -> FileSearchStore:
        """The store, when a document of `size` bytes (None: not known yet) may still join it."""
        store = self.require(namespace, store_name)
        if size is not None and size > MAX_DOCUMENT_BYTES:
            raise errors.ApiError(400, f"The document exceeds the maximum size of {MAX_DOCUMENT_BYTES} bytes.")
        if len(store.documents) >= self.max_documents:
            raise errors.ApiError(
                429, f"gemini-emulator: at most {self.max_documents} documents per file search store."
            )
        return store

    def add_document(
        self,
        namespace: str,
        store_name: str,
        data: bytes,
        mime_type: str,
        *,
        size: int | None = None,
        display_name: str = "",
        custom_metadata: builtins.list[dict[str, Any]] | None = None,
        chunk_words: int = DEFAULT_CHUNK_WORDS,
        overlap_words: int = 0,
        ready_at: float | None = None,
        document_id: str | None = None,
        source: str = "",
        forced: tuple[str, dict[str, Any] | None] | None = None,
        operation: str = "",
        prepared: Prepared | None = None,
        media: bytes | None = None,
    ) -> Document:
        """A new document of `data` (the first bytes of it, when `size` says it was longer; `prepared`: its
        chunks and index, made beforehand); StoreFull past the budget."""
        size = len(data) if size is None else size
        chunks, index = prepared if prepared is not None else prepare(data, mime_type, chunk_words, overlap_words)
        now = self.wall_ns()
        with self._lock:
            store = self.check_room(namespace, store_name, size)
            if self.used + size > self.budget_bytes:
                raise StoreFull(self.budget_bytes)
            doc_id = document_id or derived_id(display_name)
            name = f"{store.name}/documents/{doc_id}"
            while name in store.documents:
                name = f"{store.name}/documents/{derived_id(display_name)}"
            doc = Document(
                name=name,
                display_name=display_name,
                mime_type=mime_type,
                size=size,
                custom_metadata=list(custom_metadata or []),
                chunks=chunks,
                index=index,
                created_ns=now,
                ready_at=self.clock() if ready_at is None else ready_at,
                clock=self.clock,
                source=source,
                operation=operation,
                media=media,
            )
            if forced is not None:
                doc.forced_state, doc.error = forced
            store.documents[name] = doc
            store.updated_ns = now
            self.used += size
        return doc

    def next_state(self, namespace: str, state: str, error: dict[str, Any] | None = None) -> None:
        """The namespace's next document gets `state` (STATE_PENDING or STATE_FAILED; STATE_ACTIVE clears it)."""
        with self._lock:
            if state == "STATE_ACTIVE":
                self._next.pop(namespace, None)
            else:
                self._next[namespace] = (state, error if state == "STATE_FAILED" else None)

    def take_next(self, namespace: str) -> tuple[str, dict[str, Any] | None] | None:
        """The state set for the namespace's next document (consumed), or None."""
        with self._lock:
            return self._next.pop(namespace, None)

    def document(self, namespace: str, name: str) -> Document:
        """One of the caller's documents by its whole name; production's errors for another's store or a
        missing document."""
        store_name, _, _ = name.partition("/documents/")
        store = self.require(namespace, store_name)
        with self._lock:
            doc = store.documents.get(name)
        if doc is None:
            raise document_not_found(name)
        return doc

    def media_document(self, namespace: str, name: str) -> Document:
        """The document whose media blob is `name` (`fileSearchStores/S/media/ID`): another key's or an unknown
        store is production's 403, an unknown blob (or a document without one) a 404."""
        store_name, _, blob = name.partition("/media/")
        store = self.require(namespace, store_name)
        with self._lock:
            doc = store.documents.get(f"{store.name}/documents/{blob}")
        if doc is None or doc.media is None:
            raise errors.ApiError(404, f"Media {name} not found.")
        return doc

    def documents(
        self, namespace: str, store_name: str, page_size: int, page_token: str = ""
    ) -> tuple[builtins.list[Document], str]:
        store = self.require(namespace, store_name)
        with self._lock:
            docs = list(reversed(store.documents.values()))
        return _page(docs, page_size, page_token)

    def delete_document(self, namespace: str, name: str, force: bool = False) -> None:
        doc = self.document(namespace, name)
        if doc.chunks and not force:
            raise non_empty("Document")
        store = self.require(namespace, name.partition("/documents/")[0])
        with self._lock:
            if store.documents.pop(name, None) is not None:
                self.used -= doc.size
                store.updated_ns = self.wall_ns()

    # --- retrieval ---------------------------------------------------------------------------------

    def search(
        self,
        namespace: str,
        store_names: Iterable[str],
        query: str,
        top_k: int = DEFAULT_TOP_K,
        accept: Callable[[Document], bool] | None = None,
    ) -> builtins.list[Hit]:
        """The chunks of the stores' active documents sharing the most words with `query` (at least one),
        at most `top_k`, best first; `accept` filters documents (a metadataFilter). The stores must be the
        caller's (the caller checked)."""
        wanted = set(query_words(query))
        if not wanted:
            return []
        with self._lock:
            stores = [st for n in store_names if (st := self.get(namespace, n)) is not None]
            docs = [(st.name, d) for st in stores for d in st.documents.values()]
        return rank(docs, wanted, top_k, accept)


def rank(
    docs: Iterable[tuple[str, Document]],
    wanted: set[str],
    top_k: int = DEFAULT_TOP_K,
    accept: Callable[[Document], bool] | None = None,
) -> builtins.list[Hit]:
    """The chunks of the active documents (each with its store's name, in upload order) sharing the most of the
    `wanted` words (at least one), at most `top_k`, best first, ties in upload order; `accept` filters
    documents. The memory and the Redis stores both rank with it."""
    found: list[tuple[int, int, str, Document, int]] = []
    order = 0
    for store_name, doc in docs:
        if doc.state != "STATE_ACTIVE" or (accept is not None and not accept(doc)):
            continue
        scores: dict[int, int] = {}
        for word in wanted:  # the postings of the query's words only: work grows with the matches
            mask = doc.index.get(word, 0)
            while mask:
                low = mask & -mask
                at = low.bit_length() - 1
                scores[at] = scores.get(at, 0) + 1
                mask ^= low
        for at, score in scores.items():
            found.append((-score, order + at, store_name, doc, at))
        order += len(doc.chunks)
    best = heapq.nsmallest(max(1, min(top_k, MAX_TOP_K)), found, key=lambda item: (item[0], item[1]))
    return [Hit(store, doc, doc.chunks[at], -score) for score, _, store, doc, at in best]


def _page(items: builtins.list[Any], page_size: int, page_token: str) -> tuple[builtins.list[Any], str]:
    """A page of named items and the next page's token: the name of the next item (an unknown token starts
    over)."""
    start = next((i for i, item in enumerate(items) if item.name == page_token), 0) if page_token else 0
    page = items[start : start + page_size]
    following = items[start + page_size].name if start + page_size < len(items) else ""
    return page, following
