"""The physical game clock on the Pi's GPIO: buttons in, two TM1637 displays and a buzzer out.

The clock model (``controller.clock``) decides everything; this package only turns
button edges into timestamped callbacks and draws the times it is told to show.
"""

from controller.clockhw.display import DisplayFrame, format_time
from controller.clockhw.hardware import ClockHardware
from controller.clockhw.pins import ClockPins

__all__ = ["ClockHardware", "ClockPins", "DisplayFrame", "format_time"]
