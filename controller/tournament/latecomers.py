"""Late arrivals and forfeits (rules 11–12) as the director records them.

The table runs the late player's clock and asks whether they play on or take the
forfeit (``controller.scorecard``); the director keeps each table's latest state so
the pairing sheet, the hub and ``event.json`` can show it, and records a forfeit as
a result that counts in the standings but is left out of the rating list.
"""

from __future__ import annotations

from controller.scorecard import LATE_STATES
from controller.tournament.game import Game, LateReport, Round
from controller.tournament.model import TournamentError

#: The order a late arrival moves in; a report may skip states but never go back.
_ORDER = {s: k for k, s in enumerate(LATE_STATES)}


def _game(current: Round | None, table: int, player: str) -> Game:
    if current is None:
        raise TournamentError(f"no round has been paired, so no table {table}")
    g = current.table(table)
    if player not in (g.first, g.second):
        raise TournamentError(f"table {table}: {player!r} does not play there")
    return g


#: Before the late player arrives their time left is not known; from arrival on, it is.
_BEFORE_ARRIVAL = ("absent", "clock_running")
#: Rule 12: on arrival the late player plays on or takes the forfeit.
_CHOSEN_ON_ARRIVAL = ("playing", "forfeit")


def report_late(current: Round | None, table: int, player: str, state: str,
                remaining_ms: int | None = None, minutes: int | None = None) -> bool:
    """Note that ``player`` is late at ``table`` of the ``current`` round in ``state``;
    False when nothing changed.  Steps follow the table's score card
    (``controller.scorecard.LateArrival``): a report may skip a step it implies, never
    go back, and the time left on arrival lies within the event's time."""
    g = _game(current, table, player)
    if state not in LATE_STATES:
        raise TournamentError(f"table {table}: late state must be one of "
                              f"{', '.join(LATE_STATES)}, not {state!r}")
    if remaining_ms is not None and (isinstance(remaining_ms, bool)
                                     or not isinstance(remaining_ms, int) or remaining_ms < 0):
        raise TournamentError(f"table {table}: remaining time must be whole milliseconds "
                              f"≥ 0, not {remaining_ms!r}")
    if remaining_ms is not None and minutes is not None and remaining_ms > minutes * 60_000:
        raise TournamentError(
            f"table {table}: {player} cannot have {_clock(remaining_ms)} left in a "
            f"{minutes}-minute event")
    if remaining_ms is not None and state in _BEFORE_ARRIVAL:
        raise TournamentError(f"table {table}: {player} is {state}: the time left is "
                              "known only on arrival")
    if state == "arrived" and remaining_ms == 0:
        raise TournamentError(f"table {table}: {player} arrived with no time left, which "
                              "is timed_out")
    if state == "timed_out" and remaining_ms:
        raise TournamentError(f"table {table}: {player} timed out, so has no time left, "
                              f"not {_clock(remaining_ms)}")
    implied = remaining_ms is not None  # this report carries the arrival's time
    if remaining_ms is None and g.late is not None:
        remaining_ms = g.late.remaining_ms  # a later report need not repeat it
    new = LateReport(player, state, remaining_ms)
    if g.late == new:
        return False
    if g.late is not None:
        if g.late.player != player:
            raise TournamentError(f"table {table}: {g.late.player} is the late player "
                                  f"there, not {player}")
        if _ORDER[state] < _ORDER[g.late.state] or g.late.state in ("playing", "forfeit",
                                                                      "timed_out"):
            raise TournamentError(f"table {table}: {player} is already {g.late.state}; "
                                  f"refusing {state}")
    before = "absent" if g.late is None else g.late.state
    if state in _CHOSEN_ON_ARRIVAL and before in _BEFORE_ARRIVAL and not implied:
        raise TournamentError(
            f"table {table}: {player} has not arrived (still {before}); record the "
            "arrival with the time left first (rule 12: the choice comes on arrival)")
    if g.done:
        raise TournamentError(f"table {table} already has a result")
    g.late = new
    return True


def _clock(ms: int) -> str:
    s = ms // 1000
    return f"{s // 60}:{s % 60:02d}"


def forfeit_outcome(current: Round | None, table: int,
                    loser: str) -> tuple[Game, str, str]:
    """(game, outcome, winner) of ``loser``'s forfeit at ``table`` of the ``current``
    round, checked: with a late arrival on record, only the late player forfeits,
    and only before choosing to play (rule 12)."""
    g = _game(current, table, loser)
    winner = g.second if loser == g.first else g.first
    assert winner is not None  # a table always has two players
    outcome = "black" if winner == g.black else "white"
    if g.done:
        if g.forfeit and g.winner == winner:
            return g, outcome, winner
        raise TournamentError(f"table {table} already has the result {g.outcome}"
                              f"{' (forfeit)' if g.forfeit else ''}; refusing {loser}'s "
                              "forfeit")
    late = g.late
    if late is not None:
        if late.player != loser:
            raise TournamentError(f"table {table}: {late.player} is the late player there; "
                                  f"{loser} came on time and cannot forfeit as late")
        if late.state == "playing":
            raise TournamentError(f"table {table}: {loser} arrived and chose to play "
                                  "(rule 12: the forfeit is chosen on arrival); enter "
                                  "the game's result")
    return g, outcome, winner
