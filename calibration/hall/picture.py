"""A picture of every square's reading distributions, to see a calibration at a glance.

The board is drawn as the player sees it (a1 top left). Each square's panel is an
ADC axis (0 left, 1023 right) with histograms of the black-up (blue), empty (grey)
and white-up (orange) readings, and the derived thresholds as dotted lines:
black threshold (blue), empty band (green), white threshold (red). A square whose
bands overlap gets a red frame. Drawn with numpy and written as PNG with zlib, so the
calibration needs no plotting library and stays away from the camera's image stack.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from calibration.hall.model import SquareCalibration
from controller.hall import messages as m

PANEL_W, PANEL_H, PAD, TOP = 128, 72, 6, 34
COLOURS = {
    "black": (40, 70, 200),
    "empty": (120, 120, 120),
    "white": (235, 140, 20),
    "black_th": (40, 70, 200),
    "empty_band": (30, 160, 60),
    "white_th": (210, 30, 30),
    "bad": (220, 0, 0),
    "text": (20, 20, 20),
}

# 3x5 glyphs, five rows top to bottom separated by spaces, '#' lit.
_GLYPH_ROWS = {
    "a": ".#. #.# ### #.# #.#", "b": "##. #.# ##. #.# ##.", "c": ".## #.. #.. #.. .##",
    "d": "##. #.# #.# #.# ##.", "e": "### #.. ##. #.. ###", "f": "### #.. ##. #.. #..",
    "g": ".## #.. #.# #.# .##", "h": "#.# #.# ### #.# #.#", "i": "### .#. .#. .#. ###",
    "k": "#.# #.# ##. #.# #.#", "l": "#.. #.. #.. #.. ###", "m": "#.# ### ### #.# #.#",
    "n": "##. #.# #.# #.# #.#", "o": ".#. #.# #.# #.# .#.", "p": "##. #.# ##. #.. #..",
    "r": "##. #.# ##. #.# #.#", "s": ".## #.. .#. ..# ##.", "t": "### .#. .#. .#. .#.",
    "u": "#.# #.# #.# #.# ###", "w": "#.# #.# ### ### #.#", "y": "#.# #.# .#. .#. .#.",
    "0": "### #.# #.# #.# ###", "1": ".#. ##. .#. .#. ###", "2": "##. ..# .#. #.. ###",
    "3": "##. ..# .#. ..# ##.", "4": "#.# #.# ### ..# ..#", "5": "### #.. ##. ..# ##.",
    "6": ".## #.. ### #.# ###", "7": "### ..# .#. .#. .#.", "8": "### #.# ### #.# ###",
    "9": "### #.# ### ..# ##.", "q": ".#. #.# #.# .## ..#",
    "x": "#.# #.# .#. #.# #.#", " ": "... ... ... ... ...", "-": "... ... ### ... ...",
    ":": "... .#. ... .#. ...", ".": "... ... ... ... .#.", "/": "..# ..# .#. #.. #..",
}
_GLYPHS = {ch: rows.replace(" ", "") for ch, rows in _GLYPH_ROWS.items()}


def _text(img: np.ndarray, x: int, y: int, s: str, colour: tuple[int, int, int],
          scale: int = 2) -> None:
    for k, ch in enumerate(s.lower()):
        glyph = _GLYPHS.get(ch, _GLYPHS[" "])
        for idx, px in enumerate(glyph):
            if px == "#":
                gx = x + k * 4 * scale + (idx % 3) * scale
                gy = y + (idx // 3) * scale
                img[gy:gy + scale, gx:gx + scale] = colour


def png_bytes(img: np.ndarray) -> bytes:
    """Encode an RGB uint8 image (h, w, 3) as PNG."""
    h, w, _ = img.shape
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def _column(value: np.ndarray | int) -> np.ndarray | int:
    """Panel column of an ADC value (0 at the left edge, 1023 at the right)."""
    col = np.clip((np.asarray(value) * (PANEL_W - 6) / m.ADC_MAX).astype(int) + 3, 3,
                  PANEL_W - 4)
    return col if col.ndim else int(col)


def draw(empty: np.ndarray, black: np.ndarray, white: np.ndarray,
         thresholds: Sequence[SquareCalibration] | None = None,
         bad_squares: Sequence[int] = ()) -> np.ndarray:
    """The picture as an RGB array; ``thresholds`` may be missing for a refused run."""
    width = 8 * (PANEL_W + PAD) + PAD
    height = TOP + 8 * (PANEL_H + PAD) + PAD
    img = np.full((height, width, 3), 255, np.uint8)
    x = PAD
    for label, key in (("black up", "black"), ("empty", "empty"), ("white up", "white")):
        img[8:20, x:x + 12] = COLOURS[key]
        _text(img, x + 16, 8, label, COLOURS["text"])
        x += 16 + 8 * len(label) + 24
    _text(img, x, 8, "adc 0-1023 per square", COLOURS["text"])
    for sq in range(64):
        r, c = divmod(sq, 8)
        x0 = PAD + c * (PANEL_W + PAD)
        y0 = TOP + r * (PANEL_H + PAD)
        panel = img[y0:y0 + PANEL_H, x0:x0 + PANEL_W]
        panel[:] = (248, 248, 248)
        frame = COLOURS["bad"] if sq in bad_squares else (190, 190, 190)
        panel[0, :] = panel[-1, :] = frame
        panel[:, 0] = panel[:, -1] = frame
        if sq in bad_squares:
            panel[1, :] = panel[-2, :] = frame
            panel[:, 1] = panel[:, -2] = frame
        base = PANEL_H - 3
        if thresholds is not None:  # dotted, behind the histograms
            t = thresholds[sq]
            for value, key in ((t.black_th, "black_th"), (t.empty_lo, "empty_band"),
                               (t.empty_hi, "empty_band"), (t.white_th, "white_th")):
                px = _column(value)
                panel[14:base:2, px] = COLOURS[key]
        for key, data in (("empty", empty), ("black", black), ("white", white)):
            cols = _column(data[:, sq])
            counts = np.bincount(cols, minlength=PANEL_W)
            # widen each bar to three pixels so a quiet sensor's spike stays visible
            counts = np.maximum(counts, np.maximum(np.roll(counts, 1), np.roll(counts, -1)))
            if counts.max() == 0:
                continue
            heights = (counts * (PANEL_H - 24) / counts.max()).astype(int)
            for bar in np.nonzero(heights)[0]:
                panel[base - heights[bar]:base, bar] = COLOURS[key]
        _text(panel, 4, 3, "abcdefgh"[c] + str(r + 1), COLOURS["text"])
    return img


def save_picture(path: Path | str, empty: np.ndarray, black: np.ndarray, white: np.ndarray,
                 thresholds: Sequence[SquareCalibration] | None = None,
                 bad_squares: Sequence[int] = ()) -> None:
    img = draw(np.asarray(empty), np.asarray(black), np.asarray(white), thresholds, bad_squares)
    Path(path).write_bytes(png_bytes(img))
