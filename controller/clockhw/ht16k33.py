"""An HT16K33 4-digit 7-segment backpack (Adafruit's 0.56" and its clones), bit-banged
I2C on two output lines.

Each player's display hangs on its own two GPIO lines, so both sit at the backpack's
default address 0x70 and no I2C bus is shared with anything else on the Pi. As for the
TM1637, SDA is driven low in every acknowledge slot instead of being read: the line is
never fought over, a plain output pin is enough, and a display that is missing stays
dark instead of stalling the service.

I2C sends each byte most significant bit first. A frame sets the oscillator on, the
display RAM (digits at addresses 0, 2, 6 and 8, the colon as bit 1 at address 4), the
dimming (16 steps; Kaeshi's 0..7 take the odd ones) and the display on.
"""

from __future__ import annotations

from controller.clockhw.display import COLON, COLON_DIGIT
from controller.clockhw.tm1637 import OutputLine, busy_wait

DEFAULT_ADDRESS = 0x70
OSCILLATOR_ON = 0x21
DISPLAY_ON = 0x81
DISPLAY_OFF = 0x80
DIMMING = 0xE0
#: Display RAM address of each of the four digits; the colon's is in between.
DIGIT_ADDRESSES = (0x00, 0x02, 0x06, 0x08)
COLON_ADDRESS = 0x04
COLON_BITS = 0x02


def display_ram(digits: bytes) -> bytes:
    """The RAM from address 0 for four digit-register bytes (colon in bit 7 of the
    second, as the TM1637 has it): each digit at its address, the colon at its own."""
    ram = bytearray(DIGIT_ADDRESSES[-1] + 2)
    for address, byte in zip(DIGIT_ADDRESSES, digits, strict=True):
        ram[address] = byte & ~COLON & 0xFF
    if digits[COLON_DIGIT] & COLON:
        ram[COLON_ADDRESS] = COLON_BITS
    return bytes(ram)


class Ht16k33:
    """One display on its own SCL and SDA lines (the registry's CLK and DIO).

    ``half_period`` is the wait after each line change: 5 us keeps the bus under
    100 kHz, the standard rate, and one frame takes about 2 ms.
    """

    def __init__(self, scl: OutputLine, sda: OutputLine, half_period: float = 5e-6,
                 address: int = DEFAULT_ADDRESS) -> None:
        self._scl = scl
        self._sda = sda
        self._wait = busy_wait(half_period)
        self._address = address
        self._scl.on()
        self._sda.on()

    def _set(self, line: OutputLine, high: bool) -> None:
        line.on() if high else line.off()
        self._wait()

    def _byte(self, value: int) -> None:
        for bit in range(7, -1, -1):
            self._set(self._sda, bool(value >> bit & 1))
            self._set(self._scl, True)
            self._set(self._scl, False)
        self._set(self._sda, False)  # the acknowledge slot: held low, never read
        self._set(self._scl, True)
        self._set(self._scl, False)

    def _send(self, *data: int) -> None:
        self._set(self._sda, True)
        self._set(self._scl, True)
        self._set(self._sda, False)  # start: SDA falls while SCL is high
        self._set(self._scl, False)
        for value in (self._address << 1, *data):  # write
            self._byte(value)
        self._set(self._sda, False)
        self._set(self._scl, True)
        self._set(self._sda, True)  # stop: SDA rises while SCL is high

    def write(self, digits: bytes, brightness: int) -> None:
        """Show four digit-register bytes at ``brightness`` 0..7."""
        if len(digits) != 4:
            raise ValueError(f"an HT16K33 frame has 4 digits, not {len(digits)}")
        if not 0 <= brightness <= 7:
            raise ValueError(f"brightness must be 0..7, not {brightness}")
        self._send(OSCILLATOR_ON)
        self._send(0x00, *display_ram(digits))
        self._send(DIMMING | (2 * brightness + 1))
        self._send(DISPLAY_ON)

    def blank(self) -> None:
        """Switch the display off (used when the service stops)."""
        self._send(DISPLAY_OFF)
