"""Who may see what, in each mode: the one rule that every output follows.

Tournament rule 21 forbids advice to a player during a game, and spotting an
irregularity is the opponent's right (rule 5①). So outside ``home`` mode a player (or a
spectator: anyone without the arbiter's token) learns nothing that the board and the
clock do not already say. ``record`` mode keeps irregularities from the arbiter too
while the game runs: they go to the record only.

Every output asks :func:`disclosure` and nothing else: the web page's snapshots and
event stream (:func:`controller.web.facade.for_view`), the record download
(:func:`controller.web.facade.record_for_view`), the LEDs
(:func:`controller.leds.plan.plan_overlay`) and the terminal view. Once the game is over
nothing can advise anyone any more, so its flags and comments become everyone's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: ``player`` is anyone without the arbiter's token: players, spectators, a hall screen.
Audience = Literal["player", "arbiter"]


@dataclass(frozen=True, slots=True)
class Disclosure:
    """What one audience may be shown now."""

    #: What the rules engine knows that the board does not say: legal moves, the
    #: expected position, the side to move and the counts by the rules.
    advice: bool
    #: Irregularities: open flags, irregularity events, comments on moves and the game.
    flags: bool

    @property
    def overlay(self) -> bool:
        """Per-square lights (last move, discs to turn, wrong discs) combine both."""
        return self.advice and self.flags


EVERYTHING = Disclosure(advice=True, flags=True)


def mode_name(mode: object) -> str:
    """``Mode.TOURNAMENT`` or ``"tournament"`` -> ``"tournament"``; anything else as given."""
    return str(getattr(mode, "value", mode)).lower()


def audience_of(name: str) -> Audience:
    """The LED code says ``players``; the web says ``player``: both mean the same people."""
    return "arbiter" if name == "arbiter" else "player"


def disclosure(mode: object, audience: str, game_over: bool = False) -> Disclosure:
    """What ``audience`` may see in ``mode``; an unknown mode shows as little as possible."""
    name = mode_name(mode)
    if name == "home":
        return EVERYTHING
    if audience_of(audience) == "arbiter":
        if name == "tournament":
            return EVERYTHING
        if name == "record":
            return Disclosure(advice=True, flags=game_over)
    return Disclosure(advice=False, flags=game_over)
