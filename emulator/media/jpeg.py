"""A small baseline JPEG (JFIF) encoder for the emulator's own pictures: struct only, deterministic, fast.

The emulator's pictures (gemini_emulator.media.images) are bands crossed by a checker. Drawn on the 8x8 block grid,
every block is one flat colour plus the same soft shading, so no block needs a DCT: its DC coefficient is its
colour and its AC coefficients are the shading's, chosen in the frequency domain. The quality (1-100, IJG scaling
of the Annex K tables) quantises both, so a lower quality really is coarser and smaller.

Every row of blocks ends with a restart marker (DRI = the blocks of a row), which resets the DC predictors and
byte-aligns the row: rows of the same band and checker phase are then the same bytes, written once and repeated,
and a 4096x4096 picture costs a few milliseconds. Sampling 4:4:4, one DC and one AC Huffman table shared by the
three components (canonical codes of one length: valid, not optimal).
"""

from __future__ import annotations

import struct

DEFAULT_QUALITY = 75  # Imagen's outputOptions.compressionQuality default (Vertex documentation)

# Annex K.1 of ITU-T T.81: the example luminance and chrominance quantisation tables, in natural order.
_LUMA = (
    16, 11, 10, 16, 24, 40, 51, 61,
    12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77,
    24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101,
    72, 92, 95, 98, 112, 100, 103, 99,
)  # fmt: skip
_CHROMA = (
    17, 18, 24, 47, 99, 99, 99, 99,
    18, 21, 26, 66, 99, 99, 99, 99,
    24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99,
) + (99,) * 32  # fmt: skip
# The shading every luminance block carries, as (row, column) frequency -> coefficient: lighter towards the top
# left, a faint ridge on the diagonal.
_SHADING = {(0, 1): -70, (1, 0): -70, (1, 1): 30, (0, 2): -20, (2, 0): -20, (2, 2): 12, (0, 3): 10, (3, 0): 10}


def _zigzag() -> list[int]:
    """Natural-order indices of the 64 coefficients in zigzag order."""
    order: list[int] = []
    for s in range(15):
        rows = range(min(s, 7), max(0, s - 7) - 1, -1) if s % 2 == 0 else range(max(0, s - 7), min(s, 7) + 1)
        order.extend(r * 8 + (s - r) for r in rows)
    return order


ZIGZAG = _zigzag()
# Huffman tables: DC categories 0-11 as 4-bit codes; AC symbols EOB, ZRL and (run, size) for run 0-15, size 1-10,
# as 8-bit codes. A symbol's code is its position in the table (canonical codes of one length; none all ones).
_DC_SYMBOLS = list(range(12))
_AC_SYMBOLS = [0x00, 0xF0] + [(run << 4) | size for run in range(16) for size in range(1, 11)]
_DC_CODE = {s: format(i, "04b") for i, s in enumerate(_DC_SYMBOLS)}
_AC_CODE = {s: format(i, "08b") for i, s in enumerate(_AC_SYMBOLS)}


