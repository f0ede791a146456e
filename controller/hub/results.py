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

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from controller.boardsize import board_size
from controller.errors import KaeshiError
from controller.hall_protocol.protocol import (
    DownlinkCommand,
    GameResult,
    TableStatus,
    next_game,
    toss,
)

log = logging.getLogger("kaeshi.hub.results")


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

    def toss_command(self) -> DownlinkCommand:
        """The recorded 伏せ石 for the table (``draw_win_right`` must be a colour)."""
        return toss(self.round, self.black, self.white, self.draw_win_right)

    @property
    def needs_toss(self) -> bool:
        """A 32–32 board has no winner yet: no draws, and no 伏せ石 recorded."""
        return not self.draws_allowed and self.draw_win_right == "none"


@dataclass(frozen=True)
class Standing:
    """One line of the ranking the director shows: ``criteria`` are its ranking
    criteria in order, each under the name the event's rules give it; ``final`` is
    set once the ranking is the final one (then ``rank`` is the place)."""

    rank: int
    player: str
    points: float
    criteria: tuple[tuple[str, int | float | str | bool | None], ...] = ()
    final: bool = False
    grade: str | None = None
    ouza: bool | None = None
    #: What the whole ranking is read with (a confirmed extension of the rules, or
    #: the small-field variant); on the first line only.
    note: str = ""


@dataclass(frozen=True)
class Confirmed:
    """A result the director holds for (round, table)."""

    round: int
    table: int
    black: int
    white: int
    winner: str  # "black" | "white" | "draw"
    #: How it ended (``controller.tournament.verdict.REASONS``): the board, or the clock.
    reason: str = "normal"


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

    def pair_next_round(self, after: int | None = None) -> list[Pairing]:
        """Pair the next round (the current one is complete) and return its pairings;
        with ``after``, the round after it if it is paired already (never twice)."""
        ...

    def standings(self) -> list[Standing]: ...

    def report_late(self, round: int, table: int, player: str, state: str,
                    remaining_ms: int | None) -> None:
        """A late arrival's state (controller.scorecard.LATE_STATES)."""
        ...

    def record_forfeit(self, round: int, table: int, loser: str) -> None:
        """``loser`` did not play (不戦敗): counted, not rated."""
        ...

    def record_toss(self, round: int, table: int, black: str, draw_win: str) -> Pairing:
        """The 伏せ石 (rule 1): who plays black, who holds the draw-win right; returns
        the table's pairing as it now stands."""
        ...


@dataclass(frozen=True)
class Outcome:
    """What a confirmation led to: the result kept and, if the round closed, the next one."""

    result: Confirmed
    next_pairings: list[Pairing]
    #: Why the next round could not be paired or sent (the result itself is kept).
    problem: str = ""


@dataclass(frozen=True)
class TossOutcome:
    """What recording a 伏せ石 led to: the pairing as it now stands, whether the table
    was told, and the drawn result it settled (with what followed), if one was held."""

    pairing: Pairing
    sent: bool
    settled: Outcome | None = None


def drawn_on_board(result: GameResult) -> bool:
    """A 32–32 (or any equal) count the board decided, not the clock."""
    return result.black == result.white and result.reason is None


