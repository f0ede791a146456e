"""One reading of a board's squares: what the reader, the learned second opinion,
the calibration and the watcher all pass between them, and why a square is ``?``."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from controller.boardsize import size_of_board_string

FOREIGN_SQUARE = 0.02  # fraction of foreign pixels that makes a square unknown

#: Why a square reads ``?``: something over it (a hand, an arm, a sleeve), a lamp's
#: reflection washing out what is under it, two readings too close to call (half
#: felt, a grey between black and white, a disc between placed and shifted), or the
#: square lies partly outside the picture.
OCCLUDED, GLARE, AMBIGUOUS, OUTSIDE = "occluded", "glare", "ambiguous", "outside"
REASONS = (OCCLUDED, GLARE, AMBIGUOUS, OUTSIDE)


@dataclass(frozen=True)
class Reading:
    """What one frame shows, in a1..h8 order of the layout's board coordinates."""

    board: str
    confidence: np.ndarray  # (64,) 0..1
    felt_top: np.ndarray  # (64,) felt fraction on the disc-top pattern
    felt_base: np.ndarray
    log_ratio: np.ndarray  # (64,) log(disc grey / felt grey), nan where no disc
    foreign: np.ndarray  # (64,) fraction of foreign-coloured pixels
    felt_grey: np.ndarray  # (64,) local felt brightness
    felt_corners: np.ndarray  # (64,) felt fraction in the square's corners (plain felt)
    blocked: np.ndarray  # (64,) bools: hidden by something that is neither felt nor disc
    glare: np.ndarray | None = None  # (64,) bools: a disc top that may be washed-out felt
    reasons: tuple[str, ...] = ()  # per square: why it reads '?' (see REASONS), else ''
    learned: tuple[int, ...] = ()  # squares the learned model decided (the rules gave '?')

    @property
    def hand(self) -> bool:
        return bool((self.foreign > FOREIGN_SQUARE).any())

    @property
    def n(self) -> int:
        """The board's columns and rows, as the board string's length says."""
        return size_of_board_string(self.board)

    @property
    def rows(self) -> list[str]:
        n = self.n
        return [self.board[r * n : r * n + n] for r in range(n)]

    def unknown_for(self, reason: str) -> np.ndarray:
        """Per square, bools: the squares that read ``?`` for ``reason`` (one of REASONS)."""
        return np.array([why == reason for why in self.reasons or ("",) * len(self.board)])


def unread(r: Reading, squares: list[int], reason: str) -> Reading:
    """``r`` with ``squares`` read ``?`` for ``reason``."""
    if not squares:
        return r
    board, conf = list(r.board), r.confidence.copy()
    why = list(r.reasons) if r.reasons else [""] * len(r.board)
    for i in squares:
        board[i], conf[i], why[i] = "?", 0.0, reason
    return replace(r, board="".join(board), confidence=conf, reasons=tuple(why))
