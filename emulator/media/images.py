"""Images the emulator makes: real, decodable PNGs built with zlib and struct only, deterministic per seed.

`png(width, height, seed)` paints horizontal bands whose colours come from the seed, crossed by a diagonal
checker of a second colour: a picture any decoder opens, different for different requests, the same bytes for
the same one. Every image is bounded (MAX_SIDE a side, MAX_PIXELS in all): a request for a larger one is
scaled down to fit, keeping its aspect ratio. Rows repeat within a band, so zlib keeps even a 4K picture small
and building one costs a few milliseconds of C time, not a Python loop per pixel.

`jpeg(width, height, seed, quality)` paints the same kind of picture on JPEG's 8x8 block grid (bands and checker
tiles a whole number of blocks) through the small baseline encoder of gemini_emulator.media.jpeg; `picture(...)`
draws either by MIME type.

`dimensions(aspect_ratio, image_size)` gives the width and height production answers for an aspect ratio and
size ("1K", "2K", "4K"): the 1K table is the image-generation guide's (1:1 1024x1024 ... 21:9 1536x672); 2K and
4K double and quadruple it. Imagen's sizes come from `imagen_dimensions`.
"""

from __future__ import annotations

import hashlib
import struct
import zlib

from gemini_emulator.media import jpeg as _jpeg

MAX_SIDE = 4096
MAX_PIXELS = 4096 * 4096
PNG_MIME = "image/png"
JPEG_MIME = "image/jpeg"
OUTPUT_MIMES = (PNG_MIME, JPEG_MIME)  # what the emulator draws (imageOutputOptions / outputOptions.mimeType)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# The 1K sizes of Gemini's native image output, by aspect ratio (ai.google.dev image-generation guide).
_ONE_K = {
    "1:1": (1024, 1024),
    "2:3": (832, 1248),
    "3:2": (1248, 832),
    "3:4": (864, 1184),
    "4:3": (1184, 864),
    "4:5": (896, 1152),
    "5:4": (1152, 896),
    "9:16": (768, 1344),
    "16:9": (1344, 768),
    "21:9": (1536, 672),
    "1:4": (512, 2048),
    "4:1": (2048, 512),
    "1:8": (384, 3072),
    "8:1": (3072, 384),
}
ASPECT_RATIOS = tuple(_ONE_K)
IMAGE_SIZES = {"512": 0.5, "1K": 1, "2K": 2, "4K": 4}
# Imagen's output sizes at its default (1K) sample size, by aspect ratio (Vertex Imagen documentation).
_IMAGEN = {
    "1:1": (1024, 1024),
    "3:4": (896, 1280),
    "4:3": (1280, 896),
    "9:16": (768, 1408),
    "16:9": (1408, 768),
}
IMAGEN_ASPECT_RATIOS = tuple(_IMAGEN)


def dimensions(aspect_ratio: str = "1:1", image_size: str = "1K") -> tuple[int, int]:
    """Width and height of a Gemini image of this aspect ratio and size (unknown values: 1:1, 1K)."""
    width, height = _ONE_K.get(aspect_ratio, _ONE_K["1:1"])
    scale = IMAGE_SIZES.get(image_size, 1)
    return bounded(int(width * scale), int(height * scale))


def imagen_dimensions(aspect_ratio: str = "1:1", image_size: str = "1K") -> tuple[int, int]:
    """Width and height of an Imagen image (sampleImageSize "2K" doubles the 1K size)."""
    width, height = _IMAGEN.get(aspect_ratio, _IMAGEN["1:1"])
    scale = 2 if image_size == "2K" else 1
    return bounded(width * scale, height * scale)


def bounded(width: int, height: int) -> tuple[int, int]:
    """(width, height) scaled down, aspect kept, to at most MAX_SIDE a side and MAX_PIXELS in all; 1 at least."""
    width, height = max(1, width), max(1, height)
    scale = min(1.0, MAX_SIDE / max(width, height), (MAX_PIXELS / (width * height)) ** 0.5)
    return max(1, int(width * scale)), max(1, int(height * scale))


def png(width: int, height: int, seed: str = "") -> bytes:
    """An RGB PNG of (at most, see `bounded`) `width` x `height`, its picture derived from `seed`."""
    width, height = bounded(width, height)
    digest = hashlib.sha256(seed.encode()).digest()
    bands = 4 + digest[0] % 5
    band_height = max(1, -(-height // bands))
    tile = max(8, min(width, height) // 16)
    packer = zlib.compressobj(1)
    idat = bytearray()
    for band in range(bands):
        rows = min(band_height, height - band * band_height)
        if rows <= 0:
            break
        base = _colour(digest, band)
        accent = _colour(digest, band + 11)
        for offset in range(0, rows, tile):
            count = min(tile, rows - offset)
            shift = ((band * band_height + offset) // tile) % 2
            row = _checker_row(width, tile, base, accent, shift)
            idat += packer.compress((b"\x00" + row) * count)  # filter type 0, then the row
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (
        PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", bytes(idat + packer.flush())) + _chunk(b"IEND", b"")
    )


def jpeg(width: int, height: int, seed: str = "", quality: int = _jpeg.DEFAULT_QUALITY) -> bytes:
    """A baseline JPEG of (at most, see `bounded`) `width` x `height`, its picture derived from `seed`, at a
    compression quality of 1-100."""
    width, height = bounded(width, height)
    digest = hashlib.sha256(seed.encode()).digest()
    columns, block_rows = -(-width // 8), -(-height // 8)
    bands = 4 + digest[0] % 5
    band_rows = max(1, -(-block_rows // bands))  # in blocks
    tile = max(1, min(width, height) // 16 // 8)  # in blocks
    rows: list[list[bytes]] = []
    made: dict[tuple[int, int], list[bytes]] = {}
    for r in range(block_rows):
        band, shift = min(r // band_rows, bands - 1), (r // tile) % 2
        row = made.get((band, shift))
        if row is None:
            base, accent = _colour(digest, band), _colour(digest, band + 11)
            row = made[(band, shift)] = [base if (c // tile + shift) % 2 == 0 else accent for c in range(columns)]
        rows.append(row)
    return _jpeg.encode(width, height, rows, quality)


def picture(width: int, height: int, seed: str = "", mime: str = PNG_MIME, quality: int | None = None) -> bytes:
    """A PNG or (mime image/jpeg) a JPEG of the asked size and seed; `quality` is the JPEG's (default 75)."""
    if mime == JPEG_MIME:
        return jpeg(width, height, seed, _jpeg.DEFAULT_QUALITY if quality is None else quality)
    return png(width, height, seed)


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a PNG or JPEG from its header, or None."""
    return png_size(data) or _jpeg.size(data)


def png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's header, or None when `data` is no PNG."""
    if len(data) < 24 or not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def sniff_mime(data: bytes) -> str | None:
    """The image MIME type of `data` by its magic bytes (PNG, JPEG, WebP, GIF), or None."""
    if data.startswith(PNG_SIGNATURE):
        return PNG_MIME
    if data.startswith(b"\xff\xd8\xff"):
        return JPEG_MIME
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    return None


def _colour(digest: bytes, index: int) -> bytes:
    i = (index * 3) % (len(digest) - 3)
    return bytes(64 + b % 160 for b in digest[i : i + 3])


def _checker_row(width: int, tile: int, base: bytes, accent: bytes, shift: int) -> bytes:
    pair = (base * tile + accent * tile) if not shift else (accent * tile + base * tile)
    repeats = -(-width // (2 * tile))
    return (pair * repeats)[: width * 3]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