def reason_of(result: GameResult) -> str:
    """The director's reason for a table's result: the board's count, or the clock
    (rule 13; rule 14 when the table says both flags fell)."""
    if result.reason is None:
        return "normal"
    return "both_flags" if result.reason == "both_flags" else "time"


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
        #: (table, game) -> a drawn board both players signed, in an event without
        #: draws and with no 伏せ石 recorded: it goes to the director with the toss.
        self.held: dict[tuple[int, str], Confirmed] = {}

    def awaiting(self, status: TableStatus) -> bool:
        """The table shows a final result the director does not hold yet, and it is the
        arbiter's to confirm: nobody signed it at the table, or a player disputed it, or
        the table flagged it."""
        s = status.state
        if s is None or s.result is None or s.round is None:
            return False
        if (status.table, s.game) in self.held:
            return True
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
            held = self.director.result(s.round, status.table)
            if held is not None:
                self._differs(status, held)
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
            result = Confirmed(s.round, status.table, r.black, r.white,
                               "draw" if drawn_on_board(r) else r.winner, reason_of(r))
            if result.winner == "draw" and self._pairing(s.round, status.table).needs_toss:
                self.held[(status.table, s.game)] = result  # the 伏せ石 settles it
                return None
            try:
                self.director.record_result(result)
            except KaeshiError as exc:  # the director refused it: the arbiter decides
                self.refused[(status.table, s.game)] = str(exc)
                raise
            return self._after(result, s.round)

    def _differs(self, status: TableStatus, held: Confirmed) -> None:
        """A result signed at the table that is not the one the director holds (entered
        at the desk first, say) is said once: the arbiter decides, by a correction."""
        s = status.state
        r = s.result if s is not None else None
        card = s.signoff if s is not None else None
        if s is None or r is None or card is None or card.status != "signed":
            return
        key = (status.table, s.game)
        if held.reason == "forfeit" or key in self.refused:
            return
        if (r.black, r.white) != (held.black, held.white) or (
                r.winner != held.winner and not drawn_on_board(r)):
            why = (f"round {held.round} table {held.table}: the table signed "
                   f"{r.black}-{r.white} but the director holds {held.black}-{held.white} "
                   f"{held.winner}; the arbiter decides (kaeshi tournament correct)")
            self.refused[key] = why
            log.warning("%s", why)

    def _after(self, result: Confirmed | None, round: int) -> Outcome | None:
        """Pair and send the next round once ``round`` is complete."""
        if result is None:
            return None
        nxt: list[Pairing] = []
        if self.director.round_complete(round):
            try:
                nxt = self.director.pair_next_round(after=round)
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
        squares = board_size(s.size).squares  # of the board the table played on
        for name, value in (("black", b), ("white", w)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= squares:
                raise ResultError(
                    f"{name}'s discs must be a whole number 0-{squares}, not {value!r}")
        if b + w > squares:
            raise ResultError(f"{b} + {w} discs is more than the {squares} squares")
        corrected = black is not None or white is not None
        drawn = corrected or drawn_on_board(s.result)  # else the clock decided
        result = Confirmed(s.round, status.table, b, w,
                           _winner(b, w, "draw" if drawn else s.result.winner),
                           "normal" if drawn else reason_of(s.result))
        if result.winner == "draw" and self._pairing(s.round, status.table).needs_toss:
            raise ResultError(f"table {status.table}: {b}-{w} and no 伏せ石 recorded; "
                              "record the toss (who holds the draw-win right) first")
        self.director.record_result(result)
        outcome = self._after(result, s.round)
        assert outcome is not None
        return outcome

    def needs_toss(self, status: TableStatus) -> bool:
        """The table's result is a drawn board its pairing has no winner for yet."""
        s = status.state
        if s is None or s.result is None or s.round is None or not drawn_on_board(s.result):
            return False
        if s.round != self.director.current_round():
            return False
        pairing = self._find_pairing(s.round, status.table)
        return pairing is not None and pairing.needs_toss

    def _find_pairing(self, round: int, table: int) -> Pairing | None:
        return next((p for p in self.director.pairings(round) if p.table == table), None)

    def _pairing(self, round: int, table: int) -> Pairing:
        pairing = self._find_pairing(round, table)
        if pairing is None:
            raise ResultError(f"round {round} has no game at table {table}")
        return pairing

    def toss(self, status: TableStatus | None, table: int, black: str,
             draw_win: str) -> TossOutcome:
        """Record the 伏せ石 of the game now paired on ``table`` (rule 1) with the
        director, then tell the table, or settle the drawn board it held.

        The colours may differ from the pairing's only until the first move: after it
        the board decides who is black, and the toss can only say who wins 32–32.
        """
        with self._lock:
            rnd = self.director.current_round()
            if rnd is None:
                raise ResultError("no round has been paired yet")
            before = self._pairing(rnd, table)
            for who in (black, draw_win):
                if who not in (before.black, before.white):
                    raise ResultError(f"round {rnd}, table {table}: {who!r} does not play "
                                      f"there ({before.black} – {before.white})")
            if before.draws_allowed:
                raise ResultError("this event plays draws: a 32–32 board is a draw, "
                                  "and there is no draw-win right to record")
            if self.director.result(rnd, table) is not None:
                raise ResultError(f"round {rnd}, table {table}: the result is already in")
            s = status.state if status is not None else None
            mine = s is not None and s.round == rnd
            if mine and s is not None and (s.moves or s.result is not None) and black != s.black:
                raise ResultError(
                    f"table {table}: the game has begun with {s.black} as black; the "
                    "伏せ石 decides the colours only before the first move, so now it can "
                    f"only say who wins a 32–32 board (black: {s.black})")
            pairing = self.director.record_toss(rnd, table, black, draw_win)
            over = mine and s is not None and s.result is not None
            if not over:
                self._send(table, pairing.toss_command())
                return TossOutcome(pairing, True)
            if s is not None:
                self.held.pop((table, s.game), None)
        # over: a result both players signed goes to the director now, won by the
        # holder if it is 32-32 (held or not); any other waits for the arbiter as before
        assert status is not None
        try:
            return TossOutcome(pairing, False, self.take_from_table(status))
        except KaeshiError:  # the director refused it: kept in ``refused``, the arbiter's
            return TossOutcome(pairing, False)

    def act(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """A command of ``kaeshi tournament`` sent through the hub, the event's only
        writer while it runs; a round it pairs is sent to the tables at once."""
        act = getattr(self.director, "act", None)
        if act is None:
            raise ResultError("this hub's director takes no tournament commands")
        with self._lock:
            reply: dict[str, Any] = act(kind, payload)
            paired = reply.get("paired")
            if paired is not None:
                pairings = self.director.pairings(paired)
                try:
                    self.send_pairings(pairings)
                    reply["sent"] = len(pairings)
                except (KaeshiError, OSError, RuntimeError, ValueError) as exc:
                    reply["problem"] = f"round {paired} paired, not sent: {exc}"
            return reply

    def send_pairings(self, pairings: list[Pairing]) -> None:
        """Send every table of ``pairings`` its next game (again, when the arbiter asks)."""
        for p in pairings:
            self._send(p.table, p.command())

    def current_pairings(self) -> list[Pairing]:
        rnd = self.director.current_round()
        return [] if rnd is None else sorted(self.director.pairings(rnd), key=lambda p: p.table)
