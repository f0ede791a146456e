"""Hand-written observation logs for the arbiter tests: a board, a hand, a fake clock."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from controller.arbiter import ArbiterConfig, arbitrate
from controller.events import Event
from controller.observation import Observation
from controller.position import Position
from controller.records import GameRecord, load_games
from controller.squares import Color, parse_square


class Log:
    """Builds a log step by step; every change is shown in two frames so it is confirmed."""

    def __init__(self, start: Position | None = None, dt: float = 0.1) -> None:
        self.start = start or Position.start()
        self.cells = list(self.start.board_string())
        self.t = 0.0
        self.dt = dt
        self.obs: list[Observation] = []
        self.show(2)

    def show(self, frames: int = 2, hidden: tuple[str, ...] = ()) -> Log:
        for _ in range(frames):
            cells = self.cells[:]
            for name in hidden:
                cells[parse_square(name)] = "?"
            self.obs.append(Observation(round(self.t, 3), board="".join(cells)))
            self.t += self.dt
        return self

    def set(self, **squares: str) -> Log:
        """``set(f5="X", e5="X")``: change squares (``-`` empties one), then show it."""
        for name, ch in squares.items():
            self.cells[parse_square(name)] = ch
        return self.show()

    def press(self, color: Color | str) -> float:
        t = round(self.t, 3)
        self.obs.append(Observation(t, press=Color(color)))
        self.t += self.dt
        return t

    def move(self, square: str, color: Color | str, flips: tuple[str, ...]) -> Log:
        ch = Color(color).symbol
        self.set(**{square: ch})
        for f in flips:
            self.set(**{f: ch})
        return self


def brief(events: list[Event]) -> list[tuple]:
    """Events as short tuples, easy to write in tables."""
    out: list[tuple] = []
    for e in events:
        d = e.fields
        if e.event == "move":
            out.append(("move", d["player"], d["square"], tuple(d["flips"])))
        elif e.event == "pass":
            out.append(("pass", d["player"]))
        elif e.event == "irregularity":
            out.append((d["kind"], d["player"], tuple(d["squares"])))
        elif e.event == "corrected":
            out.append(("corrected", d["kind"], tuple(d["squares"])))
        elif e.event == "resync":
            out.append(("resync", tuple(d["squares"])))
        elif e.event == "pointed_out":
            out.append(("pointed_out", d["player"], tuple(d["squares"])))
        else:
            out.append(("game_over", d["black"], d["white"], d["winner"]))
    return out


#: Black's usual first move, f5 turning e5, as :func:`brief` writes it.
MOVE_F5 = ("move", "black", "f5", ("e5",))


def judged(log: Log, config: ArbiterConfig | None = None) -> list[tuple]:
    """The whole log judged by the arbiter, in brief."""
    return brief(arbitrate(log.obs, config))


@cache
def wthor_2001(data: Path) -> tuple[GameRecord, ...]:
    """The games of WTH_2001.wtb, read once per test run."""
    return tuple(load_games(data / "games" / "wthor" / "WTH_2001.wtb"))
