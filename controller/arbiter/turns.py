"""Judging a turn: the move is told, recorded and made official; then passes and the end.

Every path that ends a turn comes here: a press, the next move beginning without a
clock, a point-out that proves a pass, the end of the input. A board that legal play
explains better than a fault is adopted instead (:mod:`~controller.arbiter.explain`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from controller.arbiter.config import ArbiterConfig
from controller.arbiter.explain import Ply, adopt, explained
from controller.arbiter.judge import Flag, judge
from controller.arbiter.state import OVER, TURN, ArbiterState, OpenMove, names
from controller.events import Event
from controller.events import game_over as game_over_event
from controller.events import irregularity as irregularity_event
from controller.events import move as move_event
from controller.events import pass_ as pass_event
from controller.records.model import Move
from controller.squares import Color, square_name


def judge_turn(s: ArbiterState, config: ArbiterConfig, t: float, player: Color, black: int,
               white: int, shifted: int, out_of_turn: bool = False) -> list[Event]:
    """``player``'s turn ends on the confirmed board ``black``/``white``: judge it.

    ``out_of_turn``: ``player`` moved while the side to move could play (a fault, not
    a board to explain); the side to move's time ran on, so their turn keeps its start
    and the move out of turn has no time of its own."""
    j = judge(s.position.with_to_move(player), s.shifted, player, black, white, shifted,
              s.first, out_of_turn)
    if j.flags and j.square is not None and not out_of_turn:
        plies = explained(s, player, black, white)
        if plies is not None:
            return adopt_turn(s, config, t, plies, black, white, shifted)
    s.first = None
    size = s.position.size
    events: list[Event] = []
    if j.square is None:
        events.append(pass_event(t, player.value))
    else:
        events.append(move_event(t, player.value, square_name(j.square, size),
                                 names(j.flips, size)))
    for flag in j.flags:
        events.append(irregularity_event(t, player.value, flag.kind,
                                         names(flag.squares, size)))
    used = None
    if s.clock and s.turn_t is not None and not out_of_turn:
        used = round(t - s.turn_t, 3)
    if not out_of_turn:
        s.turn_t = t
    s.moves.append(Move(player, None if j.square is None else square_name(j.square, size),
                        used, comment=_comment(j.flags, size)))
    if j.square is not None:
        s.last_move = square_name(j.square, size)
    s.position = j.physical
    s.shifted = j.shifted
    s.open = OpenMove(j, list(j.flags), len(s.moves) - 1) if s.clock and j.flags else None
    events.extend(after_turn(s, config, t))
    return events


def adopt_turn(s: ArbiterState, config: ArbiterConfig, t: float, plies: tuple[Ply, ...],
               black: int, white: int, shifted: int) -> list[Event]:
    """Take a board legal play explains (:func:`~controller.arbiter.explain.adopt`),
    then go on as after any turn."""
    events = adopt(s, t, plies, black, white, shifted)
    return events + after_turn(s, config, t)


def after_turn(s: ArbiterState, config: ArbiterConfig, t: float) -> list[Event]:
    """Passes without a clock are implied by the board; the end is when nobody can move."""
    pos = s.position
    s.phase = TURN
    if pos.is_game_over():
        if s.open is not None:
            return []  # rule 9: a faulty last move may still be pointed out and put right
        return end_game(s, config, t)
    if not s.clock and not pos.legal_moves():
        s.moves.append(Move(pos.to_move, None))
        events = [pass_event(t, pos.to_move.value)]
        s.position = pos.pass_turn()
        return events
    return []


def end_game(s: ArbiterState, config: ArbiterConfig, t: float) -> list[Event]:
    """The game is over as the official position stands: count it, with the draw rule."""
    s.phase = OVER
    b, w = s.position.final_score()
    s.result = (b, w)
    extra: dict[str, Any] = {}
    if b > w:
        winner = Color.BLACK.value
    elif w > b:
        winner = Color.WHITE.value
    else:
        holder = config.draw_winner()
        winner = holder.value if holder else "draw"
        if holder:
            extra["decided_by"] = "draw_win_right"
    return [game_over_event(t, b, w, winner, **extra)]


def _comment(flags: Iterable[Flag], size: int) -> str:
    return "; ".join(f"{f.kind.value} {' '.join(names(f.squares, size))}" for f in flags)
