"""Which squares light up, and how, for a mode: the one place that decides it.

Who may see what is decided for every output at once, by
:func:`controller.web.disclosure.disclosure`: the lights are per-square advice, so they
show only to an audience allowed both advice and flags. Tournament rule 21 forbids
advice to a player during a game, and spotting an irregularity is the opponent's right
(rule 5①), so in ``tournament`` and ``record`` modes the board shows nothing at all: no
last move, no discs to turn, no wrong discs, no legal moves, not even a "something is
wrong" light. What the arbiter needs goes to the arbiter's web view instead
(``audience="arbiter"``).

In ``home`` mode the board teaches: the last move, the discs still to turn, the
wrongly placed or turned discs, and — only when asked for — the legal moves.
Where two meanings fall on one square the more urgent wins:
wrong > still to turn > last move > legal move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from controller.hall.messages import LedPattern
from controller.web.disclosure import disclosure

Rgb = tuple[int, int, int]
Audience = Literal["players", "arbiter"]

#: Full-scale colours; each driver scales them to its own safe brightness.
LAST_MOVE: Rgb = (0, 120, 255)
PENDING: Rgb = (255, 150, 0)
WRONG: Rgb = (255, 0, 0)
LEGAL: Rgb = (0, 255, 60)
STATUS: Rgb = (160, 0, 255)

#: Service states in which a home board shows a status light on its four corners.
STATUS_STATES = frozenset({"sensor_lost", "journal_failed"})
STATUS_SQUARES = ("a1", "h1", "a8", "h8")


@dataclass(frozen=True, slots=True)
class LedCell:
    """One square's light: a colour and the pattern it runs (steady, blinks, breathe)."""

    rgb: Rgb
    pattern: LedPattern = LedPattern.STEADY

    def to_json(self) -> dict[str, object]:
        return {"rgb": list(self.rgb), "pattern": self.pattern.name.lower()}


Plan = dict[str, LedCell]


class OverlayLike(Protocol):
    """What the arbiter reports for the overlay (``controller.arbiter.Overlay``)."""

    @property
    def last_move(self) -> str | None: ...

    @property
    def pending(self) -> Sequence[str]: ...

    @property
    def wrong(self) -> Sequence[str]: ...


class LedDriver(Protocol):
    """Anything that can show a plan: the sensor board, a WS2812 strip, the web page."""

    async def show(self, plan: Mapping[str, LedCell]) -> None: ...


def _mode_name(mode: object) -> str:
    name = str(getattr(mode, "value", mode)).lower()
    if name not in ("home", "tournament", "record"):
        raise ValueError(f"unknown mode {mode!r} (home, tournament or record)")
    return name


def plan_overlay(
    mode: object,
    overlay: OverlayLike | None,
    state: str,
    legal: Sequence[str] | None = None,
    audience: Audience = "players",
) -> Plan:
    """The lights for ``mode`` (``Mode`` or its name) in service ``state``.

    ``legal`` is the list of legal moves when a home player asked for them, else None.
    ``audience="arbiter"`` gives the arbiter's full picture (everything but legal
    moves) in home and tournament modes; it is for the arbiter's web view, never for
    the board. ``record`` mode shows nobody anything live (irregularities only go to
    the game record), so it is dark for both audiences.
    """
    name = _mode_name(mode)
    if not disclosure(name, audience, str(state) == "game_over").overlay:
        return {}
    plan: Plan = {}
    if name == "home" and audience == "players" and str(state) in STATUS_STATES:
        for sq in STATUS_SQUARES:
            plan[sq] = LedCell(STATUS, LedPattern.BREATHE)
    if overlay is None:
        return plan
    settled = not overlay.pending and not overlay.wrong
    if legal and settled and audience == "players":
        for sq in legal:
            plan[sq] = LedCell(LEGAL, LedPattern.BREATHE)
    if overlay.last_move:
        plan[overlay.last_move] = LedCell(LAST_MOVE, LedPattern.STEADY)
    for sq in overlay.pending:
        plan[sq] = LedCell(PENDING, LedPattern.SLOW_BLINK)
    for sq in overlay.wrong:
        plan[sq] = LedCell(WRONG, LedPattern.FAST_BLINK)
    return plan


#: The marks an engine's instruction lights over: advice and reminders, never a flag.
UNDER_ENGINE: frozenset[Rgb] = frozenset({LEGAL, LAST_MOVE, STATUS})


def with_engine(plan: Plan, engine: Plan) -> Plan:
    """``plan`` with the engine's lights on it: the square to put, the discs to turn and
    the wrong-square mark win over legal-move, last-move and status marks; the arbiter's
    marks of a fault (pending, wrong) still win where both fall."""
    out = dict(plan)
    for sq, cell in engine.items():
        mine = out.get(sq)
        if mine is None or mine.rgb in UNDER_ENGINE:
            out[sq] = cell
    return out


def pattern_level(pattern: LedPattern, t: float) -> float:
    """Brightness factor 0..1 of ``pattern`` at time ``t`` (s), as the firmware runs them."""
    if pattern is LedPattern.STEADY:
        return 1.0
    if pattern is LedPattern.SLOW_BLINK:
        return 1.0 if t % 1.0 < 0.5 else 0.0
    if pattern is LedPattern.FAST_BLINK:
        return 1.0 if t % 0.25 < 0.125 else 0.0
    phase = (t % 2.0) / 2.0  # breathe: a 2 s triangle, never fully dark
    return 0.1 + 0.9 * (1.0 - abs(2.0 * phase - 1.0))
