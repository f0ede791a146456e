"""The LED drivers by name: ``leds.driver`` in the configuration picks one of these.

Each entry says in a line what it lights (the configuration's documentation, the
example file and docs/configuration.md are made from these lines) and builds its
driver from a :class:`LedSetup`, importing its own modules only when chosen, so a
service without a strip never loads the SPI code. Adding a driver is one entry here
and its module beside this one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from controller.errors import KaeshiError
from controller.leds.plan import LedDriver
from controller.leds.strip import STRIP_SIZE


@dataclass(frozen=True, slots=True)
class LedSetup:
    """What a driver may be built from: the service's parts, as the configuration says."""

    #: The board's source; the ``board`` driver needs one with ``set_leds`` (the hall link).
    source: object
    #: Called when the overlay changes, for a page that draws it.
    notify: Callable[[], None]
    #: ``leds.order``: how a strip is wired (``controller.leds.strip.STRIP_ORDERS``).
    order: str = "rows"
    #: The configuration's name, for messages.
    where: str = "the configuration"
    #: Opens the SPI bus for a strip; a test passes a recorder.
    open_spi: Callable[[], Callable[[bytes], None]] | None = None


@dataclass(frozen=True, slots=True)
class LedDriverKind:
    """One ``leds.driver`` value: its line of documentation and how it is built."""

    help: str
    make: Callable[[LedSetup], LedDriver | None]
    #: The board size the lights are laid out for (a strip under an 8x8 board); ``None``
    #: for a driver that lights any size (the page, the sensor board's middle squares).
    covers: int | None = None


def _none(setup: LedSetup) -> None:
    return None


def _board(setup: LedSetup) -> LedDriver:
    from controller.leds.sensor_board import LedLink, SensorBoardLeds

    if not isinstance(setup.source, LedLink):
        raise KaeshiError(f"{setup.where}: leds.driver = \"board\" needs source.kind = "
                          "\"hall\" (the LEDs are on the sensor board)")
    return SensorBoardLeds(setup.source)


def _spi_writer(setup: LedSetup, hz: int) -> Callable[[bytes], None]:
    if setup.open_spi is not None:
        return setup.open_spi()
    from controller.leds.spi import open_spi_writer

    return open_spi_writer(hz=hz)


def _ws2812(setup: LedSetup) -> LedDriver:
    from controller.leds.spi import WS2812_SPI_HZ
    from controller.leds.strip import chain_order
    from controller.leds.ws2812 import Ws2812SpiLeds

    return Ws2812SpiLeds(_spi_writer(setup, WS2812_SPI_HZ), order=chain_order(setup.order))


def _apa102(setup: LedSetup) -> LedDriver:
    from controller.leds.apa102 import APA102_SPI_HZ, Apa102SpiLeds
    from controller.leds.strip import chain_order

    return Apa102SpiLeds(_spi_writer(setup, APA102_SPI_HZ), order=chain_order(setup.order))


def _web(setup: LedSetup) -> LedDriver:
    from controller.leds.web import WebLeds

    return WebLeds(setup.notify)


LED_DRIVERS: dict[str, LedDriverKind] = {
    "none": LedDriverKind("no LEDs", _none),
    "board": LedDriverKind("the sensor board's LEDs", _board),
    "ws2812": LedDriverKind("a WS2812 strip on the Pi's SPI, wired as `leds.order` says",
                            _ws2812, covers=STRIP_SIZE),
    "apa102": LedDriverKind("an APA102 or SK9822 strip on the Pi's SPI (data and clock), "
                            "wired as `leds.order` says", _apa102, covers=STRIP_SIZE),
    "web": LedDriverKind("drawn on the web page only", _web),
}


def make_leds(name: str, setup: LedSetup) -> LedDriver | None:
    """The driver ``leds.driver = name`` asks for (``None`` for no LEDs)."""
    kind = LED_DRIVERS.get(name)
    if kind is None:
        raise KaeshiError(f"{setup.where}: unknown leds.driver {name!r} "
                          f"({', '.join(LED_DRIVERS)})")
    return kind.make(setup)


def documentation(registry: dict[str, LedDriverKind] | None = None) -> str:
    """The choices in words, for the option's documentation."""
    return ", ".join(f"`{name}` ({kind.help})"
                     for name, kind in (registry or LED_DRIVERS).items())
