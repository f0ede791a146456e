"""What the hub's result desk and the tournament director say to each other: a round's
pairings, a confirmed result, the standings, and the :class:`Director` protocol the
desk (:mod:`controller.hub.results`) drives, so the hub does not depend on how pairing
and tie-breaks are computed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from controller.boardsize import STANDARD
from controller.errors import KaeshiError
from controller.hall_protocol.protocol import DownlinkCommand, GameResult, next_game, toss


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
    #: The event's board: a result from a table playing another one is not the game's.
    size: int = STANDARD

    def announcement(self) -> str:
        return f"Round {self.round} — table {self.table} — Black: {self.black} White: {self.white}"

    def command(self) -> DownlinkCommand:
        return next_game(self.round, self.black, self.white, minutes=self.minutes,
                         draw_win_right=self.draw_win_right, draws_allowed=self.draws_allowed,
                         size=self.size)

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
    set once the ranking is the final one (then ``rank`` is the place); ``wins`` is
    the player's score, the rules' 勝数 (``controller.tournament.leaderboard.WINS``)."""

    rank: int
    player: str
    wins: int
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