def quant_tables(quality: int) -> tuple[list[int], list[int]]:
    """The luminance and chrominance quantisation tables (natural order) for a quality of 1-100 (IJG scaling)."""
    quality = min(100, max(1, quality))
    scale = 5000 // quality if quality < 50 else 200 - 2 * quality
    return [min(255, max(1, (q * scale + 50) // 100)) for q in _LUMA], [
        min(255, max(1, (q * scale + 50) // 100)) for q in _CHROMA
    ]


def encode(width: int, height: int, rows: list[list[bytes]], quality: int = DEFAULT_QUALITY) -> bytes:
    """A baseline JPEG of `width` x `height`: `rows[r][c]` is the RGB colour (3 bytes) of the 8x8 block in block
    row r, column c (ceil(height/8) rows of ceil(width/8) colours; equal rows are best passed as the same list)."""
    luma, chroma = quant_tables(quality)
    shading = _ac_bits([_SHADING.get((i // 8, i % 8), 0) for i in range(64)], luma)
    flat = _AC_CODE[0x00]  # a chroma block has no AC coefficient: end of block at once
    columns = -(-width // 8)
    written: dict[int, bytes] = {}
    scan = bytearray()
    for r, row in enumerate(rows):
        data = written.get(id(row))
        if data is None:
            data = written[id(row)] = _row(row[:columns], luma[0], chroma[0], shading, flat)
        scan += data
        if r < len(rows) - 1:
            scan += bytes((0xFF, 0xD0 + r % 8))  # RSTn
    return b"".join(
        (
            b"\xff\xd8",  # SOI
            _segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"),  # APP0: JFIF 1.01, 1:1, no thumbnail
            _segment(0xDB, b"\x00" + bytes(luma[i] for i in ZIGZAG) + b"\x01" + bytes(chroma[i] for i in ZIGZAG)),
            _segment(0xC0, struct.pack(">BHHB", 8, height, width, 3) + b"\x01\x11\x00\x02\x11\x01\x03\x11\x01"),
            _segment(0xC4, _huffman(0x00, 4, _DC_SYMBOLS) + _huffman(0x10, 8, _AC_SYMBOLS)),
            _segment(0xDD, struct.pack(">H", columns)),  # DRI: a restart after every row of blocks
            _segment(0xDA, b"\x03\x01\x00\x02\x00\x03\x00\x00\x3f\x00"),  # SOS: Y, Cb, Cr on tables 0/0
            bytes(scan),
            b"\xff\xd9",  # EOI
        )
    )


def size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's first start-of-frame marker, or None when `data` is no JPEG (or has none)."""
    if not data.startswith(b"\xff\xd8"):
        return None
    pos = 2
    while pos + 9 <= len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return int(width), int(height)
        if marker == 0xDA:
            return None
        pos += 2 + length
    return None


def _row(colours: list[bytes], dc_luma: int, dc_chroma: int, shading: str, flat: str) -> bytes:
    """One restart interval: a row of blocks, DC predictors from zero, padded with 1 bits, 0xFF bytes stuffed."""
    bits: list[str] = []
    previous = [0, 0, 0]
    cache: dict[bytes, tuple[int, int, int]] = {}
    for colour in colours:
        dcs = cache.get(colour)
        if dcs is None:
            y, cb, cr = _ycbcr(colour)
            dcs = cache[colour] = (
                round(8 * (y - 128) / dc_luma),
                round(8 * (cb - 128) / dc_chroma),
                round(8 * (cr - 128) / dc_chroma),
            )
        for k in range(3):
            bits.append(_dc_bits(dcs[k] - previous[k]))
            bits.append(shading if k == 0 else flat)
        previous = list(dcs)
    text = "".join(bits)
    text += "1" * (-len(text) % 8)
    data = int(text, 2).to_bytes(len(text) // 8, "big") if text else b""
    return data.replace(b"\xff", b"\xff\x00")


def _ycbcr(colour: bytes) -> tuple[float, float, float]:
    r, g, b = colour[0], colour[1], colour[2]
    return (
        0.299 * r + 0.587 * g + 0.114 * b,
        128 - 0.168736 * r - 0.331264 * g + 0.5 * b,
        128 + 0.5 * r - 0.418688 * g - 0.081312 * b,
    )


def _magnitude(value: int) -> tuple[int, str]:
    """JPEG's (category, extra bits) of a coefficient value."""
    category = abs(value).bit_length()
    if category == 0:
        return 0, ""
    raw = value if value > 0 else value + (1 << category) - 1
    return category, format(raw, f"0{category}b")


def _dc_bits(diff: int) -> str:
    category, extra = _magnitude(diff)
    return _DC_CODE[category] + extra


def _ac_bits(coefficients: list[int], table: list[int]) -> str:
    """The entropy-coded AC part of a block whose natural-order coefficients are given (index 0 ignored)."""
    out, run = [], 0
    for index in ZIGZAG[1:]:
        value = round(coefficients[index] / table[index])
        if value == 0:
            run += 1
            continue
        while run > 15:
            out.append(_AC_CODE[0xF0])
            run -= 16
        category, extra = _magnitude(value)
        out.append(_AC_CODE[(run << 4) | category] + extra)
        run = 0
    if run:
        out.append(_AC_CODE[0x00])
    return "".join(out)


def _huffman(table_class_id: int, length: int, symbols: list[int]) -> bytes:
    counts = [0] * 16
    counts[length - 1] = len(symbols)
    return bytes([table_class_id, *counts, *symbols])


def _segment(marker: int, body: bytes) -> bytes:
    return bytes((0xFF, marker)) + struct.pack(">H", len(body) + 2) + body
