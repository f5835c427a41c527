"""Videos the emulator makes: small, structurally valid MP4 files (ISO BMFF) built with struct only.

`mp4(width, height, seconds, seed)` writes `ftyp`, `moov` (mvhd with the duration, one video track whose tkhd holds
the size, an `avc1` sample entry with an avcC record, and a sample table of one sample per second) and `mdat` with
those samples' bytes, derived from the seed: what a container parser (ffprobe, mp4 libraries) reads as a video of
that size and length. The samples are not real H.264 frames: a player shows no picture. Bounded: at most
MAX_SECONDS long and MAX_SIDE a side; a few kilobytes whatever is asked.
"""

from __future__ import annotations

import hashlib
import struct

MP4_MIME = "video/mp4"
MAX_SECONDS = 60
MAX_SIDE = 3840
TIMESCALE = 1000
_SAMPLE_BYTES = 64

# Veo's sizes by resolution and aspect ratio (Veo documentation: 720p default, 1080p).
_SIZES = {
    ("720p", "16:9"): (1280, 720),
    ("720p", "9:16"): (720, 1280),
    ("1080p", "16:9"): (1920, 1080),
    ("1080p", "9:16"): (1080, 1920),
    ("4k", "16:9"): (3840, 2160),
    ("4k", "9:16"): (2160, 3840),
}


def dimensions(resolution: str = "720p", aspect_ratio: str = "16:9") -> tuple[int, int]:
    """Width and height of a Veo video (unknown values: 720p, 16:9)."""
    return _SIZES.get((resolution.lower(), aspect_ratio), _SIZES.get(("720p", aspect_ratio), (1280, 720)))


def _box(kind: bytes, *payload: bytes) -> bytes:
    body = b"".join(payload)
    return struct.pack(">I", 8 + len(body)) + kind + body


def _full(kind: bytes, version: int, flags: int, *payload: bytes) -> bytes:
    return _box(kind, struct.pack(">I", (version << 24) | flags), *payload)


_MATRIX = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)


def mp4(width: int, height: int, seconds: float, seed: str = "") -> bytes:
    """An MP4 of `width` x `height`, `seconds` long (bounded), its sample bytes derived from `seed`."""
    width, height = max(2, min(MAX_SIDE, width)), max(2, min(MAX_SIDE, height))
    seconds = max(1.0, min(float(MAX_SECONDS), seconds))
    samples = int(seconds)
    duration = int(seconds * TIMESCALE)
    digest = hashlib.sha256(seed.encode()).digest()
    data = b"".join(hashlib.sha256(digest + bytes([i % 256])).digest() * 2 for i in range(samples))
    ftyp = _box(b"ftyp", b"isom", struct.pack(">I", 0x200), b"isomiso2avc1mp41")
    mvhd = _full(
        b"mvhd",
        0,
        0,
        struct.pack(">IIII", 0, 0, TIMESCALE, duration),
        struct.pack(">IH", 0x10000, 0x100),
        bytes(10),
        _MATRIX,
        bytes(24),
        struct.pack(">I", 2),
    )
    tkhd = _full(
        b"tkhd",
        0,
        3,
        struct.pack(">IIIII", 0, 0, 1, 0, duration),
        bytes(8),
        struct.pack(">hhhH", 0, 0, 0, 0),
        _MATRIX,
        struct.pack(">II", width << 16, height << 16),
    )
    mdhd = _full(b"mdhd", 0, 0, struct.pack(">IIII", 0, 0, TIMESCALE, duration), struct.pack(">HH", 0x55C4, 0))
    hdlr = _full(b"hdlr", 0, 0, bytes(4), b"vide", bytes(12), b"VideoHandler\x00")
    vmhd = _full(b"vmhd", 0, 1, bytes(8))
    dinf = _box(b"dinf", _full(b"dref", 0, 0, struct.pack(">I", 1), _full(b"url ", 0, 1)))
    sps, pps = b"\x67\x42\xc0\x1e" + digest[:4], b"\x68\xce\x3c\x80"
    avcc = _box(
        b"avcC",
        bytes([1, 0x42, 0xC0, 0x1E, 0xFF, 0xE1]),
        struct.pack(">H", len(sps)),
        sps,
        b"\x01",
        struct.pack(">H", len(pps)),
        pps,
    )
    avc1 = _box(
        b"avc1",
        bytes(6),
        struct.pack(">H", 1),
        bytes(16),
        struct.pack(">HH", width, height),
        struct.pack(">II", 0x480000, 0x480000),
        bytes(4),
        struct.pack(">H", 1),
        bytes(32),
        struct.pack(">Hh", 0x18, -1),
        avcc,
    )
    stsd = _full(b"stsd", 0, 0, struct.pack(">I", 1), avc1)
    stts = _full(b"stts", 0, 0, struct.pack(">III", 1, samples, TIMESCALE))
    stsc = _full(b"stsc", 0, 0, struct.pack(">IIII", 1, 1, samples, 1))
    stsz = _full(b"stsz", 0, 0, struct.pack(">II", _SAMPLE_BYTES, samples))

    def moov(offset: int) -> bytes:
        stco = _full(b"stco", 0, 0, struct.pack(">II", 1, offset))
        stbl = _box(b"stbl", stsd, stts, stsc, stsz, stco)
        minf = _box(b"minf", vmhd, dinf, stbl)
        trak = _box(b"trak", tkhd, _box(b"mdia", mdhd, hdlr, minf))
        return _box(b"moov", mvhd, trak)

    head = len(ftyp) + len(moov(0)) + 8  # the samples start after ftyp, moov and mdat's header
    return ftyp + moov(head) + _box(b"mdat", data)


def boxes(data: bytes) -> dict[str, bytes]:
    """The top-level boxes of an MP4 by type (their payloads), for checking one."""
    out: dict[str, bytes] = {}
    pos = 0
    while pos + 8 <= len(data):
        (size,) = struct.unpack(">I", data[pos : pos + 4])
        if size < 8:
            break
        out[data[pos + 4 : pos + 8].decode("latin-1")] = data[pos + 8 : pos + size]
        pos += size
    return out
