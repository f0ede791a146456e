"""Which GPIO line does what; the defaults match the wiring in hardware/clock.md."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ClockPins:
    """BCM GPIO numbers (gpiozero also accepts names such as ``"GPIO17"`` or ``"BOARD11"``).

    Buttons are wired between the GPIO and ground and use the Pi's internal pull-up,
    so a press reads low. ``debounce`` is the quiet time (seconds) a button line must
    have had before a press counts: long enough to swallow contact bounce, short
    enough that a fast blitz press is never lost.
    """

    black_button: int | str = 17
    white_button: int | str = 27
    pause_button: int | str = 22
    black_clk: int | str = 5
    black_dio: int | str = 6
    white_clk: int | str = 13
    white_dio: int | str = 19
    buzzer: int | str | None = 26
    debounce: float = 0.03
    brightness: int = 5
    dim_brightness: int = 1

    def __post_init__(self) -> None:
        lines = [
            self.black_button,
            self.white_button,
            self.pause_button,
            self.black_clk,
            self.black_dio,
            self.white_clk,
            self.white_dio,
        ]
        if self.buzzer is not None:
            lines.append(self.buzzer)
        seen: set[str] = set()
        for line in lines:
            key = str(line)
            if key in seen:
                raise ValueError(f"clock pins: GPIO {line} is assigned twice")
            seen.add(key)
        for name in ("brightness", "dim_brightness"):
            value = getattr(self, name)
            if not 0 <= value <= 7:
                raise ValueError(f"clock pins: {name} must be 0..7, not {value}")
        if not 0 <= self.debounce <= 0.5:
            raise ValueError(f"clock pins: debounce must be 0..0.5 s, not {self.debounce}")
