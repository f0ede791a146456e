"""The physical game clock on the Pi's GPIO: buttons in, two displays and a buzzer out.

The clock model (``controller.clock``) decides everything; this package only turns
button edges into timestamped callbacks and draws the times it is told to show.
``ClockHardware`` is in ``controller.clockhw.hardware``, the one part that loads the
pin library: the package itself (the display format, the pins, the registry of
displays the configuration names) stays free of it.
"""

from controller.clockhw.display import DisplayFrame, format_time
from controller.clockhw.pins import ClockPins

__all__ = ["ClockPins", "DisplayFrame", "format_time"]
