"""The game as the pure core sees it: arbiter and clock, driven by journaled inputs.

Every input — a board reading, a press, an arbiter's action, a time check that
found a fallen flag or a lone reading that has stood long enough — goes through
:meth:`GameCore.apply` with the time it happened. Nothing here reads a clock or
touches a file, so replaying a journal's inputs rebuilds exactly the game that was
shown: that is how resume works.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, replace
from typing import Any

from controller.arbiter.config import ArbiterConfig, Mode
from controller.arbiter.core import Arbiter, RulingRefused
from controller.boardsize import STANDARD
from controller.clock import GameClock, TimeControl
from controller.events import Event, EventKind
from controller.events import game_over as game_over_event
from controller.observation import Observation
from controller.position import Position
from controller.records.irregular import History, for_people
from controller.records.model import GameRecord
from controller.scorecard import LateArrival, ScoreCardError, SignOff
from controller.service.late import LATE_ACTIONS, LateRefused, late_action, late_press
from controller.squares import OBSERVATION_ALPHABET, Color, validate_board_string


class ActionRefused(ValueError):
    """An arbiter's action that makes no sense now; the message says why."""


@dataclass(frozen=True)
class GameSettings:
    """What a game was started with; journaled with the game so a resume uses the same."""

    mode: str = "tournament"
    black: str = ""
    white: str = ""
    event: str = ""
    place: str = ""
    draws_allowed: bool = True
    draw_win_right: str = "none"
    clock: bool = True
    main: float = 1200.0
    increment: float = 0.0
    delay: float = 0.0
    #: The source debounces every board itself (the sensor board): each reading counts
    #: as it arrives (``ArbiterConfig.settled``). Journals written before this setting
    #: existed lack it and replay as they were shown, as raw readings.
    settled: bool = False
    #: Seconds each press waits for the camera's frames taken after it
    #: (``ArbiterConfig.press_wait``); 0 for a settled source and older journals.
    press_wait: float = 0.0
    #: Black's corner discs of a handicap start (1-4: a1, h8, h1, a8; white moves first);
    #: 0 for the standard start.
    handicap: int = 0
    #: The board's size; journals written before other sizes existed lack it: 8x8.
    size: int = STANDARD

    def start(self) -> Position:
        return Position.handicap(self.handicap) if self.handicap else Position.start(self.size)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameSettings:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in d.items() if k in known})

    def arbiter_config(self) -> ArbiterConfig:
        right = None if self.draw_win_right == "none" else Color(self.draw_win_right)
        return ArbiterConfig(
            mode=Mode(self.mode),
            start=self.start(),
            # with nobody holding the right yet (a hall's 伏せ石 not recorded), 32–32
            # stays undecided, as the result the players sign says; never black's
            draws_allowed=self.draws_allowed or right is None,
            draw_win_right=right,
            clock=True if self.clock else None,
            settled=self.settled,
            press_wait=self.press_wait,
        )

    def time_control(self) -> TimeControl:
        return TimeControl(self.main, self.increment, self.delay)


