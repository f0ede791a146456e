"""Turn LED wishes (square -> colour and pattern) into one SET_LEDS payload.

The board holds a palette of 8 colours; index 0 is always "off", so at most seven
distinct colours can be lit at once. Brightness is capped on the host: 64 WS2812B at
full white would draw close to 4 A, more than the reference supply gives, and a
board lit at a quarter is already bright on a table (hardware/README.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.hall.messages import SQUARES, LedPattern
from controller.squares import parse_square

#: Highest fraction of full brightness the host ever sends.
MAX_BRIGHTNESS = 0.25
PALETTE_SIZE = 8

Rgb = tuple[int, int, int]


def parse_pattern(value: LedPattern | int | str) -> LedPattern:
    """Accept a pattern as the enum, its number, or a name such as ``"slow_blink"``."""
    if isinstance(value, LedPattern):
        return value
    if isinstance(value, int):
        try:
            return LedPattern(value)
        except ValueError:
            raise ValueError(f"unknown LED pattern number {value}") from None
    key = value.strip().upper().replace("-", "_").replace(" ", "_")
    aliases = {"SLOW": "SLOW_BLINK", "BLINK": "SLOW_BLINK", "FAST": "FAST_BLINK", "ON": "STEADY"}
    key = aliases.get(key, key)
    try:
        return LedPattern[key]
    except KeyError:
        raise ValueError(
            f"unknown LED pattern {value!r} (steady, slow_blink, fast_blink, breathe)"
        ) from None


LedAssignments = Mapping[str | int, tuple[Rgb, LedPattern | int | str]]


def scale(rgb: Rgb, brightness: float) -> Rgb:
    level = min(max(brightness, 0.0), MAX_BRIGHTNESS)
    out = []
    for c in rgb:
        if not 0 <= int(c) <= 255:
            raise ValueError(f"LED colour component {c} is outside 0..255")
        out.append(round(int(c) * level))
    return (out[0], out[1], out[2])


def led_payload(assignments: LedAssignments, brightness: float = MAX_BRIGHTNESS) -> bytes:
    """The 88-byte SET_LEDS payload; squares not named are off.

    Squares are names (``"d3"``) or indices 0..63. Raises ``ValueError`` naming the
    square or the colours when the request cannot be shown.
    """
    palette: list[Rgb] = [(0, 0, 0)]
    cells = bytearray(SQUARES)
    for key, value in assignments.items():
        index = parse_square(key) if isinstance(key, str) else int(key)
        if not 0 <= index < SQUARES:
            raise ValueError(f"LED square index {index} is off the board")
        try:
            rgb, pattern = value
            r, g, b = rgb
        except (TypeError, ValueError):
            raise ValueError(f"LED for {key}: expected ((r, g, b), pattern)") from None
        style = parse_pattern(pattern)
        colour = scale((r, g, b), brightness)
        if colour == (0, 0, 0):
            cells[index] = 0
            continue
        if colour not in palette:
            if len(palette) == PALETTE_SIZE:
                raise ValueError(
                    f"at most {PALETTE_SIZE - 1} distinct LED colours can be lit at once"
                )
            palette.append(colour)
        cells[index] = palette.index(colour) | style << 4
    palette += [(0, 0, 0)] * (PALETTE_SIZE - len(palette))
    return bytes(c for rgb in palette for c in rgb) + bytes(cells)


def decode_led_payload(payload: bytes) -> dict[int, tuple[Rgb, LedPattern]]:
    """The lit squares of a SET_LEDS payload (for tests and logs)."""
    palette = [tuple(payload[i:i + 3]) for i in range(0, 24, 3)]
    out: dict[int, tuple[Rgb, LedPattern]] = {}
    for sq, b in enumerate(payload[24:88]):
        rgb = palette[b & 0x0F] if (b & 0x0F) < PALETTE_SIZE else (0, 0, 0)
        if rgb != (0, 0, 0):
            out[sq] = ((rgb[0], rgb[1], rgb[2]), LedPattern(b >> 4))
    return out
