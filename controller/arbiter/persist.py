"""The arbiter's whole state as plain JSON, so a crashed service resumes mid-game."""

from __future__ import annotations

from typing import Any

from controller.arbiter.config import ArbiterConfig, Mode
from controller.arbiter.core import Arbiter
from controller.arbiter.corrections import OpenMove
from controller.arbiter.judge import Flag, Judgement
from controller.arbiter.readings import StableBoard
from controller.boardsize import STANDARD
from controller.events import Event, Irregularity
from controller.position import Position
from controller.records.model import Move
from controller.squares import Color, check_size

VERSION = 2


def _pos(p: Position) -> list[Any]:
    return [p.black, p.white, p.to_move.value, p.size]


def _unpos(d: list[Any]) -> Position:
    # snapshots taken before boards had other sizes hold three items: 8x8 games
    size = check_size(int(d[3])) if len(d) > 3 else STANDARD
    return Position(int(d[0]), int(d[1]), Color(d[2]), size)


def _flag(f: Flag) -> list[Any]:
    return [f.kind.value, f.squares, f.fix]


def _unflag(d: list[Any]) -> Flag:
    return Flag(Irregularity(d[0]), int(d[1]), int(d[2]))


def snapshot(a: Arbiter) -> dict[str, Any]:
    c = a.config
    return {
        "version": VERSION,
        "config": {
            "mode": c.mode.value, "start": _pos(c.start), "draws_allowed": c.draws_allowed,
            "draw_win_right": c.draw_win_right.value if c.draw_win_right else None,
            "clock": c.clock, "settled": c.settled, "press_wait": c.press_wait,
        },
        "position": _pos(a.position), "shifted": a.shifted, "stable": a.stable.to_list(),
        "last_board": a.last_board, "clock": a.clock, "phase": a.phase,
        "turn_t": a.turn_t, "challenge_t": a.challenge_t, "was_over": a._was_over,
        "open": _open_state(a.open), "challenged": _open_state(a._challenged),
        "fixed_any": a._fixed_any, "first": a._first,
        "moves": [[m.player.value, m.square, m.time, m.comment] for m in a.moves],
        "notes": list(a.notes), "result": list(a.result) if a.result else None,
        "last_move": a.last_move, "last_t": a.last_t,
        "history": [list(h) for h in a._history], "base": list(a._base),
        "held": None if a._held is None else [a._held[0], a._held[1].value],
        "held_masks": list(a._held_masks), "at_press": a._at_press,
        "view": None if a._view is None else a._view.to_list(),
        "said": None if a._said is None else a._said.to_dict(),
    }


def _open_state(op: OpenMove | None) -> dict[str, Any] | None:
    if op is None:
        return None
    j = op.judgement
    return {
            "player": j.player.value, "square": j.square, "flips": j.flips,
            "all_flags": [_flag(f) for f in j.flags], "physical": _pos(j.physical),
            "shifted": j.shifted, "correct": _pos(j.correct),
            "flags": [_flag(f) for f in op.flags], "record_index": op.record_index,
            "challenged": op.challenged,
    }


def _unopen(o: dict[str, Any] | None) -> OpenMove | None:
    if o is None:
        return None
    j = Judgement(Color(o["player"]), o["square"], int(o["flips"]),
                  tuple(_unflag(f) for f in o["all_flags"]), _unpos(o["physical"]),
                  int(o["shifted"]), _unpos(o["correct"]))
    return OpenMove(j, [_unflag(f) for f in o["flags"]], int(o["record_index"]),
                 bool(o["challenged"]))


def restore(d: dict[str, Any]) -> Arbiter:
    if d.get("version") != VERSION:
        raise ValueError(f"arbiter snapshot version {d.get('version')!r} is not {VERSION}")
    c = d["config"]
    right = c["draw_win_right"]
    config = ArbiterConfig(
        mode=Mode(c["mode"]), start=_unpos(c["start"]), draws_allowed=bool(c["draws_allowed"]),
        draw_win_right=Color(right) if right else None, clock=c["clock"],
        settled=bool(c.get("settled", False)),  # absent from snapshots taken before it existed
        press_wait=float(c.get("press_wait", 0.0)),  # likewise
    )
    a = Arbiter(config)
    a.position = _unpos(d["position"])
    a.shifted = int(d["shifted"])
    a.stable = StableBoard.from_list(d["stable"])
    a.last_board = d["last_board"]
    a.clock = d["clock"]
    a.phase = d["phase"]
    a.turn_t = d["turn_t"]
    a.challenge_t = d["challenge_t"]
    a._was_over = bool(d["was_over"])
    a.open = _unopen(d["open"])
    ch = _unopen(d["challenged"])
    if ch is not None and a.open is not None and d["challenged"] == d["open"]:
        ch = a.open  # the same object in the live arbiter
    a._challenged = ch
    a._fixed_any = bool(d["fixed_any"])
    a._first = d["first"]
    a.moves = [Move(Color(p), sq, t, comment=cm) for p, sq, t, cm in d["moves"]]
    a.notes = list(d["notes"])
    a.result = tuple(d["result"]) if d["result"] else None
    a.last_move = d["last_move"]
    a.last_t = d["last_t"]
    a._history = [tuple(h) for h in d["history"]]
    a._base = tuple(d["base"])
    held = d.get("held")
    a._held = None if held is None else (float(held[0]), Color(held[1]))
    held_black, held_white, held_shifted = (int(m) for m in d.get("held_masks", (0, 0, 0)))
    a._held_masks = (held_black, held_white, held_shifted)
    a._at_press = d.get("at_press")
    view = d.get("view")
    a._view = None if view is None else StableBoard.from_list(view)
    said = d.get("said")  # absent from snapshots taken before the point-out was told
    a._said = None if said is None else Event.from_dict(said)
    return a
