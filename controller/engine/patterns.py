"""The own engine's midgame evaluation: pattern weights learned from WTHOR games.

A position is seen as 38 lines and corners — the four edges, the rows and columns
two to four squares in, the diagonals of four to eight squares, the four 3x3
corners — each read as a base-3 number (empty 0, mover 1, opponent 2), plus the
mobility difference. Each kind of pattern has one table of weights per game phase
(discs on the board, in steps of :data:`PHASE_DISCS`), shared by the pattern's
copies under the board's symmetries; the score is the sum of the looked-up weights,
in discs from the mover's view. The weights are fitted by least squares in
``training/train_patterns.py`` and shipped as ``data/patterns.npz`` beside this
module.

Reading the patterns is a handful of shifts and table look-ups per line, so a
position costs about as much as the square weights it replaces.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from controller.bitboard import legal_moves

DATA_FILE = Path(__file__).with_name("data") / "patterns.npz"
#: Phases: discs on the board 4-13, 14-23, ... 54-64.
PHASE_DISCS = 10
PHASES = 6
#: Stored weights are integers in this fraction of a disc.
SCALE = 64


def _tern(bits: int) -> list[int]:
    """Base-3 value of each ``bits``-bit number's set bits (bit i -> 3**i)."""
    return [sum(3 ** i for i in range(bits) if v >> i & 1) for v in range(1 << bits)]


TERN8 = _tern(8)
TERN9 = _tern(9)
_REV3 = [((v & 1) << 2) | (v & 2) | (v >> 2) for v in range(8)]
_MAGIC = 0x0101_0101_0101_0101


def _diagonals() -> list[tuple[int, int, int]]:
    """(mask, lowest column, length) of every diagonal of 4 to 8 squares."""
    out = []
    for k in range(-4, 5):
        for anti in (False, True):
            cells = [(r, c) for r in range(8) for c in range(8)
                     if (r + c == 7 + k if anti else r - c == k)]
            mask = sum(1 << (r * 8 + c) for r, c in cells)
            out.append((mask, min(c for _, c in cells), len(cells)))
    return out


DIAGONALS = _diagonals()
#: Tables: name -> number of entries.
TABLES: dict[str, int] = {"edge": 3 ** 8, "row2": 3 ** 8, "row3": 3 ** 8, "row4": 3 ** 8,
                          "diag8": 3 ** 8, "diag7": 3 ** 7, "diag6": 3 ** 6,
                          "diag5": 3 ** 5, "diag4": 3 ** 4, "corner": 3 ** 9}
OFFSET: dict[str, int] = {}
_at = 0
for _name, _size in TABLES.items():
    OFFSET[_name] = _at
    _at += _size
#: Entries per phase: the tables, then the mobility weight, then the bias.
MOBILITY = _at
BIAS = _at + 1
SIZE = _at + 2
_ROWS = tuple((8 * r, OFFSET[("edge", "row2", "row3", "row4")[min(r, 7 - r)]])
              for r in range(8))
_DIAGS = tuple((mask, low, OFFSET[f"diag{n}"]) for mask, low, n in DIAGONALS)


def transpose(x: int) -> int:
    """The board mirrored in the a1-h8 diagonal (row and column swapped)."""
    t = 0x0F0F_0F0F_0000_0000 & (x ^ (x << 28))
    x ^= t ^ (t >> 28)
    t = 0x3333_0000_3333_0000 & (x ^ (x << 14))
    x ^= t ^ (t >> 14)
    t = 0x5500_5500_5500_5500 & (x ^ (x << 7))
    x ^= t ^ (t >> 7)
    return x & 0xFFFF_FFFF_FFFF_FFFF


def phase_of(p: int, o: int) -> int:
    return min(PHASES - 1, ((p | o).bit_count() - 4) // PHASE_DISCS)


def _corner_bits(b: int) -> tuple[int, int, int, int]:
    """The 3x3 corner of each corner as 9 bits, row by row from the corner out."""
    r0, r1, r2 = b & 255, b >> 8 & 255, b >> 16 & 255
    r7, r6, r5 = b >> 56 & 255, b >> 48 & 255, b >> 40 & 255
    rev = _REV3
    return ((r0 & 7) | (r1 & 7) << 3 | (r2 & 7) << 6,
            rev[r0 >> 5] | rev[r1 >> 5] << 3 | rev[r2 >> 5] << 6,
            (r7 & 7) | (r6 & 7) << 3 | (r5 & 7) << 6,
            rev[r7 >> 5] | rev[r6 >> 5] << 3 | rev[r5 >> 5] << 6)


def features(p: int, o: int) -> list[int]:
    """Index into a phase's weights of each of the 38 patterns (training, tests)."""
    t8 = TERN8
    out = []
    pt, ot = transpose(p), transpose(o)
    for a, b in ((p, o), (pt, ot)):
        for shift, off in _ROWS:
            out.append(off + t8[a >> shift & 255] + 2 * t8[b >> shift & 255])
    for mask, low, off in _DIAGS:
        pb = ((p & mask) * _MAGIC >> 56 & 255) >> low
        ob = ((o & mask) * _MAGIC >> 56 & 255) >> low
        out.append(off + t8[pb] + 2 * t8[ob])
    corner = OFFSET["corner"]
    for pc, oc in zip(_corner_bits(p), _corner_bits(o), strict=True):
        out.append(corner + TERN9[pc] + 2 * TERN9[oc])
    return out


def mobility(p: int, o: int) -> int:
    return legal_moves(p, o).bit_count() - legal_moves(o, p).bit_count()


class PatternEvaluator:
    """``evaluate(p, o)``: the mover's expected final margin, in discs."""

    def __init__(self, weights: list[list[float]]) -> None:
        if len(weights) != PHASES or any(len(w) != SIZE for w in weights):
            raise ValueError(f"pattern weights must be {PHASES} phases of {SIZE}")
        self.weights = weights

    def __call__(self, p: int, o: int) -> float:
        w = self.weights[min(PHASES - 1, ((p | o).bit_count() - 4) // PHASE_DISCS)]
        t8 = TERN8
        s = w[BIAS] + w[MOBILITY] * (legal_moves(p, o).bit_count()
                                     - legal_moves(o, p).bit_count())
        for shift, off in _ROWS:
            s += w[off + t8[p >> shift & 255] + 2 * t8[o >> shift & 255]]
        pt, ot = transpose(p), transpose(o)
        for shift, off in _ROWS:
            s += w[off + t8[pt >> shift & 255] + 2 * t8[ot >> shift & 255]]
        for mask, low, off in _DIAGS:
            s += w[off + t8[((p & mask) * _MAGIC >> 56 & 255) >> low]
                   + 2 * t8[((o & mask) * _MAGIC >> 56 & 255) >> low]]
        corner = OFFSET["corner"]
        t9 = TERN9
        for pc, oc in zip(_corner_bits(p), _corner_bits(o), strict=True):
            s += w[corner + t9[pc] + 2 * t9[oc]]
        return s


@cache
def load_evaluator(path: Path = DATA_FILE) -> PatternEvaluator | None:
    """The shipped weights, or None when the file is missing (square weights then)."""
    if not path.is_file():
        return None
    import numpy as np

    with np.load(path) as data:
        stored = data["weights"]
        scale = float(data["scale"])
    if stored.shape != (PHASES, SIZE):
        raise ValueError(f"{path.name}: weights of shape {stored.shape}, not "
                         f"{(PHASES, SIZE)}")
    return PatternEvaluator((stored.astype(np.float64) / scale).tolist())
