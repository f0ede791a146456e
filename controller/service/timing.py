"""Time-driven work of the service: the flag's exact fall, stood readings, silent sensors.

A flag is not found by polling: after every step the clock model says when the
running side's flag will fall (:meth:`~controller.clock.GameClock.fall_time`) and
a timer is set for that instant. The core stamps the time-out with the fall
instant itself, so the record is exact whatever the timer did; the periodic tick
only catches what a timer cannot (a reading that stood, a silent sensor, a journal
to retry) and redraws the clock displays.

A press stamped before zero counts, whenever it is processed. So the flag is
declared only once no earlier press can still arrive: a live input may come up to
its source's stated latency after its stamp (:data:`BUTTON_LATENCY` for the clock's
buttons), so the flag waits that long after the fall, and readings stamped after
the fall are held back meanwhile (a board read after zero must not end the game
before a press made before it); a replay hands its readings over in time order,
so its flag waits only for a reading stamped before the fall that it still holds.
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Protocol

from controller.service.gametime import GameTime
from controller.service.recovery import JournalKeeper
from controller.service.table import Stepper, Table

log = logging.getLogger("kaeshi.service")

#: Seconds between time checks (stood readings, watchdog, clock displays).
TICK = 0.1
#: Seconds between attempts to write a journal that failed.
JOURNAL_RETRY = 1.0
#: Real seconds a clock button's press may take from its edge (the instant it is
#: stamped with) to the service: the pin library's thread, then the event loop's
#: queue. Contact bounce is judged at the edge and delays nothing.
BUTTON_LATENCY = 0.1
#: Readings held back at most while a flag's fall is being confirmed.
MAX_HELD_BACK = 1000


class Inputs(Protocol):
    """What the flag asks of the inputs (the intake): how late one may come, whether a
    replay still holds one from before the fall, and the ones held back after it."""

    def latency(self) -> float:
        """Real seconds the slowest live input may take from its stamp to the service."""
        ...
    def pending_before(self, fall: float) -> bool:
        """A replay still holds a reading stamped before ``fall`` (it is on its way)."""
        ...
    def flush_held_back(self) -> None:
        """Take the readings held back while a fall was confirmed, in order."""
        ...


class FlagTimer:
    """The one timer for the flag's fall, the readings held back while a fall is being
    confirmed, and the periodic tick (see the module docstring)."""

    def __init__(self, table: Table, time: GameTime, keeper: JournalKeeper,
                 play: Stepper) -> None:
        self.table = table
        self.time = time
        self.keeper = keeper
        self.play = play
        self.timer: asyncio.TimerHandle | None = None
        self.inputs: Inputs | None = None

    def follow(self, inputs: Inputs) -> None:
        """The inputs whose latency and held readings the flag waits for (the intake,
        made after the timer because it holds readings back by it)."""
        self.inputs = inputs

    def schedule(self) -> None:
        """Set the one timer for the running side's flag fall (none while no time runs)."""
        self.cancel()
        core = self.table.core
        if core is None or core.clock is None or core.game_over:
            return
        fall = core.clock.fall_time()
        if fall is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not running yet: run() schedules it
        delay = max(0.0, (fall + self._wait() - self.time.now()) / self.time.scale)
        self.timer = loop.call_later(delay, self._due, fall)

    def _wait(self) -> float:
        """Game seconds after a fall before it may be declared: the slowest input's latency."""
        latency = 0.0 if self.inputs is None else self.inputs.latency()
        return latency * self.time.scale

    def ready(self, fall: float) -> bool:
        """No press stamped before ``fall`` can still arrive: the flag may be declared."""
        return self.time.now() >= fall + self._wait() and not self._pending_before(fall)

    def _pending_before(self, fall: float) -> bool:
        return self.inputs is not None and self.inputs.pending_before(fall)

    def _flush(self) -> None:
        if self.inputs is not None:
            self.inputs.flush_held_back()

    def shown_time(self) -> float:
        """The game time the clocks are shown at: now, except from a fall until its flag
        is declared (the game then over), when they stand at zero with no flag, so a
        press stamped before the fall that then counts never takes back a flag somebody
        saw, and no page shows a flag the game does not have yet (the declaring timer
        may run a little after the wait ends)."""
        now = self.time.now()
        core = self.table.core
        if core is None or core.clock is None or core.game_over:
            return now
        fall = core.clock.fall_time()
        if fall is not None and now >= fall:
            return math.nextafter(fall, -math.inf)
        return now

    def in_window(self, t: float) -> bool:
        """An input stamped ``t`` falls after a fall not yet confirmed: hold it back."""
        core = self.table.core
        if core is None or core.clock is None or core.game_over:
            return False
        fall = core.clock.fall_time()
        return fall is not None and t >= fall and not self.ready(fall)

    def fall_unconfirmed(self) -> bool:
        """A flag has fallen and a press stamped before it may still arrive."""
        return self.in_window(self.time.now())

    def settle_before(self, t: float) -> None:
        """A reading that stood before ``t`` counts at the instant it stood, before the
        input stamped ``t``: so whether the tick or the next input found it first (a
        matter of scheduling, and of kills and restarts) never changes a time."""
        core = self.table.core
        if core is None or core.game_over:
            return
        due = core.arbiter.settles_at()
        if due is not None and due <= t:
            self.play.step({"action": "elapse"}, t=due)

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _due(self, fall: float) -> None:
        self.timer = None
        core = self.table.core
        if core is None or core.clock is None or core.game_over or self.keeper.problem:
            return
        if core.clock.fall_time() != fall:
            self.schedule()  # the clock changed since (it should have rescheduled)
            return
        now = self.time.now()
        if not self.ready(fall):
            # a timer may fire a hair early, or a replayed reading stamped before the
            # fall is still on its way: look again in a moment, declare nothing yet
            wait = max(0.001, (fall + self._wait() - now) / self.time.scale)
            self.timer = asyncio.get_running_loop().call_later(
                wait, self._due, fall)
            return
        try:
            # stamped with the fall itself: the readings held back keep their own times
            self.play.step({"action": "flag"}, t=fall)
            self._flush()
        except Exception:
            log.exception("flag check failed")

    def check(self) -> None:
        """One periodic check (:data:`TICK`): a fallen flag, as a backstop to its timer,
        and a reading that stood."""
        core = self.table.core
        if core is None:
            return
        if core.clock is not None and not core.game_over and core.clock.flag(self.time.now()):
            fall = core.clock.fall_time()
            if fall is None or self.ready(fall):
                self.play.step({"action": "flag"}, t=fall)
                self._flush()
        due = core.arbiter.settles_at()
        if (due is not None and not core.game_over and self.time.now() >= due
                and not self._pending_before(due)):
            # a raw source may report a board once and fall silent (a camera whose board
            # changed again before a second frame agreed): it counts once it stood, not
            # only at the next input, so the LEDs and corrections follow at once. It is
            # stamped with the instant it stood, not when the tick saw it.
            self.play.step({"action": "elapse"}, t=due)
