"""What a result may say: the reasons a game ends with, and the checks that refuse a
result which cannot be true, each with the reason it cannot.

Reasons (``Game.reason``):

* ``normal`` — the board decided: the disc count names the winner (32–32, or any
  equal count, is won by the draw-win holder, since no division plays draws).
* ``time`` — rule 13: one player's time ran out; the count is what the board held.
* ``both_flags`` — rule 14: both flags fell unnoticed; the draw-win holder wins and
  「この試合結果はレーティングには算入しない」.
* ``foul`` — rule 18: the arbiter declared 反則負け; the count is what the board held.
* ``forfeit`` — rule 12: 不戦勝/不戦敗, no game was played; not rated.  Entered with
  the forfeit action, never as a board result.
"""

from __future__ import annotations

from typing import Any

from controller.boardsize import STANDARD, board_size
from controller.scorecard import LATE_STATES, LOST_UNPLAYED
from controller.tournament.game import OUTCOMES, Game
from controller.tournament.model import TournamentError

REASONS = ("normal", "time", "both_flags", "foul", "forfeit")
#: Results the rating list never sees (rule 12, rule 14).
UNRATED = frozenset({"both_flags", "forfeit"})
REASON_TEXT = {
    "normal": "",
    "time": "on time (rule 13)",
    "both_flags": "both flags fell (rule 14, not rated)",
    "foul": "反則負け (rule 18)",
    "forfeit": "不戦勝/不戦敗 (rule 12, not rated)",
}
#: The board starts with four discs and every move adds one.
FEWEST_DISCS = 4


def check_discs(table: int | None, discs: Any, size: int = STANDARD) -> tuple[int, int]:
    """``discs`` as a board count on the event's ``size`` board, or the refusal: two
    whole numbers, each 0 to the board's squares, together at most its squares and at
    least the four discs a board starts with."""
    if not isinstance(discs, list | tuple) or len(discs) != 2:
        raise TournamentError(f"table {table}: discs must be two counts, black's and "
                              f"white's, not {discs!r}"[:200])
    b, w = discs
    for value in (b, w):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TournamentError(f"table {table}: discs must be whole numbers, not "
                                  f"{value!r}"[:200])
    squares = board_size(size).squares
    if b < 0 or w < 0 or b + w > squares:
        raise TournamentError(f"table {table}: discs {b}-{w} are not a board count "
                              f"on {board_size(size).a_label} board (0–{squares} each, at "
                              f"most {squares} together)")
    if b + w < FEWEST_DISCS:
        raise TournamentError(
            f"table {table}: discs {b}-{w} cannot be on a board, which starts with 4 "
            "discs; leave the count out when it is not known (it is written (0) in the "
            "rating file)")
    return b, w


def read_discs(table: int | None, value: Any, size: int = STANDARD) -> tuple[int, int] | None:
    """A stored or sent action's ``discs``: absent (``None`` or ``[]``: the count is not
    known), else a board count (:func:`check_discs`)."""
    if value is None or (isinstance(value, list) and not value):
        return None
    return check_discs(table, value, size)


def result_winner(g: Game, outcome: str, discs: tuple[int, int] | None,
                  reason: str, size: int = STANDARD) -> str:
    """The winner ``outcome`` names at game ``g`` for ``reason`` on the event's ``size``
    board, or a refusal."""
    t = g.table
    if reason not in REASONS:
        raise TournamentError(f"table {t}: the reason must be one of "
                              f"{', '.join(REASONS)}, not {reason!r}")
    if reason == "forfeit":
        raise TournamentError(f"table {t}: a forfeit is entered as one (who did not "
                              "play), not as a board result")
    if outcome not in OUTCOMES:
        raise TournamentError(f"table {t}: outcome must be black, white or draw")
    if discs is not None:
        discs = check_discs(t, discs, size)
    late = g.late
    if late is not None and late.state in LOST_UNPLAYED:
        how = ("took the forfeit" if late.state == "forfeit"
               else "ran out of time before arriving")
        raise TournamentError(f"table {t}: {late.player} {how} (rule 12), so no game was "
                              f"played; the result is {late.player}'s forfeit, not a "
                              "board result")
    if late is not None and LATE_STATES.index(late.state) < LATE_STATES.index("arrived"):
        raise TournamentError(f"table {t}: {late.player} is still {late.state} and has "
                              "not arrived, so no game was played; record the arrival "
                              "(or the time-out) first")
    if reason in ("time", "foul") and outcome == "draw":
        raise TournamentError(f"table {t}: a game lost {REASON_TEXT[reason]} has a "
                              "winner; enter black or white")
    if reason == "both_flags" or outcome == "draw":
        if g.draw_win is None:
            why = ("both flags fell, which" if reason == "both_flags"
                   else "a drawn board")
            raise TournamentError(
                f"table {t}: {why} needs the draw-win holder; record the 伏せ石 "
                "first (tournament toss)")
        if reason == "both_flags" and outcome != "draw":
            named = g.black if outcome == "black" else g.white
            if named != g.draw_win:
                raise TournamentError(
                    f"table {t}: both flags fell (rule 14): the draw-win holder "
                    f"{g.draw_win} wins, not {named}")
    if reason == "normal" and discs is not None:
        b, w = discs
        said = ("black" if b > w else "white" if w > b else "draw")
        if said != outcome:
            raise TournamentError(
                f"table {t}: {outcome} declared the winner at {b}-{w}, but the discs "
                f"say {'a drawn board' if said == 'draw' else said}; enter the count "
                "the players signed, or the reason (time, foul) if the board did not "
                "decide it")
    if reason == "both_flags" or outcome == "draw":
        assert g.draw_win is not None
        return g.draw_win
    winner = g.black if outcome == "black" else g.white
    assert winner is not None
    return winner
