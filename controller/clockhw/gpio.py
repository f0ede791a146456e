"""The one place gpiozero is imported: buttons, output lines and the buzzer.

The pin library is chosen by :mod:`controller.clockhw.pinlib` (lgpio on every Pi,
RPi.GPIO or pigpio where one is installed), which explains a failure in full;
tests pass ``gpiozero.pins.mock.MockFactory`` as ``pin_factory``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from gpiozero import Button, Buzzer, Device, DigitalOutputDevice
from gpiozero.exc import BadPinFactory, GPIOZeroError

from controller.clockhw import pinlib
from controller.clockhw.errors import GpioError

__all__ = ["GpioError", "button", "buzzer", "factory", "output"]


def factory(pin_factory: object | None) -> object | None:
    """The factory given, else gpiozero's own when one was set (``Device.pin_factory``,
    or named in ``GPIOZERO_PIN_FACTORY``), else the one :func:`pinlib.default_factory`
    finds."""
    if pin_factory is not None or Device.pin_factory is not None:
        return pin_factory
    if os.environ.get("GPIOZERO_PIN_FACTORY"):
        return None  # the user chose one: gpiozero loads it and says if it cannot
    return pinlib.default_factory()


def _claim(what: str, pin: int | str, make: Callable[[], Any]) -> Any:
    try:
        return make()
    except GpioError:
        raise  # no pin library at all: pinlib's message says it all
    except BadPinFactory as exc:
        raise GpioError(f"no GPIO pin library for the {what}: {exc}") from None
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
        lambda: Button(pin, pull_up=True, bounce_time=None, pin_factory=factory(pin_factory)),
    )
    dev.when_pressed = on_pressed
    dev.when_released = on_released
    return dev


def output(what: str, pin: int | str, pin_factory: object | None) -> Any:
    """A push-pull output line starting high (the TM1637 bus idles high)."""
    return _claim(
        what, pin, lambda: DigitalOutputDevice(pin, initial_value=True,
                                    pin_factory=factory(pin_factory))
    )


def buzzer(pin: int | str, pin_factory: object | None) -> Any:
    """An active buzzer (it sounds whenever the line is high)."""
    return _claim("buzzer", pin, lambda: Buzzer(pin, pin_factory=factory(pin_factory)))