class GameCore:
    """One game: the arbiter, the clock, and the game-over decision the clock can force."""

    def __init__(self, settings: GameSettings) -> None:
        self.settings = settings
        self.arbiter = Arbiter(settings.arbiter_config())
        right = None if settings.draw_win_right == "none" else Color(settings.draw_win_right)
        self.clock: GameClock | None = (
            GameClock(settings.time_control(), right) if settings.clock else None
        )
        self.over_by_time: Event | None = None
        #: Rule 15 at the table (tournament mode): the players' signatures of the
        #: result, opened when the game ends; a clock press then confirms it.
        self.signoff: SignOff | None = None
        #: Rules 11–12: a player absent at the start (controller.service.late).
        self.late: LateArrival | None = None
        self.late_color: Color | None = None
        self.t = 0.0
        self.started = False  # the start position has been seen (or a move made)
        self.inputs = 0
        #: Every irregularity of the game and what became of it, to its end.
        self.history = History()
        #: The official position after each move (1-based, 0: the start), as it stood
        #: when the next move began: the record keeps what the rules cannot rebuild.
        self.after: dict[int, Position] = {0: self.arbiter.position}

    # ------------------------------------------------------------------ state
    @property
    def game_over(self) -> bool:
        return (self.arbiter.game_over or self.over_by_time is not None
                or (self.late is not None and self.late.lost_unplayed))

    @property
    def paused(self) -> bool:
        return bool(self.clock and self.clock.paused)

    # ------------------------------------------------------------------ input
    def apply(self, t: float, data: dict[str, Any]) -> list[Event]:
        """Apply one journaled input at service time ``t``; return the events it caused.

        A flag that fell before ``t`` ends the game first, stamped with the instant it
        fell: the order of inputs and time checks cannot change a time-out, only the
        timestamps can (a late press does not save a player; a resumed game ends as
        the uninterrupted one would).
        """
        self.inputs += 1
        self.t = max(self.t, t)
        fallen = self._fallen_before(t)
        if fallen:
            self._follow(t, fallen)
            self._open_signoff(fallen)
            return fallen
        events = self._input(t, data)
        if self.clock is not None and not self.game_over and self.clock.flag(t) is not None:
            events.extend(self._flag(t))  # an arbiter's correction took the last second
        self._follow(t, events)
        self._open_signoff(events)
        return events

    def _open_signoff(self, events: list[Event]) -> None:
        """A (new) result opens a new score card for the players to sign; the table
        flags a time-out and an irregularity left standing for the arbiter."""
        if self.settings.mode != "tournament" or not any(
                e.event is EventKind.GAME_OVER for e in events):
            return
        final = self.final_result()
        if final is None:
            return
        flags = []
        if self.over_by_time is not None:
            flags.append("decided by the clock")
        if self.arbiter.open_flags():
            flags.append("an irregularity was not put right")
        self.signoff = SignOff(*final, flags=tuple(flags), size=self.settings.size)

    def final_result(self) -> tuple[int, int, str] | None:
        """(black, white, winner) once the game is over; a 32–32 board without draws
        goes to the holder of the draw-win right."""
        over = self.over_by_time
        if over is not None:
            return int(over["black"]), int(over["white"]), str(over["winner"])
        if self.arbiter.result is None:
            return None
        b, w = self.arbiter.result
        if b != w:
            return b, w, "black" if b > w else "white"
        right = self.settings.draw_win_right
        drawn = self.settings.draws_allowed or right not in ("black", "white")
        return b, w, "draw" if drawn else right

    def _toss(self, data: dict[str, Any]) -> list[Event]:
        """The 伏せ石 as the hall's director recorded it (rule 1): the colours, until
        the first move, and who wins a 32–32 board. A game over is settled at the hub."""
        black, white, right = str(data["black"]), str(data["white"]), data["draw_win_right"]
        s = self.settings
        if right not in ("black", "white"):
            raise ActionRefused(f"the draw-win right goes to black or white, not {right!r}")
        if self.game_over:
            raise ActionRefused("the game is over: the hub gives its 32–32 board to the "
                                "holder of the draw-win right")
        if (black, white) != (s.black, s.white) and (
                self.arbiter.moves or (self.clock is not None and self.clock.running)):
            raise ActionRefused(f"the game has begun with {s.black} as black: the toss "
                                "cannot change the colours now")
        self.settings = replace(s, black=black, white=white, draws_allowed=False,
                                draw_win_right=right)
        self.arbiter.config = replace(self.arbiter.config, draws_allowed=False,
                                      draw_win_right=Color(right))
        if self.clock is not None:
            self.clock.draw_win_right = Color(right)
        return []

    def _follow(self, t: float, events: list[Event]) -> None:
        arb = self.arbiter
        self.history.take(events, len(arb.moves), t, arb.open_flags())
        self.after[len(arb.moves)] = arb.position

    def _fallen_before(self, t: float) -> list[Event]:
        if self.clock is None or self.game_over:
            return []
        fall = self.clock.fall_time()
        if fall is None or t < fall:
            return []
        return self._flag(fall)

    def _input(self, t: float, data: dict[str, Any]) -> list[Event]:
        if "obs" in data:
            return self._observation(t, data["obs"])
        action = data.get("action")
        if action == "pause":
            if self.clock is None:
                raise ActionRefused("this game has no clock to pause")
            if self.clock.running is None:
                # a clock that never ran has nothing to stop; "paused" would answer yes
                # and then start with white's press all the same
                raise ActionRefused("the clock has not started yet (white's press starts "
                                    "black's time): there is nothing to pause")
            self.clock.pause(t)
            return []
        if action == "resume":
            if self.clock is None:
                raise ActionRefused("this game has no clock to resume")
            over = self.arbiter.game_over
            self.clock.resume(t, None if over else self.arbiter.position.to_move)
            return []
        if action == "adjust":
            if self.clock is None:
                raise ActionRefused("this game has no clock to adjust")
            self.clock.adjust(Color(data["color"]), float(data["seconds"]), t)
            return []
        if action == "flag":
            return []  # a time check: a fallen flag was already handled in apply()
        if action in LATE_ACTIONS:
            try:
                late_action(self, t, data)
            except LateRefused as exc:
                raise ActionRefused(str(exc)) from None
            return []
        if action == "toss":
            return self._toss(data)
        if action in ("sign", "dispute"):
            if self.signoff is None:
                raise ActionRefused("there is no result to sign or dispute yet")
            try:
                self.signoff = self.signoff.answer(str(data["color"]), action == "sign")
            except ScoreCardError as exc:
                raise ActionRefused(str(exc)) from None
            return []
        if action == "elapse":
            return [] if self.over_by_time is not None else self.arbiter.elapse(t)
        if action == "finish":
            return [] if self.game_over else self.arbiter.finish(t)
        if action in ("accept", "correct"):
            return self._set_position(t, data.get("board"))
        raise ValueError(f"unknown journal input {data!r}")

    def _observation(self, t: float, d: dict[str, Any]) -> list[Event]:
        if "press" in d:
            player = Color(d["press"])
            if self.signoff is not None and self.game_over:
                # after the end a player's own clock button signs the result (rule 15)
                if self.signoff.status == "waiting":
                    with contextlib.suppress(ScoreCardError):  # a dispute stands
                        self.signoff = self.signoff.answer(player.value, True)
                return []
            if self.over_by_time is not None:
                return []
            if late_press(self, player, t):
                return []
            if self.clock is not None and not self.clock.paused:
                self.clock.press(player, t)
            # While the clock is stopped its buttons do not move time, but the board is
            # still watched and a press still ends a move for the arbiter, so moves
            # made meanwhile are judged one by one (the clock follows on resume).
            events = self.arbiter.feed(Observation(t, press=player))
            if self.clock is not None and self.clock.paused and any(
                    e.event in (EventKind.MOVE, EventKind.PASS) and e["player"] == player.value
                    for e in events):
                self.clock.end_move_while_paused(player)
        else:
            board = d["board"]
            if not self.started and _matches_start(board, self.arbiter.config.start):
                self.started = True
            if self.over_by_time is not None:
                return []
            events = self.arbiter.feed(Observation(t, board=board))
        if events:
            self.started = True
        if self.clock is not None and any(e.event is EventKind.GAME_OVER for e in events):
            if not self.clock.paused and self.clock.running is not None:
                self.clock.pause(t)  # the game is over: the clock stops with the last press
        return events

    def _flag(self, t: float) -> list[Event]:
        """A time check found a fallen flag (rules 13-14): the game ends on time."""
        if self.clock is None or self.game_over:
            return []
        result = self.clock.flag(t)
        if result is None:
            return []
        if self.late is not None and self.late.state == "clock_running":
            self.late = self.late.run_out()  # their time ran before they came
        b, w = self.arbiter.position.counts()
        winner = result.winner.value if result.winner else "draw"
        event = game_over_event(t, b, w, winner, reason=result.reason,
                                loser=result.loser.value if result.loser else None)
        self.over_by_time = event
        self.clock.pause(t)
        return [event]

    def _set_position(self, t: float, board: str | None) -> list[Event]:
        """An arbiter's ruling: the board as it stands (accept) or as given (correct)."""
        if board is not None:
            validate_board_string(board, self.settings.size, "-XO")
        try:
            events = self.arbiter.rule_position(t, board)
        except RulingRefused as exc:
            raise ActionRefused(str(exc)) from None
        self.history.ruled(t, accepted=board is None)
        return events

    def clocks(self, now: float) -> dict[str, Any]:
        c = self.clock
        if c is None:
            return {"black": None, "white": None, "running": None, "paused": False,
                    "flag": None, "enabled": False}
        flag = c.flag(now)
        return {
            "black": round(c.remaining(Color.BLACK, now), 3),
            "white": round(c.remaining(Color.WHITE, now), 3),
            "running": c.running.value if c.running else None,
            "paused": c.paused,
            "flag": flag.loser.value if flag and flag.loser else None,
            "enabled": True,
        }

    def position(self) -> dict[str, Any]:
        """The official board (``-XO``) and who moves next (None once the game is over).

        After a fault nobody put right this is the board as it stands on the table, as
        the rules want, not the one legal play would give.
        """
        pos = self.arbiter.position
        return {"board": pos.board_string(),
                "to_move": None if self.game_over else pos.to_move.value}

    def record(self) -> GameRecord:
        """The game for people and files: irregularities in words, on the move they
        happened on, and the board play went on from wherever the rules do not give it."""
        rec = for_people(self.arbiter.record(), self.history, self.after)
        s = self.settings
        rec.black, rec.white, rec.event, rec.place = s.black, s.white, s.event, s.place
        if self.clock is not None:
            rec.time_control = self.clock.control.describe()
        if self.over_by_time is not None:
            e = self.over_by_time
            rec.result = (int(e["black"]), int(e["white"]))
            rec.result_note = "time"
            rec.comments.append(
                f"{e.fields.get('loser') or 'both'} lost on time; winner: {e['winner']}"
            )
        if self.late is not None:
            x = self.late
            rec.comments.append(f"{x.late} came late ({x.state})" + (
                f"; {x.remaining_ms / 1000:.0f} s left" if x.remaining_ms is not None else "")
                + ("; 不戦敗, not rated" if x.lost_unplayed else ""))
        return rec


#: Squares a hand may hide while the start is recognised (never the centre four).
MAX_UNKNOWN_AT_START = 8


def _matches_start(board: str, position: Position | None = None) -> bool:
    """The reading shows the start position (the standard one unless given); a few
    squares under a hand may be unknown, but never the four centre discs."""
    start = (position or Position.start()).board_string()
    if len(board) != len(start) or board.count("?") > MAX_UNKNOWN_AT_START:
        return False
    for seen, want in zip(board, start, strict=True):
        if seen == "?" and want == "-":
            continue
        if seen.upper() != want:
            return False
    return True


def check_board(board: str, size: int = STANDARD) -> str:
    return validate_board_string(board, size, OBSERVATION_ALPHABET)
