"""Presses as prompt as people make them: 0.15-0.4 s after the hand leaves the board.

A log from a generator that waits until the board has been seen settled before it
presses hides what a camera meets at a real table: players reach for the clock as
the hand comes off the last disc. :func:`prompt_presses` moves each press that ends
work on the board to a moment drawn in that range after the board last changed (the
first reading of the board as it stands at the press: the hand is off it from
then on, since a hand reads ``?``), never later than it was. A press with the
board unchanged since the previous press (an illegal pass, a press pointing out
the opponent's fault) stays where it is.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from controller.observation import Observation

#: Seconds from the hand leaving the board to the press, as players press.
PROMPT = (0.15, 0.4)


def prompt_presses(observations: Iterable[Observation], seed: int = 0,
                   low: float = PROMPT[0], high: float = PROMPT[1]) -> list[Observation]:
    """``observations`` with every press that follows a hand moved to ``low``-``high``
    seconds after the hand left (drawn with ``seed``), in time order."""
    if not 0 <= low <= high:
        raise ValueError(f"need 0 <= low <= high, not {low}, {high}")
    rng = random.Random(seed)
    out: list[Observation] = []
    board: str | None = None  # the latest board
    since: float | None = None  # when it was first read, if it changed since the last press
    floor = float("-inf")  # a press never moves before the previous one
    for obs in observations:
        if obs.board is not None:
            if obs.board != board:
                since = None if board is None else obs.t  # the first board is no change
                board = obs.board
            out.append(obs)
            continue
        t = obs.t
        if since is not None and board is not None and "?" not in board:
            t = max(min(t, round(since + rng.uniform(low, high), 3)), floor)
        floor, since = t, None
        out.append(Observation(t, press=obs.press) if obs.press is not None else obs)
    # stable: a press moved to a board's moment stays after that board
    return sorted(out, key=lambda o: o.t)
