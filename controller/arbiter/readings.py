"""From raw board strings to the board the arbiter trusts.

A sensor frame may hide squares under a hand (``?``) or misread one square for a
single frame. The arbiter therefore keeps, per square, the last value that two
consecutive definite readings agreed on (``?`` readings are skipped, not counted):
a one-frame misread never becomes a fact, and a square hidden by a hand keeps its
last confirmed value. Everything is done on bitboards so a frame costs a few
integer operations.
"""

from __future__ import annotations

from dataclasses import dataclass

FULL = (1 << 64) - 1

_BLACK = str.maketrans("-XO?xo", "010010")
_WHITE = str.maketrans("-XO?xo", "001001")
_SHIFT = str.maketrans("-XO?xo", "000011")
_KNOWN = str.maketrans("-XO?xo", "111011")

_CACHE: dict[str, tuple[int, int, int, int]] = {}
_CACHE_LIMIT = 1 << 14


def frame_masks(board: str) -> tuple[int, int, int, int]:
    """``(black, white, shifted, known)`` bitboards of an 8x8 observation string.

    Shifted discs count in their colour's mask too; ``known`` is every square not ``?``.
    Results are memoised because a still board repeats the same string for minutes.
    """
    hit = _CACHE.get(board)
    if hit is not None:
        return hit
    if len(board) != 64 or board.strip("-XO?xo"):
        raise ValueError(f"not an 8x8 observation board string: {board!r}")
    masks = (
        int(board.translate(_BLACK)[::-1], 2),
        int(board.translate(_WHITE)[::-1], 2),
        int(board.translate(_SHIFT)[::-1], 2),
        int(board.translate(_KNOWN)[::-1], 2),
    )
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[board] = masks
    return masks


@dataclass(slots=True)
class StableBoard:
    """Confirmed disc masks plus the previous definite reading of every square."""

    black: int
    white: int
    shifted: int
    prev_black: int
    prev_white: int
    prev_shifted: int

    @classmethod
    def of(cls, black: int, white: int, shifted: int = 0) -> StableBoard:
        return cls(black, white, shifted, black, white, shifted)

    def update(self, black: int, white: int, shifted: int, known: int) -> bool:
        """Fold one frame in; return True if a confirmed square changed."""
        same = known & ~(
            (black ^ self.prev_black) | (white ^ self.prev_white) | (shifted ^ self.prev_shifted)
        )
        keep = FULL & ~known
        self.prev_black = (self.prev_black & keep) | black
        self.prev_white = (self.prev_white & keep) | white
        self.prev_shifted = (self.prev_shifted & keep) | shifted
        nb = (self.black & ~same) | (black & same)
        nw = (self.white & ~same) | (white & same)
        ns = (self.shifted & ~same) | (shifted & same)
        if nb == self.black and nw == self.white and ns == self.shifted:
            return False
        self.black, self.white, self.shifted = nb, nw, ns
        return True

    def masks(self) -> tuple[int, int, int]:
        return self.black, self.white, self.shifted

    def to_list(self) -> list[int]:
        return [self.black, self.white, self.shifted,
                self.prev_black, self.prev_white, self.prev_shifted]

    @classmethod
    def from_list(cls, data: list[int]) -> StableBoard:
        return cls(*(int(v) for v in data))
