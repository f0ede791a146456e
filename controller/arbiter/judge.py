"""Judging one turn: the board before, the board now, who moved — and what went wrong.

This is the arbiter's rulebook (第41期名人戦 ルール細則 5①) as a pure function on
bitboards. It names exactly the discs the rules ask a player to name when pointing
out an irregular move, and it says what the board should look like, so a later
correction can be recognised square by square.

Decisions where the rules are silent:

* Several new discs: a disc on a legal square is the move before any disc on a
  square where no move is (such a disc can never be a move, rule 5③); among
  those, the one that best explains the board (its flips match, in the mover's
  colour). All new discs are the ``extra_disc`` squares.
* A wrong-colour disc is judged as the mover's move on that square: the discs that
  move turns are expected to show the mover's colour.
* A disc on an illegal square expects no flips, so any turned disc is ``over_flip``.
* ``shifted_disc`` only names discs shifted during this turn (new, turned or
  newly off centre); a shift nobody corrected belongs to the board and is not
  reported again.
* Two new discs that explain the board equally well: the one put down first is
  the move.
* ``out_of_turn`` (手番の間違い) is judged only on a board that is exactly one legal
  move of the player who pressed, played while the side to move could play (the
  arbiter's press handling says so): the disc is named; putting it right takes the
  disc back and turns back what it turned, and the side that was on move plays from
  the position before it.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.bitboard import Geometry, bit_indices
from controller.events import Irregularity
from controller.irregularities import REPORT_ORDER
from controller.position import Position
from controller.squares import Color


@dataclass(frozen=True, slots=True)
class Flag:
    """One irregularity: its kind, the squares to name, and the squares whose fix clears it."""

    kind: Irregularity
    squares: int
    fix: int


@dataclass(frozen=True, slots=True)
class Judgement:
    player: Color
    square: int | None  # the disc taken as the move; None when no disc was added (a pass)
    flips: int  # what the rules turn for that move (0 for an illegal square)
    flags: tuple[Flag, ...]
    physical: Position  # the board as it stands, opponent to move
    shifted: int  # shifted discs on the physical board
    correct: Position  # the board as it should be (before the move, if the move is void)

    @property
    def out_of_turn(self) -> bool:
        """A move by the side not to move: once put right, it is withdrawn and the side
        that was on move plays (the offender does not play again)."""
        return any(f.kind is Irregularity.OUT_OF_TURN for f in self.flags)

    @property
    def void(self) -> bool:
        """An illegal square or an illegal pass: once corrected, the mover plays again."""
        return any(f.kind in (Irregularity.ILLEGAL_SQUARE, Irregularity.ILLEGAL_PASS)
                   for f in self.flags)


def _choose(geo: Geometry, own0: int, opp0: int, own: int, new: int, legal: int,
            first: int | None) -> tuple[int, int]:
    """The new disc that best explains the board, and the flips the rules give it.

    On a tie the disc put down first wins: players place their move before anything else.
    """
    occ0 = own0 | opp0
    best: tuple[int, int, int, int, int] | None = None
    for sq in bit_indices(new):
        f = geo.flips(own0, opp0, sq) if legal >> sq & 1 else 0
        exp_own = own0 | f
        miss = ((own ^ exp_own) & occ0).bit_count()
        miss += 0 if own >> sq & 1 else 1
        rank = (0 if f else 1, miss, 0 if sq == first else 1, sq, f)
        if best is None or rank < best:
            best = rank
    assert best is not None
    return best[3], best[4]


def judge(
    before: Position, before_shifted: int, player: Color, black: int, white: int, shifted: int,
    first: int | None = None, out_of_turn: bool = False,
) -> Judgement:
    """Judge ``player``'s turn from ``before`` to the confirmed board ``black``/``white``.

    ``out_of_turn``: ``player`` moved while their opponent was to move (``before`` is
    given with ``player`` to move, as for every turn); the correct position is then
    ``before`` with the opponent to move."""
    if player is Color.BLACK:
        own0, opp0, own, opp = before.black, before.white, black, white
    else:
        own0, opp0, own, opp = before.white, before.black, white, black
    occ0 = own0 | opp0
    occ = own | opp
    new = occ & ~occ0
    geo = before.geometry
    legal = geo.legal_moves(own0, opp0)
    flags: list[Flag] = []
    square: int | None = None
    f = 0
    if new:
        square, f = _choose(geo, own0, opp0, own, new, legal, first)
        bit = 1 << square
        if out_of_turn and f:
            flags.append(Flag(Irregularity.OUT_OF_TURN, bit, bit | f))
        if opp & bit:
            flags.append(Flag(Irregularity.WRONG_COLOR, bit, bit))
        if not f:
            flags.append(Flag(Irregularity.ILLEGAL_SQUARE, bit, bit))
        if new & (new - 1):
            flags.append(Flag(Irregularity.EXTRA_DISC, new, new & ~bit))
    elif legal:
        flags.append(Flag(Irregularity.ILLEGAL_PASS, legal, 0))
    forgotten = f & opp
    if forgotten:
        flags.append(Flag(Irregularity.FORGOTTEN_FLIP, forgotten, forgotten))
    over = (own0 & opp) | (opp0 & ~f & own)
    if over:
        flags.append(Flag(Irregularity.OVER_FLIP, over, over))
    removed = occ0 & ~occ
    if removed:
        flags.append(Flag(Irregularity.REMOVED_DISC, removed, removed))
    turned = (own0 & opp) | (opp0 & own)
    moved = shifted & (~(before_shifted & occ0) | turned)
    if moved:
        flags.append(Flag(Irregularity.SHIFTED_DISC, moved, moved))
    flags.sort(key=lambda fl: REPORT_ORDER[fl.kind])

    if player is Color.BLACK:
        physical = Position(black, white, Color.WHITE, before.size)
    else:
        physical = Position(black, white, Color.BLACK, before.size)
    if out_of_turn:
        correct = before.with_to_move(player.opponent)
    elif square is not None and f:
        correct = before.with_to_move(player).play(square)
    elif square is None and not legal:
        correct = before.with_to_move(player.opponent)
    else:
        correct = before.with_to_move(player)
    return Judgement(player, square, f, tuple(flags), physical, shifted & occ, correct)


def fixed(flag: Flag, correct: Position, black: int, white: int, shifted: int) -> bool:
    """Whether the board now shows ``flag``'s squares as they should be."""
    m = flag.fix
    if not m:
        return False
    if (black ^ correct.black) & m or (white ^ correct.white) & m:
        return False
    return not (flag.kind is Irregularity.SHIFTED_DISC and shifted & m)
