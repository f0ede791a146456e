"""One table's score card (対戦カード) as pure state: the players' sign-off of the
result (rule 15) and a late arrival (rules 11–12).

Rule 15 has both players check and sign the card before the winner hands it in.
At a table whose board knows the final position and whose clock has two buttons,
the players can sign there: each confirms the result the table shows (a clock
press, or the table page) or disputes it.  A result both signed goes to the
director without the arbiter; the arbiter is asked only when a player disputes it
or when the table itself flagged something (an irregularity left standing, a
fallen flag), whatever the players say.

Rules 11–12: when a player has not come at the start of the round, the present
player picks the seat and, on the arbiter's word, presses their clock button so
the absent player's time runs.  On arrival the clock stops and the late player
either plays on the time left or takes the forfeit (不戦敗), which is not rated.
A late player whose whole time ran out before arriving has lost without a game
(decision: like the forfeit, nothing was played, so nothing is rated).

Nothing here reads a clock or a file: every step carries the time it happened on
the table (``at``, seconds), so the table, the hub and the director judge by when
things happened, never by when a message arrived.  The hall protocol
(``controller.hall_protocol.protocol``) carries both records in a table's state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from controller.boardsize import STANDARD, BoardSizeError, board_size
from controller.errors import KaeshiError

Colour = Literal["black", "white"]
COLOURS: tuple[Colour, ...] = ("black", "white")
WINNERS = ("black", "white", "draw")

#: waiting: not both signed yet; signed: both confirmed, nothing flagged;
#: disputed: a player said no; flagged: both signed but the table asks the arbiter.
SIGN_STATES = ("waiting", "signed", "disputed", "flagged")

#: absent: the round started without them; clock_running: their time runs on the
#: arbiter's word; arrived: the clock stopped, they choose; playing: on the time left;
#: forfeit: they chose 不戦敗; timed_out: their time ran out before they came.
LATE_STATES = ("absent", "clock_running", "arrived", "playing", "forfeit", "timed_out")
#: States in which the late player has lost without a game (not rated).
LOST_UNPLAYED = ("forfeit", "timed_out")


class ScoreCardError(KaeshiError):
    """A step the score card refuses; the message names the table's player and state."""


@dataclass(frozen=True)
class SignOff:
    """The result the table shows and what each player said of it."""

    black: int
    white: int
    winner: str  # "black" | "white" | "draw"
    black_says: bool | None = None  # True: confirms, False: disputes, None: not yet
    white_says: bool | None = None
    flags: tuple[str, ...] = ()  # why the table asks the arbiter anyway
    #: The board the game was played on: the counts are of its squares.
    size: int = STANDARD

    def __post_init__(self) -> None:
        try:
            squares = board_size(self.size).squares
        except BoardSizeError as exc:
            raise ScoreCardError(f"sign-off: {exc}") from None
        for name, value in (("black", self.black), ("white", self.white)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= squares:
                raise ScoreCardError(
                    f"sign-off: {name}'s discs must be 0–{squares}, not {value!r}")
        if self.black + self.white > squares:
            raise ScoreCardError(
                f"sign-off: {self.black}-{self.white} is more than {squares} discs")
        if self.winner not in WINNERS:
            raise ScoreCardError(f"sign-off: winner must be black, white or draw, "
                                 f"not {self.winner!r}")

    def answer(self, colour: str, agrees: bool) -> SignOff:
        """``colour``'s player confirms (``agrees``) or disputes the result.  A signature
        stands: saying the other thing afterwards is refused; saying the same is a no-op."""
        if colour not in COLOURS:
            raise ScoreCardError(f"sign-off: a player is black or white, not {colour!r}")
        said = self.black_says if colour == "black" else self.white_says
        if said is not None and said != agrees:
            done = "confirmed" if said else "disputed"
            raise ScoreCardError(f"sign-off: {colour} already {done} "
                                 f"{self.black}-{self.white}; that stands (rule 15)")
        if colour == "black":
            return replace(self, black_says=agrees)
        return replace(self, white_says=agrees)

    def flag(self, reason: str) -> SignOff:
        """The table asks the arbiter about this result whatever the players say."""
        return self if reason in self.flags else replace(self, flags=(*self.flags, reason))

    @property
    def status(self) -> str:
        if self.black_says is False or self.white_says is False:
            return "disputed"
        if self.black_says and self.white_says:
            return "flagged" if self.flags else "signed"
        return "waiting"

    @property
    def needs_arbiter(self) -> bool:
        return self.status in ("disputed", "flagged")


@dataclass(frozen=True)
class LateArrival:
    """A player absent at the start of the round, from the table's side."""

    late: str  # the absent player's name
    present: str  # who came on time and picked the seat
    minutes: float  # the late player's allotted time
    state: str = "absent"
    clock_from: float | None = None  # when their time started running (table seconds)
    arrived_at: float | None = None

    def __post_init__(self) -> None:
        if self.state not in LATE_STATES:
            raise ScoreCardError(f"late arrival of {self.late}: unknown state {self.state!r}")
        if self.late == self.present:
            raise ScoreCardError(f"late arrival: {self.late} cannot be both late and present")

    def _need(self, step: str, *states: str) -> None:
        if self.state not in states:
            raise ScoreCardError(f"late arrival of {self.late}: cannot {step} while "
                                 f"{self.state} (needs {' or '.join(states)})")

    def start_clock(self, at: float) -> LateArrival:
        """On the arbiter's word the present player presses: the late player's time runs."""
        self._need("start the clock", "absent")
        return replace(self, state="clock_running", clock_from=at)

    def remaining(self, at: float) -> float:
        """Seconds the late player has left at table time ``at`` (negative: run out)."""
        if self.clock_from is None:
            return self.minutes * 60
        stop = at if self.arrived_at is None else min(at, self.arrived_at)
        return self.minutes * 60 - max(0.0, stop - self.clock_from)

    def arrive(self, at: float) -> LateArrival:
        """The late player comes: the clock stops.  Run out already: lost unplayed."""
        self._need("arrive", "absent", "clock_running")
        if self.clock_from is not None and at < self.clock_from:
            raise ScoreCardError(f"late arrival of {self.late}: arrival at {at} is before "
                                 f"the clock started at {self.clock_from}")
        came = replace(self, arrived_at=at)
        return replace(came, state="timed_out" if came.remaining(at) <= 0 else "arrived")

    def run_out(self) -> LateArrival:
        """Their whole time ran before they came: lost without a game."""
        self._need("run out of time", "clock_running")
        return replace(self, state="timed_out")

    def play_on(self) -> LateArrival:
        self._need("play on", "arrived")
        return replace(self, state="playing")

    def take_forfeit(self) -> LateArrival:
        """The late player chooses 不戦敗, whatever time is left (rule 12)."""
        self._need("take the forfeit", "arrived")
        return replace(self, state="forfeit")

    @property
    def remaining_ms(self) -> int | None:
        """The time the late player plays on, once they have arrived."""
        if self.arrived_at is None:
            return None
        return max(0, round(self.remaining(self.arrived_at) * 1000))

    @property
    def lost_unplayed(self) -> bool:
        return self.state in LOST_UNPLAYED
