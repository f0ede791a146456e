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
from typing import Any

from controller.boardsize import board_size
from controller.errors import KaeshiError
from controller.hall_protocol.protocol import DownlinkCommand, TableStatus
from controller.hub.results_model import (
    Confirmed,
    Director,
    Outcome,
    Pairing,
    ResultError,
    Standing,
    TossOutcome,
    drawn_on_board,
    reason_of,
)

#: The desk's vocabulary lives in results_model; importers of this module still find it.
__all__ = ["Confirmed", "Director", "Outcome", "Pairing", "ResultDesk", "ResultError",
           "Standing", "TossOutcome", "drawn_on_board", "reason_of"]

log = logging.getLogger("kaeshi.hub.results")


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
            try:
                self._same_board(status)
            except ResultError as exc:  # not this event's game: the arbiter decides
                self.refused[(status.table, s.game)] = str(exc)
                raise
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
        self._same_board(status)
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

    def _same_board(self, status: TableStatus) -> None:
        """The table played on the event's board, or the refusal naming both."""
        s = status.state
        assert s is not None and s.round is not None
        p = self._find_pairing(s.round, status.table)
        if p is not None and p.size != s.size:
            raise ResultError(
                f"round {s.round} table {status.table}: the table played on "
                f"{board_size(s.size).a_label} board, the event is on {board_size(p.size).label} "
                "boards; set the table's board size and enter the result by hand")

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
