"""Replay an observation log through the sensor board: simulator, pty, driver.

Each board observation is laid out on the simulated board (the real firmware built
for the host); what the host driver then reports is recorded. Clock presses pass
straight through, because the clock is wired to the Pi, not to the sensor board.

Each observation is laid on the simulated board as one whole-board change, which no
hand ever makes: if the change lands in the middle of a scan, the firmware's
debounce settles some squares one scan before the others, and the driver reports a
board that mixes the previous observation with the next for a few milliseconds.
The input log already holds the physical mid-move states, so these replay artefacts
are checked (every square must show either the previous or the next board; anything
else is kept and logged) and then left out. The hall log therefore holds exactly the
boards the sensor path delivered for each observation.

Time: the board delivered for the input's observation *i* is stamped with
observation *i*'s time. The driver's own timestamps are wall-clock arrival times of
a replay that runs far faster than the game did, so keeping the input's times is
what lets the arbiter judge the hall log exactly as it judges the original: same
events, same times.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from controller.errors import KaeshiError
from controller.hall.driver import HallBoard
from controller.hall.link import LinkStatus
from controller.hall.messages import SQUARES
from controller.hall.simboard import SimBoard
from controller.observation import Observation

log = logging.getLogger("kaeshi.hall")

#: Frame rate asked of the simulated board: the fastest board mode allows.
REPLAY_RATE_HZ = 200
#: Scan pacing of the simulator (µs per mux step); faster than the real board's 425 µs
#: so a long log replays in seconds. Debouncing and classification are unchanged.
REPLAY_STEP_US = 50


class ReplayError(KaeshiError):
    """A board of the log never came through the sensor board."""


def observations_via_hall(observations: Iterable[Observation], timeout: float = 30.0,
                          seed: int = 1) -> list[Observation]:
    """The observations as the Hall driver receives them from the simulated board.

    ``timeout`` only bounds a failure: a board comes through in a fraction of a second
    on an idle machine, but a busy one can slow the simulated board many times over.
    """
    out: list[Observation] = []
    with SimBoard(seed=seed, step_us=REPLAY_STEP_US) as sim:
        with HallBoard(sim.port, rate_hz=REPLAY_RATE_HZ) as board:
            current = _drain(board)  # the board seen at connection is not in the log
            for obs in observations:
                if obs.board is None:
                    out.append(obs)
                    continue
                sim.set_board(obs.board)
                out.extend(_received(board, obs, current, timeout))
                current = obs.board
    return out


def _drain(board: HallBoard, timeout: float = 3.0) -> str:
    """Take the reports made on connecting; the last board the driver reported."""
    current = "-" * SQUARES
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        item = board.get(timeout=0.1)
        if isinstance(item, Observation) and item.board is not None:
            current = item.board
        elif item is None and board.board is not None:
            break
    return current


def _is_mix(board: str, before: str, after: str) -> bool:
    return all(c in (b, a) for c, b, a in zip(board, before, after, strict=True))


def _received(board: HallBoard, obs: Observation, previous: str,
              timeout: float) -> list[Observation]:
    """The driver's report of ``obs.board``, stamped ``obs.t``; see the module notes.

    ``previous`` is the last board taken from the driver's queue: the driver reports
    only changes, so an observation repeating it brings nothing new to wait for.
    """
    assert obs.board is not None
    got: list[Observation] = []
    if previous == obs.board:
        return [Observation(obs.t, board=obs.board)]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        item = board.get(timeout=0.05)
        if isinstance(item, LinkStatus):
            log.warning("replay: %s", item.message)
        elif item is not None and item.board is not None:
            if item.board == obs.board:
                got.append(Observation(obs.t, board=item.board))
                return got
            if not _is_mix(item.board, previous, obs.board):
                log.warning("replay: the sensor board reported %s between %s and %s",
                            item.board, previous, obs.board)
                got.append(Observation(obs.t, board=item.board))
    raise ReplayError(
        f"board of t={obs.t:g} never came through the sensor board within {timeout:g} s: "
        f"wanted {obs.board}, driver reports {board.board}"
    )
