"""An API request as the handlers read it: its headers and query as plain dicts, decoded once.

Starlette's `Request` decodes a header on every look-up and parses the query on first use; the handlers look up
a handful of headers per call, so one small dict per request is cheaper. Clients repeat the same header sets
and URLs, so both are kept in bounded tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import Receive, Scope

RawHeaders = list[tuple[bytes, bytes]]  # as ASGI carries them: lowercase names, in order, repeats kept

_MAX = 1024
_HEADERS: dict[tuple[tuple[bytes, bytes], ...], dict[str, str]] = {}
_QUERIES: dict[bytes, dict[str, str]] = {}
_NO_QUERY: dict[str, str] = {}


@dataclass(slots=True)
class Incoming:
    """One request: `headers` keeps the first value of a repeated name (as Starlette's `Headers.get`), `query`
    the last (as its `QueryParams`); `query_string` is the query as sent, for a parameter given more than once.
    Both dicts are shared between requests: read them, never change them."""

    method: str
    path: str
    headers: dict[str, str]
    query: dict[str, str]
    receive: Receive
    query_string: bytes = b""

    def query_values(self, name: str) -> list[str]:
        """Every value of a query parameter, in the order sent (`?language_code=a&language_code=b`)."""
        if not self.query_string:
            return []
        return [value for key, value in parse_qsl(self.query_string.decode("latin-1")) if key == name]

    @classmethod
    def of(cls, scope: Scope, receive: Receive) -> Incoming:
        raw, query_string = scope["headers"], scope["query_string"]
        headers = _HEADERS.get(tuple(raw))  # headers_of and query_of, less two calls for the usual request
        if headers is None:
            headers = headers_of(raw)
        query = _QUERIES.get(query_string) if query_string else _NO_QUERY
        if query is None:
            query = query_of(query_string)
        return cls(scope["method"], scope["path"], headers, query, receive, query_string)


def headers_of(raw: RawHeaders) -> dict[str, str]:
    key = tuple(raw)
    known = _HEADERS.get(key)
    if known is None:
        known = {k.decode("latin-1"): v.decode("latin-1") for k, v in reversed(raw)}
        _remember(_HEADERS, key, known)
    return known


def query_of(query_string: bytes) -> dict[str, str]:
    if not query_string:
        return _NO_QUERY
    known = _QUERIES.get(query_string)
    if known is None:
        known = dict(parse_qsl(query_string.decode("latin-1"), keep_blank_values=True))
        _remember(_QUERIES, query_string, known)
    return known


def _remember(table: dict[Any, dict[str, str]], key: object, value: dict[str, str]) -> None:
    if len(table) >= _MAX:
        table.clear()
    table[key] = value
