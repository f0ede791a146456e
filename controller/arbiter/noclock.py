"""Without a clock: where one move ends and the next begins.

As docs/arbiter.md ("When a move is judged") puts it, a move is judged when the next
move begins, *a new disc of the other colour appears*. "Other" means the colour of
the player who moves next: the opponent, or the mover again when the opponent has no
legal move on the board the mover left. So a second disc of the mover's own colour
(an extra disc, or one put down and taken back) stays inside the mover's turn, and a
single disc of the other colour with no disc of the mover's beside it is the mover's
own wrong-colour disc, not a new turn. The board judged is the settled board just
before the next mover's disc went down (kept per frame in a short history, because
hands hide squares).
"""

from __future__ import annotations

from controller.arbiter.config import ArbiterConfig
from controller.arbiter.judge import judge
from controller.arbiter.readings import stood
from controller.arbiter.state import OVER, TURN, ArbiterState
from controller.arbiter.turns import judge_turn
from controller.bitboard import Geometry, bit_indices
from controller.events import Event
from controller.squares import Color

HISTORY_LIMIT = 4096  # frames kept for one turn without a clock


def next_mover(mover: Color, board: tuple[int, int], geo: Geometry) -> Color:
    """Who moves after ``mover`` left ``board`` (black, white): the opponent, unless only
    the mover has a legal move there."""
    black, white = board
    own, opp = (black, white) if mover is Color.BLACK else (white, black)
    if not geo.legal_moves(opp, own) and geo.legal_moves(own, opp):
        return mover
    return mover.opponent


def without_clock(s: ArbiterState, config: ArbiterConfig, t: float, occ: int, known: int,
                  changed: bool) -> list[Event]:
    """No clock (yet): keep the frame's history; judge when the next mover's disc appears."""
    sb = s.stable
    hist = s.history
    prev = hist[-1][2:4] if hist else s.base[:2]
    hist.append((occ, known, sb.black, sb.white, sb.shifted, t))
    if len(hist) > HISTORY_LIMIT:  # a turn that never ends: keep its recent part
        half = len(hist) // 2
        s.base = hist[half - 1][2:5]
        del hist[:half]
    if not changed:
        return []
    pos = s.position
    occ0 = pos.black | pos.white
    new = (sb.black | sb.white) & ~occ0
    if not new:
        return []
    if s.clock is None:
        s.clock = False
        s.phase = TURN
    if s.first is None:
        s.first = (new & -new).bit_length() - 1
    if s.phase == OVER:
        return []
    # Discs that just appeared on an empty square. (A new disc that only changes
    # colour is a disc already judged or turned by a hand: not a new move.)
    newest = new & ~(prev[0] | prev[1])
    if not newest:
        return []
    return _maybe_next_move(s, config, t, newest)


def _maybe_next_move(s: ArbiterState, config: ArbiterConfig, t: float, newest: int
                     ) -> list[Event]:
    """A disc just appeared: judge the move before it if it is the next mover's disc."""
    sb = s.stable
    mover = s.position.to_move
    occ0 = s.position.black | s.position.white
    # Discs seen first together: the one whose hand came first began its move first.
    found = [(_before_disc(s, config, 1 << sq), sq) for sq in bit_indices(newest)]
    for (snap, cut), sq in sorted(found, key=lambda f: (f[0][1], f[1])):
        bit = 1 << sq
        colour = Color.BLACK if sb.black & bit else Color.WHITE
        black, white = snap[0], snap[1]
        if not (black | white) & ~occ0:
            continue  # nothing of the mover's move stood before it: still the mover's turn
        # Who moves next is read on the board the mover's move should leave, not on
        # the board seen: a hand may turn the first discs of the next move before
        # its disc is seen, or the last of the move before only with it.
        if colour is not next_mover(mover, _should_leave(s, mover, snap),
                                    s.position.geometry):
            continue  # the mover's own extra disc (or one put down and taken back)
        events = judge_turn(s, config, t, mover, *snap)
        s.base = snap
        s.history = s.history[cut:]
        return events
    return []


def _should_leave(s: ArbiterState, mover: Color, snap: tuple[int, int, int]) -> tuple[int, int]:
    """The board the move on ``snap`` should leave: its legal move played, or ``snap``."""
    j = judge(s.position.with_to_move(mover), 0, mover, snap[0], snap[1], 0, s.first)
    if j.square is None or not j.flips:
        return snap[0], snap[1]
    return j.correct.black, j.correct.white


def _before_disc(s: ArbiterState, config: ArbiterConfig, bit: int
                 ) -> tuple[tuple[int, int, int], int]:
    """The confirmed board just before the disc on ``bit`` went down, and its frame.

    The square is a new disc, so it is empty in the official position: frames
    since then that never read it definitely (a hand resting over it all along)
    count as reading it empty, so the board before the disc is known without
    waiting to see the square empty (see :func:`_unread_before`).
    """
    hist = s.history
    i = len(hist) - 1
    black = bool(s.stable.black & bit)
    while i >= 0 and (hist[i][2] if black else hist[i][3]) & bit:
        i -= 1  # confirmed frames; a later one-frame misread of the square is ignored
    if config.settled:
        # Every reading counted as it came: the last frame that read the square
        # empty shows the board just before the hand put the disc down there.
        last = i
        while i >= 0 and not hist[i][1] & bit:
            i -= 1
        if i < 0:
            return _unread_before(s, last, bit)
        return hist[i][2:5], i
    return _held_before(s, i, bit)


def _held_before(s: ArbiterState, i: int, bit: int) -> tuple[tuple[int, int, int], int]:
    """The confirmed board just before the disc on ``bit`` went down, and the index
    of its frame, searching back from frame ``i`` (raw frames).

    That is the frame after the latest definite reading of the square as empty
    that held: the next definite reading agrees (a single misread cannot fake a
    pair), or it stood until the next frame; that frame confirmed the board. (The
    later reading of a pair may be a misread of the disc under a lifting hand, and
    the frame after it part of the next move.) With no such reading, the frames
    up to the square's first definite reading count as reading it empty
    (:func:`_unread_before`).
    """
    hist = s.history
    later_empty = False
    first_read = i  # the earliest frame that read the square definitely
    while i >= 0:
        occ, known = hist[i][0], hist[i][1]
        if known & bit:
            empty = not occ & bit
            if empty and (later_empty or stood(hist[i][5], hist[i + 1][5])):
                return hist[i + 1][2:5], i + 1
            later_empty = empty
            first_read = i
        i -= 1
    return _unread_before(s, first_read, bit)


def _unread_before(s: ArbiterState, i: int, bit: int) -> tuple[tuple[int, int, int], int]:
    """The board before the disc on ``bit``, a square no frame before ``i`` read
    since the official position (where it is empty), and the index of its frame.

    The disc went down somewhere under the hand, so frame ``i`` may already hold
    the first flips of the move it begins: the board is the latest frame up to
    ``i`` that turns no disc of the official position to the new disc's colour.
    The move before it, by the other colour, never does: its flips and faults
    show its mover's colour, and its corrections turn discs back to how that
    position has them. A disc of the mover's own colour (the opponent passing)
    cannot be told from the mover's own flips that way, so it gets the board the
    turn began with: the move is then judged on a later disc or at the end.
    """
    hist = s.history
    new_black = bool(s.stable.black & bit)
    if new_black is (s.position.to_move is Color.BLACK):
        return s.base, 0
    theirs = s.position.white if new_black else s.position.black
    while i >= 0 and (hist[i][2] if new_black else hist[i][3]) & theirs:
        i -= 1
    return (hist[i][2:5], i) if i >= 0 else (s.base, 0)
