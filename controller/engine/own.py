"""The project's own engine: the rules engine with a small search, over NBoard or GTP.

Started as a child process (``kaeshi engine --protocol nboard`` or
``python -m controller.engine.own``), it speaks exactly what Edax and Egaroucid
speak, so the client, home play and review are tested over the real protocol
through a pipe, and ``make demo`` needs no third-party engine. It is also the
fallback when no strong engine is installed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TextIO

from controller.boardsize import SIZES, STANDARD
from controller.engine.protocol import (
    EngineMove,
    ProtocolError,
    format_nboard_move,
    format_search_line,
    gtp_error,
    gtp_ok,
    gtp_vertex,
    parse_move,
)
from controller.engine.search import (
    LEVEL_NAMES,
    Evaluator,
    Result,
    Settings,
    deepen,
    default_evaluator,
)
from controller.engine.timing import TimeFormatError, move_budget, parse_ggf_time_control
from controller.position import IllegalMoveError, Position
from controller.records import RecordError, read_ggf_text
from controller.squares import BoardStringError, Color

NAME = "Kaeshi"
VERSION = "2"
DEFAULT_LEVEL = 4
DEFAULT_SECONDS = 5.0
#: Of a move's time, the share the search may use; the rest covers writing the answer
#: and a machine that stalls the process for a moment (a loaded Pi).
SAFETY = 0.85
#: ...and at least this much is kept back, seconds.
MARGIN = 0.05


def timed_analyse(position: Position, settings: Settings, seconds: float, count: int = 1,
                  evaluate: Evaluator | None = None) -> Result:
    """The best answer that fits ``seconds`` of wall time (:func:`search.deepen`): the
    deepest completed depth up to the level's, the exact solve only if it finishes."""
    stop = time.monotonic() + max(0.01, min(seconds * SAFETY, seconds - MARGIN))
    return deepen(position, settings, lambda: stop - time.monotonic(), count, evaluate)


class _Clocks:
    """What the engine was told of the clocks: time control, and each side's time left
    when the request came (None: no clock, the level's time per move applies)."""

    def __init__(self) -> None:
        self.increment = 0.0
        self.left: dict[Color, float] = {}

    def budget(self, seconds: float, position: Position) -> float:
        empties = position.empty.bit_count()
        return move_budget(seconds, self.left.get(position.to_move), self.increment, empties)


class NBoardServer:
    """One NBoard session: commands in, lines out (``write`` flushes each line)."""

    def __init__(self, write: Callable[[str], None], level: int = DEFAULT_LEVEL,
                 seconds: float = DEFAULT_SECONDS) -> None:
        self.write = write
        self.level = level
        self.seconds = seconds
        self.position = Position.start()
        self.clocks = _Clocks()
        self.evaluate = default_evaluator()

    def handle(self, line: str) -> bool:
        """Handle one command line; False once the session should end."""
        words = line.split(maxsplit=2)
        if not words:
            return True
        cmd = words[0]
        if cmd == "quit":
            return False
        if cmd == "ping":
            self.write(f"pong {words[1] if len(words) > 1 else 0}")
        elif cmd == "set" and len(words) > 2 and words[1] == "depth":
            try:
                self.level = max(1, min(20, int(words[2])))
            except ValueError:
                self.write(f"status bad depth {words[2][:20]}")
            self.write(f"set myname {NAME}{self.level}")
        elif cmd == "set" and len(words) > 2 and words[1] == "game":
            self._set_game(words[2])
        elif cmd == "move" and len(words) > 1:
            self._move(words[1].split("/")[0])
        elif cmd == "go":
            self.write(format_nboard_move(self.choose()))
        elif cmd == "hint" and len(words) > 1:
            self._hint(words[1])
        elif cmd == "learn":
            self.write("learned")
        # nboard, set contempt and anything unknown: ignored, as the protocol asks
        return True

    def _set_game(self, text: str) -> None:
        try:
            games = read_ggf_text(text, "set game")
            if len(games) != 1:
                raise RecordError("set game: exactly one game expected")
            game = games[0]
            self.position = game.final_position()
            self.clocks = _Clocks()
            if game.time_control:
                main, self.clocks.increment = parse_ggf_time_control(game.time_control)
                for color in Color:
                    mine = [m for m in game.moves if m.player is color]
                    used = sum(m.time or 0.0 for m in mine)
                    self.clocks.left[color] = main + self.clocks.increment * len(mine) - used
        except (RecordError, BoardStringError, TimeFormatError) as exc:
            self.write(f"status cannot read the game: {exc}")

    def _move(self, token: str) -> None:
        try:
            square = parse_move(token)
            pos = self.position
            self.position = pos.pass_turn() if square is None else pos.play(square)
        except (ProtocolError, IllegalMoveError) as exc:
            self.write(f"status bad move {token[:10]}: {exc}")

    def choose(self) -> EngineMove:
        started = time.monotonic()
        self.write("status thinking")
        result = timed_analyse(self.position, Settings.for_level(self.level),
                               self.clocks.budget(self.seconds, self.position),
                               evaluate=self.evaluate)
        self.write("status waiting")
        return EngineMove(result.best, result.score, round(time.monotonic() - started, 2))

    def _hint(self, count: str) -> None:
        """Every move's score at the deepest depth that fits the time per move."""
        try:
            n = max(1, int(count))
        except ValueError:
            n = 1
        result = timed_analyse(self.position, Settings.for_level(self.level), self.seconds,
                               n, self.evaluate)
        if not result.scores:  # a pass, or the game is over
            self.write(format_search_line(None, result.score, result.depth))
        for square, score in sorted(result.scores.items(), key=lambda kv: -kv[1])[:n]:
            self.write(format_search_line(square, score, result.depth))
        self.write("status")


