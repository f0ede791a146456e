"""From raw board strings to the board the arbiter trusts.

A sensor frame may hide squares under a hand (``?``) or misread one square for a
single frame. The arbiter therefore takes a square's reading as a fact only once
it is confirmed, by count or by time:

* the next definite reading of the square agrees (``?`` readings are skipped, not
  counted), as on a camera that reads the board frame after frame; or
* the reading stood: the next observation after its board came :data:`HOLD`
  seconds or more later (or a live service says that much time has passed), as on
  a source that reports a board only once it settled and then waits for the next
  change.

A one-frame misread is replaced by the next frame long before that, so it never
becomes a fact; a square hidden by a hand keeps its last confirmed value. An input
whose every board is already debounced (``ArbiterConfig.settled``, the sensor board)
needs neither: each definite reading is confirmed as it arrives.
Time is the observations' own ``t``, never a clock read. Everything is done on
bitboards so a frame costs a few integer operations.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.boardsize import STANDARD, board_size

#: Seconds a reading must stand, until the next observation, to count as confirmed
#: without a second reading. A camera's misread stands one frame (33 ms at 30 fps,
#: 0.1 s in the simulator); a hand needs longer than this to go from the last disc
#: it turned to the clock.
HOLD = 0.2
_EPS = 1e-9  # times are floats: 2.8 - 2.6 falls a hair short of 0.2

_BLACK = str.maketrans("-XO?xo", "010010")
_WHITE = str.maketrans("-XO?xo", "001001")
_SHIFT = str.maketrans("-XO?xo", "000011")
_KNOWN = str.maketrans("-XO?xo", "111011")

_CACHE: dict[str, tuple[int, int, int, int]] = {}
_CACHE_LIMIT = 1 << 14


def stood(since: float, until: float) -> bool:
    """A reading taken at ``since`` has stood long enough once ``until`` comes."""
    return until - since >= HOLD - _EPS


def frame_masks(board: str, size: int = STANDARD) -> tuple[int, int, int, int]:
    """``(black, white, shifted, known)`` bitboards of an observation string of a
    ``size`` board.

    Shifted discs count in their colour's mask too; ``known`` is every square not ``?``.
    Results are memoised because a still board repeats the same string for minutes.
    """
    hit = _CACHE.get(board)
    if hit is not None and len(board) == size * size:  # the length says the size
        return hit
    if len(board) != size * size or board.strip("-XO?xo"):
        raise ValueError(f"not {board_size(size).a_label} observation board string: {board!r}")
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
    """Confirmed disc masks, the latest definite reading of every square, and the
    readings of the latest board that only time can still confirm."""

    black: int
    white: int
    shifted: int
    prev_black: int
    prev_white: int
    prev_shifted: int
    #: Squares the latest board read definitely and that are not yet confirmed.
    fresh: int = 0
    #: Time of the latest board (None before the first).
    t: float | None = None

    @classmethod
    def of(cls, black: int, white: int, shifted: int = 0) -> StableBoard:
        return cls(black, white, shifted, black, white, shifted)

    def _stood(self, t: float) -> int:
        """The fresh squares, if the observation now at ``t`` comes late enough to confirm them."""
        if self.fresh and self.t is not None and stood(self.t, t):
            return self.fresh
        return 0

    def _confirm(self, mask: int) -> bool:
        """Take the latest definite reading of the squares in ``mask``; True if that changed."""
        nb = (self.black & ~mask) | (self.prev_black & mask)
        nw = (self.white & ~mask) | (self.prev_white & mask)
        ns = (self.shifted & ~mask) | (self.prev_shifted & mask)
        if nb == self.black and nw == self.white and ns == self.shifted:
            return False
        self.black, self.white, self.shifted = nb, nw, ns
        return True

    def update(self, black: int, white: int, shifted: int, known: int, t: float,
               settled: bool = False) -> bool:
        """Fold one frame in at time ``t``; return True if a confirmed square changed.

        ``settled``: the frame is already debounced, so its definite squares are
        confirmed at once (and nothing is left for time to confirm).
        """
        changed = self.elapse(t)
        agree = known if settled else known & ~(
            (black ^ self.prev_black) | (white ^ self.prev_white) | (shifted ^ self.prev_shifted)
        )
        keep = ~known  # the masks are never negative: no board-wide mask needed
        self.prev_black = (self.prev_black & keep) | black
        self.prev_white = (self.prev_white & keep) | white
        self.prev_shifted = (self.prev_shifted & keep) | shifted
        changed = self._confirm(agree) or changed
        self.fresh = known & (
            (self.prev_black ^ self.black) | (self.prev_white ^ self.white)
            | (self.prev_shifted ^ self.shifted)
        )
        self.t = t
        return changed

    def elapse(self, t: float) -> bool:
        """Time ``t`` has come: the latest board's fresh readings count if they stood
        until then. True if a confirmed square changed."""
        done = self._stood(t)
        if not done:
            return False
        self.fresh = 0
        return self._confirm(done)

    def settle(self, t: float) -> bool:
        """An observation without a board (a press) at ``t``: as :meth:`elapse`, and
        fresh readings that did not stand until now have had their chance (only a
        next agreeing reading can confirm them after this)."""
        changed = self.elapse(t)
        self.fresh = 0
        return changed

    def masks(self) -> tuple[int, int, int]:
        return self.black, self.white, self.shifted

    def due(self) -> float | None:
        """When the latest board's unconfirmed readings will have stood long enough."""
        return self.t + HOLD if self.fresh and self.t is not None else None

    def to_list(self) -> list[int | float | None]:
        return [self.black, self.white, self.shifted,
                self.prev_black, self.prev_white, self.prev_shifted, self.fresh, self.t]

    @classmethod
    def from_list(cls, data: list[int | float | None]) -> StableBoard:
        b, w, s, pb, pw, ps, fresh = (int(m or 0) for m in data[:7])
        t = data[7]
        return cls(b, w, s, pb, pw, ps, fresh, None if t is None else float(t))
