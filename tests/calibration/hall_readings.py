"""What the Hall calibration tests share: sensor readings drawn at random, and a PNG read
back by the tests' own decoder, independent of the writer under test."""

from __future__ import annotations

import struct
import zlib

import numpy as np


def readings(
    seed: int = 1, offset_sd: float = 25.0, noise: float = 1.5, swing: float = 300.0, n: int = 60
) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    base = 512 + rng.normal(0, offset_sd, 64)
    swings = swing + rng.normal(0, 30, 64)

    def scans(level: np.ndarray) -> np.ndarray:
        return np.clip(np.round(level + rng.normal(0, noise, (n, 64))), 0, 1023)

    return scans(base), scans(base - swings), scans(base + swings)


def read_png(data: bytes) -> tuple[int, int, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", (0, 0)
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        assert (
            zlib.crc32(kind + body)
            == struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0]
        )
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return size[0], size[1], zlib.decompress(idat)
