"""The service's outputs: what is shown once a step is journaled, and the devices
and servers that show it (LEDs, clock displays, terminal, web page, engine, hub link).

Step 4 of the flow in :mod:`controller.service.app`: nothing here changes the game;
each output draws from the core's state, so a failed output never loses a move.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from controller.boardsize import board_size
from controller.leds.drivers import LED_DRIVERS, LedSetup, make_leds
from controller.leds.plan import LedDriver, Plan, plan_overlay, with_engine
from controller.service.config import Config
from controller.service.gametime import GameTime
from controller.service.sources import Source
from controller.service.table import Table
from controller.squares import Color
from controller.terminal import tell_terminal
from controller.web.facade import ServiceFacade, for_view

if TYPE_CHECKING:
    from controller.clockhw import ClockPins
    from controller.clockhw.hardware import ClockHardware
    from controller.engine.seat import EngineSeat
    from controller.service.display import TerminalDisplay
    from controller.table_link.link import HubLink
    from controller.table_link.table import LinkedTable
    from controller.web.server import WebServer

log = logging.getLogger("kaeshi.service")


class ClockFace(Protocol):
    """The game time the clocks are shown at (a fall waiting to be confirmed stands)."""

    def shown_time(self) -> float: ...


class Buttons(Protocol):
    """Where the clock's buttons go: the players' presses and the arbiter's pause."""

    def press(self, color: Color, at: float | None) -> None: ...
    def pause_button(self) -> None: ...


