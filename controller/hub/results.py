"""Results: from a finished table to the tournament director, standings and next pairings.

A table reports its final score in its state. Where the table asks the players to sign
it (rule 15; ``TableState.signoff``), a result both signed with nothing flagged goes to
the director at once; a disputed or flagged one, or one from a table that does not ask
the players, counts only once the arbiter confirms it. A late arrival (rules 11–12;
``TableState.late``) is passed on to the director as it moves, and a forfeit is
recorded as one (counted, not rated). When the round is complete the director pairs
the next one, and every table is sent its next game, which its display
and web page announce ("Round 4 — table 12 — Black: … White: …").

The director is reached through :class:`Director`, a small protocol, so the hub does not
depend on how pairing and tie-breaks are computed.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from controller.errors import KaeshiError
from controller.hall_protocol.protocol import DownlinkCommand, TableStatus, next_game

if TYPE_CHECKING:
    from controller.tournament import Tournament

F = TypeVar("F", bound=Callable[..., Any])


class ResultError(KaeshiError):
    """A confirmation that cannot be taken; the message says why."""


@dataclass(frozen=True)
class Pairing:
    """One game of a round: who sits at which table with which colour."""

    round: int
    table: int
    black: str
    white: str
    minutes: float = 20.0
    draw_win_right: str = "none"  # "none" | "black" | "white"
    draws_allowed: bool = True

    def announcement(self) -> str:
        return f"Round {self.round} — table {self.table} — Black: {self.black} White: {self.white}"

    def command(self) -> DownlinkCommand:
        return next_game(self.round, self.black, self.white, minutes=self.minutes,
                         draw_win_right=self.draw_win_right, draws_allowed=self.draws_allowed)


@dataclass(frozen=True)
class Standing:
    rank: int
    player: str
    points: float
    games: int
    discs: float = 0.0  # disc difference or sum, as the director's tie-break has it


@dataclass(frozen=True)
class Confirmed:
    """A result the director holds for (round, table)."""

    round: int
    table: int
    black: int
    white: int
    winner: str  # "black" | "white" | "draw"


class Director(Protocol):
    """What the hub needs of the tournament director."""

    def current_round(self) -> int | None:
        """The round being played (None before the first pairing)."""
        ...

    def pairings(self, round: int) -> list[Pairing]: ...

    def result(self, round: int, table: int) -> Confirmed | None:
        """The confirmed result of a game, None while there is none."""
        ...

    def record_result(self, result: Confirmed) -> None: ...

    def round_complete(self, round: int) -> bool: ...

    def pair_next_round(self) -> list[Pairing]:
        """Pair the next round (the current one is complete) and return its pairings."""
        ...

    def standings(self) -> list[Standing]: ...

    def report_late(self, round: int, table: int, player: str, state: str,
                    remaining_ms: int | None) -> None:
        """A late arrival's state (controller.scorecard.LATE_STATES)."""
        ...

    def record_forfeit(self, round: int, table: int, loser: str) -> None:
        """``loser`` did not play (不戦敗): counted, not rated."""
        ...


@dataclass(frozen=True)
class Outcome:
    """What a confirmation led to: the result kept and, if the round closed, the next one."""

    result: Confirmed
    next_pairings: list[Pairing]
    #: Why the next round could not be paired or sent (the result itself is kept).
    problem: str = ""


def _winner(black: int, white: int, fallback: str) -> str:
    if black != white:
        return "black" if black > white else "white"
    return fallback if fallback in ("black", "white", "draw") else "draw"


