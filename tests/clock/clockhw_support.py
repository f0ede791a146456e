"""The clock hardware's tests share one rig: gpiozero's mock pins recording every level
change in order, the TM1637's bus decoded from them independently of the driver, and a
ClockHardware on those pins with buttons pressed as a player presses them."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory, MockPin

from controller.clockhw import ClockPins
from controller.clockhw.hardware import ClockHardware
from controller.squares import Color

PINS = ClockPins()


DIGITS = {v: k for k, v in {
    "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66, "5": 0x6D,
    "6": 0x7D, "7": 0x07, "8": 0x7F, "9": 0x6F, "-": 0x40, " ": 0x00,
}.items()}  # fmt: skip


BUS_LOG: list[tuple[str, bool]] = []


class RecordingPin(MockPin):
    """A mock pin that appends every level change, in order, to one shared log."""

    def _change_state(self, value: bool) -> bool:
        changed = super()._change_state(value)
        if changed:
            BUS_LOG.append((self.info.name, bool(value)))
        return changed


def gpio(n: int | str) -> str:
    return f"GPIO{n}"


def decode_bus(log: list[tuple[str, bool]], clk: str, dio: str) -> list[list[int]]:
    """Transactions (start .. stop) on one display's two lines, as lists of bytes.

    A TM1637 samples DIO on each rising CLK edge; DIO may only change while CLK is low,
    except for start (DIO falls, CLK high) and stop (DIO rises, CLK high). Every ninth
    clock is the acknowledge slot; the stop takes one more clock with DIO low. Edges on
    an idle bus (power-up) carry nothing.
    """
    level = {clk: False, dio: False}  # mock pins start low, then the bus idles high
    transactions: list[list[int]] = []
    bits: list[int] | None = None
    for name, value in log:
        if name not in level:
            continue
        if name == dio and level[clk]:
            if not value:
                assert bits is None, "start condition inside a transaction"
                bits = []
            else:
                if bits is None:  # DIO rising on an idle bus (power-up): no meaning
                    level[name] = value
                    continue
                # the stop raises CLK with DIO low before DIO rises: one clock past the bytes
                assert len(bits) % 9 == 1, f"stop after {len(bits)} clocks, not whole bytes"
                assert bits[-1] == 0, "DIO must be low when CLK rises for the stop"
                bits = bits[:-1]
                data = []
                for k in range(0, len(bits), 9):
                    assert bits[k + 8] == 0, "ACK slot: DIO held low, never fighting the chip"
                    data.append(sum(b << i for i, b in enumerate(bits[k : k + 8])))
                transactions.append(data)
                bits = None
        elif name == clk and value:
            if bits is not None:  # the chip ignores clocks outside a transaction
                bits.append(int(level[dio]))
        level[name] = value
    assert bits is None, "transaction never stopped"
    return transactions


def decode_display(transactions: list[list[int]]) -> tuple[str, bool, int]:
    """The text, colon and brightness of the last complete frame written."""
    assert len(transactions) >= 3
    data_cmd, address, control = transactions[-3:]
    assert data_cmd == [0x40], "data command: write with auto-increment"
    assert address[0] == 0xC0 and len(address) == 5, "address 0 then four digits"
    assert control[0] & 0xF8 == 0x88, "display control: on"
    text = "".join(DIGITS[b & 0x7F] for b in address[1:])
    colon = bool(address[2] & 0x80)
    assert not any(b & 0x80 for i, b in enumerate(address[1:]) if i != 1)
    return text, colon, control[0] & 0x07


class Rig:
    def __init__(self) -> None:
        BUS_LOG.clear()
        self.now = 0.0
        self.factory = MockFactory(pin_class=RecordingPin)
        self.presses: list[tuple[Color, float]] = []
        self.pauses: list[float] = []
        self.hw = ClockHardware(
            PINS,
            on_press=lambda c, t: self.presses.append((c, t)),
            on_pause=self.pauses.append,
            pin_factory=self.factory,
            time_source=lambda: self.now,
            half_period=0,
        )

    def pin(self, n: int | str) -> MockPin:
        return self.factory.pin(n)

    def press(self, n: int | str, at: float, hold: float = 0.15) -> None:
        self.now = at
        self.pin(n).drive_low()
        self.now = at + hold
        self.pin(n).drive_high()

    def display(self, color: Color) -> tuple[str, bool, int]:
        clk, dio = (
            (PINS.black_clk, PINS.black_dio)
            if color is Color.BLACK
            else (PINS.white_clk, PINS.white_dio)
        )
        return decode_display(decode_bus(BUS_LOG, gpio(clk), gpio(dio)))
