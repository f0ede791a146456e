"""The hub's :class:`~controller.hub.results.Director` over the pure tournament core.

Kept apart from the result desk: the desk decides what a table's result means for the
event, this module only turns its calls into the event file's actions.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from controller.hub.results import Confirmed, Pairing, ResultError, Standing

if TYPE_CHECKING:
    from controller.tournament import Tournament

F = TypeVar("F", bound=Callable[..., Any])


def _locked(method: F) -> F:
    @functools.wraps(method)
    def run(self: TournamentDirector, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return run  # type: ignore[return-value]


class TournamentDirector:
    """:class:`Director` over the pure tournament core (``controller.tournament``).

    With ``path`` (the event's file of ``kaeshi tournament``), every result and pairing is
    committed there as the tournament command does it, so a restarted hub carries on.
    """

    def __init__(self, tournament: Tournament, path: Path | None = None) -> None:
        self.t = tournament
        self.path = path
        # the web app reads standings on its worker threads while a confirmation writes
        self._lock = threading.RLock()

    def _do(self, kind: str, payload: dict[str, Any]) -> Any:
        from controller.tournament_store.store import apply, commit

        if self.path is not None:
            return commit(self.path, self.t, kind, payload)
        return apply(self.t, kind, payload)

    @_locked
    def current_round(self) -> int | None:
        return self.t.current.number if self.t.current is not None else None

    @_locked
    def pairings(self, round: int) -> list[Pairing]:
        if not 1 <= round <= len(self.t.rounds):
            return []
        s = self.t.settings
        out = []
        for g in self.t.rounds[round - 1].games:
            if g.table is None or g.black is None or g.white is None:
                continue  # a bye: no table to send to
            right = ("black" if g.draw_win == g.black else
                     "white" if g.draw_win == g.white else "none")
            out.append(Pairing(round, g.table, g.black, g.white, float(s.minutes), right,
                               s.draws))
        return out

    @_locked
    def result(self, round: int, table: int) -> Confirmed | None:
        if not 1 <= round <= len(self.t.rounds):
            return None
        for g in self.t.rounds[round - 1].games:
            if g.table == table and g.done:
                b, w = g.discs if g.discs is not None else (0, 0)
                winner = ("draw" if g.outcome == "draw" else
                          "black" if g.winner == g.black else "white")
                return Confirmed(round, table, b, w, winner, g.reason)
        return None

    @_locked
    def record_result(self, result: Confirmed) -> None:
        if result.round != self.current_round():
            raise ResultError(f"round {result.round} is over; the current round is "
                              f"{self.current_round()}")
        self._do("result", {"table": result.table, "outcome": result.winner,
                            "discs": [result.black, result.white],
                            "reason": result.reason})

    @_locked
    def report_late(self, round: int, table: int, player: str, state: str,
                    remaining_ms: int | None) -> None:
        if round != self.current_round():
            raise ResultError(f"round {round} is over; the current round is "
                              f"{self.current_round()}")
        self._do("late", {"table": table, "player": player, "state": state,
                          "remaining_ms": remaining_ms})

    @_locked
    def record_forfeit(self, round: int, table: int, loser: str) -> None:
        if round != self.current_round():
            raise ResultError(f"round {round} is over; the current round is "
                              f"{self.current_round()}")
        self._do("forfeit", {"table": table, "loser": loser})

    @_locked
    def record_toss(self, round: int, table: int, black: str, draw_win: str) -> Pairing:
        if round != self.current_round():
            raise ResultError(f"round {round} is over; the current round is "
                              f"{self.current_round()}")
        self._do("toss", {"table": table, "black": black, "draw_win": draw_win})
        return next(p for p in self.pairings(round) if p.table == table)

    @_locked
    def round_complete(self, round: int) -> bool:
        return 1 <= round <= len(self.t.rounds) and self.t.rounds[round - 1].complete

    @_locked
    def pair_next_round(self) -> list[Pairing]:
        if self.t.finished:
            return []
        rnd = self._do("pair", {})
        return self.pairings(rnd.number)

    @_locked
    def standings(self) -> list[Standing]:
        """The ranking the sheets show (``controller.tournament.leaderboard``): the
        final ranking once the final is played, the provisional one before."""
        from controller.tournament.leaderboard import leaderboard

        board = leaderboard(self.t)
        return [Standing(r.position, r.name, float(r.wins), r.criteria, board.final,
                         r.grade, r.ouza) for r in board.rows]