class Outputs:
    """The devices and servers that show a table, and the drawing of each step."""

    def __init__(self, table: Table, time: GameTime, terminal: TerminalDisplay | None,
                 token: str) -> None:
        self.table = table
        self.time = time
        self.terminal = terminal
        #: The arbiter's token (the web page's arbiter view).
        self.token = token
        #: What the terminal draws (the web page's view, given at :meth:`start`).
        self.facade: ServiceFacade | None = None
        self._face: ClockFace | None = None
        #: The board's lights ([leds]); some drivers also have ``run()`` and ``off()``.
        self.leds: LedDriver | None = None
        self.led_plan: Plan | None = None
        #: The clock's buttons and displays ([gpio]).
        self.clockhw: ClockHardware | None = None
        self.web: WebServer | None = None
        #: The web page's address, once it is up.
        self.url = ""
        #: The engine at a home table ([engine]).
        self.engine: EngineSeat | None = None
        #: The hall link ([hub]).
        self.hub: HubLink | None = None
        #: (arrival monotonic, LED shown monotonic) of recent board changes, for benchmarks.
        self.latencies: list[tuple[float, float]] = []
        #: The source being shown (a browser source's devices are shown on the pages).
        self.source: Source | None = None

    def show(self, arrival: float | None = None) -> None:
        self.table.notifier.notify()
        self.update_leds(arrival)
        self.update_clock_display()

    def tell(self, message: str) -> None:
        """Say ``message`` (what the page shows of the table), on the terminal view too,
        and show it at once: a pairing the table refuses, for one."""
        self.table.say(message)
        if self.terminal is not None:
            self.terminal.message(message)
        self.show()

    def changed(self) -> None:
        """After a journaled step: the engine and the hall link look at the new state."""
        if self.hub is not None:
            self.hub.changed()
        if self.engine is not None:
            self.engine.changed()

    def hub_changed(self) -> None:
        """The hall link looks at the table (a note journaled, a next game set up)."""
        if self.hub is not None:
            self.hub.changed()

    def hub_rounds(self) -> dict[str, int] | None:
        """The round of each game the hub paired (None: no hall link)."""
        return None if self.hub is None else self.hub.rounds

    def buzz(self) -> None:
        if self.clockhw is not None:
            self.clockhw.buzz()

    def update_leds(self, arrival: float | None = None) -> None:
        table = self.table
        if self.leds is None or table.core is None:
            return
        plan = plan_overlay(
            table.core.settings.mode, table.core.arbiter.overlay(), table.states.state.value,
            self.legal() if table.config["leds.show_legal"] else None,
        )
        if self.engine is not None:  # over legal moves; the arbiter's flag marks still win
            plan = with_engine(plan, self.engine.plan(self.board()))
        if plan == self.led_plan:
            return
        self.led_plan = plan
        task = asyncio.ensure_future(self.leds.show(plan))
        if arrival is not None:
            self.latencies.append((arrival, self.time.monotonic()))
            del self.latencies[:-1000]
        task.add_done_callback(_log_task_error)

    def update_clock_display(self) -> None:
        core = self.table.core
        if self.clockhw is None or self._face is None or core is None or core.clock is None:
            return
        c = core.clocks(self._face.shown_time())
        running = Color(c["running"]) if c["running"] else None
        self.clockhw.show(c["black"], c["white"], running, c["paused"])

    def board(self) -> str:
        assert self.table.core is not None
        arb = self.table.core.arbiter
        return arb.last_board or arb.position.board_string()

    def legal(self) -> list[str]:
        assert self.table.core is not None
        return self.table.core.arbiter.position.legal_squares()

    async def draw(self) -> None:
        """Keep the terminal view up to date (while the service runs)."""
        notifier, terminal, facade = self.table.notifier, self.terminal, self.facade
        assert terminal is not None and facade is not None
        shown = -1
        last = 0.0
        while True:
            await asyncio.sleep(0.1)
            if notifier.version != shown or self.time.monotonic() - last > 0.5:
                shown = notifier.version
                last = self.time.monotonic()
                try:
                    terminal.update(for_view(facade.snapshot("arbiter"), "arbiter"))
                except Exception:  # the view must never take the service down
                    log.exception("terminal view failed")

    async def start(self, source: Source, facade: ServiceFacade, face: ClockFace,
                    buttons: Buttons, hall: LinkedTable) -> None:
        """Open the devices and servers: the clock's ``buttons`` go where they say, the
        web page shows ``facade``, the clock displays ``face``'s time, and the hall
        link joins ``hall``."""
        table = self.table
        config = table.config
        self.source = source
        self.facade = facade
        self._face = face
        driver = config["leds.driver"]
        kind = LED_DRIVERS.get(driver)  # an unknown name is refused by make_leds
        covers = kind.covers if kind is not None else None
        if covers is not None and config["game.size"] != covers:
            # a strip lies under a board of its own size: on a board of another size its
            # lights would sit between the squares, so the overlay is drawn on the page only
            log.warning("leds.driver = \"%s\" covers %s board, the game is %s: the LED "
                        "overlay is on the web page only", driver, board_size(covers).a_label,
                        board_size(config["game.size"]).label)
            driver = "web"
        self.leds = make_leds(driver, LedSetup(
            source, table.notifier.notify, config["leds.order"], config.source))
        if config["clock.buttons"]:
            self.clockhw = _open_clock_hardware(config, buttons, self.time)
        if config["web.enabled"]:
            from controller.web import WebServer

            routes: list[Any] = []
            if hasattr(source, "connect"):  # the phone's and the tablet's pages
                from controller.web.phone_routes import phone_routes

                routes = phone_routes(source)  # type: ignore[arg-type]
            self.web = WebServer(facade, config["web.host"], config["web.port"],
                                 self.token, extra_routes=routes,
                                 ssl=_certificate(config),
                                 session_seconds=config["web.session_hours"] * 3600.0)
            await self.web.start()
            self.url = self.web.url
            log.info("arbiter view: %s/arbiter", self.url)
            # the token goes to the person at the terminal only, never to a log file
            if routes:
                from controller.web.qr import qr_text

                key = f"?key={getattr(source, 'device_key', '')}"
                log.info("phone pages: %s/camera and %s/clock (the addresses with their key: "
                         "the arbiter's view, or %s/phone from it)", self.url, self.url, self.url)
                # the device key goes to the person at the terminal only, as the token does
                tell_terminal(f"camera page (open it on the phone over the board):\n"
                              f"{qr_text(self.url + '/camera' + key)}{self.url}/camera{key}\n"
                              f"clock page: {self.url}/clock{key}\n"
                              f"both as QR codes: {self.url}/phone{key}")
            if not tell_terminal(f"arbiter view: {self.url}/arbiter?token={self.token}") \
                    and not config["web.token"]:
                log.warning("web.token is empty and the output is not a terminal: the random "
                            "arbiter token cannot be shown; set web.token")
        if self.wants_engine():
            from controller.engine.seat import EngineSeat, spec_from_config

            plays = config["engine.plays"]
            self.engine = EngineSeat(table, self.show, spec_from_config(config),
                                     None if plays == "none" else Color(plays))
            self.engine.changed()
        if config["hub.enabled"]:
            from controller.table_link.link import HubLink, link_settings

            self.hub = HubLink(hall, link_settings(config))
            self.hub.start()

    def wants_engine(self) -> bool:
        """An engine only at a home table (rule 21), and only if it has work: an opponent
        to play, or a page where the player can ask for hints."""
        core, config = self.table.core, self.table.config
        if core is None or core.settings.mode != "home":
            return False
        return config["engine.plays"] != "none" or config["web.enabled"]

    async def stop(self, source: Source) -> None:
        with contextlib.suppress(Exception):
            await source.close()
        if self.engine is not None:
            with contextlib.suppress(Exception):
                await self.engine.close()
        if self.hub is not None:
            await asyncio.to_thread(self.hub.stop)
        if self.web is not None:
            await self.web.stop()
        if self.clockhw is not None:
            self.clockhw.close()
        if self.leds is not None and hasattr(self.leds, "off"):
            with contextlib.suppress(Exception):
                self.leds.off()
        if self.terminal is not None and self.facade is not None:
            self.terminal.update(for_view(self.facade.snapshot("arbiter"), "arbiter"))


def _certificate(config: Config) -> tuple[str, str] | None:
    """The HTTPS certificate and key files, made on first start (``web.https``)."""
    want = config["web.https"]
    if want == "off" or (want == "auto" and config["source.kind"] != "browser"):
        return None
    from pathlib import Path

    from controller.web.tls import ensure_certificate

    folder = config["web.certificate"] or str(Path(config["journal.path"]).parent / "tls")
    cert, key = ensure_certificate(Path(folder))
    return str(cert), str(key)


def clock_pins(cfg: Config) -> ClockPins:
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


def _call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[..., object], *args: object
               ) -> None:
    """Hand a callback from the pin library's thread to the event loop."""
    loop.call_soon_threadsafe(fn, *args)


def _open_clock_hardware(config: Config, buttons: Buttons, time: GameTime) -> ClockHardware:
    from controller.clockhw.hardware import ClockHardware

    loop = asyncio.get_running_loop()
    return ClockHardware(
        clock_pins(config),
        on_press=lambda color, t: _call_soon(loop, buttons.press, color, t),
        on_pause=lambda t: _call_soon(loop, buttons.pause_button),
        time_source=time.monotonic,  # the service's own clock: edges map to game time
        display=config["clock.display"],
    )


def _log_task_error(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("LED update failed: %s", task.exception())
