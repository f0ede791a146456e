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
from typing import TYPE_CHECKING

from controller.service.sources import LinkChange, Source
from controller.service.states import State

if TYPE_CHECKING:
    from controller.service.app import Service

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


class TimingMixin:
    """The timer and tick methods of :class:`~controller.service.app.Service`."""

    def _schedule_flag(self: Service) -> None:
        """Set the one timer for the running side's flag fall (none while no time runs)."""
        self._cancel_flag()
        core = self.core
        if core is None or core.clock is None or core.game_over:
            return
        fall = core.clock.fall_time()
        if fall is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not running yet: run() schedules it
        delay = max(0.0, (fall + self._flag_wait() - self.now()) / self._scale)
        self._flag_timer = loop.call_later(delay, self._flag_due, fall)

    def _flag_wait(self: Service) -> float:
        """Game seconds after a fall before it may be declared: the slowest input's latency."""
        real = getattr(self._active_source, "latency", 0.0)
        if self._clockhw is not None:
            real = max(real, BUTTON_LATENCY)
        return real * self._scale

    def _earlier_pending(self: Service, fall: float) -> bool:
        """A replay still holds a reading stamped before ``fall`` (it is on its way)."""
        pending = getattr(self._active_source, "pending", None)
        if pending is None:
            return False
        offset = (self._log_offset if self._log_offset is not None
                  else max(0.0, self._open_base - pending))
        return pending + offset < fall

    def _flag_ready(self: Service, fall: float) -> bool:
        """No press stamped before ``fall`` can still arrive: the flag may be declared."""
        return self.now() >= fall + self._flag_wait() and not self._earlier_pending(fall)

    def shown_time(self: Service) -> float:
        """The game time the clocks are shown at: now, except while a fall waits to be
        confirmed, when they stand at zero with no flag, so a press stamped before the
        fall that then counts never takes back a flag somebody saw."""
        now = self.now()
        core = self.core
        if core is None or core.clock is None or core.game_over:
            return now
        fall = core.clock.fall_time()
        if fall is not None and now >= fall and not self._flag_ready(fall):
            return math.nextafter(fall, -math.inf)
        return now

    def _in_flag_window(self: Service, t: float) -> bool:
        """An input stamped ``t`` falls after a fall not yet confirmed: hold it back."""
        core = self.core
        if core is None or core.clock is None or core.game_over:
            return False
        fall = core.clock.fall_time()
        return fall is not None and t >= fall and not self._flag_ready(fall)

    def _settle_before(self: Service, t: float) -> None:
        """A reading that stood before ``t`` counts at the instant it stood, before the
        input stamped ``t``: so whether the tick or the next input found it first (a
        matter of scheduling, and of kills and restarts) never changes a time."""
        core = self.core
        if core is None or core.game_over:
            return
        due = core.arbiter.settles_at()
        if due is not None and due <= t:
            self._step({"action": "elapse"}, t=due)

    def _flush_held_back(self: Service) -> None:
        """Take the readings held back while a fall was confirmed, in order."""
        while self._held_back and self.journal_problem is None:
            data, t, arrival = self._held_back[0]
            if self._in_flag_window(t):
                return
            self._held_back.pop(0)
            try:
                self._step(data, t=t, arrival=arrival)
            except ValueError as exc:
                log.warning("reading not used: %s", exc)

    def _cancel_flag(self: Service) -> None:
        if self._flag_timer is not None:
            self._flag_timer.cancel()
            self._flag_timer = None

    def _flag_due(self: Service, fall: float) -> None:
        self._flag_timer = None
        core = self.core
        if core is None or core.clock is None or core.game_over or self.journal_problem:
            return
        if core.clock.fall_time() != fall:
            self._schedule_flag()  # the clock changed since (it should have rescheduled)
            return
        now = self.now()
        if not self._flag_ready(fall):
            # a timer may fire a hair early, or a replayed reading stamped before the
            # fall is still on its way: look again in a moment, declare nothing yet
            wait = max(0.001, (fall + self._flag_wait() - now) / self._scale)
            self._flag_timer = asyncio.get_running_loop().call_later(
                wait, self._flag_due, fall)
            return
        try:
            # stamped with the fall itself: the readings held back keep their own times
            self._step({"action": "flag"}, t=fall)
            self._flush_held_back()
        except Exception:
            log.exception("flag check failed")

    async def _tick(self: Service, source: Source) -> None:
        """Time-driven checks: a reading that stood, a silent sensor, a journal to retry,
        the clock displays, and a fallen flag as a backstop to its timer."""
        since_retry = 0.0
        while True:
            await asyncio.sleep(TICK)
            try:
                if self.journal_problem is not None:
                    since_retry += TICK
                    if since_retry >= JOURNAL_RETRY:
                        since_retry = 0.0
                        self._journal_retry()
                    self._update_clock_display()
                    continue
                self._tick_once(source)
            except Exception:  # a bug here must not stop the time checks for good
                log.exception("time check failed")

    def _tick_once(self: Service, source: Source) -> None:
        core = self.core
        if core is None:
            return
        if core.clock is not None and not core.game_over and core.clock.flag(self.now()):
            fall = core.clock.fall_time()
            if fall is None or self._flag_ready(fall):
                self._step({"action": "flag"}, t=fall)
                self._flush_held_back()
        due = core.arbiter.settles_at()
        if (due is not None and not core.game_over and self.now() >= due
                and not self._earlier_pending(due)):
            # a raw source may report a board once and fall silent (a camera whose board
            # changed again before a second frame agreed): it counts once it stood, not
            # only at the next input, so the LEDs and corrections follow at once. It is
            # stamped with the instant it stood, not when the tick saw it.
            self._step({"action": "elapse"}, t=due)
        if (source.watchdog and self.states.state is not State.SENSOR_LOST
                and self._mono() - self._last_reading > self.config["source.lost_after"]):
            quiet = self.config["source.lost_after"]
            self._link(LinkChange(False, f"no reading for {quiet} s"))
        self._update_clock_display()