class GtpServer:
    """One GTP session in Egaroucid's dialect: ``play``/``genmove`` on its own board."""

    COMMANDS = ("protocol_version", "name", "version", "known_command", "list_commands",
                "boardsize", "clear_board", "komi", "play", "genmove", "reg_genmove",
                "undo", "showboard", "time_settings", "time_left", "quit")

    def __init__(self, write: Callable[[str], None], level: int = DEFAULT_LEVEL,
                 seconds: float = DEFAULT_SECONDS) -> None:
        self.write = write
        self.level = level
        self.seconds = seconds
        self.size = STANDARD  # until a ``boardsize`` says otherwise
        self.history = [Position.start()]
        self.clocks = _Clocks()
        self.evaluate = default_evaluator()

    @property
    def position(self) -> Position:
        return self.history[-1]

    def handle(self, line: str) -> bool:
        words = line.split()
        if not words:
            return True
        ident = ""
        if words[0].isdigit():
            ident, words = words[0], words[1:]
        if not words:
            return True
        cmd, args = words[0], words[1:]
        ok, text = self._command(cmd, args)
        reply = gtp_ok(text) if ok else gtp_error(text)
        self.write(reply[0] + ident + reply[1:])
        return cmd != "quit"

    def _command(self, cmd: str, args: list[str]) -> tuple[bool, str]:
        if cmd == "protocol_version":
            return True, "2"
        if cmd == "name":
            return True, NAME
        if cmd == "version":
            return True, VERSION
        if cmd == "known_command":
            return True, "true" if args and args[0] in self.COMMANDS else "false"
        if cmd == "list_commands":
            return True, "\n".join(self.COMMANDS)
        if cmd in ("boardsize", "komi", "quit"):
            if cmd == "boardsize":
                if not args or not args[0].isdigit() or int(args[0]) not in SIZES:
                    return False, "unacceptable size"
                self.size = int(args[0])
                self.history = [Position.start(self.size)]
            return True, ""
        if cmd == "clear_board":
            self.history = [Position.start(self.size)]
            return True, ""
        if cmd == "undo":
            if len(self.history) < 2:
                return False, "cannot undo"
            self.history.pop()
            return True, ""
        if cmd == "showboard":
            return True, "\n" + str(self.position)
        if cmd == "play":
            return self._play(args)
        if cmd in ("genmove", "reg_genmove"):
            return self._genmove(args, cmd == "genmove")
        if cmd in ("time_settings", "time_left"):
            return self._time(cmd, args)
        return False, "unknown command"

    def _time(self, cmd: str, args: list[str]) -> tuple[bool, str]:
        """``time_settings main byo stones`` starts both clocks at ``main``;
        ``time_left colour seconds stones`` says what one side has left."""
        try:
            if cmd == "time_settings":
                main = float(args[0])
                if not 0 <= main <= 360_000:
                    raise ValueError(main)
                self.clocks = _Clocks()
                self.clocks.left = {Color.BLACK: main, Color.WHITE: main}
                return True, ""
            color = Color.parse(args[0])
            left = float(args[1])
            if not 0 <= left <= 360_000:
                raise ValueError(left)
            self.clocks.left[color] = left
        except (IndexError, ValueError, BoardStringError):
            return False, "syntax error"
        return True, ""

    def _side(self, args: list[str]) -> Color | None:
        try:
            return Color.parse(args[0]) if args else None
        except BoardStringError:
            return None

    def _turn(self, color: Color) -> Position:
        """The position with ``color`` to move: a colour out of turn is a pass (Egaroucid)."""
        pos = self.position
        return pos if pos.to_move is color else pos.with_to_move(color)

    def _play(self, args: list[str]) -> tuple[bool, str]:
        color = self._side(args)
        if color is None or len(args) < 2:
            return False, "syntax error"
        try:
            square = parse_move(args[1], self.size)
            pos = self._turn(color)
            self.history.append(pos.pass_turn() if square is None else pos.play(square))
        except (ProtocolError, IllegalMoveError) as exc:
            return False, f"illegal move: {exc}"
        return True, ""

    def _genmove(self, args: list[str], play: bool) -> tuple[bool, str]:
        color = self._side(args)
        if color is None:
            return False, "syntax error"
        pos = self._turn(color)
        result = timed_analyse(pos, Settings.for_level(self.level),
                               self.clocks.budget(self.seconds, pos), evaluate=self.evaluate)
        if play:
            self.history.append(pos.pass_turn() if result.best is None
                                else pos.play(result.best))
        return True, gtp_vertex(result.best)


