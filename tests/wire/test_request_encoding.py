"""A compressed request body (issue 30): gzip is decoded within the body limit; other encodings are refused by
name; a gzip body that is not gzip, or inflates past the limit, gets a 400 that says so."""

from __future__ import annotations

import gzip
import zlib

import httpx

GENERATE = "/v1beta/models/gemini-2.5-flash:generateContent"
COUNT = "/v1beta/models/gemini-2.5-flash:countTokens"
BODY = b'{"contents": [{"parts": [{"text": "one two three"}]}]}'


def _post(base_url: str, path: str, content: bytes, encoding: str) -> httpx.Response:
    headers = {"content-type": "application/json", "content-encoding": encoding, "x-goog-api-key": "gzip"}
    return httpx.post(base_url + path, content=content, headers=headers, timeout=30)


def test_a_gzip_body_is_read_as_the_json_inside(base_url: str) -> None:
    plain = httpx.post(base_url + COUNT, content=BODY, headers={"x-goog-api-key": "gzip"})
    packed = _post(base_url, COUNT, gzip.compress(BODY), "gzip")
    assert packed.status_code == 200 and packed.json() == plain.json()
    two_members = gzip.compress(BODY[:20]) + gzip.compress(BODY[20:])  # concatenated members are one body
    assert _post(base_url, GENERATE, two_members, "GZIP").status_code == 200


def test_a_gzip_bomb_stops_at_the_body_limit(base_url: str) -> None:
    bomb = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    packed = bomb.compress(b'{"contents": "' + b"0" * (40 << 20)) + bomb.flush()  # 40 MiB in ~40 KiB
    answer = _post(base_url, GENERATE, packed, "gzip")
    assert answer.status_code == 400
    assert answer.json()["error"]["message"].startswith("Request payload size exceeds the limit:")


def test_what_cannot_be_decoded_is_named(base_url: str) -> None:
    broken = _post(base_url, GENERATE, b"\x1f\x8b not really gzip", "gzip")
    assert broken.status_code == 400 and "not valid gzip data" in broken.json()["error"]["message"]
    cut = _post(base_url, GENERATE, gzip.compress(BODY)[:-12], "gzip")
    assert cut.status_code == 400 and "not valid gzip data" in cut.json()["error"]["message"]
    brotli = _post(base_url, GENERATE, BODY, "br")
    assert brotli.status_code == 400 and brotli.json()["error"]["message"] == (
        "Content-Encoding 'br' is not supported: send the body as it is, or gzip-compressed."
    )
    assert brotli.json()["error"]["status"] == "INVALID_ARGUMENT"
