"""A strict PNG reader for the tests (no Pillow here): checks every chunk's CRC, inflates the pixels and checks
their count against the header, and returns (width, height, colour type)."""

from __future__ import annotations

import struct
import zlib


def decode(data: bytes) -> tuple[int, int, int]:
    """(width, height, colour type) of a valid 8-bit RGB/RGBA PNG; AssertionError when it is not one."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
    pos, chunks, idat = 8, [], b""
    header = None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == crc, f"bad CRC in {kind!r}"
        chunks.append(kind)
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND", chunks
    assert header is not None
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    assert len(raw) == height * (1 + width * channels), "pixel data does not fill the picture"
    assert all(raw[row * (1 + width * channels)] <= 4 for row in range(height)), "bad filter byte"
    return width, height, colour
