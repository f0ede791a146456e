"""The service's outputs: what is shown once a step is journaled, and the devices
and servers that show it (LEDs, clock displays, terminal, web page, hub link).

Step 4 of the flow in :mod:`controller.service.app`: nothing here changes the game;
each output draws from the core's state, so a failed output never loses a move.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from controller.errors import KaeshiError
from controller.leds.plan import plan_overlay
from controller.service.config import Config
from controller.service.sources import Source
from controller.squares import Color
from controller.web.facade import for_view

if TYPE_CHECKING:
    from controller.service.app import Service

log = logging.getLogger("kaeshi.service")


class OutputsMixin:
    """The output methods of :class:`~controller.service.app.Service`."""

    def _show(self: Service, arrival: float | None = None) -> None:
        self.notifier.notify()
        self._update_leds(arrival)
        self._update_clock_display()

    def _update_leds(self: Service, arrival: float | None = None) -> None:
        if self._leds is None or self.core is None:
            return
        plan = plan_overlay(
            self.core.settings.mode, self.core.arbiter.overlay(), self.states.state.value,
            self._legal() if self.config["leds.show_legal"] else None,
        )
        if self.engine is not None:  # the arbiter's lights win where both fall
            plan = {**self.engine.plan(self._board()), **plan}
        if plan == self._led_plan:
            return
        self._led_plan = plan
        task = asyncio.ensure_future(self._leds.show(plan))
        if arrival is not None:
            self.latencies.append((arrival, self._mono()))
            del self.latencies[:-1000]
        task.add_done_callback(_log_task_error)

    def _update_clock_display(self: Service) -> None:
        if self._clockhw is None or self.core is None or self.core.clock is None:
            return
        c = self.core.clocks(self.shown_time())
        running = Color(c["running"]) if c["running"] else None
        self._clockhw.show(c["black"], c["white"], running, c["paused"])

    def _board(self: Service) -> str:
        assert self.core is not None
        arb = self.core.arbiter
        return arb.last_board or arb.position.board_string()

    def _legal(self: Service) -> list[str]:
        assert self.core is not None
        return self.core.arbiter.position.legal_squares()

    async def _draw(self: Service) -> None:
        assert self.terminal is not None
        shown = -1
        last = 0.0
        while True:
            await asyncio.sleep(0.1)
            if self.notifier.version != shown or self._mono() - last > 0.5:
                shown = self.notifier.version
                last = self._mono()
                try:
                    self.terminal.update(for_view(self.snapshot("arbiter"), "arbiter"))
                except Exception:  # the view must never take the service down
                    log.exception("terminal view failed")

    async def _start_outputs(self: Service, source: Source) -> None:
        driver = self.config["leds.driver"]
        if driver == "web":
            from controller.leds import WebLeds

            self._leds = WebLeds(self.notifier.notify)
        elif driver == "board":
            from controller.leds import SensorBoardLeds

            if not hasattr(source, "set_leds"):
                raise KaeshiError(f"{self.config.source}: leds.driver = \"board\" needs "
                                  "source.kind = \"hall\" (the LEDs are on the sensor board)")
            self._leds = SensorBoardLeds(source)  # type: ignore[arg-type]
        elif driver == "ws2812":
            from controller.leds import Ws2812SpiLeds
            from controller.leds.spi import open_spi_writer

            self._leds = Ws2812SpiLeds(open_spi_writer())
        if self.config["clock.buttons"]:
            self._clockhw = _open_clock_hardware(self)
        if self.config["web.enabled"]:
            from controller.web import WebServer

            self._web = WebServer(self, self.config["web.host"], self.config["web.port"],
                                  self.token)
            await self._web.start()
            self.url = self._web.url
            log.info("arbiter view: %s/arbiter", self.url)
            # the token goes to the person at the terminal only, never to a log file
            from controller.hub.logs import tell_terminal

            if not tell_terminal(f"arbiter view: {self.url}/arbiter?token={self.token}") \
                    and not self.config["web.token"]:
                log.warning("web.token is empty and the output is not a terminal: the random "
                            "arbiter token cannot be shown; set web.token")
        if self._wants_engine():
            from controller.engine.seat import EngineSeat, spec_from_config

            plays = self.config["engine.plays"]
            self.engine = EngineSeat(self, spec_from_config(self.config),
                                     None if plays == "none" else Color(plays))
            self.engine.changed()
        if self.config["hub.enabled"]:
            from controller.hub.table import HubLink, link_settings

            self.hub = HubLink(self, link_settings(self.config))
            self.hub.start()

    def _wants_engine(self: Service) -> bool:
        """An engine only at a home table (rule 21), and only if it has work: an opponent
        to play, or a page where the player can ask for hints."""
        if self.core is None or self.core.settings.mode != "home":
            return False
        return self.config["engine.plays"] != "none" or self.config["web.enabled"]

    async def _stop_outputs(self: Service, source: Source) -> None:
        with contextlib.suppress(Exception):
            await source.close()
        if self.engine is not None:
            with contextlib.suppress(Exception):
                await self.engine.close()
        if self.hub is not None:
            await asyncio.to_thread(self.hub.stop)
        if self._web is not None:
            await self._web.stop()
        if self._clockhw is not None:
            self._clockhw.close()
        if self._leds is not None and hasattr(self._leds, "off"):
            with contextlib.suppress(Exception):
                self._leds.off()
        if self.terminal is not None:
            self.terminal.update(for_view(self.snapshot("arbiter"), "arbiter"))
        if self.journal is not None:
            self.journal.close()


def clock_pins(cfg: Config) -> Any:
    """The clock's wiring as the configuration's [gpio] section gives it."""
    from controller.clockhw import ClockPins

    return ClockPins(
        black_button=cfg["gpio.black_button"],
        white_button=cfg["gpio.white_button"],
        pause_button=cfg["gpio.pause_button"],
        black_clk=cfg["gpio.black_clk"],
        black_dio=cfg["gpio.black_dio"],
        white_clk=cfg["gpio.white_clk"],
        white_dio=cfg["gpio.white_dio"],
        buzzer=None if cfg["gpio.buzzer"] < 0 else cfg["gpio.buzzer"],
        debounce=cfg["gpio.debounce"],
    )


def _open_clock_hardware(service: Service) -> Any:
    from controller.clockhw import ClockHardware

    loop = asyncio.get_running_loop()
    return ClockHardware(
        clock_pins(service.config),
        on_press=lambda color, t: loop.call_soon_threadsafe(service.clock_press, color, t),
        on_pause=lambda t: loop.call_soon_threadsafe(service.clock_pause_button),
        time_source=service._mono,  # the service's own clock: edges map to game time
    )


def _log_task_error(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("LED update failed: %s", task.exception())
