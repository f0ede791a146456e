"""The hub's :class:`~controller.hub.results.Director` over the pure tournament core.

Kept apart from the result desk: the desk decides what a table's result means for the
event, this module only turns its calls into the event file's actions.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from controller.hub.results import Confirmed, Pairing, ResultError, Standing

if TYPE_CHECKING:
    from controller.tournament import Tournament

F = TypeVar("F", bound=Callable[..., Any])
log = logging.getLogger("kaeshi.hub.director")

#: What ``kaeshi tournament`` may send through the hub while it runs.
ACTIONS = ("lottery", "pair", "toss", "result", "late", "forfeit", "withdraw", "correct")


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
        """One action, and the next round's pairing when it completes the round, in
        one transaction: a crash between the two cannot happen."""
        from controller.tournament_store.store import (
            PairingError,
            apply,
            commit,
            load,
        )

        if self.path is None:  # no file, no crash to survive: the desk pairs after
            return apply(self.t, kind, payload)
        try:
            return commit(self.path, self.t, kind, payload, pair=True)
        except PairingError as exc:
            # the action stands; the desk's pairing after it says why it fails
            log.warning("%s", exc)
            self.t = load(self.path)[1]
            return True
        except Exception:
            self.t = load(self.path)[1]  # whatever was half-applied is dropped
            raise

    @_locked
    def act(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """An action of ``kaeshi tournament`` sent through the hub (its only writer)."""
        from controller.tournament_store import formats

        if kind not in ACTIONS:
            raise ResultError(f"no tournament action {kind!r} here; one of "
                              f"{', '.join(ACTIONS)}")
        before = len(self.t.rounds)
        result = self._do(kind, payload)
        reply: dict[str, Any] = {"ok": True, "stored": result is not False,
                                 "round": self.current_round()}
        if len(self.t.rounds) > before and self.t.current is not None:
            reply["paired"] = self.t.current.number
            reply["sheet"] = formats.pairing_sheet(self.t, self.t.current, "csv")
            reply["notes"] = list(self.t.current.notes)
        if kind == "correct" and self.t.corrections:
            c = self.t.corrections[-1]
            reply["correction"] = {"round": c.round, "table": c.table, "text": c.text,
                                   "by": c.by, "why": c.why}
        if kind == "lottery":
            reply["numbers"] = [[self.t.numbers[n], self.t.groups.get(n, ""), n]
                                for n in sorted(self.t.present, key=self.t.numbers.__getitem__)]
        return reply

    @_locked
    def resume(self) -> list[Pairing]:
        """On start: a round left complete but unpaired (an event file from before
        results and pairings were one transaction, or a pairing that failed) is
        paired now; returns its pairings, or [] when nothing was due."""
        from controller.tournament_store.store import due_pairing

        if not due_pairing(self.t):
            return []
        rnd = self._do("pair", {})
        return self.pairings(rnd.number)

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
                               s.draws, self.t.size))
        return out

    @_locked
    def byes(self, round: int) -> list[str]:
        """The players of ``round`` with no opponent (a win without a game, no table)."""
        if not 1 <= round <= len(self.t.rounds):
            return []
        return [g.first for g in self.t.rounds[round - 1].games if g.is_bye]

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
    def pair_next_round(self, after: int | None = None) -> list[Pairing]:
        """The round after ``after``: already paired with the result that completed
        ``after`` (then only its pairings are returned: never paired twice)."""
        if after is not None and len(self.t.rounds) > after:
            return self.pairings(after + 1)
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
        note = self.t.extension or ""
        return [Standing(r.position, r.name, r.wins, r.criteria, board.final,
                         r.grade, r.ouza, note if k == 0 else "")
                for k, r in enumerate(board.rows)]