def serve(protocol: str, level: int, stdin: TextIO, stdout: TextIO,
          seconds: float = DEFAULT_SECONDS) -> int:
    """Answer commands from ``stdin`` until ``quit`` or end of input."""

    def write(line: str) -> None:
        stdout.write(line if line.endswith("\n") else line + "\n")
        stdout.flush()

    server = (NBoardServer if protocol == "nboard" else GtpServer)(write, level, seconds)
    for raw in stdin:
        if not server.handle(raw.strip()):
            break
    return 0


def parse_level(text: str) -> int:
    """``--level``: a number, or a level's name (``beginner`` ... ``strong``)."""
    if text.strip().lower() in LEVEL_NAMES:
        return LEVEL_NAMES[text.strip().lower()]
    try:
        level = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a level: {text[:20]!r} (1-20, or {', '.join(LEVEL_NAMES)})") from None
    if level < 1:
        raise argparse.ArgumentTypeError(f"level must be 1 or more, not {level}")
    return min(20, level)  # deeper than 20 plies is out of reach here anyway


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--protocol", choices=("nboard", "gtp"), default="nboard",
                   help="the protocol to speak on stdin/stdout (default: nboard)")
    p.add_argument("--level", type=parse_level, default=DEFAULT_LEVEL,
                   help=f"1-5 or beginner, novice, club, advanced, strong (default "
                   f"{DEFAULT_LEVEL}); 6 and up: that search depth (at most 20); "
                   "NBoard's 'set depth' changes it")
    p.add_argument("--seconds", type=float, default=DEFAULT_SECONDS,
                   help=f"time to choose a move (default {DEFAULT_SECONDS:g}); the search "
                   "stops deepening before it would pass it")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m controller.engine.own",
                                description="Kaeshi's own Othello engine (NBoard or GTP).")
    add_arguments(p)
    args = p.parse_args(argv)
    return serve(args.protocol, args.level, sys.stdin, sys.stdout, args.seconds)


if __name__ == "__main__":
    sys.exit(main())
