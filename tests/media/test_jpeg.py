"""gemini_emulator.media.jpeg through images.jpeg: baseline JPEGs that Pillow (libjpeg) decodes to the asked size,
deterministic per seed, bounded, whose quality really quantises."""

from __future__ import annotations

import io
import time

import pytest
from PIL import Image

from gemini_emulator.media import images, jpeg


def _open(data: bytes) -> Image.Image:
    picture = Image.open(io.BytesIO(data))
    picture.load()  # decodes every scan: a broken entropy stream raises here
    return picture


@pytest.mark.parametrize(("width", "height"), [(1024, 1024), (1344, 768), (768, 1344), (13, 7), (1, 1), (9, 17)])
def test_decodes_to_the_asked_size(width: int, height: int) -> None:
    data = images.jpeg(width, height, "seed")
    picture = _open(data)
    assert picture.format == "JPEG" and picture.mode == "RGB" and picture.size == (width, height)
    assert images.image_size(data) == (width, height) == jpeg.size(data)
    assert images.sniff_mime(data) == images.JPEG_MIME


def test_the_picture_is_the_seeds_bands_and_checker() -> None:
    picture = _open(images.jpeg(256, 256, "bands")).convert("RGB")
    colours = {picture.getpixel((x, y)) for x in range(4, 256, 8) for y in range(4, 256, 8)}
    assert len(colours) > 8  # several bands of two colours each, not a flat fill
    top, bottom = picture.getpixel((4, 4)), picture.getpixel((4, 251))
    assert top != bottom


def test_same_seed_same_bytes_other_seed_other_picture() -> None:
    assert images.jpeg(64, 48, "a") == images.jpeg(64, 48, "a")
    assert images.jpeg(64, 48, "a") != images.jpeg(64, 48, "b")


def test_quality_quantises() -> None:
    low, high = images.jpeg(512, 512, "q", 10), images.jpeg(512, 512, "q", 95)
    assert len(low) < len(high)
    assert jpeg.quant_tables(10)[0][0] > jpeg.quant_tables(95)[0][0]
    assert _open(low).size == _open(high).size == (512, 512)
    assert jpeg.quant_tables(0) == jpeg.quant_tables(1)  # 0 is the lowest quality, as 1


def test_huge_requests_are_bounded_and_fast() -> None:
    started = time.perf_counter()
    data = images.jpeg(100_000, 50_000, "huge")
    assert time.perf_counter() - started < 2
    assert _open(data).size == (4096, 2048)


def test_picture_dispatches_by_mime_and_size_reads_neither_other() -> None:
    assert images.sniff_mime(images.picture(8, 8, "x", images.JPEG_MIME, 50)) == images.JPEG_MIME
    assert images.sniff_mime(images.picture(8, 8, "x")) == images.PNG_MIME
    assert jpeg.size(b"\xff\xd8\xff\xda\x00\x02") is None and jpeg.size(b"GIF89a") is None
    assert images.image_size(b"nothing") is None
