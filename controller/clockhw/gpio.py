"""The one place gpiozero is imported: buttons, output lines and the buzzer.

gpiozero picks the pin library itself (lgpio on a Pi 5, RPi.GPIO on earlier Pis);
tests pass ``gpiozero.pins.mock.MockFactory`` as ``pin_factory``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpiozero import Button, Buzzer, DigitalOutputDevice
from gpiozero.exc import BadPinFactory, GPIOZeroError

from controller.errors import KaeshiError


class GpioError(KaeshiError):
    """GPIO is unavailable or a pin cannot be claimed; the message says which."""


def _claim(what: str, pin: int | str, make: Callable[[], Any]) -> Any:
    try:
        return make()
    except BadPinFactory:
        raise GpioError(
            "no GPIO library found: run on a Raspberry Pi with lgpio (Pi 5) or RPi.GPIO"
        ) from None
    except (GPIOZeroError, ValueError) as exc:
        raise GpioError(f"cannot use GPIO {pin} for the {what}: {exc}") from None


def button(
    what: str,
    pin: int | str,
    on_pressed: Callable[[], None],
    on_released: Callable[[], None],
    pin_factory: object | None,
) -> Any:
    """A button to ground using the internal pull-up; callbacks run on gpiozero's thread.

    No ``bounce_time`` is given to the pin library: some (lgpio) debounce by holding
    an edge back until the line has been still that long, which would stamp a press
    late. Bounce is judged by the caller at the first edge instead, which delays nothing.
    """
    dev = _claim(
        what,
        pin,
        lambda: Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory),
    )
    dev.when_pressed = on_pressed
    dev.when_released = on_released
    return dev


def output(what: str, pin: int | str, pin_factory: object | None) -> Any:
    """A push-pull output line starting high (the TM1637 bus idles high)."""
    return _claim(
        what, pin, lambda: DigitalOutputDevice(pin, initial_value=True, pin_factory=pin_factory)
    )


def buzzer(pin: int | str, pin_factory: object | None) -> Any:
    """An active buzzer (it sounds whenever the line is high)."""
    return _claim("buzzer", pin, lambda: Buzzer(pin, pin_factory=pin_factory))
