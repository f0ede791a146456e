"""The HT16K33 backpacks: the times drawn on each display's own two lines, read back
from the recorded lines by the test's own reading of I2C and of the backpack's RAM."""

from __future__ import annotations

from clockhw_support import BUS_LOG, DIGITS, PINS, RecordingPin, gpio
from gpiozero.pins.mock import MockFactory

from controller.clockhw.hardware import ClockHardware
from controller.squares import Color


def decode_i2c(log: list[tuple[str, bool]], scl: str, sda: str) -> list[list[int]]:
    """Transactions on one display's two lines, as I2C defines them: start (SDA falls,
    SCL high), bits most significant first sampled on each rising SCL, a ninth clock
    per byte for the acknowledge, stop (SCL rises with SDA low, then SDA rises). SDA
    may change only while SCL is low, otherwise."""
    level = {scl: False, sda: False}
    transactions: list[list[int]] = []
    bits: list[int] | None = None
    for name, value in log:
        if name not in level:
            continue
        if name == sda and level[scl]:
            if not value:
                assert bits is None, "start condition inside a transaction"
                bits = []
            elif bits is not None:
                # the stop raises SCL with SDA low before SDA rises: one clock past the bytes
                assert len(bits) % 9 == 1, f"stop after {len(bits)} clocks, not whole bytes"
                assert bits.pop() == 0, "SDA must be low when SCL rises for the stop"
                data = []
                for k in range(0, len(bits), 9):
                    assert bits[k + 8] == 0, "ACK slot: SDA held low, never fighting the chip"
                    data.append(sum(b << (7 - i) for i, b in enumerate(bits[k : k + 8])))
                transactions.append(data)
                bits = None
        elif name == scl and value and bits is not None:
            bits.append(int(level[sda]))
        level[name] = value
    assert bits is None, "transaction never stopped"
    return transactions


def decode_backpack(transactions: list[list[int]]) -> tuple[str, bool, int]:
    """The text, colon and dimming of the last frame written to the backpack at 0x70."""
    assert all(t[0] == 0x70 << 1 for t in transactions), "every write goes to 0x70"
    oscillator, ram, dimming, display = (t[1:] for t in transactions[-4:])
    assert oscillator == [0x21] and display == [0x81]
    assert ram[0] == 0x00 and len(ram) == 11, "RAM from address 0: digits, colon between"
    memory = ram[1:]
    text = "".join(DIGITS[memory[a]] for a in (0, 2, 6, 8))
    assert memory[4] in (0, 2) and not any(memory[a] for a in (1, 3, 5, 7, 9))
    assert dimming[0] & 0xF0 == 0xE0
    return text, memory[4] == 2, dimming[0] & 0x0F


def test_clockhw_ht16k33_backpacks_show_times_on_their_own_lines() -> None:
    BUS_LOG.clear()
    factory = MockFactory(pin_class=RecordingPin)
    hw = ClockHardware(PINS, lambda c, t: None, lambda t: None, pin_factory=factory,
                       time_source=lambda: 0.0, half_period=0, display="ht16k33")
    try:
        hw.show(1197.5, 1200.0, Color.WHITE, paused=False)
        black = decode_i2c(BUS_LOG, gpio(PINS.black_clk), gpio(PINS.black_dio))
        white = decode_i2c(BUS_LOG, gpio(PINS.white_clk), gpio(PINS.white_dio))
        assert decode_backpack(black) == ("1958", True, 2 * PINS.brightness + 1)
        assert decode_backpack(white) == ("2000", True, 2 * PINS.brightness + 1)
        hw.show(9.4, 75.0, None, paused=True)
        black = decode_i2c(BUS_LOG, gpio(PINS.black_clk), gpio(PINS.black_dio))
        assert decode_backpack(black) == (" 94 ", True, 2 * PINS.dim_brightness + 1)
    finally:
        hw.close()
    last = decode_i2c(BUS_LOG, gpio(PINS.black_clk), gpio(PINS.black_dio))[-1]
    assert last == [0x70 << 1, 0x80]  # display off
    factory.reset()
