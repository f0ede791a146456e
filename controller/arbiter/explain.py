"""Explaining a board by legal play: how the arbiter finds its step again.

When a judged board is not the expected player's single move, the arbiter asks
whether legal play explains it exactly: one legal move per new disc, each by the
player whose colour the disc shows, from the official position (which already
holds every fault left on the board). Such a board is reached without a fault:
a clock press was forgotten, a turn boundary was missed, or the players saw the
turn otherwise and both played on. Flagging it would cost a false flag on every
later move; adopting it costs nothing but a note. One move alone by the side not
to move, pressed while the side to move could play, is not among them: that is a
move out of turn (:func:`out_of_turn`), a fault the opponent may point out.
Pure and small: at most :data:`LIMIT` new discs are searched (each in any order,
by either player), and only for boards that would otherwise be flagged.
"""

from __future__ import annotations

from controller.arbiter.state import ArbiterState
from controller.bitboard import Geometry, bit_indices
from controller.events import Event
from controller.events import move as move_event
from controller.events import pass_ as pass_event
from controller.events import resync as resync_event
from controller.position import Position
from controller.records.model import Move
from controller.squares import Color, square_name, squares_of

LIMIT = 4  # new discs searched; more than this many plies unseen is not play but a reset

Ply = tuple[Color, int]


def in_rules_order(before: Position, plies: tuple[Ply, ...]) -> bool:
    """Whether ``plies`` are the turns the rules give from ``before`` (passes only when forced)."""
    pos = before
    for player, sq in plies:
        if player is not pos.to_move:
            if pos.legal_moves() or not pos.opponent_moves():
                return False
            pos = pos.pass_turn()
        pos = pos.play(sq)
    return True


def out_of_turn(before: Position, plies: tuple[Ply, ...]) -> bool:
    """Whether ``plies`` are one move by the side not to move while the side to move
    could play (手番の間違い, rule 5①): a fault, not a press forgotten (a press forgotten
    leaves plies in the rules' order, a pass forced included)."""
    return len(plies) == 1 and not in_rules_order(before, plies)


def legal_play(before: Position, black: int, white: int, lost_turn: bool = False,
               first: int | None = None) -> tuple[Ply, ...] | None:
    """Legal moves that turn ``before`` into exactly ``black``/``white``, or None.

    Every new disc is one move, by either player (a later move may turn it). The
    players take turns as the rules say (a pass only when forced), starting with the
    side to move or, with ``lost_turn`` (a press by the side not to move says the
    players see the turn otherwise), with the other side; a player who moves twice
    in a row without a forced pass is not legal play but a fault. Where two orders
    give the same board, the one starting with the disc put down ``first`` is taken.
    """
    occ0 = before.black | before.white
    if occ0 & ~(black | white):
        return None  # a disc went missing: no legal play removes one
    new = (black | white) & ~occ0
    if not new or new.bit_count() > LIMIT:
        return None
    found: list[tuple[Ply, ...]] = []
    _search(before.geometry, before.black, before.white, new, (), black, white, found)
    found.sort(key=lambda plies: plies[0][1] != first)
    for plies in found:
        if in_rules_order(before, plies):
            return plies
    if not lost_turn:
        return None
    lost = before.with_to_move(before.to_move.opponent)
    for plies in found:
        if in_rules_order(lost, plies):
            return plies  # the turn was lost once: play went on from the other side
    return None


def _search(geo: Geometry, b: int, w: int, left: int, plies: tuple[Ply, ...], black: int,
            white: int, found: list[tuple[Ply, ...]]) -> None:
    if not left:
        if b == black and w == white:
            found.append(plies)
        return
    for sq in bit_indices(left):
        for colour in (Color.BLACK, Color.WHITE):
            own, opp = (b, w) if colour is Color.BLACK else (w, b)
            if not geo.legal_moves(own, opp) >> sq & 1:
                continue
            f = geo.flips(own, opp, sq)
            own, opp = own | f | (1 << sq), opp & ~f
            nb, nw = (own, opp) if colour is Color.BLACK else (opp, own)
            _search(geo, nb, nw, left & ~(1 << sq), (*plies, (colour, sq)), black, white,
                    found)


def explained(s: ArbiterState, player: Color, black: int, white: int, lost_turn: bool = False
              ) -> tuple[Ply, ...] | None:
    """Legal play other than ``player``'s single move that gives this board, if any.

    With a clock the press names who moved last, so the play must end with them.
    """
    plies = legal_play(s.position, black, white, lost_turn, s.first)
    if plies is None or plies == ((s.position.to_move, plies[0][1]),):
        return None  # the expected single move: judged as such, faults and all
    if s.clock and plies[-1][0] is not player:
        return None
    return plies


def adopt(s: ArbiterState, t: float, plies: tuple[Ply, ...], black: int, white: int,
          shifted: int) -> list[Event]:
    """Take the board: moves in the rules' order are announced as moves (a press or a
    turn boundary was missed); any other order is a ``resync``. What follows a turn
    is the caller's (:func:`~controller.arbiter.turns.adopt_turn`)."""
    start = s.position
    size = start.size
    normal = in_rules_order(start, plies)
    events: list[Event] = []
    if not normal:
        diff = (black ^ start.black) | (white ^ start.white)
        events.append(resync_event(
            t, squares_of(diff, size), plies[-1][0].opponent.value,
            [f"{c.value} {square_name(sq, size)}" for c, sq in plies]))
    pos = start
    for player, sq in plies:
        if player is not pos.to_move:
            if normal:  # a pass the rules force
                events.append(pass_event(t, pos.to_move.value))
                s.moves.append(Move(pos.to_move, None))
            pos = pos.with_to_move(player)
        name = square_name(sq, size)
        if normal:
            events.append(move_event(t, player.value, name, squares_of(pos.flips(sq), size)))
        s.moves.append(Move(player, name, None, comment="" if normal else "resync"))
        pos = pos.play(sq)
    s.last_move = square_name(plies[-1][1], size)
    s.position = Position(black, white, plies[-1][0].opponent, size)
    s.shifted = shifted & (black | white)
    s.open = None
    s.first = None
    s.turn_t = t
    return events
