"""gemini_emulator.media.images: real PNGs, deterministic, of the asked size, bounded."""

from __future__ import annotations

import time

import pytest
from pngcheck import decode

from gemini_emulator.media import images


@pytest.mark.parametrize(
    ("aspect", "size", "expected"),
    [
        ("1:1", "1K", (1024, 1024)),
        ("16:9", "1K", (1344, 768)),
        ("9:16", "2K", (1536, 2688)),
        ("21:9", "1K", (1536, 672)),
    ],
)
def test_dimensions_follow_aspect_and_size(aspect: str, size: str, expected: tuple[int, int]) -> None:
    assert images.dimensions(aspect, size) == expected
    assert decode(images.png(*expected, seed="x"))[:2] == expected


def test_same_seed_same_bytes_other_seed_other_picture() -> None:
    assert images.png(64, 48, "a") == images.png(64, 48, "a")
    assert images.png(64, 48, "a") != images.png(64, 48, "b")


def test_size_is_bounded_and_quick() -> None:
    started = time.perf_counter()
    width, height, _ = decode(images.png(100_000, 50_000, "huge"))
    assert max(width, height) <= images.MAX_SIDE and width * height <= images.MAX_PIXELS
    assert abs(width / height - 2) < 0.01  # the aspect ratio survives the bound
    assert time.perf_counter() - started < 5


def test_header_and_sniffing() -> None:
    data = images.png(3, 2, "")
    assert images.png_size(data) == (3, 2) and images.sniff_mime(data) == "image/png"
    assert images.sniff_mime(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert images.png_size(b"not a png") is None and images.sniff_mime(b"text") is None
