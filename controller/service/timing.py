"""Time-driven work of the service: the flag's exact fall, stood readings, silent sensors.

A flag is not found by polling: after every step the clock model says when the
running side's flag will fall (:meth:`~controller.clock.GameClock.fall_time`) and
a timer is set for that instant, so the time-out is shown within a timer's
latency of the true fall. The core stamps the time-out with the fall instant
itself, so the record is exact whatever the timer did; the periodic tick only
catches what a timer cannot (a reading that stood, a silent sensor, a journal to
retry) and redraws the clock displays.
"""

from __future__ import annotations

import asyncio
import logging
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
        delay = max(0.0, (fall - self.now()) / self._scale)
        self._flag_timer = loop.call_later(delay, self._flag_due, fall)

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
        if now < fall:  # a timer may fire a hair early: wait for the instant itself
            self._flag_timer = asyncio.get_running_loop().call_later(
                (fall - now) / self._scale, self._flag_due, fall)
            return
        try:
            self._step({"action": "flag"}, t=now)
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
            self._step({"action": "flag"})
        due = core.arbiter.settles_at()
        if due is not None and not core.game_over and self.now() >= due:
            # a raw source may report a board once and fall silent (a camera whose board
            # changed again before a second frame agreed): it counts once it stood, not
            # only at the next input, so the LEDs and corrections follow at once
            self._step({"action": "elapse"})
        if (source.watchdog and self.states.state is not State.SENSOR_LOST
                and self._mono() - self._last_reading > self.config["source.lost_after"]):
            quiet = self.config["source.lost_after"]
            self._link(LinkChange(False, f"no reading for {quiet} s"))
        self._update_clock_display()