class ResultDesk:
    """The arbiter's results table: waiting results, confirmations, the next round."""

    def __init__(self, director: Director,
                 send: Callable[[int, DownlinkCommand], None]) -> None:
        self.director = director
        self._send = send
        self._lock = threading.Lock()  # one confirmation at a time: the round closes once
        #: (table, game) -> why a result signed at the table was not taken: the arbiter's
        self.refused: dict[tuple[int, str], str] = {}

    def awaiting(self, status: TableStatus) -> bool:
        """The table shows a final result the director does not hold yet, and it is the
        arbiter's to confirm: nobody signed it at the table, or a player disputed it, or
        the table flagged it."""
        s = status.state
        if s is None or s.result is None or s.round is None:
            return False
        card = s.signoff
        if (card is not None and not card.needs_arbiter
                and (card.black, card.white, card.winner) == (s.result.black, s.result.white,
                                                              s.result.winner)):
            if (status.table, s.game) not in self.refused:
                return False  # the players sign it at the table
        return self.director.result(s.round, status.table) is None

    def take_from_table(self, status: TableStatus) -> Outcome | None:
        """What the table settled without the arbiter: a late arrival's state, a forfeit,
        a result both players signed.  Called on every state a table sends; None when
        there was nothing new to take."""
        with self._lock:
            s = status.state
            if s is None or s.round is None or s.round != self.director.current_round():
                return None
            if self.director.result(s.round, status.table) is not None:
                return None
            if s.late is not None:
                x = s.late
                self.director.report_late(s.round, status.table, x.late, x.state,
                                          x.remaining_ms)
                if x.lost_unplayed:
                    self.director.record_forfeit(s.round, status.table, x.late)
                    return self._after(self.director.result(s.round, status.table), s.round)
            card = s.signoff
            if s.result is None or card is None or card.status != "signed":
                return None
            r = s.result
            if (card.black, card.white, card.winner) != (r.black, r.white, r.winner):
                return None  # signed a different result than the table shows: arbiter
            result = Confirmed(s.round, status.table, r.black, r.white, r.winner)
            try:
                self.director.record_result(result)
            except KaeshiError as exc:  # the director refused it: the arbiter decides
                self.refused[(status.table, s.game)] = str(exc)
                raise
            return self._after(result, s.round)

    def _after(self, result: Confirmed | None, round: int) -> Outcome | None:
        """Pair and send the next round once ``round`` is complete."""
        if result is None:
            return None
        nxt: list[Pairing] = []
        if self.director.round_complete(round):
            try:
                nxt = self.director.pair_next_round()
                self.send_pairings(nxt)
            except (KaeshiError, OSError, RuntimeError, ValueError) as exc:
                return Outcome(result, nxt, f"round {round + 1} not paired or sent: {exc}")
        return Outcome(result, nxt)

    def confirm(self, status: TableStatus, black: int | None = None, white: int | None = None,
                game: str | None = None) -> Outcome:
        """Confirm the table's result, or the arbiter's corrected counts ``black``/``white``.

        ``game`` (the game the arbiter was looking at) guards against confirming a table
        that has since moved on to its next game.
        """
        with self._lock:
            return self._confirm(status, black, white, game)

    def _confirm(self, status: TableStatus, black: int | None, white: int | None,
                 game: str | None) -> Outcome:
        s = status.state
        if s is None or s.result is None:
            raise ResultError(f"table {status.table} has no finished game to confirm")
        if game is not None and game != s.game:
            raise ResultError(f"table {status.table} is on game {s.game} now, not {game}")
        if s.round is None:
            raise ResultError(f"table {status.table}'s game is not part of a round")
        if self.director.result(s.round, status.table) is not None:
            raise ResultError(f"round {s.round}, table {status.table}: already confirmed")
        b = s.result.black if black is None else black
        w = s.result.white if white is None else white
        for name, value in (("black", b), ("white", w)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 64:
                raise ResultError(f"{name}'s discs must be a whole number 0-64, not {value!r}")
        if b + w > 64:
            raise ResultError(f"{b} + {w} discs is more than the 64 squares")
        corrected = black is not None or white is not None
        fallback = "draw" if corrected else s.result.winner
        result = Confirmed(s.round, status.table, b, w, _winner(b, w, fallback))
        self.director.record_result(result)
        outcome = self._after(result, s.round)
        assert outcome is not None
        return outcome

    def send_pairings(self, pairings: list[Pairing]) -> None:
        """Send every table of ``pairings`` its next game (again, when the arbiter asks)."""
        for p in pairings:
            self._send(p.table, p.command())

    def current_pairings(self) -> list[Pairing]:
        rnd = self.director.current_round()
        return [] if rnd is None else sorted(self.director.pairings(rnd), key=lambda p: p.table)


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
                return Confirmed(round, table, b, w, winner)
        return None

    @_locked
    def record_result(self, result: Confirmed) -> None:
        if result.round != self.current_round():
            raise ResultError(f"round {result.round} is over; the current round is "
                              f"{self.current_round()}")
        self._do("result", {"table": result.table, "outcome": result.winner,
                            "discs": [result.black, result.white]})

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
        if self.t.seed is None:
            return []
        played: dict[str, int] = {}
        discs: dict[str, int] = {}
        for rnd in self.t.rounds:
            for g in rnd.games:
                if not g.done or g.second is None:
                    continue
                for name in (g.first, g.second):
                    played[name] = played.get(name, 0) + 1
                if g.discs is not None and g.black and g.white:
                    b, w = g.discs
                    discs[g.black] = discs.get(g.black, 0) + b - w
                    discs[g.white] = discs.get(g.white, 0) + w - b
        return [Standing(rank, s.name, float(s.wins), played.get(s.name, 0),
                         float(discs.get(s.name, 0)))
                for rank, s in enumerate(self.t.standings(), 1)]
