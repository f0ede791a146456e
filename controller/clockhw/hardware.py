"""ClockHardware: the clock's buttons, displays and buzzer behind one small object.

Button callbacks arrive on gpiozero's background thread on a real Pi (synchronously in
tests with the mock pin factory). The owner must hand them over to its own thread or
event loop, e.g. ``loop.call_soon_threadsafe``; this class never touches the clock model.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from controller.clockhw import gpio
from controller.clockhw.display import DisplayFrame, format_time
from controller.clockhw.displays import CLOCK_DISPLAYS, ClockDisplay, DisplayLines
from controller.clockhw.pins import ClockPins
from controller.squares import Color


class _Debouncer:
    """Accept a press only after the line was quiet for ``quiet`` seconds.

    Measured from the last edge of either direction, so the bounces after a press and
    the bounces of a release are both swallowed, on every pin library alike. A press
    is taken at its first edge and stamped with it: the game clock judges it by that
    instant, so no debounce may delay it (the pin library's own is not used).
    """

    def __init__(self, quiet: float, now: Callable[[], float]) -> None:
        self._quiet = quiet
        self._now = now
        self._last_edge: float | None = None

    def press(self) -> float | None:
        t = self._now()
        last, self._last_edge = self._last_edge, t
        if last is not None and t - last < self._quiet:
            return None
        return t

    def release(self) -> None:
        self._last_edge = self._now()


class ClockHardware:
    """Two player buttons, a pause button, two displays and a buzzer.

    ``display`` names the displays' kind in ``controller.clockhw.displays``.

    ``on_press(color, t)`` is called when ``color``'s button is pressed (``color`` is
    the player who pressed, exactly as in an observation's ``press``); ``on_pause(t)``
    when the arbiter's button is pressed. ``t`` comes from ``time_source``.
    """

    def __init__(
        self,
        pins: ClockPins,
        on_press: Callable[[Color, float], None],
        on_pause: Callable[[float], None],
        pin_factory: object | None = None,
        time_source: Callable[[], float] = time.monotonic,
        half_period: float = 5e-6,
        display: str = "tm1637",
    ) -> None:
        self.pins = pins
        self._on_press = on_press
        self._on_pause = on_pause
        self._now = time_source
        self._lock = threading.Lock()
        self._devices: list[Any] = []
        self._last: dict[Color, DisplayFrame] = {}
        self._buzz_timer: threading.Timer | None = None
        kind = CLOCK_DISPLAYS.get(display)
        if kind is None:
            raise ValueError(f"unknown clock display {display!r} ({', '.join(CLOCK_DISPLAYS)})")
        self._displays: dict[Color, ClockDisplay] = {}
        try:
            for color, clk, dio in ((Color.BLACK, pins.black_clk, pins.black_dio),
                                    (Color.WHITE, pins.white_clk, pins.white_dio)):
                self._displays[color] = kind.make(DisplayLines(
                    f"{color} display", clk, dio, pin_factory, half_period, self._claim))
            self._buzzer = (
                None if pins.buzzer is None else self._claim(gpio.buzzer(pins.buzzer, pin_factory))
            )
            for color, pin in ((Color.BLACK, pins.black_button), (Color.WHITE, pins.white_button)):
                self._add_button(f"{color} button", pin, pin_factory, self._player_cb(color))
            self._add_button("pause button", pins.pause_button, pin_factory, self._pause_cb())
        except BaseException:
            self.close()
            raise

    def _claim(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    def _add_button(
        self,
        what: str,
        pin: int | str,
        pin_factory: object | None,
        fire: Callable[[float], None],
    ) -> None:
        deb = _Debouncer(self.pins.debounce, self._now)

        def pressed() -> None:
            t = deb.press()
            if t is not None:
                fire(t)

        self._claim(gpio.button(what, pin, pressed, deb.release, pin_factory))

    def _player_cb(self, color: Color) -> Callable[[float], None]:
        return lambda t: self._on_press(color, t)

    def _pause_cb(self) -> Callable[[float], None]:
        return lambda t: self._on_pause(t)

    def frames(
        self, black_seconds: float, white_seconds: float, running: Color | None, paused: bool
    ) -> dict[Color, DisplayFrame]:
        """What :meth:`show` would draw; pure."""
        level = self.pins.dim_brightness if paused else self.pins.brightness
        return {
            Color.BLACK: format_time(black_seconds, running is Color.BLACK and not paused, level),
            Color.WHITE: format_time(white_seconds, running is Color.WHITE and not paused, level),
        }

    def show(
        self, black_seconds: float, white_seconds: float, running: Color | None, paused: bool
    ) -> None:
        """Draw both times; a display is only rewritten when its frame changes.

        Call it often (every 50-100 ms): the running side's colon blinks with the time
        passed in. A paused clock shows both times dimmed with steady colons.
        """
        with self._lock:
            for color, frame in self.frames(black_seconds, white_seconds, running, paused).items():
                if self._last.get(color) != frame:
                    self._displays[color].write(frame.segments(), frame.brightness)
                    self._last[color] = frame

    def buzz(self, duration: float = 1.5) -> None:
        """Sound the buzzer for ``duration`` seconds without blocking (flag fall)."""
        if self._buzzer is None or duration <= 0:
            return
        with self._lock:
            if self._buzz_timer is not None:
                self._buzz_timer.cancel()
            self._buzzer.on()
            self._buzz_timer = threading.Timer(duration, self._buzzer.off)
            self._buzz_timer.daemon = True
            self._buzz_timer.start()

    def close(self) -> None:
        """Blank the displays, silence the buzzer and release every pin; safe to repeat."""
        with self._lock:
            if self._buzz_timer is not None:
                self._buzz_timer.cancel()
                self._buzz_timer = None
            for display in getattr(self, "_displays", {}).values():
                try:
                    display.blank()
                except Exception:  # closing must release the pins regardless
                    pass
            self._displays = {}
            for dev in reversed(self._devices):
                dev.close()
            self._devices.clear()
            self._last.clear()
